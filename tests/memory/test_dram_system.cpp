// The DRAM end to end through `strata run`'s machinery (TLM front end, splitting, responses,
// summary): the reference setups of ../shared/reference/dram reproduce the peers' bandwidths
// where they agree with the JEDEC bounds (within 5%), unloaded latency through TLM, peer trace
// files run unchanged, and config errors name their key. One SystemC run per test.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "accelerators/builtin_kinds.h"
#include "sim/input_error.h"
#include "sim/registry.h"
#include "sim/runner.h"
#include "test_util.h"

using nlohmann::json;
using strata::testing::source_path;
using strata::testing::TempDir;

namespace {

// Runs `experiment` with its results in `out` (a scratch folder when empty); returns the summary.
json run(const std::string& experiment, const std::vector<std::string>& overrides, const std::string& out = "") {
  TempDir d;
  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  const auto resolved = strata::resolve_experiment(experiment, overrides, registry);
  strata::RunOptions options;
  options.output_dir = out.empty() ? d.file("out") : out;
  options.progress = strata::ProgressMode::Off;
  const auto result = strata::run_experiment(resolved, registry, options);
  return json(result.summary);
}

json run_shipped(const std::string& name, std::vector<std::string> overrides, const std::string& out = "") {
  overrides.push_back("sim.check_protocol=true");
  return run(source_path("configs/experiments/" + name + ".yaml"), overrides, out);
}

}  // namespace

