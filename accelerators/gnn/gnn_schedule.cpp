#include "accelerators/gnn/gnn_schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/rounding.h"

namespace strata {
namespace {

std::uint64_t bytes_of(double elements, double bytes_per_element) {
  return static_cast<std::uint64_t>(std::ceil(elements * bytes_per_element));
}

constexpr double kIndexBytes = 4;  // an int32 column (or row) id

}  // namespace

GnnTotals GnnSchedule::totals(std::uint64_t access_bytes) {
  GnnTotals t;
  GnnStep s;
  rewind();
  while (next(s)) {
    ++t.steps;
    for (const auto* list : {&s.reads, &s.writes})
      for (const auto& d : *list) {
        (d.write ? t.write_bytes : t.read_bytes) += d.bytes();
        t.accesses += aligned_blocks(d, access_bytes);
      }
    t.compute_cycles += s.compute_cycles;
  }
  rewind();
  return t;
}

bool RowCache::access(std::int32_t row) {
  if (capacity_ == 0) return false;
  auto it = where_.find(row);
  if (it != where_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return true;
  }
  if (order_.size() >= capacity_) {
    where_.erase(order_.back());
    order_.pop_back();
  }
  order_.push_front(row);
  where_[row] = order_.begin();
  return false;
}

void RowCache::clear() {
  order_.clear();
  where_.clear();
}

namespace {

// Nodes in breadth-first order from the lowest unvisited id, neighbours ascending: rows close in
// the order share neighbours, which is what a partitioner's clusters give.
std::vector<std::int32_t> breadth_first_order(const SparseStructure& a) {
  const std::int64_t n = a.rows();
  std::vector<std::int32_t> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> row;
  for (std::int64_t root = 0; root < n; ++root) {
    if (seen[static_cast<std::size_t>(root)]) continue;
    seen[static_cast<std::size_t>(root)] = 1;
    std::size_t head = order.size();
    order.push_back(static_cast<std::int32_t>(root));
    while (head < order.size()) {
      a.row(order[head++], row);
      for (const std::int32_t u : row)
        if (!seen[static_cast<std::size_t>(u)]) {
          seen[static_cast<std::size_t>(u)] = 1;
          order.push_back(u);
        }
    }
  }
  return order;
}

}  // namespace

AggregationSchedule::AggregationSchedule(const OpGraph& graph, const Operator& op, const AggregationEngineSpec& e,
                                         GnnAddressMap map, OnChip on_chip)
    : a_(*graph.tensor(op.inputs.at(0)).structure),
      e_(e),
      width_(op.dim("n")),
      value_bits_(graph.tensor(op.inputs.at(1)).bytes_per_element() * 8),
      sparse_b_(e.format == FeatureFormat::Beicsr && op.dims.count("b_nnz") && op.dim("b_nnz") > 0),
      b_nnz_(sparse_b_ ? op.dim("b_nnz") : 0),
      b_base_(map.base(op.inputs[1])),
      o_base_(map.base(op.outputs.at(0))),
      a_base_(map.base(op.inputs[0])),
      edge_bytes_(graph.tensor(op.inputs[0]).bytes_per_element()),
      tile_rows_(a_.rows()),
      on_chip_(e.style == AggregationStyle::RowWise ? OnChip{} : on_chip),
      cache_(0) {
  // BEICSR writes a sparse row in place of the dense one: rows keep the dense stride.
  slot_bytes_ =
      bytes_of(e.format == FeatureFormat::Beicsr ? static_cast<double>(width_) * value_bits_ / 8
                                                 : feature_row_bytes(e.format, width_, value_bits_, width_, false),
               1);
  out_row_bytes_ = bytes_of(static_cast<double>(width_), graph.tensor(op.outputs[0]).bytes_per_element());
  const std::int64_t n = a_.rows();
  const std::uint64_t mean_row = std::max<std::uint64_t>(1, sparse_b_ ? row_bytes(0) : slot_bytes_);
  const std::uint64_t buffer_rows = e.feature_buffer_bytes / mean_row;
  if (e.style == AggregationStyle::RowWise) {
    if (e.cache == FeatureCache::Lru) cache_ = RowCache(buffer_rows);
    if (e.cache == FeatureCache::HighDegree) {
      if (e.cluster_rows > 0) order_ = breadth_first_order(a_);
      degree_.resize(static_cast<std::size_t>(n));
      pinned_.assign(static_cast<std::size_t>(n), 0);
    }
    edge_ptr_.assign(static_cast<std::size_t>(n + 1), 0);
    for (std::int64_t v = 0; v < n; ++v) {
      a_.row(v, scratch_);
      if (!degree_.empty()) degree_[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(scratch_.size());
      edge_ptr_[static_cast<std::size_t>(v + 1)] =
          edge_ptr_[static_cast<std::size_t>(v)] + static_cast<std::int64_t>(scratch_.size());
    }
    return;
  }
  cache_ = RowCache(e.condense_edges ? 0 : buffer_rows);
  const double out_row = static_cast<double>(out_row_bytes_);
  tile_rows_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(e.output_buffer_bytes) / out_row));
  // A's columns: the destinations of each source node.
  col_ptr_.assign(static_cast<std::size_t>(n + 1), 0);
  for (std::int64_t v = 0; v < n; ++v) {
    a_.row(v, scratch_);
    for (const std::int32_t u : scratch_) ++col_ptr_[static_cast<std::size_t>(u) + 1];
  }
  for (std::int64_t u = 0; u < n; ++u) col_ptr_[static_cast<std::size_t>(u + 1)] += col_ptr_[static_cast<std::size_t>(u)];
  col_rows_.resize(static_cast<std::size_t>(col_ptr_.back()));
  std::vector<std::int64_t> fill(col_ptr_.begin(), col_ptr_.end() - 1);
  for (std::int64_t v = 0; v < n; ++v) {
    a_.row(v, scratch_);
    for (const std::int32_t u : scratch_) col_rows_[static_cast<std::size_t>(fill[static_cast<std::size_t>(u)]++)] = static_cast<std::int32_t>(v);
  }
}

