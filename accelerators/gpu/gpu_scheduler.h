// The GPU's CTA scheduling, in cycles and without SystemC: each kernel's CTAs placed on the SMs
// under the CUDA occupancy rules (occupancy.h), breadth-first over the SMs, and a CTA that
// completes gives its SM the next waiting CTA at that cycle (ties in SM order, so runs are
// deterministic). Thread-block clusters are placed whole on SMs of one GPC (ClusterPlacer);
// compute-only kernels of several streams share the SMs (run_concurrent). What needs
// simulated time (waiting out a lookahead window, the L2, sim.sample's repeats, halting) the
// scheduler asks of its SchedulerHost, the Gpu component (gpu.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"
#include "workloads/gpu/warp_program.h"

namespace strata {

// What one kernel did.
struct KernelRun {
  std::uint64_t launch_cycle = 0;                // its turn to run; its first CTA `kernel_launch` later
  std::uint64_t start_cycle = 0, end_cycle = 0;  // first CTA to last completion
  Occupancy occupancy;
  std::uint64_t waves = 0;     // rounds of CTAs, or of clusters when the kernel has them
  std::uint64_t clusters = 0;  // clusters that co-reside at most (0: no clusters)
  std::uint64_t warp_instructions = 0;
  std::uint64_t dram_bytes = 0;  // analytic fidelity: the DRAM traffic estimated for it
  std::uint64_t cycles() const { return end_cycle - start_cycle; }
};

// A kernel ready to run: its launch and what decides how it runs.
struct ScheduledKernel {
  KernelLaunch kernel;
  Occupancy occupancy;
  bool global = false;            // reaches global memory: runs window by window
  std::uint64_t clusters = 0;     // co-resident clusters (0: none)
  bool cluster_barriers = false;  // has barrier.cluster: the SMs stay in step to its end
  bool may_sample = false;        // sim.sample: waves may count whole waves instead of simulating them
};

// The start of a span sim.sample: waves may count again; what it holds is the host's.
struct SpanMark {
  virtual ~SpanMark() = default;
};

// What the scheduler asks of the component that drives it.
class SchedulerHost {
 public:
  virtual ~SchedulerHost() = default;
  // Whether the run must stop at `cycle` (an interrupt, sim.max_time, time past what SystemC
  // represents); the scheduler then returns what it has.
  virtual bool halted(std::uint64_t cycle) = 0;
  virtual bool stopped() const = 0;  // whether the run has halted
  // The lookahead window's global accesses to the L2, in time order.
  virtual void flush_window() = 0;
  // Simulated time on to `cycle` (the DRAM answers meanwhile).
  virtual void wait_until(std::uint64_t cycle) = 0;
  // Warp instructions issued so far, the spans counted again included.
  virtual std::uint64_t warp_instructions() const = 0;
  // sim.sample: waves. Whether it is on; the start of a span, now (a window boundary); the
  // seconds since a span's start; the span since `since` counted `times` more for `skipped`
  // CTAs (false: reported time would pass what SystemC represents, and the run halts).
  virtual bool sample_waves() const = 0;
  virtual std::unique_ptr<SpanMark> mark_span() = 0;
  virtual double seconds_since(const SpanMark& since) const = 0;
  virtual bool repeat_waves(const SpanMark& since, double times, std::uint64_t skipped) = 0;
};

class CtaQueue;

class GpuScheduler {
 public:
  // `window`: the L2's lookahead in cycles (0: no L2, so no global memory). Throws
  // std::invalid_argument when the SMs cannot be built (SmCore).
  GpuScheduler(SchedulerHost& host, const SmLimits& limits, const SmTiming& timing, std::vector<int> gpcs,
               int max_cluster, std::uint64_t kernel_launch, std::uint64_t window);
  ~GpuScheduler();

  int sms() const { return static_cast<int>(cores_.size()); }
  SmCore& core(int sm) { return *cores_[static_cast<std::size_t>(sm)]; }
  const std::vector<std::unique_ptr<SmCore>>& cores() const { return cores_; }
  const std::vector<int>& gpcs() const { return gpcs_; }
  // The clusters of `k` that co-reside under occupancy `o` (0: a kernel without clusters).
  // Throws std::invalid_argument when the GPU has no clusters, the cluster is too large or
  // fits no GPC, or the grid is not a whole number of clusters.
  std::uint64_t active_clusters(const KernelLaunch& k, const Occupancy& o) const;
  // How `kernel` runs. Throws std::invalid_argument when it cannot (its CTA does not fit an SM,
  // or it reaches global memory on a GPU without an L2).
  ScheduledKernel prepare(KernelLaunch kernel, bool may_sample) const;

