// Component kind `gnn_accelerator`: the one template the published GNN accelerators are presets
// of (configs/hardware/gnn/). An aggregation engine (SIMD cores or outer-product units, walking
// the real CSR of the graph: gnn_schedule.h), a combination engine (MAC array, systolic modules
// or bit-serial engines: models/gnn/combination_timing.h), buffers sized per design, and a DMA
// engine in front of the memory (the DRAM model, HBM presets at the papers' bandwidths). It runs
// operator graphs (the `gnn` workload's GCN, GraphSAGE, GIN): each layer's aggregation SpMM on
// the aggregation engine, its combination (Gemm, or SpMM with a sparse X) on the combination
// engine, element-wise operators (ReLU) on the aggregation lanes; operators one after another,
// except that with `pipeline` (HyGCN) an aggregation hands its finished tiles to the combination
// that consumes them, which computes them on chip while the aggregation goes on, and with
// `fusion` (GCNAX) a combination hands its output rows to the aggregation that reads them. The input
// features are in DRAM in the layout the design reads (the workload's densifying copy is free).
// Within an operator the engine computes a step while the DMA fetches the next steps' rows.
//
// Results: per operator `<gnn>.ops.<name>.{latency,engine,compute_cycles,dram_bytes,dram_accesses}`;
// summary.json latency_s, flops, dram_bytes, dram_accesses (the 64 B blocks, `access_block`,
// the engines read and wrote, as these papers count DRAM accesses; the DMA issues its own
// `burst`-sized requests, one a cycle). Energy: MACs and lane operations from the tech table,
// buffer accesses as SRAM reads and writes of their size, the DRAM's own; area: the MACs, lanes
// and buffers. Keys are documented in spec().
//
// `sim.fidelity: analytic`: each operator takes the longer of its compute cycles and its bytes
// at the memory's sustained bandwidth (or what the DMA's requests in flight carry, if less).
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "accelerators/gnn/gnn_schedule.h"
#include "sim/analytic.h"
#include "sim/component.h"
#include "sim/device_power.h"
#include "sim/ports.h"
#include "workloads/graph_workload.h"

namespace strata {

class GnnAccelerator : public Component, public GraphTarget, public AnalyticModel {
 public:
  static KindSpec spec();
  GnnAccelerator(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~GnnAccelerator() override;

  void load_graph(std::shared_ptr<const OpGraph> graph) override;
  bool graph_finished() const override { return !tasks_.empty() && done_ == tasks_.size(); }
  std::optional<double> graph_progress() const override;
  double evaluate_analytic() override;
  void finalize(const sc_core::sc_time& end) override;
  double peak_dynamic_j_per_cycle() const override;

 private:
  enum class Engine { Aggregation, Combination, Vector, Move };
  struct Task {
    OpId op = -1;
    Engine engine = Engine::Vector;
    double flops = 0;
    std::uint64_t vector_elements = 0;  // Vector
    bool feeds_next = false;            // hands its output to the next task on chip (pipeline, fusion)
  };
  std::unique_ptr<GnnSchedule> schedule(const Task& t, OnChip on_chip = {}) const;
  // The schedules of the pair task i and i + 1 (task i feeds_next): producer, consumer.
  std::pair<std::unique_ptr<GnnSchedule>, std::unique_ptr<GnnSchedule>> pair_schedules(std::size_t i) const;
  void run_graph();
  // Runs `s` cycle by cycle: steps computed in order, the next `prefetch` steps' reads in flight.
  // `gate(step)` (when given) returns once the step may compute; `after(step)` runs when it has.
  void run_steps(GnnSchedule& s, const std::function<void(const GnnStep&)>& gate = {},
                 const std::function<void(const GnnStep&)>& after = {});
  // A pipelined or fused pair: the consumer computes each step once the producer has produced
  // what it needs (GnnStep::needs), while the producer goes on. Returns the producer's end (s).
  double run_pipeline(GnnSchedule& producer, GnnSchedule& consumer);
  // Sets the operator's statistics and counts its arithmetic and buffer events: a MAC per
  // product (flops / 2), a buffer write per byte fetched and a buffer read per operand element
  // the engines consume (one per MAC).
  void finish_task(std::size_t i, double start, double end, const GnnTotals& t);

  AggregationEngineSpec aggregation_;
  CombinationEngineSpec combination_;
  std::uint64_t input_buffer_ = 0, weight_buffer_ = 0;
  int prefetch_ = 8;
  bool pipeline_ = false, fusion_ = false;
  RoleChild<MemoryTarget> memory_;
  std::unique_ptr<class DmaEngine> dma_;
  std::shared_ptr<const OpGraph> graph_;
  std::vector<Task> tasks_;
  std::size_t done_ = 0;
  double latency_s_ = 0, flops_ = 0;
  std::uint64_t dram_bytes_ = 0, dram_accesses_ = 0;
  EnergyEvent *mac_, *lane_op_, *buffer_read_, *buffer_write_;
  double element_bytes_ = 2;  // the engines' format
  std::unique_ptr<DevicePower> power_;  // the engines' clock domain
};

}  // namespace strata
