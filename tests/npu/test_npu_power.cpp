// The NPU's power model (sim/device_power.h): with clocks its cores run one clock for the run,
// capped at the fastest clock whose rated power (every unit busy, the memory streaming at its
// peak) meets the limit; their events cost the supply squared and their clock tree draws power.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

using NpuRun = ExampleRun;

// Summed over the cores' matrix engines: `section` "energy" or "events".
double engines(const NpuRun& r, const std::string& section, const std::string& what) {
  double sum = 0;
  for (const auto& [name, node] : r.stats["hardware"].items())
    if (name.rfind("core", 0) == 0) sum += node["engine"][section][what]["value"].get<double>();
  return sum;
}
double joules_per_mac(const NpuRun& r) { return engines(r, "energy", "mac_int8") / engines(r, "events", "mac_int8"); }

// One Llama decode layer on the TPUv4i-style NPU (every setting in `sets`).
NpuRun decode(const std::string& sets, const std::string& fidelity = "analytic") {
  return run_example("configs/experiments/npu-llama-decode.yaml", "--set sim.fidelity=" + fidelity + " " + sets);
}

const std::string kClocks = "--set hardware.clocks.boost=1.05GHz ";

// Without clocks nothing changes; with them the cores' clock tree draws power every cycle, and
// without a limit they run at the boost.
TEST(NpuPower, ClocksAddTheClockTreeAndRunAtTheBoost) {
  for (const char* fidelity : {"analytic", "cycle"}) {
    SCOPED_TRACE(fidelity);
    const NpuRun plain = decode("", fidelity);
    EXPECT_EQ(plain.get("sustained_clock_hz"), -1);  // unmanaged: no such key
    const NpuRun boost = decode(kClocks, fidelity);
    EXPECT_DOUBLE_EQ(boost.get("sustained_clock_hz"), 1.05e9);
    EXPECT_EQ(boost.get("power_limited_fraction"), 0);
    EXPECT_DOUBLE_EQ(boost.get("latency_s"), plain.get("latency_s"));
    EXPECT_DOUBLE_EQ(engines(boost, "energy", "total"), engines(plain, "energy", "total"));
    // The clock tree: a cycle of the run's reported time, every cycle.
    EXPECT_NEAR(boost.hw("events", "clock"), boost.get("simulated_time_s") * 1.05e9, 1);
    EXPECT_NEAR(boost.get("energy_j") - plain.get("energy_j"), boost.get("energy_clock_j"),
                1e-9 * boost.get("energy_j"));
  }
}

// A limit under the rated power at the boost lowers the clock until the rated power meets it;
// the run draws less than its rating. The cores' events cost the supply squared.
TEST(NpuPower, ALimitLowersTheRatedClock) {
  const NpuRun boost = decode(kClocks);
  const double rated = 0.8 * boost.hw("power", "rated_at_boost");
  ASSERT_GT(rated, 0);
  const NpuRun capped = decode(kClocks + "--set hardware.power_limit=" + std::to_string(rated) + "W");
  const double hz = capped.get("sustained_clock_hz");
  EXPECT_LT(hz, 0.95 * 1.05e9);
  EXPECT_EQ(capped.get("power_limited_fraction"), 1);
  EXPECT_LT(capped.get("avg_power_w"), rated);
  EXPECT_GT(capped.get("latency_s"), boost.get("latency_s"));
  // A MAC at the lower clock's supply, on the preset's table's curve.
  const double factor = capped.hw("power", "supply_factor");
  EXPECT_LT(factor, 0.95);
  EXPECT_NEAR(joules_per_mac(capped) / joules_per_mac(boost), factor, 1e-9);
  // The bisection meets the limit, to the 1 MHz it floors the clock to.
  EXPECT_LE(capped.hw("power", "rated"), rated);
  EXPECT_GT(capped.hw("power", "rated"), 0.99 * rated);
  // dvfs: fixed at that clock costs the same per MAC, limit or not.
  const NpuRun fixed = decode(kClocks + "--set hardware.dvfs=fixed --set hardware.power_limit=1W --set hardware.clock=" +
                              std::to_string(hz) + "Hz");
  EXPECT_DOUBLE_EQ(fixed.get("sustained_clock_hz"), hz);
  EXPECT_EQ(fixed.get("power_limited_fraction"), 0);
  EXPECT_NEAR(joules_per_mac(fixed), joules_per_mac(capped), 1e-9 * joules_per_mac(capped));
}

// Given nothing to run, the cores hold clocks.idle; the clock tree's power is in every window of
// the power series, not only in the run's total.
TEST(NpuPower, AnIdleNpuHoldsItsIdleClock) {
  TempDir dir;
  const std::string exp = dir.write(
      "idle.yaml", "name: npu-idle\nhardware:\n  extends: " + source_path("configs/hardware/npu/tpuv4i.yaml") +
                       "\nworkload:\n  kind: idle\n  duration: 20 us\n");
  const NpuRun boost = run_example(exp, kClocks);
  const NpuRun idle = run_example(exp, kClocks + "--set hardware.clocks.idle=300MHz");
  EXPECT_DOUBLE_EQ(boost.get("sustained_clock_hz"), 1.05e9);
  EXPECT_DOUBLE_EQ(idle.get("sustained_clock_hz"), 300e6);
  EXPECT_EQ(idle.get("power_limited_fraction"), 0);
  EXPECT_LT(idle.get("energy_clock_j"), boost.get("energy_clock_j") * 300 / 1050.0);
  for (const NpuRun* r : {&boost, &idle})
    EXPECT_NEAR(r->get("peak_power_w"), r->get("avg_power_w"), 0.1 * r->get("avg_power_w"));
}

TEST(NpuPower, BadLimitsAreOneLineErrors) {
  const std::string exp = "configs/experiments/npu-llama-decode.yaml --set sim.fidelity=analytic ";
  for (const auto& [sets, key] : {std::pair<std::string, std::string>{"--set hardware.power_limit=100W", "needs the clocks"},
                                  {kClocks + "--set hardware.clocks.base=100MHz", "outside the clock's curve"},
                                  {kClocks + "--set hardware.power_limit=-1W", "hardware.power_limit"}}) {
    TempDir dir;
    const CommandResult r = run_strata("run -q " + exp + sets + " -o '" + dir.file("out") + "'");
    EXPECT_EQ(r.code, 2) << sets;
    EXPECT_CONTAINS(r.err, key);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out/summary.json")));
  }
}

}  // namespace
}  // namespace strata::testing
