// What a GNN accelerator's engines do, step by step: the DRAM reads a step needs, its compute
// cycles and the writes it leaves, generated from the operator and (for aggregation) the real
// CSR of the graph. The SystemC engine (gnn_accelerator.h) runs steps with the next ones'
// reads in flight; tests and the analytic fidelity read the same steps' totals.
//
// Aggregation (SpMM with the graph's adjacency, O = A·B):
//   row_wise       destination rows in order (HyGCN's SIMD cores, GROW's Gustavson rows): each
//                  neighbour's row of B comes from the feature buffer, an LRU cache of B's rows
//                  (GROW's high-degree-node cache), or from DRAM; `lanes` elements a cycle
//   outer_product  (GCNAX, MEGA) destination rows in tiles that fit the output buffer; per tile
//                  every source node with an edge into it, in order: its row of B (through the
//                  feature buffer) times its column of A, accumulated into the tile
// The edge reader fetches each step's edges (column ids, values, offsets: the adjacency tensor's
// bytes per nonzero) from DRAM.
//
// Combination (X·W, X dense or sparse): X in row tiles that fit the input buffer, W once when
// it fits the weight buffer (else again per tile), outputs written per tile; cycles from
// models/gnn/combination_timing.h.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "models/dma/dma_engine.h"
#include "models/gnn/combination_timing.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

enum class AggregationStyle { RowWise, OuterProduct };

struct AggregationEngineSpec {
  AggregationStyle style = AggregationStyle::RowWise;
  std::int64_t lanes = 16;                 // feature elements accumulated a cycle, all cores together
  std::uint64_t feature_buffer_bytes = 0;  // rows of B kept on chip (an LRU cache of rows)
  std::uint64_t output_buffer_bytes = 0;   // outer product: the destination tile's partial rows
};

// Where the engines' operands live in DRAM: each tensor of the graph at its own base address.
struct GnnAddressMap {
  std::uint64_t base(TensorId t) const { return static_cast<std::uint64_t>(t + 1) << 32; }
};

struct GnnStep {
  std::vector<DmaDescriptor> reads;
  std::uint64_t compute_cycles = 0;
  std::vector<DmaDescriptor> writes;
};

struct GnnTotals {
  std::uint64_t steps = 0, read_bytes = 0, write_bytes = 0, compute_cycles = 0;
  std::uint64_t reads = 0, writes = 0;  // descriptors
};

// A step generator: next() fills the next step, false at the end; totals() walks a copy.
class GnnSchedule {
 public:
  virtual ~GnnSchedule() = default;
  virtual bool next(GnnStep& s) = 0;
  virtual void rewind() = 0;
  GnnTotals totals();
};

// An LRU cache of feature rows by node id.
class RowCache {
 public:
  explicit RowCache(std::uint64_t capacity_rows) : capacity_(capacity_rows) {}
  bool access(std::int32_t row);  // true on a hit; a miss inserts the row
  void clear();

 private:
  std::uint64_t capacity_;
  std::list<std::int32_t> order_;  // most recent first
  std::unordered_map<std::int32_t, std::list<std::int32_t>::iterator> where_;
};

class AggregationSchedule : public GnnSchedule {
 public:
  // `op` an SpMM whose first input has the graph's structure; B its second input, O its output.
  AggregationSchedule(const OpGraph& graph, const Operator& op, const AggregationEngineSpec& e, GnnAddressMap map = {});
  bool next(GnnStep& s) override;
  void rewind() override;

 private:
  void neighbours(std::int64_t v, std::vector<std::int32_t>& out) const;  // A's row v, diagonal included
  void fetch_row(std::int32_t u, GnnStep& s);

  const SparseStructure& a_;
  AggregationEngineSpec e_;
  std::int64_t width_;
  double element_bytes_;
  std::uint64_t row_bytes_;
  std::uint64_t b_base_, o_base_, a_base_;
  double edge_bytes_;               // the adjacency's bytes per nonzero (offsets, ids, values)
  std::uint64_t edges_read_ = 0;
  std::int64_t tile_rows_;
  RowCache cache_;
  std::vector<std::int32_t> scratch_;
  // Outer product: A's columns (CSC), built once.
  std::vector<std::int64_t> col_ptr_;
  std::vector<std::int32_t> col_rows_;
  std::int64_t row_ = 0, tile_ = 0;
  std::int32_t source_ = 0;
};

class CombinationSchedule : public GnnSchedule {
 public:
  // `op` a Gemm (X[m,k]·W[n,k]^T) or an SpMM with a sparse X (nnz nonzeros).
  CombinationSchedule(const OpGraph& graph, const Operator& op, const CombinationEngineSpec& e,
                      std::uint64_t input_buffer_bytes, std::uint64_t weight_buffer_bytes, GnnAddressMap map = {});
  bool next(GnnStep& s) override;
  void rewind() override { tile_ = 0; }

 private:
  CombinationEngineSpec e_;
  std::int64_t m_, n_, k_, nnz_;
  double x_bytes_, w_bytes_, o_bytes_;  // per element
  bool sparse_x_;
  int operand_bits_;
  std::int64_t tile_rows_, tiles_;
  bool weights_fit_;
  std::uint64_t x_base_, w_base_, o_base_;
  std::int64_t tile_ = 0;
};

// Plain data movement (the densified copy of CSR features an aggregation-first layer needs):
// every input read and every output written, in chunks of `chunk_bytes`.
class MoveSchedule : public GnnSchedule {
 public:
  MoveSchedule(const OpGraph& graph, const Operator& op, std::uint64_t chunk_bytes, GnnAddressMap map = {});
  bool next(GnnStep& s) override;
  void rewind() override { at_ = 0; }

 private:
  std::vector<DmaDescriptor> pieces_;
  std::size_t at_ = 0;
};

}  // namespace strata
