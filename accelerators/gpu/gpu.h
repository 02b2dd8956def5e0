// Component kind `gpu`: an NVIDIA-class GPU of `sms` streaming multiprocessors (sm_core.h), each
// with four sub-cores, their pipes and tensor cores, and shared memory. The component holds
// what needs SystemC: the kernel queue and its thread, the L2's ports to the DRAM, energy and
// statistics. Where each kernel's CTAs go, cycle by cycle, is the scheduler's (gpu_scheduler.h):
// kernels of one stream run in launch order; compute-only kernels without clusters of
// different streams run concurrently, sharing the SMs' resources (docs/gpu.md, Streams); the
// others run alone.
//
// Energy is counted per event (register-file accesses, lane operations by pipe, tensor MACs by
// format, shared-memory wavefronts) and area per SM, from the technology table.
// Operator graphs run as the kernels of gpu_mapper.h (gpu_graph.cpp). Not modelled yet: a
// crossbar with its own bandwidth; docs/gpu.md lists the rest.
// Keys are documented in gpu_spec.cpp.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "accelerators/gpu/gpu_l2.h"
#include "accelerators/gpu/gpu_mapper.h"
#include "accelerators/gpu/gpu_scheduler.h"
#include "accelerators/gpu/gpu_spec.h"
#include "accelerators/gpu/kernels/kernel_target.h"
#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"
#include "accelerators/gpu/warp_program_target.h"
#include "accelerators/package/package_device.h"
#include "sim/analytic.h"
#include "sim/component.h"
#include "sim/input_error.h"
#include "sim/payload_pool.h"
#include "sim/ports.h"
#include "sim/power_management.h"
#include "sim/reuse.h"
#include "sim/tlm_at.h"
#include "workloads/gpu/warp_program.h"
#include "workloads/graph_workload.h"

