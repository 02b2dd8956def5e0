// What a GNN accelerator's engines do, step by step: the DRAM reads a step needs, its compute
// cycles and the writes it leaves, generated from the operator and (for aggregation) the real
// CSR of the graph. The SystemC engine (gnn_accelerator.h) runs steps with the next ones'
// reads in flight; tests and the analytic fidelity read the same steps' totals.
//
// Aggregation (SpMM with the graph's adjacency, O = A·B):
//   row_wise       destination rows in order (HyGCN's SIMD cores, GROW's Gustavson rows): each
//                  neighbour's row of B comes from the feature buffer or from DRAM; `lanes`
//                  elements a cycle. The feature buffer is an LRU cache of B's rows, or (GROW)
//                  a cache of high-degree nodes: the graph in clusters of `cluster_rows` rows of a
//                  breadth-first order (a stand-in for GROW's METIS partitions), each cluster's
//                  highest-degree nodes loaded when the cluster starts and every other neighbour
//                  read from DRAM
//   outer_product  (GCNAX, MEGA) destination rows in tiles that fit the output buffer; per tile
//                  every source node with an edge into the tile, in order: its row of B (through
//                  the feature buffer) times its column of A, accumulated into the tile. With
//                  Condense-Edge (MEGA) the tile's edges are stored contiguously by an offline
//                  pass over the static graph and the tile's source rows are read as one
//                  ascending stream, so neighbouring rows share their DRAM bursts
//   sliding_window (HyGCN) destination intervals that fit the output (aggregation) buffer; the
//                  source window slides over the sources in ascending order and shrinks past
//                  those without an edge into the interval, so each needed row of B is fetched
//                  once per interval: outer_product's traffic and products, on SIMD cores
// The edge reader fetches each step's edges (column ids, values, offsets: the adjacency tensor's
// bytes per nonzero) from DRAM. B's rows are laid out in the engine's feature format
// (models/gnn/feature_formats.h); a sparse B in BEICSR (SGCN) is read and accumulated by its
// nonzeros only.
//
// Combination (X·W, X dense or sparse): X in row tiles that fit the input buffer (its rows in the
// feature format), W once when it fits the weight buffer (else again per tile), outputs written
// per tile; cycles from models/gnn/combination_timing.h.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "models/dma/dma_engine.h"
#include "models/gnn/combination_timing.h"
#include "models/gnn/feature_formats.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

// SlidingWindow walks the graph as OuterProduct does (the same rows fetched, the same products).
enum class AggregationStyle { RowWise, OuterProduct, SlidingWindow };
enum class FeatureCache { Lru, HighDegree };

struct AggregationEngineSpec {
  AggregationStyle style = AggregationStyle::RowWise;
  std::int64_t lanes = 16;                 // feature elements accumulated a cycle, all cores together
  std::uint64_t feature_buffer_bytes = 0;  // rows of B kept on chip
  std::uint64_t output_buffer_bytes = 0;   // outer product: the destination tile's partial rows
  FeatureCache cache = FeatureCache::Lru;  // row_wise: what the feature buffer keeps
  std::int64_t cluster_rows = 0;           // high_degree: rows per cluster; 0: the whole graph one cluster
  bool condense_edges = false;             // outer product: MEGA's Condense-Edge
  FeatureFormat format = FeatureFormat::Plain;
  std::uint64_t access_bytes = 64;  // a DRAM access: the block contiguous streams share
};

// Where the engines' operands live in DRAM: each tensor of the graph at its own base address.
struct GnnAddressMap {
  std::uint64_t base(TensorId t) const { return static_cast<std::uint64_t>(t + 1) << 32; }
};

struct GnnStep {
  std::vector<DmaDescriptor> reads;
  std::uint64_t compute_cycles = 0;
  std::vector<DmaDescriptor> writes;
  // Pipelined and fused pairs (OnChip): what the step hands to the other engine (aggregation:
  // 1 at the end of an output tile; combination: its rows of output) and how much of the other
  // engine's output it waits for (a fed combination: tiles; a fused aggregation: rows of B).
  std::uint64_t produces = 0, needs = 0;
};

// What a pipelined (HyGCN) or fused (GCNAX) pair of engines keeps on chip.
struct OnChip {
  bool input = false;           // the operand the other engine produces (aggregation: B; combination: X) is not read
  bool output = false;          // the output the other engine consumes is not written
  std::int64_t input_rows = 0;  // combination fed on chip: rows per tile it is handed
};

