// The GNN accelerator template (accelerators/gnn/): its engines' cycles and DRAM traffic on a
// graph worked by hand, and whole runs through the strata binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "accelerators/gnn/gnn_schedule.h"
#include "models/gnn/combination_timing.h"
#include "models/gnn/feature_formats.h"
#include "models/systolic/systolic_timing.h"
#include "sim/registry.h"
#include "test_util.h"

namespace strata::testing {
namespace {

// The path 0-1-2-3 with self loops (GCN's A + I): rows {0,1}, {0,1,2}, {1,2,3}, {2,3}; 10
// nonzeros. B is 4 x 16 FP32 (64 B rows).
struct PathGraph {
  OpGraph g;
  Operator op;
  PathGraph() {
    Tensor a;
    a.name = "adjacency";
    a.cls = TensorClass::Graph;
    a.shape = {10};
    a.format = "index";
    a.bytes = 10 * 8;  // 8 B an edge: its id and value
    a.structure = std::make_shared<const SparseStructure>(
        SparseStructure{CsrGraph("path", {0, 1, 3, 5, 6}, {1, 0, 2, 1, 3, 2}), true});
    const TensorId adj = g.add_tensor(std::move(a));
    const TensorId b = g.add_tensor("b", TensorClass::Activations, {4, 16}, "fp32");
    const TensorId o = g.add_tensor("o", TensorClass::Activations, {4, 16}, "fp32");
    Operator s;
    s.name = "agg";
    s.kind = OpKind::SpMM;
    s.dims = {{"rows", 4}, {"cols", 4}, {"nnz", 10}, {"n", 16}};
    s.inputs = {adj, b};
    s.outputs = {o};
    op = g.op(g.add_op(s));
  }
};

std::uint64_t rows_fetched(GnnSchedule& s, std::uint64_t row_bytes) {
  std::uint64_t rows = 0;
  GnnStep step;
  s.rewind();
  while (s.next(step))
    for (const auto& d : step.reads)
      if (d.row_bytes == row_bytes) ++rows;
  s.rewind();
  return rows;
}

// Row-wise with a two-row LRU feature buffer: row 0 misses 0 and 1; row 1 hits 0 and 1 and
// misses 2 (evicting 0); row 2 hits 1 and 2 and misses 3 (evicting 1); row 3 hits both: 4 rows
// fetched. 10 edges x 16 products on 8 lanes = 20 cycles; 4 output rows written.
TEST(GnnSchedule, RowWiseAggregationOnAPathGraphByHand) {
  PathGraph p;
  AggregationEngineSpec e;
  e.style = AggregationStyle::RowWise;
  e.lanes = 8;
  e.feature_buffer_bytes = 2 * 64;
  AggregationSchedule s(p.g, p.op, e);
  EXPECT_EQ(rows_fetched(s, 64), 4u);
  const GnnTotals t = s.totals();
  EXPECT_EQ(t.steps, 4u);
  EXPECT_EQ(t.compute_cycles, 20u);
  EXPECT_EQ(t.read_bytes, 4u * 64 + 10 * 8);  // feature rows and every edge once
  EXPECT_EQ(t.write_bytes, 4u * 64);
}

// Outer product with a two-row output tile and no feature buffer: tile {0,1} takes sources 0
// (2 edges into it), 1 (2) and 2 (1); tile {2,3} sources 1 (1), 2 (2) and 3 (2): 6 rows
// fetched, 10 edges x 16 products on 8 lanes = 20 cycles, each tile written once.
TEST(GnnSchedule, OuterProductAggregationOnAPathGraphByHand) {
  PathGraph p;
  AggregationEngineSpec e;
  e.style = AggregationStyle::OuterProduct;
  e.lanes = 8;
  e.output_buffer_bytes = 2 * 64;
  AggregationSchedule s(p.g, p.op, e);
  EXPECT_EQ(rows_fetched(s, 64), 6u);
  const GnnTotals t = s.totals();
  EXPECT_EQ(t.steps, 8u);  // 6 sources and 2 tile write-backs
  EXPECT_EQ(t.compute_cycles, 20u);
  EXPECT_EQ(t.read_bytes, 6u * 64 + 10 * 8);
  EXPECT_EQ(t.write_bytes, 2u * 128);
  // With every row of B on chip, each is fetched once.
  e.feature_buffer_bytes = 4 * 64;
  AggregationSchedule cached(p.g, p.op, e);
  EXPECT_EQ(rows_fetched(cached, 64), 4u);
}

std::size_t read_descriptors(GnnSchedule& s) {
  std::size_t n = 0;
  GnnStep step;
  s.rewind();
  while (s.next(step)) n += step.reads.size();
  s.rewind();
  return n;
}

// GROW's high-degree cache, 2 rows, one cluster: nodes 1 and 2 (3 nonzeros each in A + I) are
// loaded first; then row 0 reads 0, row 1 reads 0, row 2 reads 3, row 3 reads 3: 6 rows. In
// clusters of 2 rows (breadth-first from 0: 0, 1, 2, 3) with a 1-row cache: cluster {0, 1}
// loads 1 and reads 0, 0, 2; cluster {2, 3} loads 2 and reads 1, 3, 3: 8 rows.
TEST(GnnSchedule, HighDegreeCacheOnAPathGraphByHand) {
  PathGraph p;
  AggregationEngineSpec e;
  e.style = AggregationStyle::RowWise;
  e.lanes = 8;
  e.cache = FeatureCache::HighDegree;
  e.feature_buffer_bytes = 2 * 64;
  AggregationSchedule whole(p.g, p.op, e);
  EXPECT_EQ(rows_fetched(whole, 64), 6u);
  EXPECT_EQ(whole.totals().compute_cycles, 20u);
  e.cluster_rows = 2;
  e.feature_buffer_bytes = 64;
  AggregationSchedule clustered(p.g, p.op, e);
  EXPECT_EQ(rows_fetched(clustered, 64), 8u);
  EXPECT_EQ(clustered.totals().write_bytes, 4u * 64);
}

// Condense-Edge: the 10 edges (8 B each) become one 80 B stream, read as 2 bursts of 64 B
// instead of 6 scattered reads, and the 6 source rows one ascending stream of 64 B bursts.
TEST(GnnSchedule, CondenseEdgeStreamsTheTilesEdgesAndRows) {
  PathGraph p;
  AggregationEngineSpec e;
  e.style = AggregationStyle::OuterProduct;
  e.lanes = 8;
  e.output_buffer_bytes = 2 * 64;
  AggregationSchedule scattered(p.g, p.op, e);
  EXPECT_EQ(read_descriptors(scattered), 12u);
  e.condense_edges = true;
  e.access_bytes = 64;
  AggregationSchedule condensed(p.g, p.op, e);
  EXPECT_EQ(read_descriptors(condensed), 8u);
  const GnnTotals t = condensed.totals();
  EXPECT_EQ(t.read_bytes, 2u * 64 + 6 * 64);
  EXPECT_EQ(t.compute_cycles, 20u);
}

// SGCN's BEICSR: B at density 1/8 (8 of 64 values) holds 2 nonzeros a row: a 2 B bitmap and
// 8 B of values, 10 B a row; the 8 lanes take a destination row's 4 or 6 products in a cycle:
// 4 rows, 4 cycles.
TEST(GnnSchedule, BeicsrAggregationReadsAndAddsNonzerosOnly) {
  PathGraph p;
  p.op.dims["b_nnz"] = 8;
  AggregationEngineSpec e;
  e.style = AggregationStyle::RowWise;
  e.lanes = 8;
  e.format = FeatureFormat::Beicsr;
  AggregationSchedule s(p.g, p.op, e);
  EXPECT_EQ(rows_fetched(s, 10), 10u);
  const GnnTotals t = s.totals();
  EXPECT_EQ(t.compute_cycles, 4u);
  EXPECT_EQ(t.read_bytes, 10u * 10 + 10 * 8);
}

// MEGA's Adaptive-Package, packed by hand: a package is 64, 128 or 192 bits with a 5-bit header
// and whole values (59, 123 or 187 payload bits).
TEST(FeatureFormats, AdaptivePackagesPackedByHand) {
  EXPECT_EQ(adaptive_package_bits(0, 4), 0u);
  EXPECT_EQ(adaptive_package_bits(5, 1), 64u);     // 5 bits fit the smallest package
  EXPECT_EQ(adaptive_package_bits(14, 4), 64u);    // 56 bits of 59
  EXPECT_EQ(adaptive_package_bits(16, 4), 128u);   // 16 x 4 = 64 > 59: the 128-bit package
  EXPECT_EQ(adaptive_package_bits(100, 8), 896u);  // 4 x 192 (23 values each), 8 left: 128
  EXPECT_EQ(adaptive_package_bits(23, 8), 192u);
  // A sparse row adds its bitmap: Cora's 1433-wide row with 18 nonzeros at 4 bits.
  EXPECT_DOUBLE_EQ(feature_row_bytes(FeatureFormat::AdaptivePackage, 18, 4, 1433, true), 16 + 180);
  EXPECT_DOUBLE_EQ(feature_row_bytes(FeatureFormat::AdaptivePackage, 16, 4, 16, false), 16);
  EXPECT_DOUBLE_EQ(feature_row_bytes(FeatureFormat::Beicsr, 5, 32, 16, true), 2 + 20);
  EXPECT_DOUBLE_EQ(feature_row_bytes(FeatureFormat::Plain, 16, 4, 16, false), 8);
}

// A pair handing its output over on chip: the fused aggregation reads no row of B and waits,
// source by source, for row u (needs u + 1 rows); the pipelined one writes no tile and hands
// each over (produces 1).
TEST(GnnSchedule, OnChipHandOverSkipsTheDramRoundTrip) {
  PathGraph p;
  AggregationEngineSpec e;
  e.style = AggregationStyle::OuterProduct;
  e.lanes = 8;
  e.output_buffer_bytes = 2 * 64;
  OnChip fused;
  fused.input = true;
  AggregationSchedule a(p.g, p.op, e, GnnAddressMap{}, fused);
  EXPECT_EQ(rows_fetched(a, 64), 0u);
  std::vector<std::uint64_t> needs;
  GnnStep step;
  while (a.next(step))
    if (step.needs > 0) needs.push_back(step.needs);
  EXPECT_EQ(needs, (std::vector<std::uint64_t>{1, 2, 3, 2, 3, 4}));  // tile {0,1}: sources 0-2; {2,3}: 1-3
  OnChip pipelined;
  pipelined.output = true;
  AggregationSchedule b(p.g, p.op, e, GnnAddressMap{}, pipelined);
  const GnnTotals t = b.totals();
  EXPECT_EQ(t.write_bytes, 0u);
  EXPECT_EQ(t.compute_cycles, 20u);
}

TEST(GnnSchedule, CombinationCyclesFollowTheEngineStyles) {
  CombinationEngineSpec mac;
  mac.style = CombinationStyle::MacArray;
  mac.macs = 16;
  // An outer product skips X's zeros: 1000 nonzeros x 16 outputs / 16 MACs.
  EXPECT_EQ(combination_cycles(mac, 100, 16, 64, 1000, 32), 1000u);
  CombinationEngineSpec serial = mac;
  serial.style = CombinationStyle::BitSerial;
  serial.bits_per_cycle = 2;
  EXPECT_EQ(combination_cycles(serial, 100, 16, 64, 1000, 8), 4000u);  // 8-bit operands, 2 bits a cycle
  EXPECT_EQ(combination_cycles(serial, 100, 16, 64, 1000, 4), 2000u);
  CombinationEngineSpec systolic;
  systolic.style = CombinationStyle::Systolic;
  systolic.modules = 8;
  systolic.rows = 4;
  systolic.cols = 128;
  SystolicConfig cfg;
  cfg.rows = 4;
  cfg.cols = 128;
  cfg.dataflow = Dataflow::WeightStationary;
  EXPECT_EQ(combination_cycles(systolic, 800, 16, 64, 800 * 64, 32), systolic_gemm(cfg, 100, 16, 64).cycles);
}

// X (100 x 64 FP32) in tiles of 32 rows (a row of X and its outputs is 320 B; the input
// buffer holds 32 of them); W (4 KiB) fits its buffer and is read once; every byte of X once.
TEST(GnnSchedule, CombinationTrafficIsExact) {
  OpGraph g;
  const TensorId x = g.add_tensor("x", TensorClass::Activations, {100, 64}, "fp32");
  const TensorId w = g.add_tensor("w", TensorClass::Weights, {16, 64}, "fp32");
  const TensorId y = g.add_tensor("y", TensorClass::Activations, {100, 16}, "fp32");
  Operator op;
  op.name = "comb";
  op.kind = OpKind::Gemm;
  op.dims = {{"m", 100}, {"n", 16}, {"k", 64}};
  op.inputs = {x, w};
  op.outputs = {y};
  const Operator& o = g.op(g.add_op(op));
  CombinationEngineSpec e;
  CombinationSchedule fits(g, o, e, FeatureFormat::Plain, 32 * 320, 4096);
  GnnTotals t = fits.totals();
  EXPECT_EQ(t.steps, 4u);
  EXPECT_EQ(t.read_bytes, 4096u + 100 * 256);
  EXPECT_EQ(t.write_bytes, 100u * 64);
  EXPECT_EQ(t.compute_cycles, 100u * 64);  // 6,400 x 16 products on 16 MACs
  CombinationSchedule streams(g, o, e, FeatureFormat::Plain, 32 * 320, 1024);  // W does not fit: read per tile
  EXPECT_EQ(streams.totals().read_bytes, 4u * 4096 + 100 * 256);
}

nlohmann::json run_summary(const std::string& experiment, const std::string& sets, const TempDir& dir,
                           const std::string& out = "out") {
  const CommandResult r = run_strata("run -q '" + source_path(experiment) + "' " + sets + " -o '" + dir.file(out) + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  return json_file(dir.file(out + "/summary.json"));
}

// The three paper examples run and report latency, energy, area and DRAM accesses; the DRAM
// moves the bytes the engines' schedules fetch and write, in whole 32 B bursts: at least those
// bytes, and less than one extra 64 B block a request.
TEST(GnnRuns, PaperExamplesReportLatencyEnergyAreaAndDramAccesses) {
  for (const char* name : {"gcnax", "hygcn", "mega", "hygcn-gcnax-study"}) {
    TempDir dir;
    const auto s = run_summary(std::string("configs/experiments/gnn-") + name + "-cora.yaml", "", dir);
    for (const char* key : {"latency_s", "energy_j", "area_mm2", "dram_bytes", "dram_accesses"}) {
      ASSERT_TRUE(s.contains(key)) << name << " " << key;
      EXPECT_GT(s[key].get<double>(), 0) << name << " " << key;
    }
    const auto stats = json_file(dir.file("out/stats.json"));
    const auto& memory = stats["hardware"]["memory"];
    const double moved = memory["bytes_read"]["value"].get<double>() + memory["bytes_written"]["value"].get<double>();
    EXPECT_GE(moved, s["dram_bytes"].get<double>()) << name;
    EXPECT_LT(moved, s["dram_bytes"].get<double>() + 64 * s["dram_accesses"].get<double>()) << name;
  }
}

// GCNAX's fusion on Cora: layer 2's output (2,708 x 7 FP64, 152 KB) fits the 256 KB ODMB, so
// its combination hands B = X.W to the aggregation on chip: exactly B's write and its read
// (2 x 151,648 B) leave DRAM, and the pair overlaps. Layer 1's output (346 KB) does not fit.
TEST(GnnRuns, GcnaxFusionKeepsLayerTwosProductOnChip) {
  // The saving, 2 x 2,708 x 7 x 8 B, is the check's reference (configs/validation/gnn.yaml).
  TempDir dir;
  const ValidationCheck& check = validation_check("gnn", "gcnax-fusion-keeps-xw-on-chip");
  const ValidationRunResult f = run_validation(*check.run, dir.file("f"));
  const ValidationRunResult u = run_validation(*check.baseline, dir.file("u"));
  Registry registry;
  EXPECT_WITHIN_VALIDATION(check, validation_figure(check, &f, &u, registry));
  EXPECT_LT(f.summary["latency_s"].get<double>(), u.summary["latency_s"].get<double>());
}

// Every preset, both product orders, on a small power-law graph: the whole component path
// (engines, DMA, DRAM) in a second, and the analytic fidelity within a factor of the cycle run.
TEST(GnnRuns, EveryPresetRunsBothOrdersOnASmallGraph) {
  for (const char* name : {"gcnax", "hygcn", "grow", "sgcn", "mega"})
    for (const char* order : {"combine_first", "aggregate_first"}) {
      TempDir dir;
      const std::string exp =
          dir.write("small.yaml",
                    std::string("name: small\nseed: 1\nhardware:\n  extends: ") +
                        source_path(std::string("configs/hardware/gnn/") + name + ".yaml") +
                        "\nworkload:\n  kind: gnn\n  model: gcn\n  layer_dims: [64, 16, 8]\n  order: [" + order +
                        "]\n  feature_density: [0.5, 0.5]\n  graph: {source: power_law, nodes: 500, avg_degree: 4}\n"
                        "  quant: {weights: fp32, activations: fp32}\n");
      const CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("c") + "'");
      ASSERT_EQ(r.code, 0) << r.err;
      const CommandResult a = run_strata("run -q '" + exp + "' --set sim.fidelity=analytic -o '" + dir.file("a") + "'");
      ASSERT_EQ(a.code, 0) << a.err;
      const auto c = json_file(dir.file("c/summary.json")), an = json_file(dir.file("a/summary.json"));
      EXPECT_GT(c["latency_s"].get<double>(), 0) << name << " " << order;
      EXPECT_EQ(c["dram_bytes"].get<double>(), an["dram_bytes"].get<double>()) << name << " " << order;
      EXPECT_EQ(c["dram_accesses"].get<double>(), an["dram_accesses"].get<double>()) << name << " " << order;
      EXPECT_GT(an["latency_s"].get<double>(), 0.3 * c["latency_s"].get<double>()) << name << " " << order;
      EXPECT_LT(an["latency_s"].get<double>(), 1.5 * c["latency_s"].get<double>()) << name << " " << order;
    }
}

}  // namespace
}  // namespace strata::testing
