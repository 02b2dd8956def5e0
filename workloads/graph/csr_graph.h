// A directed graph in compressed sparse row (CSR) form, the one graph type the GNN workloads and
// mappers read. Undirected graphs are stored symmetrized: every undirected edge {u, v} is the two
// stored edges u->v and v->u, so num_edges() = nnz(A) of the GCN adjacency.
//
// Invariants (checked whenever a graph is made): row_ptr has num_nodes()+1 entries, starts at 0,
// never decreases and ends at num_edges(); each row's column ids lie in [0, num_nodes()) and are
// strictly increasing (sorted, no duplicate edges). Node ids are int32, so num_nodes() <= 2^31.
//
// Storage is either owned vectors or a read-only memory map of a binary CSR file
// (workloads/graph/binary_csr.h), behind the same accessors. A CsrGraph is immutable; copies share
// the storage (cheap, and safe to read from several threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace strata {

class CsrGraph {
 public:
  // The largest node count int32 column ids can address.
  static constexpr std::int64_t kMaxNodes = std::int64_t{1} << 31;

  // The column ids of one row, for range-for loops.
  struct Neighbors {
    const std::int32_t* first = nullptr;
    const std::int32_t* last = nullptr;
    const std::int32_t* begin() const { return first; }
    const std::int32_t* end() const { return last; }
    std::int64_t size() const { return last - first; }
  };

  // The empty graph (0 nodes, 0 edges).
  CsrGraph();
  // Copies share the immutable storage. There are no move operations on purpose: a "moved"
  // graph is copied, so the source stays a valid graph (its raw pointers stay backed).
  CsrGraph(const CsrGraph&) = default;
  CsrGraph& operator=(const CsrGraph&) = default;
  // Takes ownership of the arrays; throws std::invalid_argument naming the broken invariant.
  CsrGraph(std::string name, std::vector<std::int64_t> row_ptr, std::vector<std::int32_t> col_idx);

  // Wraps arrays owned by `owner` (kept alive as long as any copy of the graph) without copying
  // them; validates like the constructor (std::invalid_argument). Used by map_binary_csr.
  static CsrGraph view(std::string name, std::shared_ptr<const void> owner, std::int64_t num_nodes,
                       const std::int64_t* row_ptr, const std::int32_t* col_idx);

  // Builds from an edge list u->v: drops duplicate edges, adds v->u for every edge when
  // `symmetrize`, and drops self loops (u->u) unless `keep_self_loops`. Node ids must lie in
  // [0, num_nodes) (std::out_of_range otherwise; loaders check ids against their file first).
  // O(num_nodes + edges) plus a sort of each row.
  static CsrGraph from_edges(std::string name, std::int64_t num_nodes,
                             std::vector<std::pair<std::int32_t, std::int32_t>> edges, bool symmetrize,
                             bool keep_self_loops = false);

  const std::string& name() const { return name_; }
  std::int64_t num_nodes() const { return num_nodes_; }
  std::int64_t num_edges() const { return num_edges_; }  // stored (directed) edges = nnz(A)
  const std::int64_t* row_ptr() const { return row_ptr_; }  // num_nodes()+1 entries
  const std::int32_t* col_idx() const { return col_idx_; }  // num_edges() entries
  // Out-degree (row length); for a symmetric graph, the degree. Throws std::out_of_range.
  std::int64_t degree(std::int64_t v) const;
  Neighbors neighbors(std::int64_t v) const;  // throws std::out_of_range
  std::int64_t max_degree() const { return max_degree_; }
  double average_degree() const;  // num_edges / num_nodes (0 for the empty graph)
  std::int64_t self_loops() const { return self_loops_; }
  // Whether u->v is stored exactly when v->u is (computed once, in O(nodes + edges)).
  bool is_symmetric() const { return symmetric_; }
  // Whether the arrays are a memory map of a file rather than owned vectors.
  bool is_mapped() const { return mapped_; }

  // Node counts per degree bucket: with bounds b0 < b1 < ... (all >= 1), bucket 0 holds degrees
  // in [0, b0), bucket i in [b(i-1), b(i)), and the last bucket [b(last), inf); so the result has
  // bounds.size()+1 entries. {1, 2, 4, 8, 16, 32} gives the buckets 0/1/2-3/4-7/8-15/16-31/32+.
  // Throws std::invalid_argument for bounds that are not strictly increasing and positive.
  std::vector<std::int64_t> degree_histogram(const std::vector<std::int64_t>& bounds) const;

  // Same nodes and the same edges (names and storage kinds are not compared).
  bool same_structure(const CsrGraph& other) const;

 private:
  void finish(bool known_symmetric);  // validates, computes the summary figures
  std::string name_;
  std::shared_ptr<const void> storage_;  // owns the arrays (vectors or a mapping)
  const std::int64_t* row_ptr_;
  const std::int32_t* col_idx_ = nullptr;
  std::int64_t num_nodes_ = 0, num_edges_ = 0, max_degree_ = 0, self_loops_ = 0;
  bool symmetric_ = true, mapped_ = false;
};

// The sparsity of a node-feature matrix X (rows = nodes, columns = features), without the values:
// what GNN dataflow models need (bytes moved, nonzeros per row).
struct FeatureStats {
  std::int64_t rows = 0, columns = 0, nnz = 0;
  double density() const;  // nnz / (rows * columns); 0 when empty
  std::vector<std::int32_t> row_nnz;  // nonzeros of each row; rows entries summing to nnz
};

}  // namespace strata
