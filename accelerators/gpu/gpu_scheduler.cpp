#include "accelerators/gpu/gpu_scheduler.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

namespace strata {

int CtaQueue::place(SmCore& core, std::uint64_t at) {
  for (std::uint32_t w = 0; w < programs_.size(); ++w) programs_[w] = &k_.program_of(next_, w);
  const int id = core.add_cta(programs_, at, next_ * k_.warps_per_cta(), static_cast<int>(k_.cluster),
                              next_ / k_.cluster, k_.tile_of(next_));
  ++next_;
  return id;
}

GpuScheduler::GpuScheduler(SchedulerHost& host, const SmLimits& limits, const SmTiming& timing, std::vector<int> gpcs,
                           int max_cluster, std::uint64_t kernel_launch, std::uint64_t window)
    : host_(host),
      limits_(limits),
      timing_(timing),
      gpcs_(std::move(gpcs)),
      max_cluster_(max_cluster),
      kernel_launch_(kernel_launch),
      window_(window) {
  int sms = 0;
  for (int g : gpcs_) sms += g;
  for (int i = 0; i < sms; ++i) cores_.push_back(std::make_unique<SmCore>(timing_, i));
  for (auto& core : cores_)
    core->connect_clusters([this](std::uint64_t cluster, std::uint32_t phase,
                                  std::uint64_t cycle) { cluster_barrier(cluster, cycle, false, phase); },
                           [this](std::uint64_t cluster, std::uint32_t arrivals, std::uint64_t cycle) {
                             cluster_barrier(cluster, cycle, true, arrivals);
                           });
}

GpuScheduler::~GpuScheduler() = default;

std::uint64_t GpuScheduler::active_clusters(const KernelLaunch& k, const Occupancy& o) const {
  return strata::active_clusters(gpcs_, max_cluster_, k.ctas(), k.cluster, o.ctas_per_sm);
}

ScheduledKernel GpuScheduler::prepare(KernelLaunch kernel, bool may_sample) const {
  const auto any = [&kernel](auto&& pred) {  // some warp program of the kernel has an instruction that...
    const auto in_program = [&pred](const WarpProgram* p) {
      if (!p) return false;
      for (const auto* part : {&p->prologue, &p->body, &p->epilogue})
        if (std::any_of(part->begin(), part->end(), pred)) return true;
      return false;
    };
    const auto in_any = [&](const auto& programs) {
      return std::any_of(programs.begin(), programs.end(), [&](const auto& p) { return in_program(p.get()); });
    };
    return in_program(kernel.program.get()) || in_any(kernel.warp_programs) || in_any(kernel.cta_programs);
  };
  const bool global = any([](const WarpInstruction& in) { return in.global(); });
  const bool barriers = any(
      [](const WarpInstruction& in) { return in.op == WarpOp::BarClusterArrive || in.op == WarpOp::BarClusterWait; });
  if (global && window_ == 0)
    throw std::invalid_argument(fmt::format(
        "kernel {}: global loads and stores need a memory behind the L2 (the gpu's `memory`)", kernel.name));
  ScheduledKernel k;
  k.global = global;
  k.occupancy = occupancy(limits_, kernel.threads_per_cta(), kernel.registers_per_thread, kernel.shared_bytes);
  k.clusters = active_clusters(kernel, k.occupancy);
  k.cluster_barriers = barriers && kernel.cluster > 1;
  k.may_sample = may_sample;
  k.kernel = std::move(kernel);
  return k;
}

void GpuScheduler::cluster_barrier(std::uint64_t cluster, std::uint64_t cycle, bool exit, std::uint32_t count) {
  const auto it = clusters_.find(cluster);
  if (it == clusters_.end()) return;  // a kernel without cluster barriers
  ClusterBarrier& b = it->second.barrier;
  if (exit) b.exit(count);
  else b.arrive(count);
  // The arrive reaches the cluster's other SMs, and their release comes back, over the SM-to-SM
  // network: the phase completes dsm_latency after the last arrive [E].
  if (b.advance())
    for (int s : it->second.sms)
      cores_[static_cast<std::size_t>(s)]->cluster_release(cluster, b.phase,
                                                           cycle + static_cast<std::uint64_t>(timing_.dsm_latency));
}

GpuScheduler::WaveSample GpuScheduler::wave_sample(const ScheduledKernel& p) const {
  WaveSample s;
  const KernelLaunch& k = p.kernel;
  if (!p.may_sample || !host_.sample_waves() || !k.cta_sets.empty()) return s;  // CTAs that differ
  const std::uint64_t resident =
      k.cluster > 1 ? p.clusters * k.cluster : static_cast<std::uint64_t>(p.occupancy.ctas_per_sm) * sms();
  if (resident > 0 && k.ctas() >= 4 * resident) s.resident = resident;
  return s;
}

void GpuScheduler::sample_waves(WaveSample& s, std::uint64_t completed, CtaQueue& queue) {
  if (s.resident == 0 || s.decided) return;
  const auto start_span = [&] {
    s.span = host_.mark_span();
    s.completed_at_span = completed;
  };
  if (!s.span) {
    if (completed >= s.resident) start_span();  // the first wave is done
    return;
  }
  const std::uint64_t measured = completed - s.completed_at_span;
  if (measured < s.resident) return;
  const double rate = static_cast<double>(measured) / host_.seconds_since(*s.span);
  const std::uint64_t skip = queue.left() / s.resident * s.resident;  // whole waves
  if (skip == 0) {
    s.decided = true;
    return;
  }
  // Steady when this wave's rate is within kWaveSampleTolerance of the one before (the second
  // wave, which starts in step, often completes slower than those after it, which do not).
  if (!s.before || std::abs(rate - s.rate_before) > kWaveSampleTolerance * s.rate_before) {
    s.before = std::move(s.span);
    s.completed_at_before = s.completed_at_span;
    s.rate_before = rate;
    start_span();
    return;
  }
  s.decided = true;
  // Both steady waves are the measured span.
  const double times = static_cast<double>(skip) / static_cast<double>(completed - s.completed_at_before);
  if (host_.repeat_waves(*s.before, times, skip)) queue.skip(skip);
}

KernelRun GpuScheduler::begin_kernel(const ScheduledKernel& p, std::uint64_t start, CtaQueue& ctas) {
  KernelRun r;
  r.start_cycle = r.end_cycle = start;
  r.occupancy = p.occupancy;
  r.waves = waves(p.kernel.ctas(), p.occupancy, sms());
  // Breadth-first: every SM gets a CTA before any gets a second.
  for (int round = 0; round < p.occupancy.ctas_per_sm && !ctas.empty(); ++round)
    for (int s = 0; s < sms() && !ctas.empty(); ++s) ctas.place(core(s), start);
  return r;
}

KernelRun GpuScheduler::run(const ScheduledKernel& k, std::uint64_t start) {
  const std::uint64_t instructions = host_.warp_instructions();
  KernelRun r = k.kernel.cluster > 1 ? run_clustered(k, start)
                : k.global           ? run_windowed(k, start)
                                     : run_compute(k, start);
  r.warp_instructions = host_.warp_instructions() - instructions;
  return r;
}

KernelRun GpuScheduler::run_windowed(const ScheduledKernel& p, std::uint64_t start) {
  CtaQueue queue(p.kernel);
  KernelRun r = begin_kernel(p, start, queue);
  WaveSample sample = wave_sample(p);
  std::uint64_t completed = 0;
  std::uint64_t t = start;
  for (; completed < queue.total(); t += window_) {
    if (host_.halted(t)) return r;
    if (t > start) sample_waves(sample, completed, queue);  // simulated time is at t
    for (int s = 0; s < sms(); ++s) {
      SmCore& c = core(s);
      int finished = 0;
      for (std::uint64_t at; (at = c.run(t + window_, finished)) != SmCore::kNever;) {
        ++completed;
        r.end_cycle = std::max(r.end_cycle, at);
        if (!queue.empty()) queue.place(c, at);
      }
    }
    host_.flush_window();
    if (completed < queue.total()) host_.wait_until(t + window_);
  }
  await_stores(t - window_, r);
  return r;
}

void GpuScheduler::await_stores(std::uint64_t t, KernelRun& r) {
  const auto out = [&] {
    return std::any_of(cores_.begin(), cores_.end(), [](const auto& c) { return c->stores_out() > 0; });
  };
  while (out() && !host_.halted(t)) {
    t += window_;
    host_.wait_until(t);
  }
  for (const auto& c : cores_) r.end_cycle = std::max(r.end_cycle, c->last_store_acknowledged());
}

KernelRun GpuScheduler::run_compute(const ScheduledKernel& p, std::uint64_t start) {
  CtaQueue queue(p.kernel);
  KernelRun r = begin_kernel(p, start, queue);
  // Completions are taken in time order (ties in SM order) to place the waiting CTAs. The SMs
  // run in spans of kHaltSpan cycles; an SM with no completion in a span waits in `behind` for
  // the next.
  using Event = std::pair<std::uint64_t, int>;  // (cycle a CTA completes, SM)
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  std::vector<int> behind(static_cast<std::size_t>(sms())), next;
  for (int s = 0; s < sms(); ++s) behind[static_cast<std::size_t>(s)] = s;
  int finished = 0;
  const auto step = [&](int s, std::uint64_t horizon) {  // SM s on to its next completion, or to the horizon
    SmCore& c = core(s);
    const std::uint64_t at = c.run(horizon, finished);
    if (at != SmCore::kNever) events.emplace(at, s);
    else if (c.next_event() != SmCore::kNever) next.push_back(s);
  };
  for (std::uint64_t horizon = start; !host_.halted(horizon);) {
    horizon = horizon > SmCore::kNever - kHaltSpan ? SmCore::kNever : horizon + kHaltSpan;
    next.clear();
    for (int s : behind) step(s, horizon);
    // Every SM is at the horizon or has its next completion queued: those before the horizon in
    // time order (ties in SM order), each placing a waiting CTA.
    while (!events.empty() && !host_.halted(events.top().first)) {
      const auto [cycle, s] = events.top();
      events.pop();
      r.end_cycle = std::max(r.end_cycle, cycle);
      if (!queue.empty()) queue.place(core(s), cycle);
      step(s, horizon);
    }
    if (events.empty() && next.empty()) break;
    behind.swap(next);
  }
  return r;
}

}  // namespace strata
