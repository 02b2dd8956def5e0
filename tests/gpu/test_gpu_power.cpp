// The GPU's power management (hardware.power_limit, clocks, dvfs; sim/power_management.h): under
// a limit each kernel runs at the fastest clock whose closed-form power stays within it, its
// events cost the supply squared, and the clock tree draws power at every clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

constexpr double kBoostHz = 1.98e9;  // the H100 preset's clocks.boost

using PowerRun = ExampleRun;

// The example's 1024^3 FP16 GEMM on the H100 preset.
PowerRun gemm(const std::string& sets) { return run_example("configs/experiments/gpu-gemm.yaml", sets); }

// A limit under the GEMM's power at the boost slows its clock until its power meets the limit,
// at either fidelity; without a limit it runs at the boost.
TEST(GpuPower, ALimitLowersTheClockUntilThePowerMeetsIt) {
  for (const char* fidelity : {"analytic", "cycle"}) {
    SCOPED_TRACE(fidelity);
    // Without the launch, whose idle SMs (their tree gated) lower the run's average under the kernel's.
    const std::string f = std::string("--set hardware.kernel_launch=0 --set sim.fidelity=") + fidelity;
    const PowerRun free = gemm(f + " --set hardware.power_limit=0W");
    EXPECT_DOUBLE_EQ(free.get("sustained_clock_hz"), kBoostHz);
    // An analytic run's power is its average throughout, the clock tree's included.
    if (std::string(fidelity) == "analytic")
      EXPECT_NEAR(free.get("peak_power_w"), free.get("avg_power_w"), 1e-6 * free.get("avg_power_w"));
    EXPECT_EQ(free.get("power_limited_fraction"), 0);
    const double limit = 0.75 * free.get("avg_power_w");  // over the base's power
    const PowerRun capped = gemm(f + " --set hardware.power_limit=" + std::to_string(limit) + "W");
    const double hz = capped.get("sustained_clock_hz");
    EXPECT_LT(hz, 0.95 * kBoostHz);
    EXPECT_GT(hz, 0.58 * kBoostHz);  // over the curve's lowest point, the preset's floor
    EXPECT_GT(capped.get("power_limited_fraction"), 0.9);
    EXPECT_GT(capped.get("latency_s"), free.get("latency_s") * 1.05);
    // The closed form's power is what the run draws, within the difference between the estimate
    // and the run (the kernel's launch and tail, the DRAM's standby, and at cycle level its
    // output's stores queueing at the L2's slices, which the closed form takes at their rate).
    EXPECT_NEAR(capped.get("avg_power_w"), limit, 0.10 * limit);
  }
}

// dvfs: fixed runs every kernel at `clock`, limit or not.
TEST(GpuPower, FixedPinsTheClock) {
  const PowerRun r = gemm("--set sim.fidelity=analytic --set hardware.dvfs=fixed --set hardware.power_limit=100W");
  EXPECT_DOUBLE_EQ(r.get("sustained_clock_hz"), 1.83e9);
  EXPECT_EQ(r.get("power_limited_fraction"), 0);
  EXPECT_GT(r.get("avg_power_w"), 100);
}

// An event at a lower clock costs its supply squared, from the node's curve: 5 nm's curve puts
// 0.738 of the top clock at 0.8 of the supply. The clock tree's cycles cost the same factor.
TEST(GpuPower, EventsCostTheSupplySquared) {
  const auto per_mac = [](const PowerRun& r) { return r.hw("energy", "mac_fp16") / r.hw("events", "mac_fp16"); };
  const auto per_cycle = [](const PowerRun& r) { return r.hw("energy", "clock") / r.hw("events", "clock"); };
  const std::string pinned = "--set sim.fidelity=analytic --set hardware.dvfs=fixed --set hardware.clock=";
  const PowerRun top = gemm(pinned + "1980MHz");
  const PowerRun low = gemm(pinned + std::to_string(0.738 * kBoostHz) + "Hz");
  EXPECT_NEAR(per_mac(low) / per_mac(top), 0.64, 1e-6);
  EXPECT_NEAR(per_cycle(low) / per_cycle(top), 0.64, 1e-6);
  EXPECT_NEAR(top.hw("events", "clock"), top.get("latency_s") * kBoostHz, 0.01 * top.get("latency_s") * kBoostHz);
}

