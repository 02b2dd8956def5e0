// A kernel of thread-block clusters (GpuScheduler::run_clustered): each cluster placed whole on
// SMs of one GPC (ClusterPlacer), the SMs in step while clusters wait for room.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/gpu_scheduler.h"

namespace strata {

class ClusteredRun {
 public:
  ClusteredRun(GpuScheduler& g, const ScheduledKernel& k, std::uint64_t start)
      : g_(g), k_(k), queue_(k.kernel), placer_(g.gpcs(), k.occupancy.ctas_per_sm) {
    r_.start_cycle = r_.end_cycle = start;
    r_.occupancy = k.occupancy;
    r_.clusters = k.clusters;
    r_.waves = cluster_waves(k.kernel.ctas() / k.kernel.cluster, k.clusters);
    place(start);
  }
  KernelRun run(std::uint64_t start);

 private:
  void place(std::uint64_t at);
  void advance(std::uint64_t until);
  void settle();
  void in_step(std::uint64_t limit);
  void run_windowed(std::uint64_t start);
  void run_compute();
  bool idle() const {
    return std::all_of(g_.cores_.begin(), g_.cores_.end(),
                       [](const auto& core) { return core->next_event() == SmCore::kNever; });
  }

  GpuScheduler& g_;
  const ScheduledKernel& k_;
  CtaQueue queue_;
  ClusterPlacer placer_;
  KernelRun r_;
  std::vector<int> sms_;  // the SMs of the cluster being placed
  std::uint64_t completed_ = 0;
  std::vector<std::pair<std::uint64_t, int>> done_;  // (cycle a CTA completed, SM)
};

void ClusteredRun::place(std::uint64_t at) {  // every waiting cluster that fits, at `at`
  const KernelLaunch& k = k_.kernel;
  while (!queue_.empty() && placer_.place(static_cast<int>(k.cluster), sms_)) {
    if (k_.cluster_barriers)
      g_.clusters_[queue_.next() / k.cluster] =
          GpuScheduler::ClusterState{ClusterBarrier{k.cluster * k.warps_per_cta(), 0, {}}, sms_};
    for (int s : sms_) queue_.place(g_.core(s), at);
  }
}

// Every SM to `until`, noting its completions. An SM with nothing to do by then stays where it
// is: a CTA placed on it later starts at its own cycle all the same.
void ClusteredRun::advance(std::uint64_t until) {
  int finished = 0;
  for (int s = 0; s < g_.sms(); ++s) {
    SmCore& core = g_.core(s);
    if (core.next_event() > until) continue;
    for (std::uint64_t c; (c = core.run(until, finished)) != SmCore::kNever;) done_.emplace_back(c, s);
  }
}

void ClusteredRun::settle() {  // the completions in time order (ties: SM order), each freeing a slot
  std::sort(done_.begin(), done_.end());
  for (const auto& [c, s] : done_) {
    ++completed_;
    r_.end_cycle = std::max(r_.end_cycle, c);
    placer_.release(s);
    place(c);
  }
  done_.clear();
}

// A cluster needs several SMs at once, so the SMs cannot run ahead of each other while
// clusters wait: they go in step from the earliest event of any SM to the next, and a waiting
// cluster is placed the cycle its slots free up. Once every cluster is placed, the SMs run on
// by themselves, unless a cluster barrier keeps them in step to the end.
void ClusteredRun::in_step(std::uint64_t limit) {
  while (!queue_.empty() || (k_.cluster_barriers && completed_ < queue_.total())) {
    std::uint64_t t = SmCore::kNever;
    for (const auto& core : g_.cores_) t = std::min(t, core->next_event());
    if (t != SmCore::kNever && g_.host_.halted(t)) return;
    if (t >= limit) {
      if (limit != SmCore::kNever) {
        advance(limit);
        settle();
      }
      return;
    }
    advance(t);  // completions at t, before anything issues at t
    settle();
    advance(t + 1);  // the issues of cycle t, and completions at t + 1
    settle();
  }
}

void ClusteredRun::run_windowed(std::uint64_t start) {
  GpuScheduler::WaveSample sample = g_.wave_sample(k_);
  const std::uint64_t window = g_.window_;
  std::uint64_t t = start;
  for (; completed_ < queue_.total() && !g_.host_.halted(t); t += window) {
    if (t > start) g_.sample_waves(sample, completed_, queue_);  // simulated time is at t
    in_step(t + window);
    advance(t + window);
    settle();
    g_.host_.flush_window();
    // Nothing left to issue and no data on its way: warps wait at a cluster barrier for good.
    if (k_.cluster_barriers && std::all_of(g_.cores_.begin(), g_.cores_.end(), [](const auto& core) {
          return core->next_event() == SmCore::kNever && !core->waits_for_memory();
        }))
      break;
    if (completed_ < queue_.total()) g_.host_.wait_until(t + window);
  }
  if (completed_ == queue_.total()) g_.await_stores(t - window, r_);
}

void ClusteredRun::run_compute() {
  in_step(SmCore::kNever);
  if (!g_.host_.stopped() && !queue_.empty()) throw std::logic_error("clusters wait on a GPU with no CTA running");
  // Every cluster placed: the SMs run on by themselves, a span at a time (kHaltSpan).
  std::uint64_t h = SmCore::kNever;
  for (const auto& core : g_.cores_) h = std::min(h, core->next_event());
  while (h != SmCore::kNever && !g_.host_.halted(h)) {
    h = h > SmCore::kNever - GpuScheduler::kHaltSpan ? SmCore::kNever : h + GpuScheduler::kHaltSpan;
    advance(h);
    settle();
    if (idle()) break;
  }
}

KernelRun ClusteredRun::run(std::uint64_t start) {
  if (k_.global) run_windowed(start);
  else run_compute();
  g_.clusters_.clear();
  if (g_.host_.stopped()) return r_;
  if (completed_ < queue_.total())
    throw std::runtime_error(fmt::format(
        "kernel {}: warps wait at a cluster barrier the rest of their cluster never reaches", k_.kernel.name));
  return r_;
}

KernelRun GpuScheduler::run_clustered(const ScheduledKernel& k, std::uint64_t start) {
  return ClusteredRun(*this, k, start).run(start);
}

}  // namespace strata
