// Whole-NPU runs through the strata binary: decode steps whose memory-bound operators must
// stream at the memory's sustained bandwidth, DMA/compute overlap in the timeline, utilisation
// bounds, determinism, the SCALE-Sim front end, and bad inputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

// The sustained bandwidth (GB/s) of a memory preset on a long sequential stream of `request`
// requests: the bound a streaming operator can reach on it (XOR-hashed controllers reach
// 90-93% of peak; see docs/npu.md).
double stream_bandwidth(const std::string& memory_preset, const std::string& request) {
  TempDir dir;
  const std::string exp = dir.write("stream.yaml", "name: stream\nseed: 1\nhardware:\n  extends: " +
                                                      source_path(memory_preset) +
                                                      "\nworkload:\n  kind: memory_synthetic\n  pattern: stream\n"
                                                      "  requests: 100000\n  request_bytes: " +
                                                      request + "\n  span: 4 GiB\n  clock: 2 GHz\n"
                                                                "  max_outstanding: 1024\n");
  const CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  return json_file(dir.file("out/summary.json"))["bandwidth_gbps"].get<double>();
}

struct OpFigure {
  std::string name;
  double bandwidth_gbps, dram_bytes, memory_bound;
};

void collect(const nlohmann::json& node, const std::string& name, std::vector<OpFigure>& out) {
  if (node.contains("bandwidth") && node["bandwidth"].contains("type")) {
    out.push_back({name, node["bandwidth"]["value"].get<double>(), node["dram_bytes"]["value"].get<double>(),
                   node["memory_bound"]["value"].get<double>()});
    return;
  }
  for (const auto& [k, v] : node.items())
    if (v.is_object()) collect(v, name.empty() ? k : name + "." + k, out);
}

// A one-token decode step of `model` (a configs/models preset) with INT8 weights, activations and
// KV cache on `hardware` (a preset), `layers` of its layers (every layer has the same shapes).
std::string decode_experiment(const TempDir& dir, const std::string& hardware, const std::string& model, int layers) {
  return dir.write("decode.yaml", "name: decode\nseed: 1\nhardware:\n  extends: " + source_path(hardware) +
                                      "\nworkload:\n  kind: transformer\n  phase: decode\n  batch: 1\n"
                                      "  prompt_len: 512\n  gen_tokens: 1\n  model:\n    extends: " +
                                      source_path(model) + "\n    layers: " + std::to_string(layers) +
                                      "\n  quant: {weights: int8, activations: int8, kv_cache: int8, accumulate: fp32}\n");
}

