#include "workloads/graph/csr_graph.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/memory_budget.h"

namespace strata {
namespace {

const std::int64_t kEmptyRowPtr[1] = {0};

struct OwnedArrays {
  std::vector<std::int64_t> row_ptr;
  std::vector<std::int32_t> col_idx;
};

}  // namespace

CsrGraph::CsrGraph() : row_ptr_(kEmptyRowPtr) {}

CsrGraph::CsrGraph(std::string name, std::vector<std::int64_t> row_ptr, std::vector<std::int32_t> col_idx)
    : name_(std::move(name)), row_ptr_(kEmptyRowPtr) {
  if (row_ptr.empty()) throw std::invalid_argument("CSR graph: row_ptr needs at least one entry (num_nodes + 1)");
  auto arrays = std::make_shared<OwnedArrays>();
  arrays->row_ptr = std::move(row_ptr);
  arrays->col_idx = std::move(col_idx);
  num_nodes_ = static_cast<std::int64_t>(arrays->row_ptr.size()) - 1;
  row_ptr_ = arrays->row_ptr.data();
  col_idx_ = arrays->col_idx.data();
  if (arrays->row_ptr.back() != static_cast<std::int64_t>(arrays->col_idx.size()))
    throw std::invalid_argument(fmt::format("CSR graph '{}': row_ptr ends at {} but col_idx has {} entries", name_,
                                            arrays->row_ptr.back(), arrays->col_idx.size()));
  storage_ = std::move(arrays);
  finish(false);
}

CsrGraph CsrGraph::view(std::string name, std::shared_ptr<const void> owner, std::int64_t num_nodes,
                        const std::int64_t* row_ptr, const std::int32_t* col_idx) {
  if (num_nodes < 0 || !row_ptr) throw std::invalid_argument("CSR graph: bad view (negative node count or no row_ptr)");
  CsrGraph g;
  g.name_ = std::move(name);
  g.storage_ = std::move(owner);
  g.num_nodes_ = num_nodes;
  g.row_ptr_ = row_ptr;
  g.col_idx_ = col_idx;
  g.mapped_ = true;
  g.finish(false);
  return g;
}

void CsrGraph::finish(bool known_symmetric) {
  const std::int64_t n = num_nodes_;
  if (n > kMaxNodes)
    throw std::invalid_argument(fmt::format("CSR graph '{}': {} nodes exceed the int32 id range ({})", name_, n, kMaxNodes));
  if (row_ptr_[0] != 0) throw std::invalid_argument(fmt::format("CSR graph '{}': row_ptr[0] is {}, not 0", name_, row_ptr_[0]));
  num_edges_ = row_ptr_[n];
  if (num_edges_ > 0 && !col_idx_) throw std::invalid_argument(fmt::format("CSR graph '{}': no col_idx", name_));
  max_degree_ = 0;
  self_loops_ = 0;
  for (std::int64_t v = 0; v < n; ++v) {
    const std::int64_t b = row_ptr_[v], e = row_ptr_[v + 1];
    if (e < b || e > num_edges_)
      throw std::invalid_argument(
          fmt::format("CSR graph '{}': row_ptr[{}] = {} is outside [row_ptr[{}] = {}, {}]", name_, v + 1, e, v, b, num_edges_));
    max_degree_ = std::max(max_degree_, e - b);
    std::int64_t prev = -1;
    for (std::int64_t k = b; k < e; ++k) {
      const std::int64_t c = col_idx_[k];
      if (c < 0 || c >= n)
        throw std::invalid_argument(fmt::format("CSR graph '{}': edge {} -> {} names a node outside [0, {})", name_, v, c, n));
      if (c <= prev)
        throw std::invalid_argument(fmt::format("CSR graph '{}': row {} is not strictly increasing at column {} "
                                                "(unsorted or duplicate edge)",
                                                name_, v, c));
      if (c == v) ++self_loops_;
      prev = c;
    }
  }
  if (known_symmetric) {
    symmetric_ = true;
    return;
  }
  // Linear symmetry check: rows are sorted, so scanning u = 0, 1, ... meets the entries of row v
  // in increasing order if and only if the graph is symmetric; cursor[v] walks row v in step.
  std::vector<std::int64_t> cursor(row_ptr_, row_ptr_ + n);
  symmetric_ = true;
  for (std::int64_t u = 0; u < n && symmetric_; ++u) {
    for (std::int64_t k = row_ptr_[u]; k < row_ptr_[u + 1]; ++k) {
      const std::int32_t v = col_idx_[k];
      std::int64_t& c = cursor[static_cast<size_t>(v)];
      if (c >= row_ptr_[v + 1] || col_idx_[c] != u) {
        symmetric_ = false;
        break;
      }
      ++c;
    }
  }
  // Every entry was matched by a distinct reverse entry, so the counts agree and nothing is left.
}

CsrGraph CsrGraph::from_edges(std::string name, std::int64_t num_nodes,
                              std::vector<std::pair<std::int32_t, std::int32_t>> edges, bool symmetrize,
                              bool keep_self_loops) {
  if (num_nodes < 0 || num_nodes > kMaxNodes)
    throw std::out_of_range(fmt::format("CSR graph '{}': node count {} is outside [0, {}]", name, num_nodes, kMaxNodes));
  // row_ptr and its fill cursors (8 bytes a node each), col_idx (4 bytes an entry).
  const double entries = static_cast<double>(edges.size()) * (symmetrize ? 2 : 1);
  require_memory(16.0 * static_cast<double>(num_nodes) + 4.0 * entries,
                 fmt::format("a CSR graph of {} nodes and {} edges", num_nodes, edges.size()));
  const size_t n = static_cast<size_t>(num_nodes);
  // Counting sort by source: count, prefix-sum, scatter; then sort and deduplicate each row.
  std::vector<std::int64_t> row_ptr(n + 1, 0);
  for (const auto& [u, v] : edges) {
    if (u < 0 || u >= num_nodes || v < 0 || v >= num_nodes)
      throw std::out_of_range(fmt::format("CSR graph '{}': edge {} -> {} names a node outside [0, {})", name, u, v, num_nodes));
    if (u == v && !keep_self_loops) continue;
    ++row_ptr[static_cast<size_t>(u) + 1];
    if (symmetrize && u != v) ++row_ptr[static_cast<size_t>(v) + 1];
  }
  for (size_t i = 0; i < n; ++i) row_ptr[i + 1] += row_ptr[i];
  std::vector<std::int32_t> col(static_cast<size_t>(row_ptr[n]));
  {
    std::vector<std::int64_t> fill(row_ptr.begin(), row_ptr.end() - 1);
    for (const auto& [u, v] : edges) {
      if (u == v && !keep_self_loops) continue;
      col[static_cast<size_t>(fill[static_cast<size_t>(u)]++)] = v;
      if (symmetrize && u != v) col[static_cast<size_t>(fill[static_cast<size_t>(v)]++)] = u;
    }
  }
  edges.clear();
  edges.shrink_to_fit();
  std::int64_t out = 0;
  for (size_t v = 0; v < n; ++v) {
    const auto first = col.begin() + row_ptr[v], last = col.begin() + row_ptr[v + 1];
    std::sort(first, last);
    const auto unique_end = std::unique(first, last);
    row_ptr[v] = out;  // row v's old start is no longer needed: rows are compacted in order
    out = std::copy(first, unique_end, col.begin() + out) - col.begin();
  }
  row_ptr[n] = out;
  col.resize(static_cast<size_t>(out));
  col.shrink_to_fit();

  CsrGraph g;
  g.name_ = std::move(name);
  auto arrays = std::make_shared<OwnedArrays>();
  arrays->row_ptr = std::move(row_ptr);
  arrays->col_idx = std::move(col);
  g.num_nodes_ = num_nodes;
  g.row_ptr_ = arrays->row_ptr.data();
  g.col_idx_ = arrays->col_idx.data();
  g.storage_ = std::move(arrays);
  g.finish(symmetrize);
  return g;
}

std::int64_t CsrGraph::degree(std::int64_t v) const {
  if (v < 0 || v >= num_nodes_)
    throw std::out_of_range(fmt::format("CSR graph '{}': node {} is outside [0, {})", name_, v, num_nodes_));
  return row_ptr_[v + 1] - row_ptr_[v];
}

CsrGraph::Neighbors CsrGraph::neighbors(std::int64_t v) const {
  if (v < 0 || v >= num_nodes_)
    throw std::out_of_range(fmt::format("CSR graph '{}': node {} is outside [0, {})", name_, v, num_nodes_));
  return Neighbors{col_idx_ + row_ptr_[v], col_idx_ + row_ptr_[v + 1]};
}

double CsrGraph::average_degree() const {
  return num_nodes_ ? static_cast<double>(num_edges_) / static_cast<double>(num_nodes_) : 0.0;
}

std::vector<std::int64_t> CsrGraph::degree_histogram(const std::vector<std::int64_t>& bounds) const {
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (bounds[i] < 1 || (i > 0 && bounds[i] <= bounds[i - 1]))
      throw std::invalid_argument("degree histogram bounds must be positive and strictly increasing");
  }
  std::vector<std::int64_t> counts(bounds.size() + 1, 0);
  for (std::int64_t v = 0; v < num_nodes_; ++v) {
    const std::int64_t d = row_ptr_[v + 1] - row_ptr_[v];
    // The bucket is the number of bounds <= d.
    const size_t bucket = static_cast<size_t>(std::upper_bound(bounds.begin(), bounds.end(), d) - bounds.begin());
    ++counts[bucket];
  }
  return counts;
}

bool CsrGraph::same_structure(const CsrGraph& other) const {
  return num_nodes_ == other.num_nodes_ && num_edges_ == other.num_edges_ &&
         std::equal(row_ptr_, row_ptr_ + num_nodes_ + 1, other.row_ptr_) &&
         std::equal(col_idx_, col_idx_ + num_edges_, other.col_idx_);
}

double FeatureStats::density() const {
  return rows > 0 && columns > 0 ? static_cast<double>(nnz) / (static_cast<double>(rows) * static_cast<double>(columns))
                                 : 0.0;
}

}  // namespace strata