// Read when the design is built: the run stops there, with no result.
// summary.json splits energy_j into static, clock, dynamic and memory energy; with --timeline
// the power of every statistics window is the counter track "power".
TEST(GpuPower, TheSummarySplitsEnergyAndTheTimelineCarriesPower) {
  TempDir dir;
  const std::string exp = "configs/experiments/gpu-gemm.yaml";
  const CommandResult r =
      run_strata("run -q --timeline " + exp + " " + smoke_settings(exp) + " -o '" + dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = json_file(dir.file("out/summary.json"));
  for (const char* key :
       {"energy_static_j", "energy_clock_j", "energy_dynamic_j", "energy_memory_j", "energy_delivery_j"})
    EXPECT_GT(s[key].get<double>(), 0) << key;
  EXPECT_NEAR(s["energy_static_j"].get<double>() + s["energy_clock_j"].get<double>() +
                  s["energy_dynamic_j"].get<double>() + s["energy_memory_j"].get<double>() +
                  s["energy_delivery_j"].get<double>(),
              s["energy_j"].get<double>(), 1e-12);
  const nlohmann::json timeline = json_file(dir.file("out/timeline.json"));
  int counters = 0;
  double peak = 0;
  for (const auto& e : timeline["traceEvents"])
    if (e.value("ph", "") == "C" && e.value("name", "") == "power") {
      ++counters;
      peak = std::max(peak, e["args"]["W"].get<double>());
    }
  EXPECT_GT(counters, 3);
  EXPECT_NEAR(peak, s["peak_power_w"].get<double>(), 1e-3 * peak);
}

void expect_error(const std::string& args, const std::string& key, const std::string& fragment) {
  TempDir dir;
  const CommandResult r = run_strata("run -q " + args + " --set sim.fidelity=analytic -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2) << args;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/summary.json"))) << args;
  EXPECT_CONTAINS(r.err, key);
  EXPECT_CONTAINS(r.err, fragment);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
}

// The energy of the traffic the tensor cores and the L2 make: each MMA reads and writes its
// accumulators in the register file (a wgmma m64nN: N/2 warp-wide registers a warp each way),
// and every L2 sector crosses the crossbar, at either fidelity alike.
TEST(GpuPower, AccumulatorsAndTheCrossbarAreCounted) {
  for (const char* fidelity : {"analytic", "cycle"}) {
    SCOPED_TRACE(fidelity);
    const PowerRun r = gemm(std::string("--set hardware.dvfs=fixed --set sim.fidelity=") + fidelity);
    const double macs = r.stats["hardware"]["tensor_macs"]["fp16"]["value"].get<double>();
    const double rf_j = r.stats["hardware"]["energy"]["rf_read"]["value"].get<double>();
    // 1024^3 in 128 x 256 tiles, k 16 a wgmma: a MAC reads 1/16 of a 32-bit accumulator.
    const double reads = macs * 4 / 16 / 128;  // 128 B a warp-wide register
    EXPECT_GT(rf_j, 0);
    const double per_read = rf_j / reads;
    EXPECT_GT(per_read, 50e-12);   // a 1024-bit read of a 64 KB sub-core file at 5 nm: 138 pJ
    EXPECT_LT(per_read, 300e-12);  // (a read per accumulator register, not per MAC)
    const double crossbar = r.stats["hardware"]["energy"]["crossbar_sector"]["value"].get<double>();
    const double l2 = r.stats["hardware"]["energy"]["l2_sector"]["value"].get<double>();
    EXPECT_GT(l2, 0);
    // The same sectors: half of 814 mm2's side at 0.1 pJ/bit/mm is 7.4x an L2 slice's read.
    EXPECT_NEAR(crossbar / l2, 7.4, 0.5);
  }
}

