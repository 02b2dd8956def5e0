// CsrGraph, the text loaders (edge list, LINQS .cites, Planetoid text, feature statistics) and the
// binary CSR file; the shipped Cora, Citeseer and Pubmed datasets; and, when ../shared/datasets is
// present, the shared Citeseer and Pubmed, the independent copies of Cora's edges and the shipped
// feature statistics recomputed from the full feature files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>

#include "sim/input_error.h"
#include "test_util.h"
#include "workloads/graph/binary_csr.h"
#include "workloads/graph/csr_graph.h"
#include "workloads/graph/graph_loaders.h"

using strata::CsrGraph;
using strata::FeatureStats;
using strata::InputError;
using strata::testing::error_of;
using strata::testing::TempDir;

namespace {

const std::vector<std::int64_t> kGnnBuckets = {1, 2, 4, 8, 16, 32};  // 0 / 1 / 2-3 / 4-7 / 8-15 / 16-31 / 32+

std::vector<std::int32_t> row(const CsrGraph& g, std::int64_t v) {
  const auto n = g.neighbors(v);
  return std::vector<std::int32_t>(n.begin(), n.end());
}

std::string shared_datasets() { return strata::testing::source_path("../shared/datasets"); }

#define SKIP_WITHOUT_SHARED()                                                                 \
  if (!std::filesystem::is_directory(shared_datasets()))                                      \
  GTEST_SKIP() << "no " << shared_datasets() << " (the shared dataset folder is not present)"

}  // namespace

// ---------------------------------------------------------------------------------------------
// CsrGraph