// Runs a decode step and checks that every memory-bound operator long enough to hide the
// memory's latency (at least 20 us of transfer at the bound) streams within 10% of the memory's
// sustained stream bandwidth. Returns how many were checked.
int check_decode(const std::string& hardware, const std::string& model, int layers, const std::string& memory_preset,
                 const std::string& request) {
  TempDir dir;
  const std::string experiment = decode_experiment(dir, hardware, model, layers);
  const CommandResult r = run_strata("run -q '" + experiment + "' -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  const nlohmann::json stats = json_file(dir.file("out/stats.json"));
  std::vector<OpFigure> ops;
  collect(stats["hardware"]["ops"], "", ops);
  const double bound = stream_bandwidth(memory_preset, request);
  int checked = 0;
  for (const OpFigure& op : ops) {
    if (op.memory_bound < 1 || op.dram_bytes < bound * 1e9 * 20e-6) continue;
    ++checked;
    EXPECT_GE(op.bandwidth_gbps, 0.9 * bound) << experiment << ": " << op.name << " streams at " << op.bandwidth_gbps
                                              << " GB/s, the memory sustains " << bound;
  }
  // Engines never exceed their peak.
  for (const auto& [core, node] : stats["hardware"].items())
    if (core.rfind("core", 0) == 0) {
      EXPECT_LE(node["engine"]["utilization"]["value"].get<double>(), 1.0);
    }
  return checked;
}

constexpr const char* kEdge = "configs/hardware/npu/edge-npu.yaml";
constexpr const char* kDatacenter = "configs/hardware/npu/tpuv4i.yaml";
constexpr const char* kLpddr5 = "configs/hardware/memory/lpddr5-6400-x32.yaml";
constexpr const char* kHbm2 = "configs/hardware/memory/hbm2-2.4gbps-2stack.yaml";

TEST(NpuDecode, Gpt2OnTheEdgeNpuStreamsAtTheLpddr5Bound) {
  EXPECT_GE(check_decode(kEdge, "configs/models/gpt2.yaml", 2, kLpddr5, "256 B"), 8);
}

// One of Llama-2-7B's 32 identical layers: every operator shape of the decode step.
TEST(NpuDecode, Llama2_7bInt8OnTheEdgeNpuStreamsAtTheLpddr5Bound) {
  EXPECT_GE(check_decode(kEdge, "configs/models/llama-2-7b.yaml", 1, kLpddr5, "256 B"), 7);
}

TEST(NpuDecode, Llama2_7bInt8OnTheDatacenterNpuStreamsAtTheHbmBound) {
  EXPECT_GE(check_decode(kDatacenter, "configs/models/llama-2-7b.yaml", 1, kHbm2, "512 B"), 7);
}

// GPT-2 small's operators move 0.6-2.4 MB, a few microseconds each at 554 GB/s: latency-bound on
// this chip. GPT-2 XL's FFN layers (10 MB) are long enough to stream.
TEST(NpuDecode, Gpt2XlOnTheDatacenterNpuStreamsAtTheHbmBound) {
  EXPECT_GE(check_decode(kDatacenter, "configs/models/gpt2-xl.yaml", 2, kHbm2, "512 B"), 1);
}

TEST(NpuTimeline, DmaOverlapsCompute) {
  TempDir dir;
  const CommandResult r = run_strata("run -q --timeline configs/experiments/npu-gcn-cora.yaml -o '" + dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json t = json_file(dir.file("out/timeline.json"));
  // Compute spans (ph X on the core's compute track) and DMA transfers (async b/e pairs).
  std::map<int, std::string> tracks;
  for (const auto& e : t["traceEvents"])
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") tracks[e["tid"].get<int>()] = e["args"]["name"];
  std::vector<std::pair<double, double>> compute, dma;
  std::map<std::uint64_t, double> open;
  for (const auto& e : t["traceEvents"]) {
    const std::string ph = e.value("ph", "");
    const std::string track = tracks[e.value("tid", -1)];
    if (ph == "X" && track.find("compute") != std::string::npos)
      compute.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    if (track.find("dma") == std::string::npos) continue;
    if (ph == "b") open[e["id"].get<std::uint64_t>()] = e["ts"].get<double>();
    if (ph == "e") dma.emplace_back(open.at(e["id"].get<std::uint64_t>()), e["ts"].get<double>());
  }
  ASSERT_FALSE(compute.empty());
  ASSERT_FALSE(dma.empty());
  int overlapping = 0;
  for (const auto& c : compute)
    for (const auto& d : dma)
      if (d.first < c.second && c.first < d.second) ++overlapping;
  EXPECT_GT(overlapping, 0) << "no DMA transfer ran while a tile computed";
}

TEST(NpuRuns, SameConfigGivesIdenticalStats) {
  TempDir dir;
  for (const char* out : {"a", "b"})
    ASSERT_EQ(run_strata("run -q configs/experiments/npu-gcn-cora.yaml -o '" + dir.file(out) + "'").code, 0);
  EXPECT_EQ(read_file(dir.file("a/stats.json")), read_file(dir.file("b/stats.json")));
}

TEST(NpuRuns, ScaleSimFrontEndWritesItsReportsAndStrataResults) {
  TempDir dir;
  const CommandResult r = run_strata("run -q --scalesim-config configs/scalesim/scalesim_32x32_os.cfg "
                                     "--scalesim-topology configs/scalesim/gemm_topology.csv -o '" +
                                     dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string compute = read_file(dir.file("out/COMPUTE_REPORT.csv"));
  EXPECT_NE(compute.find("0, 2543, 0, "), std::string::npos) << compute;
  EXPECT_NE(compute.find("1, 146943, 0, "), std::string::npos) << compute;
  EXPECT_NE(compute.find("2, 79679, 0, "), std::string::npos) << compute;
  const nlohmann::json summary = json_file(dir.file("out/summary.json"));
  EXPECT_EQ(summary["status"], "complete");
  // Strata's own run of the same layers: at least SCALE-Sim's stall-free compute cycles (1 GHz).
  EXPECT_GE(summary["latency_s"].get<double>(), (2543 + 146943 + 79679) * 1e-9);
}

TEST(NpuRuns, ScaleSimFlagsGoTogether) {
  const CommandResult r = run_strata("run --scalesim-config configs/scalesim/scalesim_32x32_os.cfg");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--scalesim-topology"), std::string::npos) << r.err;
}

TEST(NpuRuns, UnsupportedFormatNamesTheRatesKey) {
  TempDir dir;
  const CommandResult r = run_strata("run -q configs/experiments/npu-gpt2-decode-edge.yaml --set workload.quant.activations=fp8_e5m2 "
                                     "--set workload.model.layers=1 -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hardware.core.engine.rates"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fp8_e5m2"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST(NpuRuns, TinyScratchpadIsABadInput) {
  TempDir dir;
  const CommandResult r = run_strata("run -q configs/experiments/npu-gpt2-decode-edge.yaml --set workload.model.layers=1 "
                                     "--set hardware.core.scratchpad.capacity=\"1 KiB\" --set hardware.core.scratchpad.banks=1 "
                                     "-o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("scratchpad"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace strata::testing