// The board's regulators lose 1 - delivery_efficiency of what they feed (the die and its HBM),
// so the power the limit caps is the board's input; the die's temperature multiplies its leakage
// by the table's doubling (30 K at 5 nm). Neither is counted at their defaults.
TEST(GpuPower, TheBoardsRegulatorsAndTheDiesTemperatureAreCounted) {
  const std::string fixed = "--set sim.fidelity=analytic --set hardware.dvfs=fixed ";
  const PowerRun preset = gemm(fixed);
  const PowerRun bare = gemm(fixed + "--set hardware.delivery_efficiency=1 --set hardware.temperature=25C");
  EXPECT_EQ(bare.get("energy_delivery_j"), -1);  // no such share
  const double loss = preset.get("energy_delivery_j");
  EXPECT_NEAR(loss / (preset.get("energy_j") - loss), 1 / 0.9 - 1, 1e-9);
  // The preset's die at 65 C: 2^(40/30) of the 25 C leakage.
  EXPECT_NEAR(preset.hw("power", "static") / bare.hw("power", "static"), std::exp2(40.0 / 30), 1e-9);
  // The same work and clock: only static power and the loss differ.
  EXPECT_DOUBLE_EQ(preset.get("latency_s"), bare.get("latency_s"));
  EXPECT_NEAR(preset.get("energy_j") - loss,
              bare.get("energy_j") + preset.get("energy_static_j") - bare.get("energy_static_j"),
              1e-9 * preset.get("energy_j"));
  // Capped, the board's input meets the limit: the die gets 90% of it and runs slower.
  // Without the launch, whose idle SMs' gated clock would lower the run's average power under the
  // kernel's.
  const std::string unlaunched = "--set sim.fidelity=analytic --set hardware.kernel_launch=0 ";
  const std::string limit =
      unlaunched + "--set hardware.power_limit=" +
      std::to_string(0.9 * gemm(unlaunched + "--set hardware.power_limit=0W").get("avg_power_w")) + "W ";
  const PowerRun capped = gemm(limit);
  const PowerRun die_only = gemm(limit + "--set hardware.delivery_efficiency=1");
  EXPECT_NEAR(capped.get("avg_power_w"), die_only.get("avg_power_w"), 0.03 * capped.get("avg_power_w"));
  EXPECT_LT(capped.get("sustained_clock_hz"), 0.98 * die_only.get("sustained_clock_hz"));
  EXPECT_GT(capped.get("sustained_clock_hz"), 0.58 * kBoostHz);  // the limit, not the floor, binds
  expect_error("configs/experiments/gpu-gemm.yaml --set hardware.delivery_efficiency=0", "hardware.delivery_efficiency",
               "");
  expect_error("configs/experiments/gpu-gemm.yaml --set hardware.temperature=65", "hardware.temperature", "no unit");
}

// sim.sample's skipped waves carry their energy into the span they repeat, not into the power
// window the repeat happens in (a 212 kW spike on the 8192^3 GEMM before).
TEST(GpuPower, SkippedWavesAddNoSpikeToThePower) {
  const PowerRun r = gemm(
      "--set hardware.dvfs=fixed --set hardware.sms=16 --set hardware.gpcs=2 --set sim.sample=waves "
      "--set workload.m=2048 --set workload.n=2048 --set workload.k=512");
  ASSERT_GT(r.get("skipped_ctas"), 0);
  // The busiest window (the first wave's start) is 1.5x the average; with the spike it was 2.8x here (400x on the
  // 8192^3 GEMM).
  EXPECT_LT(r.get("peak_power_w"), 2 * r.get("avg_power_w"));
}