TEST(CsrGraph, EmptyGraph) {
  CsrGraph g;
  EXPECT_EQ(g.num_nodes(), 0);
  EXPECT_EQ(g.num_edges(), 0);
  EXPECT_EQ(g.row_ptr()[0], 0);
  EXPECT_EQ(g.max_degree(), 0);
  EXPECT_DOUBLE_EQ(g.average_degree(), 0.0);
  EXPECT_TRUE(g.is_symmetric());
  EXPECT_EQ(g.degree_histogram({1, 2}), (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_THROW(g.degree(0), std::out_of_range);
}

TEST(CsrGraph, FromEdgesDedupsSymmetrizesAndDropsSelfLoops) {
  // 0->1 twice, 1->0 (the reverse), 2->2 (a self loop), 3->0; node 4 is isolated.
  const std::vector<std::pair<std::int32_t, std::int32_t>> edges = {{0, 1}, {0, 1}, {1, 0}, {2, 2}, {3, 0}};
  const CsrGraph sym = CsrGraph::from_edges("s", 5, edges, /*symmetrize=*/true);
  EXPECT_EQ(sym.name(), "s");
  EXPECT_EQ(sym.num_nodes(), 5);
  EXPECT_EQ(sym.num_edges(), 4);  // 0-1 and 0-3, both ways
  EXPECT_EQ(row(sym, 0), (std::vector<std::int32_t>{1, 3}));
  EXPECT_EQ(row(sym, 1), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(row(sym, 2), (std::vector<std::int32_t>{}));
  EXPECT_EQ(row(sym, 3), (std::vector<std::int32_t>{0}));
  EXPECT_TRUE(sym.is_symmetric());
  EXPECT_EQ(sym.self_loops(), 0);
  EXPECT_EQ(sym.max_degree(), 2);
  EXPECT_EQ(sym.degree(4), 0);

  const CsrGraph dir = CsrGraph::from_edges("d", 5, edges, /*symmetrize=*/false);
  EXPECT_EQ(dir.num_edges(), 3);  // 0->1, 1->0, 3->0
  EXPECT_EQ(row(dir, 3), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(row(dir, 0), (std::vector<std::int32_t>{1}));
  EXPECT_FALSE(dir.is_symmetric());  // 3->0 has no 0->3

  const CsrGraph loops = CsrGraph::from_edges("l", 5, edges, true, /*keep_self_loops=*/true);
  EXPECT_EQ(loops.num_edges(), 5);
  EXPECT_EQ(loops.self_loops(), 1);
  EXPECT_EQ(row(loops, 2), (std::vector<std::int32_t>{2}));
  EXPECT_TRUE(loops.is_symmetric());

  EXPECT_THROW(CsrGraph::from_edges("x", 3, {{0, 3}}, true), std::out_of_range);
  EXPECT_THROW(CsrGraph::from_edges("x", 3, {{-1, 0}}, true), std::out_of_range);
}

TEST(CsrGraph, ConstructorValidates) {
  const CsrGraph g("ok", {0, 2, 3, 3}, {1, 2, 0});
  EXPECT_EQ(g.num_nodes(), 3);
  EXPECT_EQ(g.num_edges(), 3);
  EXPECT_FALSE(g.is_symmetric());
  EXPECT_FALSE(g.is_mapped());
  EXPECT_THROW(CsrGraph("x", {}, {}), std::invalid_argument);
  EXPECT_THROW(CsrGraph("x", {1, 1}, {0}), std::invalid_argument);          // row_ptr[0] != 0
  EXPECT_THROW(CsrGraph("x", {0, 2, 1}, {1, 0}), std::invalid_argument);    // decreasing row_ptr
  EXPECT_THROW(CsrGraph("x", {0, 1, 2}, {1, 0, 0}), std::invalid_argument); // size mismatch
  EXPECT_THROW(CsrGraph("x", {0, 1, 1}, {2}), std::invalid_argument);       // id out of range
  EXPECT_THROW(CsrGraph("x", {0, 1, 1}, {-1}), std::invalid_argument);      // negative id
  EXPECT_THROW(CsrGraph("x", {0, 2, 2}, {1, 0}), std::invalid_argument);    // unsorted row
  EXPECT_THROW(CsrGraph("x", {0, 2, 2}, {1, 1}), std::invalid_argument);    // duplicate edge
}

TEST(CsrGraph, SymmetryCheckSeesEveryMismatch) {
  EXPECT_TRUE(CsrGraph("a", {0, 1, 2}, {1, 0}).is_symmetric());
  EXPECT_TRUE(CsrGraph("a", {0, 1, 1}, {0}).is_symmetric());  // a lone self loop
  EXPECT_FALSE(CsrGraph("a", {0, 1, 1}, {1}).is_symmetric());
  EXPECT_FALSE(CsrGraph("a", {0, 0, 1}, {0}).is_symmetric());
  // Same per-row counts as a symmetric graph, but 0-1 / 1-2 / 2-0 is a directed cycle.
  EXPECT_FALSE(CsrGraph("a", {0, 1, 2, 3}, {1, 2, 0}).is_symmetric());
  EXPECT_TRUE(CsrGraph("a", {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}).is_symmetric());
}

TEST(CsrGraph, DegreeHistogramBuckets) {
  // Star: node 0 has degree 40, nodes 1..40 degree 1, node 41 degree 0.
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  for (std::int32_t v = 1; v <= 40; ++v) edges.emplace_back(0, v);
  const CsrGraph g = CsrGraph::from_edges("star", 42, edges, true);
  EXPECT_EQ(g.degree_histogram(kGnnBuckets), (std::vector<std::int64_t>{1, 40, 0, 0, 0, 0, 1}));
  EXPECT_EQ(g.degree_histogram({40}), (std::vector<std::int64_t>{41, 1}));  // [0, 40) and [40, inf)
  EXPECT_EQ(g.degree_histogram({}), (std::vector<std::int64_t>{42}));
  EXPECT_THROW(g.degree_histogram({2, 2}), std::invalid_argument);
  EXPECT_THROW(g.degree_histogram({0, 4}), std::invalid_argument);
  EXPECT_EQ(g.max_degree(), 40);
}

// ---------------------------------------------------------------------------------------------
// Edge lists

TEST(EdgeList, ParsesCommentsBlanksAndWhitespace) {
  TempDir d;
  const auto path = d.write("small.edges",
                            "# a comment\n"
                            "\n"
                            "0 1\n"
                            "  1\t2   # trailing comment\n"
                            "2 0\r\n"
                            "2 2\n");  // self loop: dropped
  const CsrGraph g = strata::load_edge_list(path, /*symmetrize=*/true);
  EXPECT_EQ(g.name(), "small");
  EXPECT_EQ(g.num_nodes(), 3);
  EXPECT_EQ(g.num_edges(), 6);
  EXPECT_TRUE(g.is_symmetric());
  const CsrGraph dir = strata::load_edge_list(path, /*symmetrize=*/false, /*num_nodes=*/5);
  EXPECT_EQ(dir.num_nodes(), 5);
  EXPECT_EQ(dir.num_edges(), 3);
  EXPECT_EQ(row(dir, 1), (std::vector<std::int32_t>{2}));
  EXPECT_FALSE(dir.is_symmetric());
  // No edges and no node count: an empty graph, which no workload can run (issue 18).
  EXPECT_CONTAINS(error_of([&] { strata::load_edge_list(d.write("empty.txt", "# nothing\n"), true); }),
                  "empty.txt: error: the edge list holds no edges and no node count is given");
  EXPECT_EQ(strata::load_edge_list(d.write("isolated.txt", "# nothing\n"), true, 4).num_nodes(), 4);
}

TEST(EdgeList, BadInputNamesFileLineAndColumn) {
  TempDir d;
  const auto load = [&](const std::string& body, std::int64_t n = 0) {
    const auto path = d.write("bad.txt", "# header\n0 1\n" + body + "\n");
    return error_of([&] { strata::load_edge_list(path, true, n); });
  };
  EXPECT_CONTAINS(load("1 x"), "bad.txt:3:3: error: expected node id (a decimal integer), got \"x\"");
  EXPECT_CONTAINS(load("1.5 2"), "bad.txt:3:1: error: expected node id (a decimal integer), got \"1.5\"");
  EXPECT_CONTAINS(load("2 -3"), "bad.txt:3:3: error: node id -3 is negative");
  EXPECT_CONTAINS(load("4 2", 4), "bad.txt:3:1: error: node id 4 is not below the declared node count 4");
  EXPECT_CONTAINS(load("3 2", 4), "no error");
  EXPECT_CONTAINS(load("5"), "bad.txt:3:2: error: expected \"u v\", got 1 field");
  EXPECT_CONTAINS(load("5 6 7"), "bad.txt:3:5: error: unexpected field \"7\"");
  EXPECT_CONTAINS(load("2147483648 0"), "node id 2147483648 is not below 2^31 = 2147483648");
  EXPECT_CONTAINS(load("99999999999999999999 0"), "bad.txt:3:1: error: node id \"99999999999999999999\" is out of range");
  const std::string missing = d.file("missing.txt");
  EXPECT_CONTAINS(error_of([&] { strata::load_edge_list(missing, true); }), missing + ": error: cannot open file");
  EXPECT_CONTAINS(error_of([&] { strata::load_edge_list(d.path().string(), true); }), "is a directory");
}

// A one-line file may claim a graph of 2^31 nodes; its CSR arrays (34 GB) are checked against the
// memory budget before anything is allocated. (An id of 10^12 is already out of the int32 range.)
TEST(ResourceLimits, HugeNodeCountsFailBeforeAllocating) {
  TempDir d;
  strata::testing::ScopedEnv limit("STRATA_MEMORY_LIMIT", "1 GiB");
  const auto edges = d.write("big.edges", "0 2147483647\n");
  EXPECT_CONTAINS(error_of([&] { strata::load_edge_list(edges, true); }),
                  edges + ": error: a CSR graph of 2147483648 nodes and 1 edges needs 32 GiB of memory, more than "
                          "the 1 GiB this process may use");
  EXPECT_CONTAINS(error_of([&] { strata::load_edge_list(d.write("e12.edges", "0 1000000000000\n"), true); }),
                  "e12.edges:1:3: error: node id 1000000000000 is not below 2^31 = 2147483648");
  // A feature matrix shape declared in a comment is bounded like node ids, then budgeted.
  EXPECT_CONTAINS(error_of([&] { strata::load_sparse_features(d.write("f.txt", "# shape 1000000000000 x 4\n0 1 1\n")); }),
                  "f.txt:1: error: declared shape 1000000000000 x 4 exceeds 2147483648 x 2147483647");
  EXPECT_CONTAINS(error_of([&] { strata::load_sparse_features(d.write("g.txt", "# shape 2000000000 x 4\n0 1 1\n")); }),
                  "g.txt: error: per-row counts of 2000000000 feature rows needs 7.45 GiB of memory");
  // A statistics header claiming 2^31 rows reserves nothing up front; the short count list fails.
  EXPECT_CONTAINS(error_of([&] {
                    strata::load_feature_stats(d.write("s.txt", "rows 2147483648\ncolumns 4\nnnz 1\nrow_nnz\n1\n"));
                  }),
                  "row_nnz has 1 counts but rows = 2147483648");
}

// ---------------------------------------------------------------------------------------------
// LINQS .cites

TEST(LinqsCites, RemapsPaperIdsInOrderOfFirstAppearance) {
  TempDir d;
  const auto path = d.write("mini.cites",
                            "35\t1033\n"
                            "35 paper-x\n"
                            "1033\t35\n"  // the reverse of line 1: one undirected edge
                            "77 77\n");   // self loop: node 3 exists but has no edges
  std::vector<std::string> ids;
  const CsrGraph g = strata::load_linqs_cites(path, &ids);
  EXPECT_EQ(ids, (std::vector<std::string>{"35", "1033", "paper-x", "77"}));
  EXPECT_EQ(g.name(), "mini");
  EXPECT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.num_edges(), 4);
  EXPECT_EQ(row(g, 0), (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(g.degree(3), 0);
  EXPECT_TRUE(g.is_symmetric());
  EXPECT_CONTAINS(error_of([&] { strata::load_linqs_cites(d.write("b.cites", "1 2\n3\n")); }),
                  "b.cites:2:2: error: expected \"<cited paper id> <citing paper id>\", got 1 field");
  EXPECT_CONTAINS(error_of([&] { strata::load_linqs_cites(d.file("none.cites")); }), "none.cites: error: cannot open file");
}

// ---------------------------------------------------------------------------------------------
// Features, feature statistics, labels

TEST(Features, SparseCooUsesDeclaredShape) {
  TempDir d;
  const auto path = d.write("f.txt",
                            "# sparse features: node_id feature_id value ; shape 4 x 10\n"
                            "0 1 1\n"
                            "0 7 0.5\n"
                            "0 7 0.5\n"  // listed twice: one nonzero
                            "2 3 0\n"    // an explicit zero: not a nonzero
                            "3 9 -2e-3\n");
  const FeatureStats s = strata::load_sparse_features(path);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.columns, 10);
  EXPECT_EQ(s.nnz, 3);
  EXPECT_EQ(s.row_nnz, (std::vector<std::int32_t>{2, 0, 0, 1}));
  EXPECT_DOUBLE_EQ(s.density(), 3.0 / 40.0);

  const FeatureStats inferred = strata::load_sparse_features(d.write("g.txt", "1 4 1\n"));
  EXPECT_EQ(inferred.rows, 2);
  EXPECT_EQ(inferred.columns, 5);
  EXPECT_EQ(inferred.row_nnz, (std::vector<std::int32_t>{0, 1}));

  const auto bad = [&](const std::string& body) {
    const auto p = d.write("bad_f.txt", "# shape 4 x 10\n" + body + "\n");
    return error_of([&] { strata::load_sparse_features(p); });
  };
  EXPECT_CONTAINS(bad("4 0 1"), "bad_f.txt:2:1: error: node id 4 is not below the row count 4");
  EXPECT_CONTAINS(bad("0 10 1"), "bad_f.txt:2:3: error: feature id 10 is not below the column count 10");
  EXPECT_CONTAINS(bad("0 1 one"), "bad_f.txt:2:5: error: expected feature value (a number), got \"one\"");
  EXPECT_CONTAINS(bad("0 1"), "bad_f.txt:2:4: error: expected \"node feature value\", got 2 fields");
}

TEST(Features, StatsFileRoundTripsAndRejectsInconsistencies) {
  TempDir d;
  FeatureStats s;
  s.rows = 45;
  s.columns = 8;
  for (std::int32_t i = 0; i < 45; ++i) s.row_nnz.push_back(i % 9);
  s.nnz = std::accumulate(s.row_nnz.begin(), s.row_nnz.end(), std::int64_t{0});
  const auto path = d.file("s.feature_stats.txt");
  strata::write_feature_stats(s, path, "two-line\ncomment");
  EXPECT_EQ(strata::testing::read_file(path).rfind("# two-line\n# comment\nrows 45\n", 0), 0u);
  const FeatureStats back = strata::load_feature_stats(path);
  EXPECT_EQ(back.rows, 45);
  EXPECT_EQ(back.columns, 8);
  EXPECT_EQ(back.nnz, s.nnz);
  EXPECT_EQ(back.row_nnz, s.row_nnz);

  const auto bad = [&](const std::string& body) {
    const auto p = d.write("bad.feature_stats.txt", body);
    return error_of([&] { strata::load_feature_stats(p); });
  };
  EXPECT_CONTAINS(bad("rows 2\ncolumns 3\nnnz 3\nrow_nnz\n1 2\n"), "no error");
  EXPECT_CONTAINS(bad("rows 2\ncolumns 3\nnnz 3\nrow_nnz\n1\n"), "bad.feature_stats.txt:5: error: row_nnz has 1 counts but rows = 2");
  EXPECT_CONTAINS(bad("rows 2\ncolumns 3\nnnz 4\nrow_nnz\n1 2\n"), "row_nnz counts sum to 3 but nnz = 4");
  EXPECT_CONTAINS(bad("rows 2\ncolumns 3\nnnz 3\nrow_nnz\n1 2 0\n"), "bad.feature_stats.txt:5:5: error: more than rows = 2");
  EXPECT_CONTAINS(bad("rows 2\ncolumns 3\nnnz 5\nrow_nnz\n1 4\n"), "bad.feature_stats.txt:5:3: error: row nonzero count 4 is not below 4");
  EXPECT_CONTAINS(bad("rows 2\ncolumns 3\nnnz 3\nrow_nnz\n1 x\n"), "bad.feature_stats.txt:5:3: error: expected row nonzero count");
  EXPECT_CONTAINS(bad("rows -2\n"), "bad.feature_stats.txt:1:6: error: rows -2 is negative");
  EXPECT_CONTAINS(bad("rows 2\nrows 2\n"), "bad.feature_stats.txt:2:1: error: rows is given twice");
  EXPECT_CONTAINS(bad("rows 2\nwidth 3\n"), "bad.feature_stats.txt:2:1: error: unknown key \"width\"");
  EXPECT_CONTAINS(bad("rows 2\nrow_nnz\n"), "bad.feature_stats.txt:2:1: error: row_nnz comes before");
  EXPECT_CONTAINS(bad("rows 2\ncolumns 3\nnnz 7\n"), "bad.feature_stats.txt:3: error: nnz 7 exceeds rows x columns = 6");
  EXPECT_CONTAINS(bad("# empty\n"), "missing row_nnz section");
}

TEST(Labels, FillsUnlistedNodesAndRejectsBadLines) {
  TempDir d;
  const auto labels = strata::load_labels(d.write("l.txt", "# node class\n0 3\n2 -1\n3 0\n"), 5);
  EXPECT_EQ(labels, (std::vector<std::int32_t>{3, -1, -1, 0, -1}));
  const auto bad = [&](const std::string& body) {
    const auto p = d.write("bad_l.txt", body);
    return error_of([&] { strata::load_labels(p, 4); });
  };
  EXPECT_CONTAINS(bad("0 1\n4 1\n"), "bad_l.txt:2:1: error: node id 4 is not below the node count 4");
  EXPECT_CONTAINS(bad("0 1\n0 2\n"), "bad_l.txt:2:1: error: node 0 is already labeled on line 1");
  EXPECT_CONTAINS(bad("0 -2\n"), "bad_l.txt:1:3: error: class -2 is below -1");
  EXPECT_CONTAINS(bad("-1 2\n"), "bad_l.txt:1:1: error: node id -1 is negative");
}

// ---------------------------------------------------------------------------------------------
// Planetoid folders

TEST(Planetoid, SmallFolderWithEveryFile) {
  TempDir d;
  d.write("toy.edges.txt", "# undirected\n0 1\n1 2\n");
  d.write("toy.features.txt", "# shape 5 x 3\n0 0 1\n4 2 1\n");
  d.write("toy.labels.txt", "0 1\n4 2\n");
  const strata::GraphDataset ds = strata::load_planetoid(d.path().string(), "toy");
  EXPECT_EQ(ds.graph.name(), "toy");
  EXPECT_EQ(ds.graph.num_nodes(), 5);  // the feature rows, though nodes 3 and 4 have no edges
  EXPECT_EQ(ds.graph.num_edges(), 4);
  ASSERT_TRUE(ds.features);
  EXPECT_EQ(ds.features->nnz, 2);
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{1, -1, -1, -1, 2}));
  EXPECT_EQ(ds.num_classes, 3);

  // Without features the node count is the largest id in edges and labels + 1.
  TempDir e;
  e.write("t.edges.txt", "0 1\n");
  e.write("t.labels.txt", "6 0\n");
  const strata::GraphDataset no_features = strata::load_planetoid(e.path().string(), "t");
  EXPECT_FALSE(no_features.features);
  EXPECT_EQ(no_features.graph.num_nodes(), 7);

  // An edge beyond the feature rows is an error at its line.
  d.write("toy.edges.txt", "0 1\n1 5\n");
  EXPECT_CONTAINS(error_of([&] { strata::load_planetoid(d.path().string(), "toy"); }),
                  "toy.edges.txt:2:3: error: node id 5 is not below the declared node count 5");
  EXPECT_CONTAINS(error_of([&] { strata::load_planetoid(d.path().string(), "nope"); }),
                  "nope.edges.txt: error: dataset edge file not found");
  EXPECT_CONTAINS(error_of([&] { strata::load_planetoid(d.file("no-such-dir"), "toy"); }), "dataset folder not found");
}

TEST(Planetoid, ShippedCora) {
  const strata::GraphDataset cora = strata::load_planetoid(strata::testing::source_path("configs/datasets/cora"), "cora");
  const CsrGraph& g = cora.graph;
  EXPECT_EQ(g.name(), "cora");
  EXPECT_EQ(g.num_nodes(), 2708);
  EXPECT_EQ(g.num_edges(), 10556);
  EXPECT_EQ(g.max_degree(), 168);
  EXPECT_NEAR(g.average_degree(), 3.90, 0.005);
  EXPECT_EQ(g.self_loops(), 0);
  EXPECT_TRUE(g.is_symmetric());
  EXPECT_EQ(g.degree_histogram(kGnnBuckets), (std::vector<std::int64_t>{0, 485, 1136, 883, 157, 35, 12}));
  ASSERT_TRUE(cora.features);
  EXPECT_EQ(cora.features->rows, 2708);
  EXPECT_EQ(cora.features->columns, 1433);
  EXPECT_EQ(cora.features->nnz, 49216);
  EXPECT_NEAR(cora.features->density(), 0.0127, 0.00005);
  EXPECT_EQ(cora.num_classes, 7);
  std::vector<int> counts(7, 0);
  for (const std::int32_t c : cora.labels) ++counts.at(static_cast<size_t>(c));
  EXPECT_EQ(counts, (std::vector<int>{351, 217, 418, 818, 426, 298, 180}));
}

TEST(Planetoid, ShippedCoraStaysSmall) {
  std::uintmax_t total = 0;
  for (const auto& f : std::filesystem::directory_iterator(strata::testing::source_path("configs/datasets/cora")))
    total += f.file_size();
  EXPECT_LT(total, 200u * 1000u);
}

TEST(Planetoid, ShippedCiteseer) {
  const strata::GraphDataset citeseer =
      strata::load_planetoid(strata::testing::source_path("configs/datasets/citeseer"), "citeseer");
  const CsrGraph& g = citeseer.graph;
  EXPECT_EQ(g.name(), "citeseer");
  EXPECT_EQ(g.num_nodes(), 3327);
  EXPECT_EQ(g.num_edges(), 9104);
  EXPECT_EQ(g.max_degree(), 99);
  EXPECT_NEAR(g.average_degree(), 2.74, 0.005);
  EXPECT_EQ(g.self_loops(), 0);
  EXPECT_TRUE(g.is_symmetric());
  std::int64_t isolated = 0;
  for (std::int64_t v = 0; v < g.num_nodes(); ++v) isolated += g.degree(v) == 0;
  EXPECT_EQ(isolated, 48);
  EXPECT_EQ(g.degree_histogram(kGnnBuckets), (std::vector<std::int64_t>{48, 1331, 1233, 547, 139, 25, 4}));
  ASSERT_TRUE(citeseer.features);
  EXPECT_EQ(citeseer.features->rows, 3327);
  EXPECT_EQ(citeseer.features->columns, 3703);
  EXPECT_EQ(citeseer.features->nnz, 105165);
  EXPECT_NEAR(citeseer.features->density(), 0.0085, 0.00005);
  EXPECT_EQ(*std::max_element(citeseer.features->row_nnz.begin(), citeseer.features->row_nnz.end()), 54);
  // The 15 test-range gaps: no label and an empty feature row (they still have 1 or 2 citations).
  EXPECT_EQ(citeseer.num_classes, 6);
  ASSERT_EQ(citeseer.labels.size(), 3327u);
  ASSERT_EQ(citeseer.features->row_nnz.size(), 3327u);
  std::vector<int> counts(6, 0);
  int unlabeled = 0;
  for (size_t v = 0; v < citeseer.labels.size(); ++v) {
    const std::int32_t c = citeseer.labels[v];
    EXPECT_EQ(c == -1, citeseer.features->row_nnz[v] == 0) << "node " << v;
    if (c == -1) {
      ++unlabeled;
      EXPECT_GE(g.degree(static_cast<std::int64_t>(v)), 1) << "node " << v;
    } else {
      ++counts.at(static_cast<size_t>(c));
    }
  }
  EXPECT_EQ(unlabeled, 15);
  EXPECT_EQ(counts, (std::vector<int>{249, 590, 668, 701, 596, 508}));
}

TEST(Planetoid, ShippedPubmed) {
  const strata::GraphDataset pubmed =
      strata::load_planetoid(strata::testing::source_path("configs/datasets/pubmed"), "pubmed");
  const CsrGraph& g = pubmed.graph;
  EXPECT_EQ(g.name(), "pubmed");
  EXPECT_EQ(g.num_nodes(), 19717);
  EXPECT_EQ(g.num_edges(), 88648);
  EXPECT_EQ(g.max_degree(), 171);
  EXPECT_NEAR(g.average_degree(), 4.50, 0.005);
  EXPECT_EQ(g.self_loops(), 0);
  EXPECT_TRUE(g.is_symmetric());
  std::int64_t isolated = 0;
  for (std::int64_t v = 0; v < g.num_nodes(); ++v) isolated += g.degree(v) == 0;
  EXPECT_EQ(isolated, 0);
  EXPECT_EQ(g.degree_histogram(kGnnBuckets), (std::vector<std::int64_t>{0, 9094, 4941, 2470, 1892, 1052, 268}));
  // No feature statistics: the shared features are partial (experiments give feature_density: [0.1, ...]).
  EXPECT_FALSE(pubmed.features);
  EXPECT_EQ(pubmed.num_classes, 3);
  std::vector<int> counts(3, 0);
  for (const std::int32_t c : pubmed.labels) ++counts.at(static_cast<size_t>(c));  // every node labeled
  EXPECT_EQ(counts, (std::vector<int>{4103, 7739, 7875}));
}

TEST(Planetoid, ShippedDatasetsStaySmall) {
  // Cora and Citeseer ship feature statistics instead of features; Pubmed's edges and labels alone
  // are ~630 kB.
  for (const auto& [name, limit] :
       std::vector<std::pair<std::string, std::uintmax_t>>{{"citeseer", 200u * 1000u}, {"pubmed", 700u * 1000u}}) {
    SCOPED_TRACE(name);
    std::uintmax_t total = 0;
    for (const auto& f : std::filesystem::directory_iterator(strata::testing::source_path("configs/datasets/" + name)))
      total += f.file_size();
    EXPECT_LT(total, limit);
  }
}

// ---------------------------------------------------------------------------------------------
// The shared datasets (skipped when ../shared/datasets is absent)

TEST(PlanetoidShared, CiteseerAndPubmed) {
  SKIP_WITHOUT_SHARED();
  const auto citeseer = strata::load_planetoid(shared_datasets() + "/citeseer/planetoid_txt", "citeseer");
  EXPECT_EQ(citeseer.graph.num_nodes(), 3327);
  EXPECT_EQ(citeseer.graph.num_edges(), 9104);
  EXPECT_EQ(citeseer.graph.degree_histogram(kGnnBuckets), (std::vector<std::int64_t>{48, 1331, 1233, 547, 139, 25, 4}));
  EXPECT_EQ(citeseer.graph.max_degree(), 99);
  ASSERT_TRUE(citeseer.features);
  EXPECT_EQ(citeseer.features->columns, 3703);
  EXPECT_EQ(citeseer.features->nnz, 105165);
  EXPECT_NEAR(citeseer.features->density(), 0.0085, 0.00005);
  EXPECT_EQ(std::count(citeseer.labels.begin(), citeseer.labels.end(), -1), 15);
  EXPECT_EQ(citeseer.num_classes, 6);

  const auto pubmed = strata::load_planetoid(shared_datasets() + "/pubmed/planetoid_txt", "pubmed");
  EXPECT_EQ(pubmed.graph.num_nodes(), 19717);
  EXPECT_EQ(pubmed.graph.num_edges(), 88648);
  EXPECT_EQ(pubmed.graph.max_degree(), 171);
  EXPECT_EQ(pubmed.graph.degree_histogram(kGnnBuckets), (std::vector<std::int64_t>{0, 9094, 4941, 2470, 1892, 1052, 268}));
  EXPECT_FALSE(pubmed.features);  // only pubmed.features.partial.txt exists: unknown rows are not zeros
  EXPECT_EQ(pubmed.num_classes, 3);
}

TEST(PlanetoidShared, CoraFeatureStatsMatchFullFeatures) {
  SKIP_WITHOUT_SHARED();
  const FeatureStats full = strata::load_sparse_features(shared_datasets() + "/cora/planetoid_txt/cora.features.txt");
  const FeatureStats shipped =
      strata::load_feature_stats(strata::testing::source_path("configs/datasets/cora/cora.feature_stats.txt"));
  EXPECT_EQ(full.rows, shipped.rows);
  EXPECT_EQ(full.columns, shipped.columns);
  EXPECT_EQ(full.nnz, shipped.nnz);
  EXPECT_EQ(full.row_nnz, shipped.row_nnz);
  // The shipped edges and labels are the shared ones.
  const auto shared = strata::load_planetoid(shared_datasets() + "/cora/planetoid_txt", "cora");
  const auto ours = strata::load_planetoid(strata::testing::source_path("configs/datasets/cora"), "cora");
  EXPECT_TRUE(shared.graph.same_structure(ours.graph));
  EXPECT_EQ(shared.labels, ours.labels);
}

TEST(PlanetoidShared, CiteseerFeatureStatsMatchFullFeatures) {
  SKIP_WITHOUT_SHARED();
  const FeatureStats full =
      strata::load_sparse_features(shared_datasets() + "/citeseer/planetoid_txt/citeseer.features.txt");
  const FeatureStats shipped =
      strata::load_feature_stats(strata::testing::source_path("configs/datasets/citeseer/citeseer.feature_stats.txt"));
  EXPECT_EQ(full.rows, shipped.rows);
  EXPECT_EQ(full.columns, shipped.columns);
  EXPECT_EQ(full.nnz, shipped.nnz);
  EXPECT_EQ(full.row_nnz, shipped.row_nnz);
  // The shipped edges and labels are the shared ones, for Citeseer and Pubmed.
  for (const std::string name : {"citeseer", "pubmed"}) {
    SCOPED_TRACE(name);
    const auto shared = strata::load_planetoid(shared_datasets() + "/" + name + "/planetoid_txt", name);
    const auto ours = strata::load_planetoid(strata::testing::source_path("configs/datasets/" + name), name);
    EXPECT_TRUE(shared.graph.same_structure(ours.graph));
    EXPECT_EQ(shared.labels, ours.labels);
  }
}

TEST(PlanetoidShared, LinqsRawCoraHasTheSameShape) {
  SKIP_WITHOUT_SHARED();
  std::vector<std::string> ids;
  const CsrGraph g = strata::load_linqs_cites(shared_datasets() + "/cora/linqs_raw/cora.cites", &ids);
  EXPECT_EQ(g.num_nodes(), 2708);
  EXPECT_EQ(g.num_edges(), 10556);
  EXPECT_EQ(g.max_degree(), 168);
  EXPECT_EQ(g.degree_histogram(kGnnBuckets), (std::vector<std::int64_t>{0, 485, 1136, 883, 157, 35, 12}));
  EXPECT_EQ(ids.front(), "35");  // the first paper id in the file
}

TEST(PlanetoidShared, ExpandedGcnCitesAgreeWithPlanetoidEdges) {
  SKIP_WITHOUT_SHARED();
  for (const std::string name : {"cora", "citeseer", "pubmed"}) {
    SCOPED_TRACE(name);
    const auto planetoid = strata::load_planetoid(shared_datasets() + "/" + name + "/planetoid_txt", name);
    const std::int64_t n = planetoid.graph.num_nodes();
    // The .cites files list both directions: read as directed, they are already symmetric.
    const CsrGraph cites =
        strata::load_edge_list(shared_datasets() + "/" + name + "/expanded_gcn_cites/" + name + ".cites", false, n);
    EXPECT_TRUE(cites.is_symmetric());
    EXPECT_TRUE(cites.same_structure(planetoid.graph));
  }
}

// ---------------------------------------------------------------------------------------------
// Binary CSR

namespace {

CsrGraph sample_graph() {
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  for (std::int32_t v = 0; v < 97; ++v) {
    edges.emplace_back(v, (v * 7 + 3) % 97);
    edges.emplace_back(v, (v * v) % 97);
  }
  return CsrGraph::from_edges("sample-graph", 100, edges, true);  // 97..99 isolated
}

// Overwrites `bytes` at `offset` of the file.
void patch(const std::string& path, std::uint64_t offset, const void* bytes, size_t n) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(n));
}

}  // namespace

