// Implemented by hardware that runs kernels of warp programs (the `gpu` kind), as GraphTarget
// (workloads/graph_workload.h) is by hardware that runs operator graphs: the workloads that
// launch kernels themselves (gpu_microbenchmark, accelsim_trace) bind to this, not to a kind.
#pragma once

#include <functional>

#include "accelerators/gpu/gpu_scheduler.h"
#include "sim/clock.h"

namespace strata {

class Component;
struct ValidatedNode;

class WarpProgramTarget {
 public:
  virtual ~WarpProgramTarget() = default;
  // Queues a kernel; `done` runs inside the simulation when its last CTA completes. Throws
  // std::invalid_argument when the kernel cannot launch (its CTA does not fit an SM). With
  // `may_sample` and sim.sample: waves, whole waves of its CTAs may be counted instead of
  // simulated; its run then ends later in reported time than in simulated time.
  virtual void launch(KernelLaunch kernel, std::function<void(const KernelRun&)> done, bool may_sample = false) = 0;
  // Analytic fidelity: the kernel's run in closed form, after the kernels evaluated before it.
  virtual KernelRun evaluate(const KernelLaunch& kernel) = 0;
  virtual int sms() const = 0;
  virtual const SmLimits& limits() const = 0;
  virtual const SmTiming& timing() const = 0;
  virtual const Clock& sm_clock() const = 0;  // what a run's cycles are in
  // The clusters of `k` that co-reside under occupancy `o` (0: a kernel without clusters).
  // Throws std::invalid_argument when they cannot (GpuScheduler::active_clusters).
  virtual std::uint64_t active_clusters(const KernelLaunch& k, const Occupancy& o) const = 0;
};

// `hardware` as a warp-program target; else InputError at workload.kind: "`workload` needs a
// gpu; hardware kind '...' is not one".
WarpProgramTarget& warp_program_target(Component& hardware, const ValidatedNode& cfg, const char* workload);

}  // namespace strata
