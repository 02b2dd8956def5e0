// Cambricon-LLM's power model (sim/device_power.h): the NPU chiplet runs one clock for the run,
// rated against power_limit; the flash dies' compute cores keep their own clock and supply.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

double per_event(const ExampleRun& r, const std::string& event) {
  return r.hw("energy", event) / r.hw("events", event);
}

ExampleRun llama7b(const std::string& sets) {
  return run_example("configs/experiments/chiplet-cambricon-s-llama7b.yaml", "--set hardware.clocks.boost=1GHz " + sets);
}

TEST(CambriconPower, ALimitSlowsTheNpuChipletAndLeavesTheFlashCores) {
  const ExampleRun boost = llama7b("");
  EXPECT_DOUBLE_EQ(boost.get("sustained_clock_hz"), 1e9);
  // Between the ratings at the curve's floor (0.58 of the boost) and at the boost.
  const double floor = llama7b("--set hardware.dvfs=fixed --set hardware.clock=580MHz").hw("power", "rated");
  const double limit = 0.5 * (floor + boost.hw("power", "rated_at_boost"));
  const ExampleRun capped = llama7b("--set hardware.power_limit=" + std::to_string(limit) + "W");
  EXPECT_LT(capped.get("sustained_clock_hz"), 0.97e9);
  EXPECT_LE(capped.hw("power", "rated"), limit);
  EXPECT_GT(capped.get("latency_s"), boost.get("latency_s"));
  const double factor = capped.hw("power", "supply_factor");
  EXPECT_LT(factor, 1);
  EXPECT_NEAR(per_event(capped, "npu_mac") / per_event(boost, "npu_mac"), factor, 1e-9);
  EXPECT_DOUBLE_EQ(per_event(capped, "flash_core_mac"), per_event(boost, "flash_core_mac"));
}

}  // namespace
}  // namespace strata::testing