TEST(BinaryCsr, RoundTripsExactly) {
  TempDir d;
  const CsrGraph g = sample_graph();
  const auto path = d.file("g.csr");
  strata::write_binary_csr(g, path);
  EXPECT_EQ(std::filesystem::file_size(path),
            strata::binary_csr_file_size(static_cast<std::uint64_t>(g.num_nodes()),
                                         static_cast<std::uint64_t>(g.num_edges()), g.name().size()));
  EXPECT_EQ(std::filesystem::file_size(path) % 8, 0u);
  CsrGraph m = strata::map_binary_csr(path);
  EXPECT_TRUE(m.is_mapped());
  EXPECT_EQ(m.name(), "sample-graph");
  EXPECT_TRUE(m.same_structure(g));
  EXPECT_EQ(m.max_degree(), g.max_degree());
  EXPECT_EQ(m.is_symmetric(), g.is_symmetric());
  EXPECT_EQ(m.degree_histogram(kGnnBuckets), g.degree_histogram(kGnnBuckets));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m.row_ptr()) % 8, 0u);
  // A copy keeps the mapping alive after the original goes away.
  CsrGraph copy = m;
  m = CsrGraph();
  EXPECT_TRUE(copy.same_structure(g));
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d.path()), std::filesystem::directory_iterator()), 1);

  // A directed graph, an empty graph and the shipped Cora round-trip too.
  const CsrGraph directed("dir", {0, 2, 3, 3}, {1, 2, 0});
  strata::write_binary_csr(directed, path);  // replaces the file
  const CsrGraph md = strata::map_binary_csr(path);
  EXPECT_TRUE(md.same_structure(directed));
  EXPECT_FALSE(md.is_symmetric());
  EXPECT_TRUE(copy.same_structure(g));  // the old mapping is still intact
  strata::write_binary_csr(CsrGraph(), d.file("empty.csr"));
  EXPECT_EQ(strata::map_binary_csr(d.file("empty.csr")).num_nodes(), 0);
  const auto cora = strata::load_planetoid(strata::testing::source_path("configs/datasets/cora"), "cora");
  strata::write_binary_csr(cora.graph, d.file("cora.csr"));
  EXPECT_TRUE(strata::map_binary_csr(d.file("cora.csr")).same_structure(cora.graph));
}

