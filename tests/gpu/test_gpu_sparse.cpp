// GNN aggregation on the GPU: the SpMM kernels generated from the graph's own rows (docs/gpu.md,
// Sparse kernels), against first principles: the work they count, the load balance of the two
// partitions on skewed and even degree distributions, and the L2's reuse of gathered rows.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

struct SparseRun {
  nlohmann::json summary, stats;
  // A launch's stat; `name` as the launch rows name it ("l0.aggregate").
  double launch(std::string name, const std::string& stat) const {
    std::replace(name.begin(), name.end(), '.', '/');
    return stats.at(nlohmann::json::json_pointer("/hardware/launches/" + name + "/" + stat + "/value")).get<double>();
  }
};

SparseRun run_experiment(TempDir& dir, const std::string& file, const std::string& extra) {
  static int runs = 0;
  const std::string out = dir.file("out" + std::to_string(runs++));
  const CommandResult r = run_strata("run -q '" + file + "' " + extra + " -o '" + out + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {};
  return {json_file(out + "/summary.json"), json_file(out + "/stats.json")};
}

// One GCN layer, aggregation first, 64 FP16 features, on an 8000-node power-law graph of mean
// degree 16 (`gamma` 2.1: hubs of thousands of neighbours; 8: nearly even degrees), on an H100
// whose L2 is cut to 512 KiB so that the 1 MB of gathered features does not fit.
std::string power_law_gcn(TempDir& dir, double gamma) {
  return dir.write("pl" + std::to_string(gamma) + ".yaml",
                   "name: pl\nhardware: {extends: " + source_path("configs/hardware/gpu/h100-sxm.yaml") +
                       ", l2: {size: 512 KiB}}\nworkload: {kind: gnn, model: gcn, layer_dims: [64, 64], "
                       "order: [aggregate_first], graph: {source: power_law, nodes: 8000, avg_degree: 16, gamma: " +
                       std::to_string(gamma) + "}, quant: {weights: fp16, activations: fp16, accumulate: fp32}}\n");
}

TEST(GpuSparse, CoraAggregationRunsOnTheGraphsOwnRows) {
  TempDir dir;
  const SparseRun r = run_experiment(dir, source_path("configs/experiments/gpu-gcn-cora.yaml"), "");
  ASSERT_TRUE(r.stats.contains("hardware"));
  // Cora: 2708 nodes, 10,556 stored edges, A + I: 13,264 nonzeros; the longest row is the
  // 168-neighbour hub plus its diagonal. Layer 0 aggregates 16 features (combination first).
  EXPECT_DOUBLE_EQ(r.launch("l0.aggregate", "flops"), 2.0 * 13264 * 16);
  EXPECT_EQ(r.launch("l0.aggregate", "longest_row"), 169);
  // The CSR arrays (offsets, column ids, FP16 values) come from the DRAM, the features the
  // combination has just written from the L2.
  const double csr = 2709 * 4 + 13264 * 4 + 13264 * 2, features = 2708 * 16 * 2;
  EXPECT_GE(r.launch("l0.aggregate", "dram_bytes"), csr);
  EXPECT_LT(r.launch("l0.aggregate", "dram_bytes"), csr + features);
  EXPECT_GT(r.summary["energy_j"].get<double>(), 0);
  EXPECT_GT(r.summary["area_mm2"].get<double>(), 0);
}

TEST(GpuSparse, SkewedRowsNeedTheMergePathAndHitInTheL2) {
  // With hubs, one warp a row leaves the hubs' warps running long after the rest (stragglers);
  // the merge path gives every warp the same share. With even rows, the merge path's row cuts
  // and smaller grid only cost. Measured (H100, 512 KiB L2): skewed 21.9 vs 12.0 us, even 10.1
  // vs 11.4 us (launch overhead included).
  // The same node count, nonzeros and gathered matrix (twice the L2): where most edges point at
  // a few hubs their rows stay in the L2; with even degrees the gathers spread over every row.
  TempDir dir;
  const std::string skewed = power_law_gcn(dir, 2.1), even = power_law_gcn(dir, 8);
  const auto run = [&](const std::string& file, const std::string& partition) {
    return run_experiment(dir, file, "--set hardware.kernels.spmm_partition=" + partition);
  };
  const SparseRun skewed_rows = run(skewed, "row_split"), skewed_merge = run(skewed, "merge");
  const SparseRun even_rows = run(even, "row_split"), even_merge = run(even, "merge");
  const SparseRun skewed_auto = run(skewed, "auto");
  for (const SparseRun* r : {&skewed_rows, &skewed_merge, &even_rows, &even_merge, &skewed_auto})
    ASSERT_TRUE(r->stats.contains("hardware"));
  const auto time = [](const SparseRun& r) { return r.launch("l0.aggregate", "time"); };
  EXPECT_LT(time(skewed_merge), 0.8 * time(skewed_rows));
  EXPECT_LT(time(even_rows), time(even_merge));
  EXPECT_DOUBLE_EQ(time(skewed_auto), time(skewed_merge));  // auto deals hub-heavy rows by merge path
  const auto hits = [](const SparseRun& r) { return r.launch("l0.aggregate", "l2_hit_rate"); };
  EXPECT_GT(hits(skewed_rows), hits(even_rows) + 0.03);
}

}  // namespace
}  // namespace strata::testing