TEST(DramSystem, Ddr4RandomReproducesThePeers) {
  // DRAMsim3 20.51 GB/s, Ramulator 2 21.90 GB/s (both within the JEDEC bound).
  const json s = run_shipped("dram-ddr4-random", {"workload.requests=300000"});
  EXPECT_GE(s["bandwidth_gbps"].get<double>(), 20.51 * 0.95);
  EXPECT_LE(s["bandwidth_gbps"].get<double>(), 21.90 * 1.05);
  EXPECT_LT(s["row_hit_rate"].get<double>(), 0.01);
  for (const char* key : {"requests", "bandwidth_gbps", "avg_read_latency_ns", "row_hit_rate", "energy_j",
                          "simulated_time_s"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["requests"].get<double>(), 300000);
}

TEST(DramSystem, Ddr4MixedReadWriteLandsBetweenThePeers) {
  // Random 64 B requests, a third of them writes, on the same DDR4 setup: DRAMsim3 18.88 GB/s
  // (at tCK 0.625 ns; 18.73 at its own 0.63), Ramulator 2.1 19.45 GB/s, both measured on one
  // trace (docs/memory.md, Validation). A row opened for a request of one kind is not closed by
  // a turn of the write drain before that request is served: about one ACT per request, as in
  // the peers (before, 12% more ACTs and 17.4 GB/s).
  TempDir d;
  const auto out = d.file("out");
  const json s = run_shipped("dram-ddr4-random", {"workload.requests=300000", "workload.read_fraction=0.6667"}, out);
  EXPECT_GE(s["bandwidth_gbps"].get<double>(), 18.88 * 0.97);
  EXPECT_LE(s["bandwidth_gbps"].get<double>(), 19.45 * 1.03);
  const json stats = strata::testing::json_file(out + "/stats.json");
  EXPECT_LE(stats["hardware"]["commands"]["ACT"]["value"].get<double>(), 300000 * 1.01);
  EXPECT_GT(stats["hardware"]["commands"]["WR"]["value"].get<double>(), 90000);
}

TEST(DramSystem, Ddr4StreamWithXorMappingReproducesRamulator) {
  const json s = run_shipped("dram-ddr4-stream", {"workload.requests=300000"});
  EXPECT_NEAR(s["bandwidth_gbps"].get<double>(), 24.09, 0.05 * 24.09);  // Ramulator 2, MOP4CLXOR
  EXPECT_GT(s["row_hit_rate"].get<double>(), 0.9);
}

TEST(DramSystem, Hbm2StreamReproducesThePeersAndDramsim3Energy) {
  // DRAMsim3 235.7 GB/s, Ramulator 2 (MOP4CLXOR) 222.3 GB/s; DRAMsim3 1.96 pJ/bit.
  const json s = run_shipped("dram-hbm2-stream", {"workload.requests=600000"});
  EXPECT_GE(s["bandwidth_gbps"].get<double>(), 222.3 * 0.95);
  EXPECT_LE(s["bandwidth_gbps"].get<double>(), 235.7 * 1.05);
  EXPECT_NEAR(s["energy_pj_per_bit"].get<double>(), 1.96, 0.10 * 1.96);
}

// 16 pseudo-channels behind one front end, random rows: no request may wait for an unrelated
// event (a regression: a request that waited for another's row hit once slept until refresh).
// One channel alone reaches the bound within 10% (test_dram.cpp); behind one front end a full
// channel's queue holds the others up (head-of-line blocking, as in the peers' front ends), so
// here the floor is 80%. Peers: Ramulator 2 71.8 GB/s, DRAMsim3 61.8 GB/s.
TEST(DramSystem, Hbm2RandomApproachesTheActivateBoundBehindOneFrontEnd) {
  const json s = run_shipped("dram-hbm2-stream", {"workload.requests=200000", "workload.pattern=random"});
  // Per pseudo-channel min(16 / tRC, 4 / tFAW, 1 / tRRD_S) = 0.25 ACT per cycle of 32 B at
  // 1 GHz, times 16, less refresh (350 / 3900): 116.5 GB/s.
  EXPECT_GE(s["bandwidth_gbps"].get<double>(), 0.80 * 116.5);
  EXPECT_LE(s["bandwidth_gbps"].get<double>(), 116.5);
  EXPECT_LT(s["p99_read_latency_ns"].get<double>(), 1000);
}

TEST(DramSystem, Lpddr5RandomReproducesRamulator) {
  const json s = run_shipped("dram-lpddr5-random", {"workload.requests=100000"});
  EXPECT_NEAR(s["bandwidth_gbps"].get<double>(), 5.70, 0.05 * 5.70);
}

// Through the TLM front end: a closed-row read, a hit, a conflict, far apart (no refresh).
TEST(DramSystem, UnloadedLatencyThroughTlmIsTheJedecFormula) {
  TempDir d;
  // DDR4-3200 row-bank-rank-column-channel: row bits start at 64 * 128 * 2 * 16 = 256 KiB.
  d.write("t.trace", "0 R 0x0\n10000 R 0x40\n20000 R 0x40000\n");
  const std::string exp = d.write(
      "exp.yaml", "name: t\nhardware: {extends: " + source_path("configs/hardware/memory/ddr4-3200.yaml") +
                      ", controller: {refresh: none}}\nworkload: {kind: memory_trace, path: t.trace, clock: 1.6 GHz}\n");
  const json s = run(exp, {"sim.check_protocol=true"});
  const double tck = 0.625;  // ns
  EXPECT_DOUBLE_EQ(s["p50_latency_ns"].get<double>(), (22 + 22 + 4) * tck);       // closed: RCD + CL + burst
  EXPECT_DOUBLE_EQ(s["p99_latency_ns"].get<double>(), (22 + 22 + 22 + 4) * tck);  // conflict: + RP
  EXPECT_DOUBLE_EQ(s["avg_latency_ns"].get<double>(), (48 + 26 + 70) * tck / 3);  // and a hit: CL + burst
}

// Peer simulators' trace files run unchanged, by format key or by extension.
namespace {
void run_peer_trace(const std::string& file, const std::string& text, const std::string& format) {
  TempDir d;
  d.write(file, text);
  const std::string exp = d.write("exp.yaml", "name: t\nhardware: {extends: " +
                                                  source_path("configs/hardware/memory/ddr4-3200.yaml") +
                                                  "}\nworkload: {kind: memory_trace, path: " + file + ", format: " +
                                                  format + ", clock: 1.6 GHz}\n");
  const json s = run(exp, {"sim.check_protocol=true"});
  EXPECT_EQ(s["requests"].get<double>(), 3);
  EXPECT_EQ(s["bytes"].get<double>(), 192);
}
}  // namespace

TEST(DramSystem, RamulatorTraceRunsUnchanged) {
  run_peer_trace("ramulator.trace", "LD 0x1000\nST 0x2040\nLD 0x1000\n", "ramulator");
}
TEST(DramSystem, Dramsim3TraceRunsUnchanged) {
  run_peer_trace("dramsim3.trace", "0x1000 READ 0\n0x2040 WRITE 5\n0x1000 READ 9\n", "dramsim3");
}
TEST(DramSystem, DramsysStlTraceRunsUnchangedByExtension) {
  run_peer_trace("dramsys.stl", "0: read 0x1000\n5: write 0x2040\n9: read 0x1000\n", "auto");
}

TEST(DramSystem, ControllerConfigErrorsNameTheKey) {
  TempDir d;
  const std::string exp = d.write("exp.yaml", "name: t\nhardware: {extends: " +
                                                  source_path("configs/hardware/memory/ddr4-3200.yaml") +
                                                  "}\nworkload: {kind: memory_synthetic, pattern: random, requests: 10}\n");
  const auto error = [&](const std::string& override) {
    try {
      run(exp, {override});
    } catch (const strata::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("hardware.controller.refresh=per_bank").find("hardware.controller.refresh: DDR4 has no per-bank"),
            std::string::npos);
  EXPECT_NE(error("hardware.controller.mapping=row-bank-column").find("hardware.controller.mapping:"),
            std::string::npos);
  EXPECT_NE(error("workload.span=16 B").find("span"), std::string::npos);
}

TEST(DramSystem, TimelineShowsEveryCommand) {
  // The timeline opens after elaboration (it waits for the result folder); the DRAM installs its
  // per-command tracing while it is built, so it asks whether one was requested.
  TempDir d;
  run(source_path("configs/experiments/dram-ddr4-random.yaml"), {"workload.requests=200", "sim.timeline=true"},
      d.file("out"));
  const json t = strata::testing::json_file(d.file("out/timeline.json"));
  std::map<std::string, int> commands;
  for (const json& e : t["traceEvents"])
    if (e.value("ph", "") == "i")
      ++commands[e["name"].get<std::string>().substr(0, e["name"].get<std::string>().find(' '))];
  EXPECT_EQ(commands["RD"], 200);
  EXPECT_GE(commands["ACT"], 190);  // random reads: almost every one opens a row
}
