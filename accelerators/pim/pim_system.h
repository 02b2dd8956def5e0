// Component kind `pim`: a PIM DRAM (memory/pim/: the DRAM of its `memory` slot, a `dram` role
// kind, with PIM units beside its banks) and the host that runs what the units cannot (PIM-GPT's
// ASIC, AttAcc's GPU, HBM-PIM's processor), running operator graphs. The mapper (pim_mapper.h)
// sends GEMVs, decode attention and element-wise operators to the units as command streams,
// issued cycle by cycle on the DRAM's controllers under its timing, refresh and protocol checker
// (sim.check_protocol); the host is the part in the `host` slot (role `host`,
// models/host/companion_host.h; by default roofline_host: peak FLOP/s, its memory's bandwidth, a
// launch latency) with a link to the PIM device where it is not on the DRAM's bus. Operators run
// one after another.
//
// Results: per operator `<pim>.ops.<name>.{latency,on_pim,flops,pim_cycles}`; latency_s, flops,
// achieved_tflops, pim_time_fraction in summary.json, and with `compare_without_pim: true`
// speedup_vs_no_pim: the same graph on the same DRAM without PIM, the host streaming every
// weight over the channels (memory/pim/pim_kernels.h's host stream, cycle by cycle).
// Energy: the DRAM's IDD model (all-bank activations cost every bank's), the units' column
// reads, lanes and registers from the tech table, the I/O of host bursts, the host's FLOPs,
// memory and link. Area: the units (and the host's, as given). Keys are documented in spec().
//
// `sim.fidelity: analytic` times every PIM kernel with the closed form the tests hold the
// cycle-level stream to (pim_kernels.h) and the host the same way.
#pragma once

#include <memory>
#include <vector>

#include "accelerators/pim/pim_mapper.h"
#include "memory/memory_capacity.h"
#include "memory/pim/pim_device.h"
#include "models/host/companion_host.h"
#include "sim/analytic.h"
#include "sim/component.h"
#include "workloads/graph_workload.h"

namespace strata {

class PimSystem : public Component, public GraphTarget, public AnalyticModel {
 public:
  static KindSpec spec();
  PimSystem(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~PimSystem() override;

  void load_graph(std::shared_ptr<const OpGraph> graph) override;
  bool graph_finished() const override { return done_ == tasks_.size() && !tasks_.empty(); }
  std::optional<double> graph_progress() const override;
  double evaluate_analytic() override;
  void finalize(const sc_core::sc_time& end) override;
  // The energy of the step running now is counted when it starts; the power monitor sees it
  // spread over the step's time.
  double dynamic_energy_j() const override;

 private:
  struct StepTime {
    double seconds = 0;
    std::uint64_t pim_cycles = 0;
  };
  void run_graph();
  // Runs (or, analytic, estimates) one step; PIM steps move the device's clock.
  StepTime run_step(const PimStep& s, bool analytic);
  double estimate_seconds(const PimStep& s) const;  // closed forms, for the mapper's choices
  double baseline_seconds(const PimStep& s);  // the step on the same DRAM without PIM
  void account(const PimRun& r);
  void account_estimate(const PimEstimate& e);  // the analytic fidelity's command counts
  void finish_task(std::size_t i, double start, double end, std::uint64_t pim_cycles);

  std::unique_ptr<CompanionHost> host_;  // the `host` part
  PimMapping mapping_;
  DramSpec dram_;
  MemoryCapacity capacity_;  // the DRAM's
  PimSpec pim_;
  std::unique_ptr<PimDevice> device_;
  std::unique_ptr<PimDevice> baseline_;  // compare_without_pim
  std::shared_ptr<const OpGraph> graph_;
  std::vector<PimTask> tasks_;
  std::size_t done_ = 0;
  double pim_seconds_ = 0, baseline_s_ = 0, flops_ = 0, latency_s_ = 0;
  double pending_j_ = 0, pending_from_ = 0, pending_to_ = 0;  // the running step's energy and span (s)
  std::vector<EnergyEvent*> command_events_;  // by command id
  Counter* commands_ = nullptr;               // every channel's
  Counter* simulated_commands_ = nullptr;     // the one controller that issued them
  EnergyEvent *active_, *io_, *host_flop_, *host_memory_, *link_;
};

}  // namespace strata
