// Compute-only kernels of several streams sharing the SMs (GpuScheduler::run_concurrent): each
// SM's resources allocated CTA by CTA as the occupancy rules allocate them for one kernel.
#include <algorithm>
#include <stdexcept>

#include "accelerators/gpu/gpu_scheduler.h"

namespace strata {

class ConcurrentRun {
 public:
  ConcurrentRun(GpuScheduler& g, const std::vector<const ScheduledKernel*>& batch, std::uint64_t now);
  std::vector<KernelRun> run();

 private:
  struct Live {
    std::unique_ptr<CtaQueue> ctas;
    std::uint64_t start = SmCore::kNever;  // its first CTA may go at this cycle (kNever: not yet known)
    bool started = false, finished = false, placed = false;
    std::uint64_t completed = 0;
    int warps = 0;
    std::uint64_t regs_per_warp = 0, shared = 0;  // allocated, at the granularities
    int next = -1;                                // the next kernel of its stream in the batch
  };
  // What each SM has allocated, and what each of its CTAs holds (by handle).
  struct Room {
    int warps = 0, ctas = 0;
    std::uint64_t shared = 0;
    std::vector<std::uint64_t> regs;  // per sub-core
  };
  struct Held {
    std::size_t kernel;
    std::vector<std::uint64_t> regs;
  };
  struct Done {
    std::uint64_t cycle;
    int sm, cta;
  };
  bool fits(std::size_t k, int s);
  void place(std::size_t k, int s, std::uint64_t at);
  void fill(int s, std::uint64_t at);
  void finish(std::size_t k, std::uint64_t at);
  void arrive(std::uint64_t t);
  void advance(std::uint64_t until);
  void settle();