TEST(BinaryCsr, RejectsCorruptFiles) {
  TempDir d;
  const CsrGraph g = sample_graph();
  const auto good = d.file("good.csr");
  strata::write_binary_csr(g, good);
  const std::string bytes = strata::testing::read_file(good);
  const auto variant = [&](const std::function<void(const std::string&)>& damage) {
    const auto p = d.file("bad.csr");
    d.write("bad.csr", bytes);
    damage(p);
    return error_of([&] { strata::map_binary_csr(p); });
  };
  const std::uint64_t row_off = strata::kBinaryCsrHeaderBytes + 16;  // "sample-graph" is 12 bytes, padded to 16
  const std::uint64_t col_off = row_off + 8 * 101;

  EXPECT_CONTAINS(variant([](const std::string&) {}), "no error");
  EXPECT_CONTAINS(variant([&](const std::string& p) { patch(p, 0, "STRATCSX", 8); }), "bad.csr: error: not a Strata binary CSR file (bad magic");
  EXPECT_CONTAINS(variant([&](const std::string& p) { d.write("bad.csr", "# just text\n"); (void)p; }), "bad magic");
  EXPECT_CONTAINS(variant([&](const std::string& p) {
                    const std::uint32_t v = 2;
                    patch(p, 8, &v, 4);
                  }),
                  "unsupported binary CSR version 2 (this Strata reads version 1)");
  EXPECT_CONTAINS(variant([&](const std::string& p) {
                    const std::uint32_t flags = 6;
                    patch(p, 12, &flags, 4);
                  }),
                  "unknown binary CSR flags 0x6");
  EXPECT_CONTAINS(variant([&](const std::string& p) { std::filesystem::resize_file(p, 20); }), "truncated binary CSR file: 20 bytes");
  EXPECT_CONTAINS(variant([&](const std::string& p) { std::filesystem::resize_file(p, bytes.size() - 8); }),
                  "needs " + std::to_string(bytes.size()) + ": truncated");
  EXPECT_CONTAINS(variant([&](const std::string& p) { std::filesystem::resize_file(p, bytes.size() + 8); }), "trailing bytes");
  EXPECT_CONTAINS(variant([&](const std::string& p) {
                    const std::uint64_t nodes = 101;  // the size no longer matches
                    patch(p, 16, &nodes, 8);
                  }),
                  "header (101 nodes");
  EXPECT_CONTAINS(variant([&](const std::string& p) {
                    const std::int64_t rp = 1;  // row_ptr[0] = 1
                    patch(p, row_off, &rp, 8);
                  }),
                  "corrupt binary CSR file: CSR graph 'sample-graph': row_ptr[0] is 1, not 0");
  EXPECT_CONTAINS(variant([&](const std::string& p) {
                    const std::int32_t c = 100;  // a column id beyond the nodes
                    patch(p, col_off, &c, 4);
                  }),
                  "names a node outside [0, 100)");
  EXPECT_CONTAINS(variant([&](const std::string& p) {
                    const std::int32_t cols[2] = {5, 4};  // row 0 out of order
                    patch(p, col_off, cols, 8);
                  }),
                  "is not strictly increasing");
  EXPECT_CONTAINS(variant([&](const std::string& p) {
                    const std::uint32_t flags = 0;  // claims directed, but the edges are symmetric
                    patch(p, 12, &flags, 4);
                  }),
                  "the header flags the graph as not symmetric but its edges are symmetric");
  EXPECT_CONTAINS(variant([&](const std::string& p) { patch(p, strata::kBinaryCsrHeaderBytes + 13, "x", 1); }),
                  "nonzero padding after the name");
  EXPECT_CONTAINS(error_of([&] { strata::map_binary_csr(d.file("missing.csr")); }),
                  d.file("missing.csr") + ": error: cannot open binary CSR file: No such file or directory");
}
