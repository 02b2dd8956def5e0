// The DRAM's power at rest: its ranks' precharged standby (IDD2N) and the interface's standby
// (the technology table's phy_standby per bit of the peak rate), drawn whether or not data moves.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace strata::testing {
namespace {

// The `idle` workload on a bare HBM3 stack at `clock`: its static power (W).
double resting_watts(const std::string& clock) {
  TempDir dir;
  const std::string exp = dir.write(
      "idle.yaml", "name: hbm3-idle\nhardware:\n  extends: " + source_path("configs/hardware/memory/hbm3.yaml") +
                       "\n  clock: " + clock + "\nworkload:\n  kind: idle\n  duration: 5 us\n");
  const ExampleRun r = run_example(exp, "");
  return r.get("energy_static_j") / r.get("latency_s");
}

// The interface's standby follows its peak rate (the stack's 819.2 GB/s at 1.6 GHz, half at
// 0.8 GHz); the ranks' standby and the PHY's leakage do not depend on the clock.
TEST(DramPower, TheInterfaceStandbyFollowsItsPeakRate) {
  const double full = resting_watts("1.6 GHz"), half = resting_watts("0.8 GHz");
  const double peak_half_bytes = 819.2e9 / 2;
  EXPECT_NEAR(full - half, 1.06e-12 * 8 * peak_half_bytes, 1e-3);
  EXPECT_GT(half, full - half);  // standby and leakage remain
}

}  // namespace
}  // namespace strata::testing
