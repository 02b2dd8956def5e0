// Readers of the text graph formats GNN datasets come in. Every reader throws strata::InputError
// naming the file, line and column of the first bad token (a missing file names the file only).
//
// Common rules for the text formats: fields are separated by spaces or tabs; '#' starts a
// comment that runs to the end of the line; blank lines are skipped; node ids are decimal
// integers in [0, 2^31). Self loops and duplicate edges are dropped (GCN adds A + I itself).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/graph/csr_graph.h"

namespace strata {

// "u v" per line (exactly two fields), the edge u->v; with `symmetrize`, also v->u. The node count
// is max id + 1, or `num_nodes` when it is positive, in which case an id >= num_nodes is an error.
// The graph is named after the file's stem.
CsrGraph load_edge_list(const std::string& path, bool symmetrize, std::int64_t num_nodes = 0);

// A LINQS .cites file: "<cited paper id> <citing paper id>" per line, where paper ids are arbitrary
// tokens (numbers or names), renumbered 0..N-1 in order of first appearance (reading each line
// left to right). The result is symmetrized. If `paper_ids` is given, it receives the original
// id of each node (paper_ids[node]).
CsrGraph load_linqs_cites(const std::string& path, std::vector<std::string>* paper_ids = nullptr);

// Sparse features in COO text, "node feature value" per line (the Planetoid conversion's
// <name>.features.txt). A comment "shape R x C" (as in "# sparse features: ... ; shape 2708 x 1433")
// declares the matrix shape; otherwise the shape is `rows` x `columns` when those are positive,
// else (max node + 1) x (max feature + 1). Ids outside a declared shape are errors. Entries whose
// value is 0 are not nonzeros; a (node, feature) pair listed twice counts once.
FeatureStats load_sparse_features(const std::string& path, std::int64_t rows = 0, std::int64_t columns = 0);

// Strata's compact feature-statistics file, which stands in for a features file where only the
// sparsity matters (configs/datasets/cora/cora.feature_stats.txt):
//
//   # comments
//   rows 2708
//   columns 1433
//   nnz 49216
//   row_nnz
//   <rows whitespace-separated counts, any number per line: node 0's nonzeros first>
//
// The counts must number `rows`, each lie in [0, columns], and sum to nnz.
FeatureStats load_feature_stats(const std::string& path);
// Writes the format above (atomically: temp file + rename); 20 counts per line.
void write_feature_stats(const FeatureStats& stats, const std::string& path, const std::string& comment = "");

// Node classes, "node class" per line (class -1 = unlabeled). The result has `num_nodes` entries
// (-1 for nodes the file does not list); a node >= num_nodes, a class < -1 or a node listed twice
// is an error.
std::vector<std::int32_t> load_labels(const std::string& path, std::int64_t num_nodes);

// A Planetoid-style dataset as in ../shared/datasets/<name>/planetoid_txt/ and configs/datasets/cora/:
//   <dir>/<name>.edges.txt          required; "u v" undirected edges (stored symmetrized)
//   <dir>/<name>.features.txt       optional; sparse COO features (load_sparse_features)
//   <dir>/<name>.feature_stats.txt  used when the features file is absent (load_feature_stats)
//   <dir>/<name>.labels.txt         optional; "node class"
// The node count is the feature matrix's row count when features are present (edge and label ids
// beyond it are errors); otherwise the largest id in the edges and labels files + 1.
struct GraphDataset {
  CsrGraph graph;
  std::optional<FeatureStats> features;
  std::vector<std::int32_t> labels;  // empty without a labels file; else num_nodes entries
  std::int32_t num_classes = 0;      // max label + 1 (0 without labels)
};
GraphDataset load_planetoid(const std::string& dir, const std::string& name);

}  // namespace strata
