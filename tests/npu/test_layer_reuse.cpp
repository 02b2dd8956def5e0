// sim.reuse: layers. Which layers the NPU finds identical (layer_reuse.h), and whole decode runs
// simulated both ways: reuse must land within 0.5% of simulating every layer.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "accelerators/npu/layer_reuse.h"
#include "test_util.h"

namespace strata::testing {
namespace {

// A prologue operator, `layers` layers of a GEMM and a ReLU each (the GEMM reads the layer
// before's output), and an epilogue; lowered to one core, one tile per operator.
struct Model {
  OpGraph graph;
  NpuProgram program;
};

Model layered(int layers) {
  Model m;
  OpGraph& g = m.graph;
  TensorId x = g.add_tensor("x", TensorClass::Activations, {4, 8}, "int8");
  const auto lower = [&](OpId op, std::uint64_t bytes) {
    LoweredOp l;
    l.op = op;
    l.name = g.op(op).name;
    l.mapping = "one tile";
    for (OpId d : g.op(op).deps) l.deps.push_back(d);
    Tile t;
    t.loads.push_back({DmaDescriptor{static_cast<std::uint64_t>(op) << 20, 1, bytes, 0, false}, !l.deps.empty()});
    TileStep step;
    step.unit = TileStep::Unit::Vector;
    step.vector_kind = "relu";
    step.rows = 4;
    step.cols = 8;
    t.steps.push_back(step);
    t.stores.push_back(DmaDescriptor{static_cast<std::uint64_t>(op) << 24, 1, 32, 0, true});
    l.cores.push_back({t});
    m.program.ops.push_back(l);
  };
  const auto relu = [&](const std::string& name, TensorId in, TensorId out, std::int32_t layer) {
    Operator op;
    op.name = name;
    op.kind = OpKind::Relu;
    op.dims = {{"elements", 32}};
    op.inputs = {in};
    op.outputs = {out};
    op.layer = layer;
    return g.add_op(op);
  };
  const TensorId e = g.add_tensor("embedded", TensorClass::Activations, {4, 8}, "int8");
  lower(relu("embed", x, e, -1), 32);
  x = e;
  for (int l = 0; l < layers; ++l) {
    const TensorId w = g.add_tensor(fmt::format("w{}", l), TensorClass::Weights, {8, 8}, "int8");
    const TensorId h = g.add_tensor(fmt::format("h{}", l), TensorClass::Activations, {4, 8}, "int8");
    const TensorId y = g.add_tensor(fmt::format("y{}", l), TensorClass::Activations, {4, 8}, "int8");
    Operator gemm;
    gemm.name = fmt::format("l{}.fc", l);
    gemm.kind = OpKind::Gemm;
    gemm.dims = {{"m", 4}, {"n", 8}, {"k", 8}};
    gemm.inputs = {x, w};
    gemm.outputs = {h};
    gemm.layer = l;
    lower(g.add_op(gemm), 64);
    lower(relu(fmt::format("l{}.relu", l), h, y, l), 32);
    x = y;
  }
  const TensorId out = g.add_tensor("out", TensorClass::Activations, {4, 8}, "int8");
  lower(relu("head", x, out, -1), 32);
  return m;
}

TEST(LayerReuse, IdenticalLayersAfterTheSecondAreReused) {
  const Model m = layered(5);
  const LayerReusePlan plan = plan_layer_reuse(m.graph, m.program);
  EXPECT_EQ(plan.layers, 5u);
  ASSERT_EQ(plan.runs.size(), 1u);
  const LayerRun& run = plan.runs[0];
  EXPECT_EQ(run.first, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(run.second, (std::vector<std::size_t>{3, 4}));
  ASSERT_EQ(run.repeats.size(), 3u);
  EXPECT_EQ(run.repeats[2], (std::vector<std::size_t>{9, 10}));
  EXPECT_EQ(plan.reused(), 3u);
  // Counting only.
  const LayerReusePlan counted = plan_layer_reuse(m.graph, m.program, false);
  EXPECT_EQ(counted.layers, 5u);
  EXPECT_TRUE(counted.runs.empty());
}

TEST(LayerReuse, TwoIdenticalLayersAreBothSimulated) {
  const Model m = layered(2);
  EXPECT_TRUE(plan_layer_reuse(m.graph, m.program).runs.empty());
}

TEST(LayerReuse, ALayerThatDiffersBreaksTheRun) {
  // Layers 0-1 identical, layer 2 loads more, layers 3-6 identical again: only 3-6 form a run.
  Model m = layered(7);
  m.program.ops[5].cores[0][0].loads[0].d.row_bytes = 128;
  LayerReusePlan plan = plan_layer_reuse(m.graph, m.program);
  ASSERT_EQ(plan.runs.size(), 1u);
  EXPECT_EQ(plan.runs[0].first, (std::vector<std::size_t>{7, 8}));
  EXPECT_EQ(plan.runs[0].repeats.size(), 2u);
  // A different mapping or vector step counts too.
  m = layered(4);
  m.program.ops[4].cores[0][0].steps[0].vector_kind = "gelu";
  EXPECT_TRUE(plan_layer_reuse(m.graph, m.program).runs.empty());
  m = layered(4);
  m.program.ops[5].mapping = "two tiles";
  EXPECT_TRUE(plan_layer_reuse(m.graph, m.program).runs.empty());
}

TEST(LayerReuse, CollectivesAndAddressesDecide) {
  Model m = layered(4);
  m.program.ops[5].external = true;  // a collective in layer 2: timed by the package
  EXPECT_TRUE(plan_layer_reuse(m.graph, m.program).runs.empty());
  // Addresses differ between the layers in every model here: they are not compared.
  m = layered(4);
  EXPECT_NE(m.program.ops[1].cores[0][0].loads[0].d.address, m.program.ops[3].cores[0][0].loads[0].d.address);
  EXPECT_EQ(plan_layer_reuse(m.graph, m.program).runs.size(), 1u);
}

// Whole runs. Latency and energy within 0.5% of simulating every layer (docs/performance.md
// gives the measured error), with every reused operator's figures reported.
struct ReuseRuns {
  nlohmann::json none, layers, none_stats, layers_stats;
};

ReuseRuns run_reuse_and_none(const std::string& experiment, const std::string& sets) {
  TempDir dir;
  ReuseRuns b;
  for (const char* mode : {"none", "layers"}) {
    const std::string out = dir.file(mode);
    const CommandResult r =
        run_strata(fmt::format("run -q {} {} --set sim.reuse={} -o '{}'", source_path(experiment), sets, mode, out));
    EXPECT_EQ(r.code, 0) << r.err;
    (std::string(mode) == "none" ? b.none : b.layers) = json_file(out + "/summary.json");
    (std::string(mode) == "none" ? b.none_stats : b.layers_stats) = json_file(out + "/stats.json");
  }
  return b;
}

void expect_close(const ReuseRuns& b, const char* key, double tolerance) {
  const double full = b.none[key].get<double>(), reused = b.layers[key].get<double>();
  EXPECT_LE(std::abs(reused / full - 1), tolerance) << key << ": every layer " << full << ", reused " << reused;
}

TEST(LayerReuse, Gpt2DecodeWithinHalfAPercent) {
  const ReuseRuns b = run_reuse_and_none("configs/experiments/npu-gpt2-decode-edge.yaml", "");
  EXPECT_EQ(b.none["simulated_layers"], 12);
  EXPECT_EQ(b.none["reused_layers"], 0);
  EXPECT_EQ(b.layers["simulated_layers"], 2);
  EXPECT_EQ(b.layers["reused_layers"], 10);
  expect_close(b, "latency_s", 0.005);
  expect_close(b, "energy_j", 0.005);
  expect_close(b, "simulated_time_s", 0.005);
  // Every operator is reported, the reused ones marked, with the figures of their measured copy.
  const auto& ops = b.layers_stats["hardware"]["ops"]["s0"];
  EXPECT_EQ(ops["l1"]["q_proj"]["reused"]["value"], 0);
  EXPECT_EQ(ops["l5"]["q_proj"]["reused"]["value"], 1);
  EXPECT_DOUBLE_EQ(ops["l5"]["q_proj"]["latency"]["value"].get<double>(),
                   ops["l1"]["q_proj"]["latency"]["value"].get<double>());
  EXPECT_EQ(b.none_stats["hardware"]["ops"]["s0"]["l5"]["q_proj"]["reused"]["value"], 0);
  // Counts are repeats of the measured layer: the DRAM read the same bytes.
  EXPECT_EQ(b.layers_stats["hardware"]["memory"]["bytes_read"]["value"],
            b.none_stats["hardware"]["memory"]["bytes_read"]["value"]);
}

TEST(LayerReuse, Llama4LayersWithinHalfAPercent) {
  const ReuseRuns b = run_reuse_and_none("configs/experiments/npu-llama-decode.yaml", "--set workload.model.layers=4");
  EXPECT_EQ(b.layers["simulated_layers"], 2);
  EXPECT_EQ(b.layers["reused_layers"], 2);
  expect_close(b, "latency_s", 0.005);
  expect_close(b, "energy_j", 0.005);
}

TEST(LayerReuse, AnalyticAndMoeLayersAreNotReused) {
  // Every MoE layer routes its tokens its own way: no two are identical.
  TempDir dir;
  const std::string moe =
      dir.write("moe.yaml",
                "name: moe\nseed: 1\nhardware:\n  extends: " + source_path("configs/hardware/npu/edge-npu.yaml") +
                    "\nworkload:\n  kind: transformer\n  phase: decode\n  batch: 8\n  prompt_len: 64\n"
                    "  gen_tokens: 1\n  model:\n    extends: " +
                    source_path("configs/models/mixtral-8x7b.yaml") +
                    "\n    layers: 4\n    hidden: 512\n    heads: 8\n    kv_heads: 2\n    expert_hidden: 256\n"
                    "    vocab: 1000\n  quant: {weights: int8, activations: int8, kv_cache: int8, accumulate: fp32}\n");
  const CommandResult r = run_strata("run -q '" + moe + "' -o '" + dir.file("moe") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = json_file(dir.file("moe/summary.json"));
  EXPECT_EQ(s["simulated_layers"], 4);
  EXPECT_EQ(s["reused_layers"], 0);
  const CommandResult a = run_strata("run -q " + source_path("configs/experiments/npu-gpt2-decode-edge.yaml") +
                                     " --set sim.fidelity=analytic -o '" + dir.file("a") + "'");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(json_file(dir.file("a/summary.json"))["reused_layers"], 0);
}

TEST(LayerReuse, ATimeLimitedRunSimulatesEveryLayer) {
  // Repeats would report time past the limit: with sim.max_time the layers are all simulated,
  // and the run stops at the limit.
  TempDir dir;
  const CommandResult r = run_strata("run -q " + source_path("configs/experiments/npu-gpt2-decode-edge.yaml") +
                                     " --set sim.max_time=2ms -o '" + dir.file("t") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = json_file(dir.file("t/summary.json"));
  EXPECT_EQ(s["status"], "time_limit");
  EXPECT_EQ(s["reused_layers"], 0);
  EXPECT_LE(s["simulated_time_s"].get<double>(), 2e-3 * (1 + 1e-9));
}

}  // namespace
}  // namespace strata::testing