  GpuScheduler& g_;
  const std::vector<const ScheduledKernel*>& batch_;
  const std::size_t n_, subs_;
  std::vector<Live> live_;
  std::vector<KernelRun> runs_;
  std::vector<Room> room_;
  std::vector<std::map<int, Held>> held_;
  const std::uint64_t regs_per_sub_;
  std::vector<std::uint64_t> need_;  // fits' allocation, per sub-core, for place
  std::vector<Done> done_;
};

ConcurrentRun::ConcurrentRun(GpuScheduler& g, const std::vector<const ScheduledKernel*>& batch, std::uint64_t now)
    : g_(g),
      batch_(batch),
      n_(batch.size()),
      subs_(static_cast<std::size_t>(g.limits_.sub_cores)),
      live_(n_),
      runs_(n_),
      room_(static_cast<std::size_t>(g.sms()), Room{0, 0, 0, std::vector<std::uint64_t>(subs_, 0)}),
      held_(static_cast<std::size_t>(g.sms())),
      regs_per_sub_(g.limits_.registers / subs_),
      need_(subs_) {
  std::map<int, std::size_t> last;  // stream -> its latest kernel in the batch
  for (std::size_t k = 0; k < n_; ++k) {
    const KernelLaunch& kl = batch[k]->kernel;
    Live& l = live_[k];
    l.ctas = std::make_unique<CtaQueue>(kl);
    l.warps = static_cast<int>(kl.warps_per_cta());
    l.regs_per_warp = batch[k]->occupancy.registers_per_warp;  // as the occupancy rules allocate them
    l.shared = batch[k]->occupancy.shared_per_cta;
    KernelRun& r = runs_[k];
    r.occupancy = batch[k]->occupancy;
    r.waves = waves(kl.ctas(), r.occupancy, g.sms());
    // Each warp issues each of its program's instructions once: the kernel's own count, though
    // its SMs also run other kernels' warps. CTAs of one set of programs count as the first.
    const bool same = kl.warp_programs.empty() && kl.cta_sets.empty();
    for (std::uint64_t c = 0; c < (same ? 1 : kl.ctas()); ++c)
      for (std::uint32_t w = 0; w < kl.warps_per_cta(); ++w)
        r.warp_instructions += kl.program_of(c, w).instructions() * (same ? kl.ctas() : 1);
    const auto [it, first] = last.try_emplace(kl.stream, k);
    if (first) {
      r.launch_cycle = now;
      l.start = now + g.kernel_launch_;
    } else {
      live_[it->second].next = static_cast<int>(k);
      it->second = k;
    }
  }
}

// Kernel k's next CTA on SM s: its warps dealt round-robin from the SM's next sub-core, each
// sub-core's file holding whole warps' allocations (occupancy.cpp's rules, CTA by CTA).
bool ConcurrentRun::fits(std::size_t k, int s) {
  const Room& r = room_[static_cast<std::size_t>(s)];
  const Live& l = live_[k];
  const SmLimits& limits = g_.limits_;
  if (r.warps + l.warps > limits.max_warps || r.ctas + 1 > limits.max_ctas || r.shared + l.shared > limits.shared_bytes)
    return false;
  std::fill(need_.begin(), need_.end(), 0);
  const auto first = static_cast<std::size_t>(g_.core(s).next_sub_core());
  for (int w = 0; w < l.warps; ++w) need_[(first + static_cast<std::size_t>(w)) % subs_] += l.regs_per_warp;
  for (std::size_t i = 0; i < subs_; ++i)
    if (r.regs[i] + need_[i] > regs_per_sub_) return false;
  return true;
}

void ConcurrentRun::place(std::size_t k, int s, std::uint64_t at) {  // after fits(k, s), which left `need_`
  Room& r = room_[static_cast<std::size_t>(s)];
  Live& l = live_[k];
  r.warps += l.warps;
  ++r.ctas;
  r.shared += l.shared;
  for (std::size_t i = 0; i < subs_; ++i) r.regs[i] += need_[i];
  const int id = l.ctas->place(g_.core(s), at);
  held_[static_cast<std::size_t>(s)][id] = Held{k, need_};
  if (!l.placed) runs_[k].start_cycle = at;
  l.placed = true;
}

void ConcurrentRun::fill(int s, std::uint64_t at) {  // an SM's free resources: the older kernels' CTAs first
  for (std::size_t k = 0; k < n_; ++k)
    while (live_[k].started && !live_[k].ctas->empty() && fits(k, s)) place(k, s, at);
}

void ConcurrentRun::finish(std::size_t k, std::uint64_t at) {
  live_[k].finished = true;
  runs_[k].end_cycle = at;
  if (live_[k].next >= 0) {  // the stream's next kernel: its turn
    const auto j = static_cast<std::size_t>(live_[k].next);
    runs_[j].launch_cycle = at;
    live_[j].start = at + g_.kernel_launch_;
  }
}

// Kernels whose first CTA may go by `t`, breadth-first: each CTA to the SM with room that holds
// the fewest CTAs (ties: the lower SM), as the lone kernel's placement on idle SMs.
void ConcurrentRun::arrive(std::uint64_t t) {
  for (std::size_t k = 0; k < n_; ++k) {
    Live& l = live_[k];
    if (l.started || l.start > t) continue;
    l.started = true;
    runs_[k].start_cycle = runs_[k].end_cycle = t;
    if (l.ctas->empty()) finish(k, t);  // an empty grid
    while (!l.ctas->empty()) {
      int best = -1;
      for (int s = 0; s < g_.sms(); ++s)
        if ((best < 0 || room_[static_cast<std::size_t>(s)].ctas < room_[static_cast<std::size_t>(best)].ctas) &&
            fits(k, s))
          best = s;
      if (best < 0) break;
      fits(k, best);  // its allocation in `need_`
      place(k, best, t);
    }
  }
}

void ConcurrentRun::advance(std::uint64_t until) {  // every SM to `until`, noting its completions
  for (int s = 0; s < g_.sms(); ++s) {
    SmCore& core = g_.core(s);
    if (core.next_event() > until) continue;
    int finished = 0;
    for (std::uint64_t c; (c = core.run(until, finished)) != SmCore::kNever;) done_.push_back(Done{c, s, finished});
  }
}

void ConcurrentRun::settle() {  // the completions in time order (ties: SM order), freeing their resources
  std::stable_sort(done_.begin(), done_.end(),
                   [](const Done& a, const Done& b) { return a.cycle != b.cycle ? a.cycle < b.cycle : a.sm < b.sm; });
  for (const Done& d : done_) {
    auto& on = held_[static_cast<std::size_t>(d.sm)];
    const auto it = on.find(d.cta);
    if (it == on.end()) throw std::logic_error("a CTA completed that the GPU did not place");
    const std::size_t k = it->second.kernel;
    Room& r = room_[static_cast<std::size_t>(d.sm)];
    r.warps -= live_[k].warps;
    --r.ctas;
    r.shared -= live_[k].shared;
    for (std::size_t i = 0; i < subs_; ++i) r.regs[i] -= it->second.regs[i];
    on.erase(it);
    runs_[k].end_cycle = std::max(runs_[k].end_cycle, d.cycle);
    if (++live_[k].completed == batch_[k]->kernel.ctas()) finish(k, d.cycle);
  }
  // Then the freed resources (all at one cycle) taken, SM by SM: the SM may hand a completed
  // CTA's handle to a new one, so no placement comes before every completion is accounted.
  for (const Done& d : done_) fill(d.sm, d.cycle);
  done_.clear();
}

// The SMs in step from the earliest event (an issue, a completion or a kernel's turn) to the
// next: a kernel may start on any SM at its cycle, so none may run ahead of it.
std::vector<KernelRun> ConcurrentRun::run() {
  const std::uint64_t instructions = g_.host_.warp_instructions();
  while (std::any_of(live_.begin(), live_.end(), [](const Live& l) { return !l.finished; })) {
    std::uint64_t t = SmCore::kNever;
    for (const Live& l : live_)
      if (!l.started) t = std::min(t, l.start);
    for (const auto& core : g_.cores()) t = std::min(t, core->next_event());
    if (t == SmCore::kNever) throw std::logic_error("concurrent kernels wait on a GPU with nothing running");
    if (g_.host_.halted(t)) return runs_;
    advance(t);  // completions at t, before anything issues at t
    settle();
    arrive(t);
    advance(t + 1);  // the issues of cycle t, and completions at t + 1
    settle();
    arrive(t + 1);
  }
  std::uint64_t counted = 0;
  for (const KernelRun& r : runs_) counted += r.warp_instructions;
  if (counted != g_.host_.warp_instructions() - instructions)
    throw std::logic_error("concurrent kernels: warp instructions issued differ from their programs'");
  return runs_;
}

std::vector<KernelRun> GpuScheduler::run_concurrent(const std::vector<const ScheduledKernel*>& batch,
                                                    std::uint64_t now) {
  return ConcurrentRun(*this, batch, now).run();
}

}  // namespace strata