namespace strata {

struct KernelEstimate;

struct MemoryEstimate;

class Gpu : public Component,
            public tlm::tlm_mm_interface,
            public PackageDevice,
            public AnalyticModel,
            public WarpProgramTarget,
            private SchedulerHost {
 public:
  static KindSpec spec();
  Gpu(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~Gpu() override;

  // WarpProgramTarget
  void launch(KernelLaunch kernel, std::function<void(const KernelRun&)> done, bool may_sample = false) override;
  // Its counts join the GPU's statistics (gpu_analytic.h).
  KernelRun evaluate(const KernelLaunch& kernel) override;
  int sms() const override { return sms_; }
  const SmLimits& limits() const override { return limits_; }
  const SmTiming& timing() const override { return timing_; }
  const Clock& sm_clock() const override { return clock(); }
  std::uint64_t active_clusters(const KernelLaunch& k, const Occupancy& o) const override;
  const std::vector<int>& gpcs() const { return scheduler_->gpcs(); }  // SMs per GPC, numbered GPC by GPC
  void finalize(const sc_core::sc_time& end) override;
  double dynamic_energy_j() const override;
  double idle_power_w() const override;
  void hold_idle() override;
  // sim.reuse and sim.sample: the L2's counters are the GPU's own totals.
  std::vector<double> reuse_totals(const sc_core::sc_time& now) const override;
  void repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time& now) override;
  void free(tlm::tlm_generic_payload* gp) override;  // tlm_mm_interface

  // Operator graphs (gpu_graph.cpp): the mapper (gpu_mapper.h) lowers the graph to kernels at
  // elaboration; they run on one stream in the graph's order. Per kernel launch the statistics
  // `launches.<name>.{time,flops,tflops,dram_bytes,bandwidth,l2_hit_rate,occupancy,waves,
  // compute_fraction,memory_fraction,memory_bound}` and the generator's choices (GpuKernel::choices);
  // summary.json latency_s, flops,
  // achieved_tflops, achieved_bandwidth_gbps (the DRAM's), mapper_candidates.
  void load_graph(std::shared_ptr<const OpGraph> graph) override;
  bool graph_finished() const override;
  std::optional<double> graph_progress() const override;
  double evaluate_analytic() override;  // an operator graph's kernels, in closed form
  // What the kernel generators read of this GPU.
  GpuKernelTarget kernel_target() const;

  // PackageDevice: a GPU in a `package` runs its part of the placed graph; at a collective its
  // stream drains (every kernel before it ends), the package times the collective over its
  // links, and the next kernel launches when it ends. summary.json is then the package's; layer
  // reuse is off (the devices' layers are timed together).
  void join_package(CollectiveHost& host, int device) override;
  void complete_collective(OpId op) override;
  std::optional<Reached> analytic_advance() override;
  void analytic_complete(OpId op, double end) override;
  double analytic_finish() override;
  double finished_at() const override;
  double mapping_candidates() const override;
  double device_peak_flops() const override;  // the tensor cores' dense FP16 peak
  double device_peak_bandwidth() const override;

 private:
  struct Pending {
    ScheduledKernel k;
    std::function<void(const KernelRun&)> done;
    std::uint64_t launch_cycles = 0;  // from its turn to its first CTA
  };
  void enqueue(KernelLaunch kernel, std::function<void(const KernelRun&)> done, bool may_sample,
               std::uint64_t launch_cycles);
  // The kernel's `evaluate`, its first CTA `launch_cycles` after its turn.
  KernelRun evaluate_launched(const KernelLaunch& kernel, std::uint64_t launch_cycles);
  void run();  // SC_THREAD: runs the queued kernels (concurrently where their streams differ)
  // The last cycle SystemC time can hold and the one sim.max_time allows, at the clock now.
  void set_cycle_limits();
  void run_batch(std::vector<Pending> batch, std::uint64_t launched);  // kernels of several streams
  void run_alone(Pending p, std::uint64_t launched);
  template <typename F>
  auto guarded(F&& f);  // f(), a cycle overflow in it halting the run
  // A kernel's run stops short (GpuScheduler::kHaltSpan) on SIGINT or SIGTERM
  // (sim/interrupt.h), at sim.max_time, or past the last cycle SystemC time represents.
  enum class Halt { None, Interrupt, TimeLimit, Unrepresentable };
  Halt halt_ = Halt::None;
  std::uint64_t limit_cycle_ = 0, last_cycle_ = 0;  // sim.max_time's cycle (or last_cycle_); the last representable
  // After a halted kernel: the run waits out sim.max_time, or records the failure; the thread
  // never goes on.
  [[noreturn]] void stop_halted();
  // A run that ends past the last representable cycle (`at_least`: by a lower bound).
  InputError unrepresentable(double cycles, bool at_least = false) const;
  sc_core::sc_event never_;
  void count_kernel(const KernelLaunch& k, const KernelRun& r);  // a kernel that ran to its end

  // SchedulerHost
  bool halted(std::uint64_t cycle) override;  // sets halt_ when the run must stop at `cycle`
  bool stopped() const override { return halt_ != Halt::None; }
  void flush_window() override;
  void wait_until(std::uint64_t cycle) override;
  std::uint64_t warp_instructions() const override { return totals().warp_instructions; }
  bool sample_waves() const override;
  std::unique_ptr<SpanMark> mark_span() override;
  double seconds_since(const SpanMark& since) const override;
  bool repeat_waves(const SpanMark& since, double times, std::uint64_t skipped) override;

  void wait_in_windows(const sc_core::sc_time& end);  // SystemC time to `end`, a statistics window a step
  void issue_dram(int port);  // an SC_THREAD per DRAM port: sends its requests at their cycles
  struct DramPayload : tlm::tlm_generic_payload {
    explicit DramPayload(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) {}
    std::uint64_t tag = 0;
  };
  struct DramRequest {
    std::uint64_t cycle, seq, address, tag;
    std::uint32_t bytes;
    bool write;
    bool operator>(const DramRequest& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };

  int sms_;
  int max_cluster_;
  std::uint64_t kernel_launch_;
  // What the sm, tensor_core and l2 parts (gpu_parts.h) give.
  SmLimits limits_;
  SmTiming timing_;
  double tensor_base_macs_ = 0;  // dense FP16 MACs per cycle per sub-core: sizes the tensor lanes
  L2Config l2_config_;
  std::unique_ptr<GpuScheduler> scheduler_;
  std::unique_ptr<Component> memory_component_;  // the DRAM behind the L2 (optional)
  MemoryTarget* dram_ = nullptr;
  std::unique_ptr<GpuL2> l2_;
  // One TLM port per request queue of the DRAM (MemoryTarget::queues: its channel controllers),
  // so a full channel holds back only its own requests (the memory partitions of a GPU).
  struct DramPort {
    std::unique_ptr<AtInitiator> port;
    std::priority_queue<DramRequest, std::vector<DramRequest>, std::greater<DramRequest>> queue;
    sc_core::sc_event queued;
  };
  std::vector<std::unique_ptr<DramPort>> dram_ports_;
  std::vector<GlobalAccess> window_;  // the accesses of the window being simulated
  std::uint64_t dram_seq_ = 0;
  PayloadPool<DramPayload> payloads_{this};
  std::vector<unsigned char> scratch_;
  std::deque<Pending> queue_;
  bool running_ = false;
  sc_core::sc_event launched_;
  SmCounts analytic_;                 // counts of the kernels evaluated in closed form
  std::uint64_t analytic_cycle_ = 0;  // where the next evaluated kernel starts
  double finished_energy_ = 0, running_energy_ = 0;
  bool running_live_ = false;
  sc_core::sc_time running_start_, running_end_;

  // Declares the energy events and the silicon of `sms_` SMs from the technology table.
  void declare_costs();

  // Power management (gpu_power.cpp; with `clocks`): each kernel runs at the clock the policy
  // picks at its launch from its closed-form power, the SM clock changing between kernels.
  std::optional<PowerManagement> power_;
  EnergyEvent* clock_event_ = nullptr;     // a cycle of the clock tree over the ungated area
  EnergyEvent* gated_clock_event_ = nullptr;  // an SM-cycle with a CTA resident: its part of the gated tree
  double kernel_factor_ = 1;            // the running kernel's supply squared (energy factor)
  bool idle_ = false;                   // hold_idle: the run holds clocks.idle, no limit lowering it
  double nominal_done_j_ = 0;           // finished kernels' dynamic energy at the table's supply
  double scaled_done_j_ = 0;            // and at the supplies they ran at
  void declare_power();
  // The clock's run to a time: cycles weighted by their supply squared, cycles, seconds, and
  // the seconds the power limit held it under its boost.
  struct ClockTotals {
    double weighted_cycles = 0, cycles = 0, seconds = 0, limited_s = 0;
  };
  ClockTotals clock_totals(const sc_core::sc_time& t) const;
  ClockTotals repeated_clock_;  // what sim.reuse and sim.sample counted again
  sc_core::sc_time clock_end_;  // the run's end, once finalized
  // The memory the closed form sees at SM clock `hz`.
  MemoryEstimate memory_estimate(double hz) const;
  // The whole device's power (W) running `kernel` at `hz`, in closed form, at the board's input.
  double kernel_power_w(const KernelLaunch& kernel, double hz) const;
  // Sets the SM clock for `kernel` from cycle `at` on (the policy's choice).
  void clock_kernel(const KernelLaunch& kernel, std::uint64_t at);
  // A kernel's nominal dynamic energy `nominal_j` is done, at the running kernel's supply.
  void kernel_energy_done(double nominal_j);
  // The dynamic energy `nominal_j` (at the table's supply; everything counted so far) at the
  // supplies the kernels ran at, plus the clock tree's energy to `now`.
  double powered_energy_j(double nominal_j, const sc_core::sc_time& now) const;
  // Adds the clock tree's cycles and scales the counted events; writes the power statistics.
  void finalize_power(const sc_core::sc_time& end);
  // What the counted events' energy is multiplied by: the kernels' supplies squared, weighted by
  // their energy (1 without power management).
  double dvfs_event_factor() const;
  // The clock peaks are quoted at, and the mapper plans for: the boost with power management.
  double peak_clock_hz() const { return power_ ? power_->boost_hz() : static_cast<double>(clock().frequency_hz()); }
  double energy_of(const SmCounts& c) const;  // the dynamic energy of these counts
  // An analytic kernel's counts with its traffic past the SMs (SmCounts::l2_sectors, dram_sectors).
  static SmCounts with_memory_side(const KernelEstimate& e);
  // Sectors the L2 model moved so far: to and from the SMs, and to and from the DRAM.
  std::uint64_t l2_model_sectors() const;
  double counted_now_j() const;
  // A sector through an L2 slice and across the crossbar.
  double l2_sector_j() const;
  // The dynamic energy counted to `now` at the table's supply (the running kernel's spread).
  double counted_energy_j(const sc_core::sc_time& now) const;
  SmCounts totals() const;                    // every SM's counts summed
  struct Events {
    EnergyEvent *rf_read = nullptr, *rf_write = nullptr, *fp32 = nullptr, *fp64 = nullptr, *integer = nullptr,
                *sfu = nullptr, *shared = nullptr, *l1 = nullptr, *l2 = nullptr, *crossbar = nullptr;
    std::map<std::string, EnergyEvent*> macs;  // by tensor format
  } events_;

  struct GraphRun {
    std::shared_ptr<const OpGraph> graph;
    GpuProgram program;
    struct Row {
      const GpuKernel* kernel = nullptr;  // null: a collective the package times
      OpId collective = -1;
      std::int32_t layer = -1;  // its operator's
      KernelRun run;
      double start_s = 0, end_s = 0;  // reported time (sim.reuse): its turn, its end
      double submit_s = 0;            // launch: eager: when the host submitted it (reported time)
      std::uint64_t dram_bytes = 0, l2_hits = 0, l2_misses = 0;
      bool done = false;
      bool reused = false;  // not simulated: sim.reuse counted an identical layer's launch again
    };
    std::vector<Row> rows;
    std::size_t done = 0;
    // Kernels launched (submitted to the GPU, at either fidelity) and ended so far; in a package,
    // the collective the stream waits at, and (analytic) the next row to evaluate.
    std::size_t launched = 0, ended = 0;
    OpId waiting = -1;
    sc_core::sc_event kernel_ended, collective_ended;
    std::size_t analytic_next = 0;
    // kernels.launch, kernels.host_dispatch; eager: when the host has dispatched the kernels so
    // far (seconds of simulated time).
    GpuLaunchMode launch = GpuLaunchMode::Stream;
    double host_dispatch_s = 0, host_s = 0;
    // The launch path's cycles for the next kernel, and (eager) the time the host submits it.
    std::uint64_t next_launch_cycles(std::uint64_t kernel_launch) const {
      return launch == GpuLaunchMode::Graph && launched > 0 ? 0 : kernel_launch;
    }
    double dispatch_next() { return launch == GpuLaunchMode::Eager ? host_s += host_dispatch_s : 0; }
    // The L2's counters when the previous kernel ended (kernels of one stream run one at a time).
    std::uint64_t hits = 0, misses = 0, dram = 0;
    // sim.reuse: layers. A run of identical consecutive layers simulates its first two and
    // counts the second again for each later one (rows by position in the layer).
    struct Run {
      std::vector<std::size_t> first, second;
      std::vector<std::vector<std::size_t>> repeats;
      std::size_t first_left = 0, second_left = 0;
      std::unique_ptr<SpanRepeater::Mark> mark;
      SmCounts at_mark;
      double first_end_s = 0;
    };
    std::vector<Run> runs;
    std::vector<int> run_of_row;  // the run a row of a simulated layer belongs to (-1: none)
    std::size_t layers = 0;
  };
  void plan_graph_reuse();
  void graph_layer_done(std::size_t row);
  SmCounts reused_;  // sim.reuse and sim.sample: the counts of the spans counted again
  // The span since `mark` (the SMs' counts then: `at_mark`) counted `times` more: every
  // statistic and component total (SpanRepeater) and the SMs' counts, CTAs aside (the caller
  // knows them). Returns the span's counts.
  SmCounts repeat_span(const SpanRepeater::Mark& mark, const SmCounts& at_mark, double times);
  std::unique_ptr<GraphRun> graph_;
  void graph_kernel_done(std::size_t row, const KernelRun& r);
  void launch_graph();  // SC_THREAD body: the rows in order, waiting at collectives
  void finalize_graph();
  CollectiveHost* host_ = nullptr;  // the package this GPU is in, if any
  int device_ = 0;

  Counter& kernels_;
  Counter& ctas_;
  Counter& skipped_ctas_;
  Counter& warp_instructions_;
  Counter& sm_busy_cycles_;
};

}  // namespace strata
