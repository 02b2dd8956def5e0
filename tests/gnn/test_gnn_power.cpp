// The GNN accelerator's power model (sim/device_power.h): its engines, buffers and DMA run one
// clock for the run, rated against power_limit; their events cost the supply squared.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

double joules_per_mac(const ExampleRun& r) { return r.hw("energy", "mac") / r.hw("events", "mac"); }

// GCNAX on Cora (its smoke shape), with `sets`.
ExampleRun gcnax(const std::string& sets) { return run_example("configs/experiments/gnn-gcnax-cora.yaml", sets); }

TEST(GnnPower, ALimitUnderTheRatedPowerSlowsTheEnginesClock) {
  for (const char* fidelity : {"analytic", "cycle"}) {
    SCOPED_TRACE(fidelity);
    const std::string f = std::string("--set sim.fidelity=") + fidelity + " --set hardware.clocks.boost=1GHz ";
    const ExampleRun plain = gcnax(std::string("--set sim.fidelity=") + fidelity);
    const ExampleRun boost = gcnax(f);
    EXPECT_DOUBLE_EQ(boost.get("sustained_clock_hz"), 1e9);
    EXPECT_DOUBLE_EQ(boost.get("latency_s"), plain.get("latency_s"));
    EXPECT_GT(boost.get("energy_clock_j"), 0);
    const double limit = 0.9 * boost.hw("power", "rated_at_boost");  // above the floor's rating
    const ExampleRun capped = gcnax(f + "--set hardware.power_limit=" + std::to_string(limit) + "W");
    EXPECT_LT(capped.get("sustained_clock_hz"), 0.95e9);
    EXPECT_EQ(capped.get("power_limited_fraction"), 1);
    EXPECT_LE(capped.hw("power", "rated"), limit);
    EXPECT_GT(capped.get("latency_s"), boost.get("latency_s"));
    EXPECT_NEAR(joules_per_mac(capped) / joules_per_mac(boost), capped.hw("power", "supply_factor"), 1e-9);
  }
}

}  // namespace
}  // namespace strata::testing
