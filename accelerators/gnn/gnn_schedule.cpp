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

GnnTotals GnnSchedule::totals() {
  GnnTotals t;
  GnnStep s;
  rewind();
  while (next(s)) {
    ++t.steps;
    for (const auto& d : s.reads) t.read_bytes += d.bytes();
    for (const auto& d : s.writes) t.write_bytes += d.bytes();
    t.reads += s.reads.size();
    t.writes += s.writes.size();
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

AggregationSchedule::AggregationSchedule(const OpGraph& graph, const Operator& op, const AggregationEngineSpec& e,
                                         GnnAddressMap map)
    : a_(*graph.tensor(op.inputs.at(0)).structure),
      e_(e),
      width_(op.dim("n")),
      element_bytes_(graph.tensor(op.inputs.at(1)).bytes_per_element()),
      row_bytes_(bytes_of(static_cast<double>(op.dim("n")), graph.tensor(op.inputs.at(1)).bytes_per_element())),
      b_base_(map.base(op.inputs[1])),
      o_base_(map.base(op.outputs.at(0))),
      a_base_(map.base(op.inputs[0])),
      edge_bytes_(graph.tensor(op.inputs[0]).bytes_per_element()),
      tile_rows_(a_.rows()),
      cache_(row_bytes_ ? e.feature_buffer_bytes / row_bytes_ : 0) {
  if (e.style != AggregationStyle::OuterProduct) return;
  const double out_row = static_cast<double>(width_) * graph.tensor(op.outputs[0]).bytes_per_element();
  tile_rows_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(e.output_buffer_bytes) / out_row));
  // A's columns: the destinations of each source node.
  const std::int64_t n = a_.rows();
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

void AggregationSchedule::rewind() {
  row_ = tile_ = 0;
  edges_read_ = 0;
  source_ = 0;
  cache_.clear();
}

void AggregationSchedule::fetch_row(std::int32_t u, GnnStep& s) {
  if (cache_.access(u)) return;
  s.reads.push_back(DmaDescriptor{b_base_ + static_cast<std::uint64_t>(u) * row_bytes_, 1, row_bytes_, 0, false});
}

bool AggregationSchedule::next(GnnStep& s) {
  s = GnnStep{};
  const std::int64_t n = a_.rows();
  const auto per_edge = ceil_div(static_cast<std::uint64_t>(width_), static_cast<std::uint64_t>(e_.lanes));
  const std::uint64_t out_row = row_bytes_;
  if (e_.style == AggregationStyle::RowWise) {
    if (row_ >= n) return false;
    a_.row(row_, scratch_);
    s.reads.push_back(DmaDescriptor{a_base_ + edges_read_, 1, bytes_of(static_cast<double>(scratch_.size()), edge_bytes_), 0,
                                    false});
    edges_read_ += s.reads.back().row_bytes;
    for (const std::int32_t u : scratch_) fetch_row(u, s);
    s.compute_cycles = scratch_.size() * per_edge;
    s.writes.push_back(DmaDescriptor{o_base_ + static_cast<std::uint64_t>(row_) * out_row, 1, out_row, 0, true});
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
      s.reads.push_back(DmaDescriptor{a_base_ + bytes_of(static_cast<double>(lo - col_rows_.begin()), edge_bytes_), 1,
                                      bytes_of(static_cast<double>(count), edge_bytes_), 0, false});
      fetch_row(u, s);
      s.compute_cycles = count * per_edge;
      return true;
    }
    // The tile is done: its rows go out, the next tile starts over the sources.
    s.writes.push_back(DmaDescriptor{o_base_ + static_cast<std::uint64_t>(r0) * out_row, 1,
                                     static_cast<std::uint64_t>(r1 - r0) * out_row, 0, true});
    ++tile_;
    source_ = 0;
    return true;
  }
  return false;
}

CombinationSchedule::CombinationSchedule(const OpGraph& graph, const Operator& op, const CombinationEngineSpec& e,
                                         std::uint64_t input_buffer_bytes, std::uint64_t weight_buffer_bytes,
                                         GnnAddressMap map)
    : e_(e) {
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
  // A sparse X (CSR) stores per nonzero its value and column id (and a share of the offsets):
  // the value's bits are what a bit-serial engine steps through.
  operand_bits_ = static_cast<int>(std::ceil(std::max(1.0, (spmm ? x_bytes_ - kIndexBytes : x_bytes_) * 8)));
  x_base_ = map.base(op.inputs[0]);
  w_base_ = map.base(op.inputs[1]);
  o_base_ = map.base(op.outputs[0]);
  // A sparse X row is its nonzeros (their bytes include the column ids).
  const double x_row = sparse_x_ ? static_cast<double>(nnz_) / static_cast<double>(m_) * x_bytes_
                                 : static_cast<double>(k_) * x_bytes_;
  const double o_row = static_cast<double>(n_) * o_bytes_;
  tile_rows_ = std::clamp<std::int64_t>(static_cast<std::int64_t>(static_cast<double>(input_buffer_bytes) / (x_row + o_row)), 1, m_);
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
  s.reads.push_back(DmaDescriptor{x_base_ + x_offset, 1, bytes_of(x_elems, x_bytes_), 0, false});
  s.compute_cycles = combination_cycles(e_, rows, n_, k_, static_cast<std::int64_t>(std::llround(nnz)), operand_bits_);
  s.writes.push_back(DmaDescriptor{o_base_ + bytes_of(static_cast<double>(r0 * n_), o_bytes_), 1,
                                   bytes_of(static_cast<double>(rows * n_), o_bytes_), 0, true});
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