std::int64_t AggregationSchedule::values(std::int32_t u) const {
  if (!sparse_b_) return width_;
  // The nonzeros spread evenly over the rows (the layer's density is all the graph carries).
  const auto upto = [&](std::int64_t v) {
    return static_cast<std::int64_t>(static_cast<double>(v) * static_cast<double>(b_nnz_) /
                                     static_cast<double>(a_.rows()));
  };
  return upto(u + 1) - upto(u);
}

std::uint64_t AggregationSchedule::row_bytes(std::int32_t u) const {
  if (!sparse_b_) return slot_bytes_;
  return bytes_of(feature_row_bytes(e_.format, values(u), value_bits_, width_, true), 1);
}

void AggregationSchedule::rewind() {
  row_ = tile_ = 0;
  source_ = 0;
  edge_stream_ = row_stream_ = 0;
  cache_.clear();
  for (const std::int32_t u : pinned_list_) pinned_[static_cast<std::size_t>(u)] = 0;
  pinned_list_.clear();
}

void AggregationSchedule::fetch_row(std::int32_t u, GnnStep& s) {
  if (!pinned_.empty() ? pinned_[static_cast<std::size_t>(u)] != 0 : cache_.access(u)) return;
  s.reads.push_back(DmaDescriptor{b_base_ + static_cast<std::uint64_t>(u) * slot_bytes_, 1, row_bytes(u), 0, false});
}

void AggregationSchedule::start_cluster(GnnStep& s) {
  for (const std::int32_t u : pinned_list_) pinned_[static_cast<std::size_t>(u)] = 0;
  pinned_list_.clear();
  const std::int64_t n = a_.rows(), size = e_.cluster_rows > 0 ? e_.cluster_rows : n;
  const std::int64_t end = std::min(n, row_ + size);
  std::vector<std::int32_t> members;
  for (std::int64_t i = row_; i < end; ++i)
    members.push_back(order_.empty() ? static_cast<std::int32_t>(i) : order_[static_cast<std::size_t>(i)]);
  // The highest-degree nodes that fit, ties to the lower id.
  std::uint64_t room = e_.feature_buffer_bytes;
  std::stable_sort(members.begin(), members.end(), [&](std::int32_t x, std::int32_t y) {
    return degree_[static_cast<std::size_t>(x)] > degree_[static_cast<std::size_t>(y)];
  });
  for (const std::int32_t u : members) {
    const std::uint64_t bytes = row_bytes(u);
    if (bytes > room) break;
    room -= bytes;
    fetch_row(u, s);
    pinned_[static_cast<std::size_t>(u)] = 1;
    pinned_list_.push_back(u);
  }
}

void AggregationSchedule::stream(std::uint64_t base, std::uint64_t& end, std::uint64_t bytes, GnnStep& s) const {
  const std::uint64_t burst = std::max<std::uint64_t>(1, e_.access_bytes);
  const std::uint64_t from = ceil_div(end, burst) * burst, to = ceil_div(end + bytes, burst) * burst;
  end += bytes;
  if (to > from) s.reads.push_back(DmaDescriptor{base + from, 1, to - from, 0, false});
}

