// Component kind `npu`: a multi-core neural processing unit. `cores` identical cores (npu_core.h:
// a matrix engine, a vector unit, a scratchpad and a DMA engine each) reach one memory (any
// memory_target kind: `dram` for cycle-level DRAM, `simple_memory` for a bandwidth/latency
// model) through an on-chip network (`noc`), so the cores contend for memory bandwidth for
// real. It runs operator-graph workloads: the mapper (mapper.h) lowers the graph to per-core
// tiles at elaboration, and the cores execute them.
//
// Results: per operator `<npu>.ops.<name>.{latency,dram_bytes,bandwidth,bound_fraction,...}`,
// and summary.json keys latency_s, tokens/s-free totals (flops, dram_bytes), the mapper's
// search effort, and the engines' utilisation; `<npu>.peak_flops` and `<npu>.peak_bandwidth`
// for rooflines. Keys are documented in spec().
//
// Both fidelities: `sim.fidelity: analytic` evaluates the same program in closed form
// (npu_analytic.h) and sets the same statistics.
//
// In a `package` (accelerators/package/) it is one device: collectives and transfers between
// devices become operators the package times over its links (LoweredOp::external).
#pragma once

#include <memory>
#include <vector>

#include "accelerators/npu/layer_reuse.h"
#include "accelerators/npu/npu_analytic.h"
#include "accelerators/npu/npu_core.h"
#include "accelerators/package/package_device.h"
#include "models/noc/noc.h"
#include "sim/analytic.h"
#include "sim/device_power.h"
#include "sim/ports.h"
#include "workloads/graph_workload.h"

namespace strata {

class Npu : public Component, public PackageDevice, public NpuSchedule, public AnalyticModel {
 public:
  static KindSpec spec();
  Npu(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~Npu() override;

  // GraphTarget
  void load_graph(std::shared_ptr<const OpGraph> graph) override;
  bool graph_finished() const override { return program_ && done_ops_ == program_->ops.size(); }
  std::optional<double> graph_progress() const override;
  // NpuSchedule
  bool deps_done(int op) const override;
  sc_core::sc_event& op_done_event() override { return op_done_event_; }
  void core_finished(int op) override;

  // AnalyticModel
  double evaluate_analytic() override;

  // PackageDevice
  void join_package(CollectiveHost& host, int device) override;
  void complete_collective(OpId op) override;
  std::optional<Reached> analytic_advance() override;
  void analytic_complete(OpId op, double end) override;
  double analytic_finish() override;
  double finished_at() const override;
  double mapping_candidates() const override { return candidates_.value(); }
  double device_peak_flops() const override { return peak_flops_.value(); }
  double device_peak_bandwidth() const override { return peak_bandwidth_.value(); }

  void finalize(const sc_core::sc_time& end) override;

 private:
  sc_core::sc_time start_of(size_t op) const;
  void set_peak_flops();
  void plan_reuse();
  void mark_done(std::size_t op, const sc_core::sc_time& end);
  void layer_op_done(std::size_t op);
  std::size_t lowered_index(OpId op) const;
  struct OpState {
    int cores_left = 0;
    bool done = false;
    sc_core::sc_time end;  // reported time (sim/reported_time.h)
  };
  // sim.reuse: layers. Per run of identical layers, the operators left in its two simulated
  // layers and the mark taken when the first finished.
  struct RunState {
    std::size_t first_left = 0, second_left = 0;
    std::unique_ptr<SpanRepeater::Mark> mark;
    sc_core::sc_time first_end;  // simulated time
  };
  LayerReusePlan reuse_;
  std::vector<RunState> runs_;
  std::vector<int> run_of_op_;  // the run whose simulated layers hold the operator, or -1
  std::vector<std::unique_ptr<NpuCore>> cores_;
  std::unique_ptr<Noc> noc_;
  RoleChild<MemoryTarget> memory_;
  std::shared_ptr<const OpGraph> graph_;
  std::unique_ptr<NpuProgram> program_;
  std::vector<OpState> ops_;
  std::size_t done_ops_ = 0;
  sc_core::sc_event op_done_event_;
  int op_track_ = 0;
  CollectiveHost* host_ = nullptr;  // the package this device is in, if any
  int device_ = 0;
  std::unique_ptr<NpuProgramEvaluator> evaluator_;
  std::unique_ptr<DevicePower> power_;  // the cores' clock domain
  Scalar& latency_;
  Scalar& flops_;
  Scalar& candidates_;
  Scalar& tiles_;
  Scalar& peak_flops_;
  Scalar& peak_bandwidth_;
  Counter& simulated_layers_;
  Counter& reused_layers_;
};

}  // namespace strata
