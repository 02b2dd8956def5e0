// The gnn and moe_layer workload kinds: closed-form operation counts on Cora, orders, degree-
// aware precision, MoE routing figures, and their bad inputs.
#include <gtest/gtest.h>

#include "workload_test_util.h"
#include "workloads/opgraph/graph_summary.h"

namespace strata {
namespace {

using testing::source_path;
using testing::WorkloadFixture;

std::string gcn_yaml(const std::string& model, const std::string& order, const std::string& extra = "") {
  return "workload:\n  kind: gnn\n  model: " + model + "\n  layer_dims: [1433, 16, 7]\n  order: [" + order +
         "]\n  graph:\n    source: planetoid\n    path: " + source_path("configs/datasets/cora/cora.edges.txt") + "\n" +
         extra;
}

double flops_of(const OpGraph& g, OpKind kind, std::int32_t layer) {
  double f = 0;
  for (const auto& op : g.ops())
    if (op.kind == kind && op.layer == layer) f += op_flops(op);
  return f;
}

// Cora: 2,708 nodes, 10,556 directed edges plus 2,708 self loops; X has 49,216 nonzeros.
constexpr double kN = 2708, kA = 10556 + 2708, kX = 49216;

TEST(Gnn, CoraLayerOneOrdersMatchTheClosedForm) {
  WorkloadFixture f;
  const OpGraph& cf = f.graph_of_yaml(gcn_yaml("gcn", "combine_first, combine_first"));
  // A(XW): sparse X times W (2·nnz(X)·16), then Â times XW (2·nnz(Â)·16).
  EXPECT_EQ(flops_of(cf, OpKind::SpMM, 0), 2 * kX * 16 + 2 * kA * 16);
  EXPECT_EQ(flops_of(cf, OpKind::Gemm, 0), 0);
  WorkloadFixture f2;
  const OpGraph& af = f2.graph_of_yaml(gcn_yaml("gcn", "aggregate_first, combine_first"));
  // (AX)W: Â times dense X (2·nnz(Â)·1433), then a dense GEMM (2·N·1433·16).
  EXPECT_EQ(flops_of(af, OpKind::SpMM, 0), 2 * kA * 1433);
  EXPECT_EQ(flops_of(af, OpKind::Gemm, 0), 2 * kN * 1433 * 16);
  EXPECT_GT(flops_of(af, OpKind::SpMM, 0) + flops_of(af, OpKind::Gemm, 0),
            50 * (flops_of(cf, OpKind::SpMM, 0) + flops_of(cf, OpKind::Gemm, 0)));
}

TEST(Gnn, AutoPicksTheCheaperOrderPerLayer) {
  WorkloadFixture f;
  GraphWorkload& w = f.make(f.dir().write("g.yaml", gcn_yaml("gcn", "auto")));
  const auto info = *w.info();
  ASSERT_EQ(info["layers"].size(), 2u);
  EXPECT_EQ(info["layers"][0]["order"], "combine_first");
  EXPECT_EQ(info["layers"][0]["flops_combine_first"].get<double>(), 2 * kX * 16 + 2 * kA * 16);
  EXPECT_EQ(info["layers"][0]["flops_aggregate_first"].get<double>(), 2 * kA * 1433 + 2 * kN * 1433 * 16);
  EXPECT_EQ(info["graph"]["nodes"], 2708);
  EXPECT_EQ(info["graph"]["edges"], 10556);
  EXPECT_EQ(info["parameters"], 1433 * 16 + 16 * 7);
}

TEST(Gnn, SageAndGinAddTheirMatrices) {
  WorkloadFixture f;
  const OpGraph& sage = f.graph_of_yaml(gcn_yaml("sage", "combine_first"));
  EXPECT_EQ(summarize(sage).parameters, 2 * (1433 * 16 + 16 * 7));
  // SAGE aggregates over neighbours only: no self loops.
  EXPECT_EQ(flops_of(sage, OpKind::SpMM, 0), 2 * kX * 16 * 2 + 2 * 10556.0 * 16);
  WorkloadFixture f2;
  const OpGraph& gin = f2.graph_of_yaml(gcn_yaml("gin", "combine_first"));
  EXPECT_EQ(summarize(gin).parameters, 1433 * 16 + 16 * 16 + 16 * 7 + 7 * 7);
  EXPECT_EQ(flops_of(gin, OpKind::Gemm, 0), 2 * kN * 16 * 16);
}

TEST(Gnn, DegreeAwareFormatsSplitNodeFeatures) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(gcn_yaml(
      "gcn", "combine_first", "  quant: {degree_bounds: [4, 16], degree_formats: [int4, int8, fp16]}\n"));
  const Tensor& xw = g.tensor(g.find_tensor("l0.combine"));
  ASSERT_EQ(xw.format, "mixed");
  // Cora's degree buckets: 2,504 nodes below 4, 157 + 35 = 192 below 16... bucket by in-degree:
  // [0,4): 0 + 485 + 1136 = 1621, [4,16): 883 + 157 = 1040, [16,∞): 35 + 12 = 47.
  ASSERT_EQ(xw.parts.size(), 3u);
  EXPECT_EQ(xw.parts[0].elements, 1621 * 16);
  EXPECT_EQ(xw.parts[1].elements, 1040 * 16);
  EXPECT_EQ(xw.parts[2].elements, 47 * 16);
  EXPECT_LT(xw.bytes, 2708u * 16 * 2);
}

TEST(Gnn, SyntheticGraphsAreSeeded) {
  const std::string yaml = "workload:\n  kind: gnn\n  layer_dims: [64, 16]\n  graph: {source: rmat, scale: 10}\n";
  WorkloadFixture a, b, c;
  const double fa = summarize(a.graph_of_yaml(yaml)).flops;
  EXPECT_EQ(fa, summarize(b.graph_of_yaml(yaml)).flops);
  EXPECT_NE(fa, summarize(c.graph_of_yaml("seed: 9\n" + yaml)).flops);
}

TEST(Gnn, BadInputsNameTheirKeys) {
  WorkloadFixture f;
  EXPECT_NE(f.error_of_yaml(gcn_yaml("gcn", "sideways")).find("workload.order[0]: \"sideways\" is not"), std::string::npos);
  EXPECT_NE(f.error_of_yaml("workload:\n  kind: gnn\n  layer_dims: [1000, 16]\n  graph: {path: " +
                            source_path("configs/datasets/cora/cora.edges.txt") + "}\n")
                .find("the dataset has 1433 input features, not 1000"),
            std::string::npos);
  EXPECT_NE(f.error_of_yaml(gcn_yaml("gcn", "auto", "  quant: {degree_bounds: [4], degree_formats: [int4]}\n"))
                .find("needs one format per bucket"),
            std::string::npos);
  EXPECT_NE(f.error_of_yaml(gcn_yaml("gcn", "auto", "  feature_density: [0.5, 2]\n")).find("workload.feature_density[1]"),
            std::string::npos);
  EXPECT_NE(f.error_of_yaml("workload:\n  kind: gnn\n  layer_dims: [8, 4]\n  graph: {source: edge_list}\n")
                .find("source edge_list needs a path"),
            std::string::npos);
  const std::string bad = f.dir().write("bad.txt", "0 1\n1 x\n");
  EXPECT_NE(f.error_of_yaml("workload:\n  kind: gnn\n  layer_dims: [8, 4]\n  graph: {source: edge_list, path: " + bad + "}\n")
                .find("bad.txt:2"),
            std::string::npos);
}

std::string moe_yaml(const std::string& routing, const std::string& extra = "") {
  return "workload:\n  kind: moe_layer\n  tokens: 256\n  model:\n    extends: " +
         source_path("configs/models/mixtral-8x7b.yaml") + "\n  routing: " + routing + "\n" + extra;
}

TEST(MoeLayer, ExpertRowsCoverEveryAssignment) {
  WorkloadFixture f;
  GraphWorkload& w = f.make(f.dir().write("m.yaml", moe_yaml("{popularity: zipf, hot_ratio: 3}")));
  const OpGraph& g = w.graph();
  std::int64_t rows = 0;
  for (const auto& op : g.ops())
    if (op.kind == OpKind::GroupedGemm && op.name == "moe.experts.up") rows = op.dim("m");
  EXPECT_EQ(rows, 256 * 2);
  const auto info = *w.info();
  EXPECT_EQ(info["parameters"], 8 * 3 * 4096 * 14336LL + 8 * 4096);
  EXPECT_EQ(info["active_parameters"], 2 * 3 * 4096 * 14336LL + 8 * 4096);
  // The routing figures come from the same routing the graph used.
  std::int64_t sum = 0;
  for (const auto& n : info["routing"]["expert_tokens"]) sum += n.get<std::int64_t>();
  EXPECT_EQ(sum, 512);
  EXPECT_GT(info["routing"]["hot_ratio"].get<double>(), 2);
}

TEST(MoeLayer, CapacityDropsAndDevicesAddAllToAll) {
  WorkloadFixture f;
  GraphWorkload& w = f.make(f.dir().write(
      "m.yaml", moe_yaml("{popularity: zipf, hot_ratio: 3, capacity_factor: 1.0, devices: 4, placement: load_balanced}")));
  const auto info = *w.info();
  const auto dropped = info["routing"]["dropped_assignments"].get<std::int64_t>();
  EXPECT_GT(dropped, 0);
  std::int64_t rows = 0, a2a = 0;
  for (const auto& op : w.graph().ops()) {
    if (op.kind == OpKind::GroupedGemm && op.name.find(".up") != std::string::npos) rows += op.dim("m");
    if (op.kind == OpKind::AllToAll) ++a2a;
  }
  EXPECT_EQ(rows, 512 - dropped);
  EXPECT_GT(info["network_bytes"].get<double>(), 0);
  EXPECT_GE(a2a, 2);
}

TEST(MoeLayer, RoutingTraceDropsIn) {
  WorkloadFixture f;
  std::string trace;
  for (int t = 0; t < 4; ++t)
    trace += "{\"layer\": 0, \"token_idx\": " + std::to_string(t) + ", \"experts\": [" + std::to_string(t % 8) +
             ", 7], \"gating_probs\": [0.6, 0.4]}\n";
  const std::string path = f.dir().write("routes.jsonl", trace);
  GraphWorkload& w = f.make(f.dir().write("m.yaml", "workload:\n  kind: moe_layer\n  tokens: 4\n  model:\n    extends: " +
                                                        source_path("configs/models/mixtral-8x7b.yaml") +
                                                        "\n  routing: {source: trace, trace: " + path + "}\n"));
  const auto load = (*w.info())["routing"]["expert_tokens"];
  EXPECT_EQ(load, nlohmann::ordered_json({1, 1, 1, 1, 0, 0, 0, 4}));
  EXPECT_NE(f.error_of_yaml("workload:\n  kind: moe_layer\n  tokens: 5\n  model:\n    extends: " +
                            source_path("configs/models/mixtral-8x7b.yaml") + "\n  routing: {source: trace, trace: " +
                            path + "}\n")
                .find("routes 4 tokens; the workload needs 5"),
            std::string::npos);
}

TEST(MoeLayer, BadInputs) {
  WorkloadFixture f;
  EXPECT_NE(f.error_of_yaml(moe_yaml("{source: trace}")).find("workload.routing.trace: source: trace needs a trace file"),
            std::string::npos);
  EXPECT_NE(f.error_of_yaml("workload:\n  kind: moe_layer\n  model:\n    extends: " +
                            source_path("configs/models/llama-2-7b.yaml") + "\n")
                .find("moe_layer needs a model with experts > 0"),
            std::string::npos);
  EXPECT_NE(f.error_of_yaml(moe_yaml("{placement: nearest}")).find("workload.routing.placement"), std::string::npos);
  const std::string m = f.dir().write("t.txt", "1 0\n0 1\n");
  EXPECT_NE(f.error_of_yaml(moe_yaml("{layer_affinity: 1, transition: " + m + "}")).find("t.txt:1"), std::string::npos);
}

}  // namespace
}  // namespace strata