bool AggregationSchedule::next(GnnStep& s) {
  s = GnnStep{};
  const std::int64_t n = a_.rows();
  // The lanes are pooled over a step's products: a destination row's neighbours (row-wise), a
  // source row times its column of A (outer product).
  const auto lanes = static_cast<std::uint64_t>(e_.lanes);
  if (e_.style == AggregationStyle::RowWise) {
    if (row_ >= n) return false;
    if (!pinned_.empty() && (e_.cluster_rows > 0 ? row_ % e_.cluster_rows == 0 : row_ == 0)) start_cluster(s);
    const std::int64_t v = order_.empty() ? row_ : order_[static_cast<std::size_t>(row_)];
    a_.row(v, scratch_);
    s.reads.push_back(
        DmaDescriptor{a_base_ + bytes_of(static_cast<double>(edge_ptr_[static_cast<std::size_t>(v)]), edge_bytes_), 1,
                      bytes_of(static_cast<double>(scratch_.size()), edge_bytes_), 0, false});
    std::uint64_t products = 0;
    for (const std::int32_t u : scratch_) {
      fetch_row(u, s);
      products += static_cast<std::uint64_t>(values(u));
    }
    s.compute_cycles = ceil_div(products, lanes);
    s.writes.push_back(
        DmaDescriptor{o_base_ + static_cast<std::uint64_t>(v) * out_row_bytes_, 1, out_row_bytes_, 0, true});
    ++row_;
    return true;
  }
  // Outer product: per tile of destination rows, the next source with an edge into the tile.
  while (tile_ * tile_rows_ < n) {
    const std::int64_t r0 = tile_ * tile_rows_, r1 = std::min(n, r0 + tile_rows_);
    while (source_ < n) {
      const std::int32_t u = source_++;
      const auto first = col_rows_.begin() + col_ptr_[static_cast<std::size_t>(u)];
      const auto last = col_rows_.begin() + col_ptr_[static_cast<std::size_t>(u) + 1];
      const auto lo = std::lower_bound(first, last, static_cast<std::int32_t>(r0));
      const auto hi = std::lower_bound(lo, last, static_cast<std::int32_t>(r1));
      const auto count = static_cast<std::uint64_t>(hi - lo);
      if (count == 0) continue;
      const std::uint64_t edges = bytes_of(static_cast<double>(count), edge_bytes_);
      if (e_.condense_edges) {
        stream(a_base_, edge_stream_, edges, s);
        if (!on_chip_.input) stream(b_base_ + (std::uint64_t{1} << 31), row_stream_, row_bytes(u), s);
      } else {
        s.reads.push_back(DmaDescriptor{a_base_ + bytes_of(static_cast<double>(lo - col_rows_.begin()), edge_bytes_), 1,
                                        edges, 0, false});
        if (!on_chip_.input) fetch_row(u, s);
      }
      if (on_chip_.input) s.needs = static_cast<std::uint64_t>(u) + 1;
      s.compute_cycles = ceil_div(count * static_cast<std::uint64_t>(values(u)), lanes);
      return true;
    }
    // The tile is done: its rows go out (or on to the next engine), the next tile starts over
    // the sources.
    if (!on_chip_.output)
      s.writes.push_back(DmaDescriptor{o_base_ + static_cast<std::uint64_t>(r0) * out_row_bytes_, 1,
                                       static_cast<std::uint64_t>(r1 - r0) * out_row_bytes_, 0, true});
    s.produces = 1;
    ++tile_;
    source_ = 0;
    return true;
  }
  return false;
}