// An idle card (the `idle` workload) holds clocks.idle at the curve's lowest supply, with the
// gated share of its clock tree (clock_gating) stopped: no SM holds a CTA.
TEST(GpuPower, AnIdleCardHoldsItsIdleClockWithItsGatedTreeStopped) {
  const std::string idle = "configs/validation/silicon/idle.yaml";
  const PowerRun rest = run_example(idle, "");
  EXPECT_DOUBLE_EQ(rest.get("sustained_clock_hz"), 345e6);
  EXPECT_EQ(rest.get("power_limited_fraction"), 0);
  EXPECT_DOUBLE_EQ(rest.get("latency_s"), 50e-6);
  // The silicon suite's power-idle check: the measured H100 at rest, 74.0 W, within 10%.
  EXPECT_NEAR(rest.get("avg_power_w"), 74.0, 0.10 * 74.0);
  EXPECT_EQ(rest.hw("events", "clock_gated"), 0);
  const PowerRun ungated = run_example(idle, "--set hardware.clock_gating=0");
  EXPECT_NEAR(rest.get("energy_clock_j") / ungated.get("energy_clock_j"), 1 - 0.75, 1e-9);
  // A context holding the boost: the ungated tree at f V^2, 1980 MHz at the full supply over 345
  // MHz at the curve's lowest (0.7).
  const PowerRun context = run_example(idle, "--set hardware.clocks.idle=1980MHz");
  EXPECT_NEAR(context.get("energy_clock_j") / rest.get("energy_clock_j"), 1980.0 / 345 / (0.7 * 0.7), 1e-6);
  const PowerRun analytic = run_example(idle, "--set sim.fidelity=analytic");
  EXPECT_NEAR(analytic.get("avg_power_w"), rest.get("avg_power_w"), 0.01 * rest.get("avg_power_w"));
  expect_error(idle + " --set hardware.clocks.idle=2GHz", "hardware.clocks.idle", "above clocks.boost");
  expect_error(idle + " --set hardware.clock_gating=1.5", "hardware.clock_gating", "");
  expect_error(idle + " --set workload.duration=0s", "workload.duration", "");
}

// While kernels run, the gated share runs with each SM that holds a CTA, counted live: no spike
// when a residency closes.
TEST(GpuPower, TheGatedTreeRunsWithTheBusySms) {
  const PowerRun r = gemm("--set hardware.dvfs=fixed");
  const double utilization = r.stats["hardware"]["sm_utilization"]["value"].get<double>();
  ASSERT_GT(utilization, 0.3);
  ASSERT_LT(utilization, 0.999);
  EXPECT_NEAR(r.hw("energy", "clock_gated") / r.hw("energy", "clock"), 0.75 / 0.25 * utilization, 1e-3);
  const PowerRun ungated = gemm("--set hardware.dvfs=fixed --set hardware.clock_gating=0");
  EXPECT_NEAR(r.get("energy_clock_j"), ungated.get("energy_clock_j") * (0.25 + 0.75 * utilization),
              1e-3 * r.get("energy_clock_j"));
  // The busiest window has every SM busy, gated or not (a residency counted when it closed
  // would put its whole span into one window).
  EXPECT_NEAR(r.get("peak_power_w"), ungated.get("peak_power_w"), 0.01 * r.get("peak_power_w"));
}

TEST(GpuPower, BadLimitsAndClocksAreOneLineErrors) {
  const std::string gemm_exp = "configs/experiments/gpu-gemm.yaml ";
  expect_error(gemm_exp + "--set 'hardware.power_limit=-5 W'", "hardware.power_limit", "");
  expect_error(gemm_exp + "--set hardware.clocks.base=500MHz", "hardware.clocks.base", "outside the clock's curve");
  expect_error(gemm_exp + "--set hardware.clocks.base=2100MHz", "hardware.clocks.base", "outside the clock's curve");
  expect_error(gemm_exp + "--set hardware.dvfs=fixed --set hardware.clock=3GHz", "hardware.clock",
               "outside the clock's curve");
  expect_error(gemm_exp + "--set hardware.dvfs=turbo", "hardware.dvfs", "capped|fixed");
  // A limit needs the clocks to step between (the A100 preset declares none).
  expect_error("configs/experiments/gpu-ubench-mma-rate.yaml --set hardware.power_limit=400W", "hardware.power_limit",
               "needs the clocks");
}

// The keys' defaults leave older results' folders alone.
TEST(GpuPower, TheDefaultsLeaveTheConfigHashAlone) {
  const auto hash = [](const std::string& sets) {
    return config_hash_of("configs/experiments/gpu-ubench-mma-rate.yaml " + sets);
  };
  const std::string plain = hash("");
  EXPECT_EQ(hash("--set hardware.power_limit=0W --set hardware.dvfs=capped --set hardware.die_area=0mm2"), plain);
  EXPECT_NE(hash("--set hardware.clocks.boost=1410MHz"), plain);
}

}  // namespace
}  // namespace strata::testing