  // Runs a kernel alone from `start` (its first CTA's cycle); stops short when the host halts.
  KernelRun run(const ScheduledKernel& k, std::uint64_t start);
  // Compute-only kernels without clusters of two or more streams, all queued at `now`: each
  // stream's kernels in order, a stream's kernel `kernel_launch` after its turn, their CTAs
  // sharing the SMs by the per-SM resources (older kernels' CTAs placed first). The SMs go in
  // step. Returns each kernel's run, in the batch's order.
  std::vector<KernelRun> run_concurrent(const std::vector<const ScheduledKernel*>& batch, std::uint64_t now);

  // A run stops short, between CTA completions or spans of kHaltSpan cycles, so the host's
  // halt comes soon however long a CTA is: a compute-only kernel runs ahead of simulated time
  // in one step.
  static constexpr std::uint64_t kHaltSpan = 8192;

 private:
  // sim.sample: waves (docs/performance.md). A kernel whose grid holds four or more waves of
  // identical CTAs is simulated wave by wave (a wave: as many CTA completions as CTAs run at
  // once, from one window boundary to the first after it) until two consecutive waves after the
  // first complete at rates within kWaveSampleTolerance of each other; then the whole waves not
  // yet placed are skipped and those two waves are counted again for them (SpanRepeater,
  // `skipped / measured` times: time, energy and statistics). The wave in flight and the last
  // partial wave are simulated, so the kernel's tail and its wave quantization are simulated.
  static constexpr double kWaveSampleTolerance = 0.03;
  struct WaveSample {
    std::uint64_t resident = 0;              // CTAs that run at once; 0: the kernel is not sampled
    std::unique_ptr<SpanMark> before, span;  // the previous wave's start, this one's
    std::uint64_t completed_at_before = 0, completed_at_span = 0;
    double rate_before = 0;  // the previous wave's CTAs a second
    bool decided = false;
  };
  WaveSample wave_sample(const ScheduledKernel& k) const;
  // At a window boundary, with `completed` CTAs done.
  void sample_waves(WaveSample& s, std::uint64_t completed, CtaQueue& queue);
  // The run's fixed figures and its first CTAs placed, breadth-first.
  KernelRun begin_kernel(const ScheduledKernel& k, std::uint64_t start, CtaQueue& ctas);
  // Without global memory the SMs do not interact: each runs to its next CTA completion.
  KernelRun run_compute(const ScheduledKernel& k, std::uint64_t start);
  // A kernel that reaches global memory: every SM runs one lookahead window (GpuL2::lookahead
  // cycles, less than any latency from an access leaving an SM to its effect) ahead of
  // simulated time, then the window's accesses go to the L2 in time order, and the host waits
  // out the window while the DRAM answers.
  KernelRun run_windowed(const ScheduledKernel& k, std::uint64_t start);
  // Its last CTA done at window `t` (simulated time is there): the host waits out windows until
  // every store's acknowledgement is back, and the kernel ends with the last of them.
  void await_stores(std::uint64_t t, KernelRun& r);
  // A kernel of thread-block clusters (gpu_clusters.cpp).
  KernelRun run_clustered(const ScheduledKernel& k, std::uint64_t start);
  void cluster_barrier(std::uint64_t cluster, std::uint64_t cycle, bool exit, std::uint32_t count);

  SchedulerHost& host_;
  SmLimits limits_;
  SmTiming timing_;
  std::vector<int> gpcs_;
  int max_cluster_;
  std::uint64_t kernel_launch_, window_;
  std::vector<std::unique_ptr<SmCore>> cores_;
  // The barrier of each resident cluster of a kernel with cluster barriers, and its SMs.
  struct ClusterState {
    ClusterBarrier barrier;
    std::vector<int> sms;
  };
  std::map<std::uint64_t, ClusterState> clusters_;
  friend class ClusteredRun;
  friend class ConcurrentRun;
};

// The CTAs of a kernel not yet placed, handed to SMs in grid order.
class CtaQueue {
 public:
  explicit CtaQueue(const KernelLaunch& k) : k_(k), programs_(k.warps_per_cta()), end_(k.ctas()) {}
  bool empty() const { return next_ == end_; }
  int place(SmCore& core, std::uint64_t at);    // the CTA's handle on `core`
  std::uint64_t next() const { return next_; }  // the next CTA's number
  std::uint64_t left() const { return end_ - next_; }
  // The CTAs that run: the grid less those skipped.
  std::uint64_t total() const { return end_; }
  void skip(std::uint64_t n) { end_ -= std::min(n, left()); }  // the last `n` waiting CTAs never run

 private:
  const KernelLaunch& k_;
  std::vector<const WarpProgram*> programs_;
  std::uint64_t next_ = 0, end_;
};

}  // namespace strata