CombinationSchedule::CombinationSchedule(const OpGraph& graph, const Operator& op, const CombinationEngineSpec& e,
                                         FeatureFormat format, std::uint64_t input_buffer_bytes,
                                         std::uint64_t weight_buffer_bytes, GnnAddressMap map, OnChip on_chip)
    : e_(e), on_chip_(on_chip) {
  const bool spmm = op.kind == OpKind::SpMM;
  const Tensor& x = graph.tensor(op.inputs.at(0));
  const Tensor& w = graph.tensor(op.inputs.at(1));
  m_ = spmm ? op.dim("rows") : op.dim("m");
  k_ = spmm ? op.dim("cols") : op.dim("k");
  n_ = op.dim("n");
  nnz_ = spmm ? op.dim("nnz") : m_ * k_;
  sparse_x_ = spmm;
  x_bytes_ = x.bytes_per_element();
  w_bytes_ = w.bytes_per_element();
  o_bytes_ = graph.tensor(op.outputs.at(0)).bytes_per_element();
  // A sparse X from the dataset (CSR, format "index") holds offsets, column ids and values: the
  // values' bits are what a bit-serial engine steps through.
  const double value_bits =
      spmm && x.format == "index"
          ? std::max(1.0, (static_cast<double>(x.bytes) - kIndexBytes * static_cast<double>(m_ + 1 + nnz_)) * 8 /
                              static_cast<double>(nnz_))
          : x_bytes_ * 8;
  operand_bits_ = static_cast<int>(std::ceil(value_bits - 1e-9));
  if (format != FeatureFormat::Plain) {
    // X's rows in the engine's feature format, each holding the mean number of values (the
    // first nnz % m rows one more).
    const std::int64_t per_row = nnz_ / m_, longer = nnz_ % m_;
    const auto row = [&](std::int64_t values) { return feature_row_bytes(format, values, value_bits, k_, sparse_x_); };
    x_bytes_ = (static_cast<double>(longer) * row(per_row + 1) + static_cast<double>(m_ - longer) * row(per_row)) /
               static_cast<double>(nnz_);
  }
  x_base_ = map.base(op.inputs[0]);
  w_base_ = map.base(op.inputs[1]);
  o_base_ = map.base(op.outputs[0]);
  // A sparse X row is its nonzeros (their bytes include the column ids).
  const double x_row = sparse_x_ ? static_cast<double>(nnz_) / static_cast<double>(m_) * x_bytes_
                                 : static_cast<double>(k_) * x_bytes_;
  const double o_row = static_cast<double>(n_) * o_bytes_;
  tile_rows_ = on_chip_.input && on_chip_.input_rows > 0
                   ? std::min(on_chip_.input_rows, m_)
                   : std::clamp<std::int64_t>(
                         static_cast<std::int64_t>(static_cast<double>(input_buffer_bytes) / (x_row + o_row)), 1, m_);
  tiles_ = ceil_div(m_, tile_rows_);
  weights_fit_ = static_cast<double>(k_ * n_) * w_bytes_ <= static_cast<double>(weight_buffer_bytes);
}

bool CombinationSchedule::next(GnnStep& s) {
  s = GnnStep{};
  if (tile_ >= tiles_) return false;
  const std::int64_t r0 = tile_ * tile_rows_, rows = std::min(tile_rows_, m_ - r0);
  const double share = static_cast<double>(rows) / static_cast<double>(m_);
  const double nnz = static_cast<double>(nnz_) * share;  // a sparse X's nonzeros spread evenly
  if (tile_ == 0 || !weights_fit_)
    s.reads.push_back(DmaDescriptor{w_base_, 1, bytes_of(static_cast<double>(k_ * n_), w_bytes_), 0, false});
  const double x_elems = sparse_x_ ? nnz : static_cast<double>(rows * k_);
  const std::uint64_t x_offset = bytes_of(sparse_x_ ? static_cast<double>(nnz_) * static_cast<double>(r0) / static_cast<double>(m_)
                                                    : static_cast<double>(r0 * k_),
                                          x_bytes_);
  if (!on_chip_.input) s.reads.push_back(DmaDescriptor{x_base_ + x_offset, 1, bytes_of(x_elems, x_bytes_), 0, false});
  s.compute_cycles = combination_cycles(e_, rows, n_, k_, static_cast<std::int64_t>(std::llround(nnz)), operand_bits_);
  if (!on_chip_.output)
    s.writes.push_back(DmaDescriptor{o_base_ + bytes_of(static_cast<double>(r0 * n_), o_bytes_), 1,
                                     bytes_of(static_cast<double>(rows * n_), o_bytes_), 0, true});
  s.produces = static_cast<std::uint64_t>(rows);
  if (on_chip_.input) s.needs = static_cast<std::uint64_t>(tile_) + 1;
  ++tile_;
  return true;
}

MoveSchedule::MoveSchedule(const OpGraph& graph, const Operator& op, std::uint64_t chunk_bytes, GnnAddressMap map) {
  chunk_bytes = std::max<std::uint64_t>(1, chunk_bytes);
  const auto split = [&](TensorId t, std::uint64_t bytes, bool write) {
    for (std::uint64_t at = 0; at < bytes; at += chunk_bytes)
      pieces_.push_back(DmaDescriptor{map.base(t) + at, 1, std::min(chunk_bytes, bytes - at), 0, write});
  };
  for (std::size_t i = 0; i < op.inputs.size(); ++i)
    split(op.inputs[i], bytes_of(static_cast<double>(input_elements(op, i)), graph.tensor(op.inputs[i]).bytes_per_element()),
          false);
  for (std::size_t i = 0; i < op.outputs.size(); ++i)
    split(op.outputs[i],
          bytes_of(static_cast<double>(output_elements(op, i)), graph.tensor(op.outputs[i]).bytes_per_element()), true);
}

bool MoveSchedule::next(GnnStep& s) {
  s = GnnStep{};
  if (at_ >= pieces_.size()) return false;
  const DmaDescriptor& d = pieces_[at_++];
  (d.write ? s.writes : s.reads).push_back(d);
  return true;
}

}  // namespace strata