struct GnnTotals {
  std::uint64_t steps = 0, read_bytes = 0, write_bytes = 0, compute_cycles = 0;
  std::uint64_t accesses = 0;  // access_bytes-aligned blocks the reads and writes touch (aligned_blocks)
};

// A step generator: next() fills the next step, false at the end; totals() walks a copy,
// counting accesses of `access_bytes` when given.
class GnnSchedule {
 public:
  virtual ~GnnSchedule() = default;
  virtual bool next(GnnStep& s) = 0;
  virtual void rewind() = 0;
  GnnTotals totals(std::uint64_t access_bytes = 0);
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
  // `on_chip.output`: the finished tiles go to the combination (HyGCN's pipeline), not to DRAM;
  // `on_chip.input`: B's rows come from the combination (GCNAX's fusion), each source step
  // waiting for its row. Outer product and sliding window only.
  AggregationSchedule(const OpGraph& graph, const Operator& op, const AggregationEngineSpec& e, GnnAddressMap map = {},
                      OnChip on_chip = {});
  std::int64_t tile_rows() const { return tile_rows_; }  // destination rows of an output tile
  bool next(GnnStep& s) override;
  void rewind() override;

 private:
  std::int64_t values(std::int32_t u) const;  // B's stored values in row u (its nonzeros when sparse)
  std::uint64_t row_bytes(std::int32_t u) const;
  void fetch_row(std::int32_t u, GnnStep& s);
  void start_cluster(GnnStep& s);  // high_degree: loads the cluster's nodes into the feature buffer
  // Reads `bytes` more of a contiguous stream at `base` that has `end` bytes read so far: only the
  // bursts not fetched yet.
  void stream(std::uint64_t base, std::uint64_t& end, std::uint64_t bytes, GnnStep& s) const;

  const SparseStructure& a_;
  AggregationEngineSpec e_;
  std::int64_t width_;
  double value_bits_;  // B's bits per stored value
  bool sparse_b_;      // B in BEICSR with b_nnz nonzeros
  std::int64_t b_nnz_;
  std::uint64_t slot_bytes_;  // the stride of B's rows in DRAM
  std::uint64_t out_row_bytes_;
  std::uint64_t b_base_, o_base_, a_base_;
  double edge_bytes_;  // the adjacency's bytes per nonzero (offsets, ids, values)
  std::int64_t tile_rows_;
  OnChip on_chip_;
  RowCache cache_;
  std::vector<std::int32_t> scratch_;
  // Row-wise: the rows' order (empty: 0..n-1), each row's first edge, the pinned high-degree nodes.
  std::vector<std::int32_t> order_;
  std::vector<std::int64_t> edge_ptr_;
  std::vector<std::int32_t> degree_;
  std::vector<char> pinned_;
  std::vector<std::int32_t> pinned_list_;
  // Outer product: A's columns (CSC), built once; the Condense-Edge streams' positions.
  std::vector<std::int64_t> col_ptr_;
  std::vector<std::int32_t> col_rows_;
  std::uint64_t edge_stream_ = 0, row_stream_ = 0;
  std::int64_t row_ = 0, tile_ = 0;
  std::int32_t source_ = 0;
};

class CombinationSchedule : public GnnSchedule {
 public:
  // `op` a Gemm (X[m,k]·W[n,k]^T) or an SpMM with a sparse X (nnz nonzeros).
  // `on_chip.input`: X arrives from the aggregation engine in tiles of `input_rows` rows (HyGCN's
  // pipeline), so X is not read and the tiles are those rows; `on_chip.output`: the output goes
  // to the aggregation (GCNAX's fusion), not to DRAM.
  CombinationSchedule(const OpGraph& graph, const Operator& op, const CombinationEngineSpec& e, FeatureFormat format,
                      std::uint64_t input_buffer_bytes, std::uint64_t weight_buffer_bytes, GnnAddressMap map = {},
                      OnChip on_chip = {});
  bool next(GnnStep& s) override;
  void rewind() override { tile_ = 0; }

 private:
  CombinationEngineSpec e_;
  std::int64_t m_, n_, k_, nnz_;
  double x_bytes_, w_bytes_, o_bytes_;  // per element (X's per stored value, in the feature format)
  bool sparse_x_;
  OnChip on_chip_;
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
