// sim.fidelity: analytic against the cycle-level model, through the strata binary: the shipped
// NPU examples with their `# smoke:` settings, GPT-2 decode (memory-bound) and a GEMM
// (compute-bound) on the edge preset, and the DRAM examples' synthetic streams and random
// reads. The bounds are the ones docs/npu.md states (measured errors are in its table):
// latency within 10%, energy within 5%, area identical, the same summary keys.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

constexpr double kLatencyBound = 0.10;
constexpr double kEnergyBound = 0.05;

struct Fidelities {
  nlohmann::json cycle, analytic;
};

// Runs `experiment` with `settings` at both fidelities.
Fidelities run_both(const std::string& experiment, const std::string& settings) {
  TempDir dir;
  Fidelities f;
  for (const char* fidelity : {"cycle", "analytic"}) {
    const CommandResult r = run_strata("run -q '" + experiment + "' " + settings + " --set sim.fidelity=" + fidelity +
                                       " -o '" + dir.file(fidelity) + "'");
    EXPECT_EQ(r.code, 0) << fidelity << ": " << r.err;
    if (r.code != 0) continue;
    (std::string(fidelity) == "cycle" ? f.cycle : f.analytic) = json_file(dir.file(std::string(fidelity) + "/summary.json"));
  }
  return f;
}

void expect_agreement(const std::string& what, const Fidelities& f, const std::string& latency_key) {
  ASSERT_FALSE(f.cycle.is_null());
  ASSERT_FALSE(f.analytic.is_null());
  EXPECT_EQ(f.cycle["fidelity"], "cycle");
  EXPECT_EQ(f.analytic["fidelity"], "analytic");
  std::vector<std::string> cycle_keys, analytic_keys;
  for (const auto& [k, v] : f.cycle.items()) cycle_keys.push_back(k);
  for (const auto& [k, v] : f.analytic.items()) analytic_keys.push_back(k);
  EXPECT_EQ(cycle_keys, analytic_keys) << what;
  const auto within = [&](const std::string& key, double bound) {
    const double c = f.cycle[key].get<double>(), a = f.analytic[key].get<double>();
    EXPECT_LE(std::abs(a / c - 1), bound) << what << ": " << key << " analytic " << a << ", cycle " << c;
  };
  within(latency_key, kLatencyBound);
  within("energy_j", kEnergyBound);
  EXPECT_EQ(f.analytic["area_mm2"].get<double>(), f.cycle["area_mm2"].get<double>()) << what;
}

void check_example(const std::string& name) {
  const std::string experiment = "configs/experiments/" + name + ".yaml";
  expect_agreement(name, run_both(experiment, smoke_settings(experiment)), "latency_s");
}

TEST(AnalyticFidelity, GcnOnCoraAgreesWithCycleLevel) { check_example("npu-gcn-cora"); }

// Memory-bound: every GEMV streams its weights from LPDDR5.
TEST(AnalyticFidelity, Gpt2DecodeOnTheEdgeNpuAgreesWithCycleLevel) { check_example("npu-gpt2-decode-edge"); }

TEST(AnalyticFidelity, LlamaDecodeOnTheDatacenterNpuAgreesWithCycleLevel) { check_example("npu-llama-decode"); }

TEST(AnalyticFidelity, MixtralMoeAgreesWithCycleLevel) { check_example("npu-mixtral-moe"); }

// Compute-bound: 512x1024x1024 INT8 on the edge NPU's 16x16 array (2 TOPS), 0.5 ms of compute
// against 0.1 ms of traffic, with tile rows 129 B apart in memory.
// An experiment of one GEMM (m x k by k x n, in `format`) on the hardware preset `preset`.
std::string one_gemm_experiment(TempDir& dir, const std::string& preset, int m, int n, int k,
                                const std::string& format) {
  const std::string trace = dir.write(
      "gemm.jsonl",
      fmt::format("{{\"format\":\"strata-opgraph\",\"version\":1,\"name\":\"gemm\"}}\n"
                  "{{\"tensor\":\"a\",\"class\":\"activations\",\"shape\":[{0},{2}],\"format\":\"{3}\"}}\n"
                  "{{\"tensor\":\"w\",\"class\":\"weights\",\"shape\":[{2},{1}],\"format\":\"{3}\"}}\n"
                  "{{\"tensor\":\"c\",\"class\":\"activations\",\"shape\":[{0},{1}],\"format\":\"{3}\"}}\n"
                  "{{\"op\":0,\"name\":\"gemm\",\"kind\":\"gemm\",\"dims\":{{\"m\":{0},\"n\":{1},\"k\":{2}}},"
                  "\"inputs\":[\"a\",\"w\"],\"outputs\":[\"c\"],\"compute\":\"{3}\",\"accumulate\":\"fp32\"}}\n",
                  m, n, k, format));
  return dir.write("gemm.yaml", "name: gemm\nhardware:\n  extends: " + source_path(preset) +
                                    "\nworkload:\n  kind: op_trace\n  path: " + trace + "\n");
}

TEST(AnalyticFidelity, ComputeBoundGemmOnTheEdgeNpuAgreesWithCycleLevel) {
  TempDir dir;
  const std::string experiment =
      one_gemm_experiment(dir, "configs/hardware/npu/edge-npu.yaml", 512, 1024, 1024, "int8");
  const Fidelities f = run_both(experiment, "");
  expect_agreement("gemm", f, "latency_s");
  EXPECT_GT(f.cycle["latency_s"].get<double>(), 0.9 * 512.0 * 1024 * 1024 / (16 * 16 * 4) * 1e-9);  // compute-bound
}

// A memory-bound GEMV on the Ascend-style mesh (32 cores, 8 columns), with the cores' traffic
// through one memory port at router 0 and spread over four ports on the first row: both
// fidelities agree with the ports spread as with one, the spread ports shorten the paths
// (hops per message 6 -> 5.125) and relieve the links next to router 0 (cycle-level latency
// 0.99 ms -> 0.36 ms when measured).
TEST(AnalyticFidelity, AMeshWithSeveralMemoryPortsAgreesWithCycleLevel) {
  TempDir dir;
  const std::string experiment =
      one_gemm_experiment(dir, "configs/hardware/npu/ascend-910.yaml", 8, 8192, 4096, "fp16");
  const Fidelities one = run_both(experiment, "");
  const Fidelities four = run_both(experiment, "--set hardware.noc.memory_ports=4");
  expect_agreement("gemv, one memory port", one, "latency_s");
  expect_agreement("gemv, four memory ports", four, "latency_s");
  ASSERT_FALSE(one.cycle.is_null());
  ASSERT_FALSE(four.cycle.is_null());
  EXPECT_LT(four.cycle["latency_s"].get<double>(), 0.5 * one.cycle["latency_s"].get<double>());
}

// The DRAM examples' closed forms, on fewer requests: streams at the sustained bandwidth, random
// reads at the activation bound.
TEST(AnalyticFidelity, DramStreamsAndRandomReadsAgreeWithCycleLevel) {
  for (const char* name : {"dram-ddr4-stream", "dram-hbm2-stream", "dram-ddr4-random", "dram-lpddr5-random"})
    expect_agreement(name,
                     run_both("configs/experiments/" + std::string(name) + ".yaml", "--set workload.requests=200000"),
                     "latency_s");
}

TEST(AnalyticFidelity, SameConfigGivesIdenticalStats) {
  TempDir dir;
  for (const char* out : {"a", "b"})
    ASSERT_EQ(run_strata("run -q configs/experiments/npu-gpt2-decode-edge.yaml --set sim.fidelity=analytic -o '" +
                         dir.file(out) + "'")
                  .code,
              0);
  EXPECT_EQ(read_file(dir.file("a/stats.json")), read_file(dir.file("b/stats.json")));
}

// The roofline's two figures, in both fidelities: 1 core x 16 x 16 PEs x 4 INT8 MACs x 2 x 1 GHz,
// and two LPDDR5-6400 x16 channels.
TEST(AnalyticFidelity, NpuReportsItsRoofline) {
  TempDir dir;
  ASSERT_EQ(run_strata("run -q configs/experiments/npu-gpt2-decode-edge.yaml --set sim.fidelity=analytic -o '" +
                       dir.file("out") + "'")
                .code,
            0);
  const nlohmann::json stats = json_file(dir.file("out/stats.json"));
  EXPECT_DOUBLE_EQ(stats["hardware"]["peak_flops"]["value"].get<double>(), 2.048e12);
  EXPECT_DOUBLE_EQ(stats["hardware"]["peak_bandwidth"]["value"].get<double>(), 25.6e9);
  EXPECT_GT(stats["hardware"]["ops"]["s0"]["l0"]["ffn"]["up"]["latency"]["value"].get<double>(), 0);
}

// A memory driven by a trace has no closed form: one line naming sim.fidelity, exit code 2,
// nothing written.
TEST(AnalyticFidelity, AKindWithoutAnAnalyticModelIsABadInput) {
  TempDir dir;
  const CommandResult r =
      run_strata("run -q configs/experiments/quickstart.yaml --set sim.fidelity=analytic -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("sim.fidelity: component kind 'simple_memory' has no analytic model"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("use sim.fidelity: cycle"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST(AnalyticFidelity, UnknownFidelityNamesTheChoices) {
  const CommandResult r = run_strata("run -q configs/experiments/npu-gcn-cora.yaml --set sim.fidelity=fast");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sim.fidelity"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("analytic"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace strata::testing
