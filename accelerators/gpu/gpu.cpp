#include "accelerators/gpu/gpu.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/gpu_analytic.h"
#include "accelerators/gpu/gpu_parts.h"
#include "sim/input_error.h"
#include "sim/interrupt.h"
#include "sim/kernel.h"
#include "sim/ports.h"
#include "sim/registry.h"

namespace strata {

KindSpec Gpu::spec() { return gpu_spec(); }

Gpu::Gpu(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      sms_(static_cast<int>(params().integer("sms"))),
      max_cluster_(static_cast<int>(params().integer("max_cluster_size"))),
      kernel_launch_(static_cast<std::uint64_t>(params().integer("kernel_launch"))),
      kernels_(counter("kernels", "kernels", "kernels run")),
      ctas_(counter("ctas", "CTAs", "CTAs run")),
      skipped_ctas_(counter("sample.skipped_ctas", "CTAs",
                            "CTAs not simulated: sim.sample: waves counted two measured steady waves again for them")),
      warp_instructions_(counter("warp_instructions", "instructions", "warp instructions issued")),
      sm_busy_cycles_(counter("sm_busy_cycles", "cycles", "SM-cycles with a CTA resident, summed over SMs")) {
  check_gpu_config(cfg);
  const Registry& registry = ctx.registry();
  const auto sm = registry.make<SmPart>(cfg.child("sm"));
  const auto tensor_core = registry.make<TensorCorePart>(cfg.child("tensor_core"));
  limits_ = sm->limits();
  sm->time(timing_);
  tensor_core->time(timing_);
  tensor_base_macs_ = tensor_core->base_macs_per_cycle();
  l2_config_ = registry.make<L2Part>(cfg.child("l2"))->config();
  const bool memory = cfg.children.count("memory") != 0;
  try {
    scheduler_ = std::make_unique<GpuScheduler>(static_cast<SchedulerHost&>(*this), limits_, timing_,
                                                gpc_sizes(sms_, static_cast<int>(params().integer("gpcs"))),
                                                max_cluster_, kernel_launch_,
                                                memory ? static_cast<std::uint64_t>(GpuL2::lookahead(l2_config_)) : 0);
  } catch (const std::invalid_argument& e) {
    throw InputError(cfg.child("sm").where("l1_ways"), cfg.path + ".sm.l1_ways", e.what());
  }
  if (memory) {
    try {
      l2_ = std::make_unique<GpuL2>(
          l2_config_, sms_,
          [this](int s, std::uint64_t id, std::uint64_t cycle) { scheduler_->core(s).complete(id, cycle); },
          [this](int s, std::uint64_t cycle) { scheduler_->core(s).store_acknowledged(cycle); },
          [this](std::uint64_t cycle, std::uint64_t address, std::uint32_t bytes, bool write, std::uint64_t tag) {
            DramPort& p = *dram_ports_[static_cast<std::size_t>(dram_->queue_of(address))];
            p.queue.push(DramRequest{cycle, dram_seq_++, address, tag, bytes, write});
            p.queued.notify(sc_core::SC_ZERO_TIME);
          });
    } catch (const std::invalid_argument& e) {
      throw InputError(cfg.child("l2").where("size"), cfg.path + ".l2.size", e.what());
    }
    for (auto& core : scheduler_->cores()) core->connect([this](const GlobalAccess& a) { window_.push_back(a); });
    memory_component_ = build_child("memory");
    dram_ = &dynamic_cast<MemoryTarget&>(*memory_component_);
    TargetSocket& target = dram_->target_socket();
    for (int i = 0; i < dram_->queues(); ++i) {
      auto p = std::make_unique<DramPort>();
      p->port = std::make_unique<AtInitiator>(
          fmt::format("dram_port{}", i).c_str(), [this](tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
            auto& d = static_cast<DramPayload&>(gp);
            const std::uint64_t cycle = clock().cycle_at(clock().next_edge(sc_core::sc_time_stamp() + delay));
            if (gp.is_write()) l2_->dram_written(d.tag, cycle);
            else l2_->dram_done(d.tag, cycle);
          });
      bind_at(ctx, p->port->socket(), target, fmt::format("{}.l2.port{}", basename(), i));
      dram_ports_.push_back(std::move(p));
    }
    scratch_.resize(kLineBytes);
  }
  declare_costs();
  declare_power();
  ctx.report("warp_instructions", stat_name("warp_instructions"));
  SC_HAS_PROCESS(Gpu);
  SC_THREAD(run);
  for (std::size_t i = 0; i < dram_ports_.size(); ++i) {
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn(sc_bind(&Gpu::issue_dram, this, static_cast<int>(i)), fmt::format("l2_port{}", i).c_str(),
                      &options);
  }
}

Gpu::~Gpu() = default;

void Gpu::declare_costs() {
  const TechTable& t = tech();
  const double sms = sms_, subs = timing_.sub_cores;
  // A sub-core's register file: registers / sub-cores of 32 bits in two banks, read and
  // written a warp (1024 bits) at a time [V] Huerta et al.
  const SramCost rf = t.sram(limits_.registers * 4.0 / subs, 1024, 2);
  events_.rf_read = &energy_event("rf_read", rf.read_j, "warp-wide register reads (1024 bits)");
  events_.rf_write = &energy_event("rf_write", rf.write_j, "warp-wide register writes (1024 bits)");
  add_area("register_files", rf.area_mm2 * subs * sms, rf.leakage_w * subs * sms);
  // Shared memory: 32 banks of 4 B, one wavefront (1024 bits) an access.
  if (limits_.shared_bytes > 0) {
    const SramCost shared = t.sram(static_cast<double>(limits_.shared_bytes),
                                   timing_.shared_banks * timing_.bank_bytes * 8, timing_.shared_banks);
    events_.shared = &energy_event("shared_wavefront", shared.read_j, "shared-memory wavefronts");
    add_area("shared_memory", shared.area_mm2 * sms, shared.leakage_w * sms);
  }
  // The L1 (the rest of the L1/shared array) and the L2 slices, a 32 B sector an access.
  if (timing_.l1_bytes > 0) {
    const SramCost l1 = t.sram(static_cast<double>(timing_.l1_bytes), kSectorBytes * 8, 4);
    events_.l1 = &energy_event("l1_sector", l1.read_j, "L1 sectors read (hits) and filled");
    add_area("l1", l1.area_mm2 * sms, l1.leakage_w * sms);
  }
  if (l2_) {
    const double slices = l2_config_.slices;
    const SramCost slice = t.sram(static_cast<double>(l2_config_.bytes) / slices, kSectorBytes * 8, 1);
    events_.l2 = &energy_event("l2_sector", slice.read_j, "L2 sectors read, written, filled and written back");
    add_area("l2", slice.area_mm2 * slices, slice.leakage_w * slices);
    // The crossbar: the L2 slices sit mid-die, the SMs and the memory controllers' PHYs around
    // them, so a sector crosses about half the die's side each way it goes [E]: the wires'
    // energy per bit and mm (the tech table's wire.energy) over that reach. The die is
    // `die_area` where given, else the modelled blocks' area.
    const double die = std::max(params().quantity("die_area"), area_mm2());
    const double reach_mm = std::sqrt(die) / 2;
    events_.crossbar =
        &energy_event("crossbar_sector", kSectorBytes * 8 * t.wire_energy_per_bit_mm() * reach_mm,
                      fmt::format("sectors across the crossbar, {:.3g} mm each (half the die's side)", reach_mm));
  }
  const auto lanes = [&](const char* name, const UnitCost& c, double per_sub_core, const char* what) {
    add_area(name, c.area_mm2 * per_sub_core * subs * sms, c.leakage_w * per_sub_core * subs * sms);
    return &energy_event(name, c.energy_j, what);
  };
  UnitCost imad = t.op("mul.int32");
  imad.energy_j += t.op("add.int32").energy_j;
  imad.area_mm2 += t.op("add.int32").area_mm2;
  imad.leakage_w += t.op("add.int32").leakage_w;
  events_.fp32 = lanes("fp32_lanes", t.mac("fp32"), timing_.fp32_lanes, "FP32 lane operations (FFMA)");
  events_.fp64 = lanes("fp64_lanes", t.mac("fp64"), timing_.fp64_lanes, "FP64 lane operations (DFMA)");
  events_.integer = lanes("int_lanes", imad, timing_.int_lanes, "INT32 lane operations (IMAD)");
  events_.sfu = lanes("sfus", t.op("sfu.fp32"), timing_.sfu_lanes, "special-function lane operations");
  // Tensor cores: a lane that does r MACs of a format a cycle has r multipliers; the lane is
  // sized for the format that needs the most silicon.
  const double base = tensor_base_macs_;
  double lane_mm2 = 0, lane_leak = 0;
  for (const auto& [format, macs] : timing_.tensor_macs) {
    const UnitCost mac = t.mac(format);
    const double rate = macs / base;
    lane_mm2 = std::max(lane_mm2, mac.area_mm2 * std::max(1.0, rate));
    lane_leak = std::max(lane_leak, mac.leakage_w * std::max(1.0, rate));
    events_.macs[format] = &energy_event("mac_" + format, mac.energy_j, fmt::format("tensor-core MACs in {}", format));
  }
  add_area("tensor_cores", lane_mm2 * base * subs * sms, lane_leak * base * subs * sms);
}

void Gpu::launch(KernelLaunch kernel, std::function<void(const KernelRun&)> done, bool may_sample) {
  enqueue(std::move(kernel), std::move(done), may_sample, kernel_launch_);
}

void Gpu::enqueue(KernelLaunch kernel, std::function<void(const KernelRun&)> done, bool may_sample,
                  std::uint64_t launch_cycles) {
  queue_.push_back(Pending{scheduler_->prepare(std::move(kernel), may_sample), std::move(done), launch_cycles});
  launched_.notify(sc_core::SC_ZERO_TIME);
}

std::uint64_t Gpu::active_clusters(const KernelLaunch& k, const Occupancy& o) const {
  return scheduler_->active_clusters(k, o);
}

double Gpu::energy_of(const SmCounts& c) const {
  double j = events_.rf_read->joules_per_event() * static_cast<double>(c.rf_reads) +
             events_.rf_write->joules_per_event() * static_cast<double>(c.rf_writes);
  const auto lanes = [&](EnergyEvent* e, WarpOp op) {
    return e->joules_per_event() * static_cast<double>(c.thread_ops[static_cast<int>(op)]);
  };
  j += lanes(events_.fp32, WarpOp::Fp32) + lanes(events_.fp64, WarpOp::Fp64) + lanes(events_.integer, WarpOp::Int) +
       lanes(events_.sfu, WarpOp::Sfu);
  if (events_.shared) j += events_.shared->joules_per_event() * static_cast<double>(c.shared_wavefronts);
  if (events_.l1) j += events_.l1->joules_per_event() * static_cast<double>(c.l1_hit_sectors + c.l1_miss_sectors);
  for (const auto& [f, n] : c.tensor_macs) j += events_.macs.at(f)->joules_per_event() * static_cast<double>(n);
  if (gated_clock_event_) j += gated_clock_event_->joules_per_event() * static_cast<double>(c.busy_cycles);
  return j + l2_sector_j() * static_cast<double>(c.l2_sectors + c.dram_sectors);
}

double Gpu::counted_now_j() const {
  SmCounts c = totals();
  if (gated_clock_event_) {  // the SMs' residency so far, not only the runs that ended
    c.busy_cycles = analytic_.busy_cycles + reused_.busy_cycles;
    for (const auto& core : scheduler_->cores()) c.busy_cycles += core->busy_cycles_live();
  }
  return energy_of(c) + l2_sector_j() * static_cast<double>(l2_model_sectors());
}

double Gpu::l2_sector_j() const {
  return events_.l2 ? events_.l2->joules_per_event() + events_.crossbar->joules_per_event() : 0.0;
}

std::uint64_t Gpu::l2_model_sectors() const {
  if (!l2_) return 0;
  return l2_->hit_sectors() + l2_->miss_sectors() + l2_->write_sectors() +
         (l2_->dram_read_bytes() + l2_->dram_write_bytes()) / kSectorBytes;
}

SmCounts Gpu::totals() const {
  SmCounts total;
  std::vector<const SmCounts*> all{&analytic_, &reused_};
  for (const auto& c : scheduler_->cores()) all.push_back(&c->counts());
  for (const SmCounts* part : all) {
    total.add(*part);
    total.busy_cycles += part->busy_cycles;
    total.ctas += part->ctas;
  }
  return total;
}

SmCounts Gpu::with_memory_side(const KernelEstimate& e) {
  SmCounts c = e.counts;
  c.l2_sectors = e.l2_bytes / kSectorBytes;
  c.dram_sectors = e.dram_bytes / kSectorBytes;
  return c;
}

KernelRun Gpu::evaluate(const KernelLaunch& kernel) { return evaluate_launched(kernel, kernel_launch_); }

KernelRun Gpu::evaluate_launched(const KernelLaunch& kernel, std::uint64_t launch_cycles) {
  KernelRun r;
  r.occupancy = occupancy(limits_, kernel.threads_per_cta(), kernel.registers_per_thread, kernel.shared_bytes);
  r.clusters = active_clusters(kernel, r.occupancy);
  clock_kernel(kernel, analytic_cycle_);
  const MemoryEstimate m = memory_estimate(static_cast<double>(clock().frequency_hz()));
  AnalyticMemory* dram = dram_ ? &analytic_memory(*dram_, memory_component_->config()) : nullptr;
  KernelEstimate e;
  const std::uint64_t last = clock().cycle_at(sc_core::sc_max_time());
  const double begin = static_cast<double>(analytic_cycle_ + launch_cycles);
  try {
    e = estimate_kernel(kernel, r.occupancy, timing_, sms_, m, r.clusters * kernel.cluster);
  } catch (const CycleOverflow&) {
    throw unrepresentable(static_cast<double>(kMaxCycles) + begin);
  }
  if (begin + static_cast<double>(e.cycles) > static_cast<double>(last))
    throw unrepresentable(begin + static_cast<double>(e.cycles));
  r.launch_cycle = analytic_cycle_;
  r.start_cycle = analytic_cycle_ += launch_cycles;
  r.end_cycle = analytic_cycle_ += e.cycles;
  r.dram_bytes = e.dram_bytes;
  if (dram && e.dram_bytes > 0) {
    // The DRAM counts the kernel's traffic as a stream from every SM over its run.
    AnalyticTransfer t;
    t.rows = 1;
    t.row_bytes = e.dram_bytes;
    t.requests = e.dram_bytes / kLineBytes;
    t.request_align = kLineBytes;
    t.streams = sms_;
    t.start_s = clock().seconds_of(r.start_cycle);
    t.end_s = clock().seconds_of(r.end_cycle);
    dram->account_analytic(t);
  }
  r.waves = e.waves;
  r.warp_instructions = e.counts.warp_instructions;
  const SmCounts c = with_memory_side(e);
  analytic_.add(c);
  analytic_.busy_cycles += c.busy_cycles;
  analytic_.ctas += c.ctas;
  // The power monitor spreads an analytic run's energy over it (PowerMonitor::finish_average).
  finished_energy_ = counted_now_j();
  kernel_energy_done(finished_energy_);
  warp_instructions_.add(c.warp_instructions);
  ctas_.add(kernel.ctas());
  kernels_.add();
  return r;
}

double Gpu::dynamic_energy_j() const {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  return powered_energy_j(counted_energy_j(now), now);
}

double Gpu::counted_energy_j(const sc_core::sc_time& now) const {
  if (!running_) return finished_energy_;
  // A kernel in step with SystemC time: its counts so far (its SMs are one window ahead).
  if (running_live_) return counted_now_j();
  // A compute-only kernel's events are all counted when it starts (its SMs run ahead of
  // SystemC time): its energy is spread evenly over its run.
  if (now <= running_start_) return finished_energy_;  // still launching
  const double span = to_seconds(running_end_ - running_start_);
  const double done = span > 0 ? std::min(1.0, to_seconds(now - running_start_) / span) : 1.0;
  return finished_energy_ + running_energy_ * done;
}

void Gpu::free(tlm::tlm_generic_payload* gp) { payloads_.recycle(gp); }

std::vector<double> Gpu::reuse_totals(const sc_core::sc_time& now) const {
  std::vector<double> t = l2_ ? l2_->counters() : std::vector<double>{};
  const ClockTotals c = clock_totals(now);
  t.insert(t.end(), {c.weighted_cycles, c.cycles, c.seconds, c.limited_s});
  return t;
}

void Gpu::repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time& now) {
  const std::size_t l2_count = since.size() - 4;
  if (l2_)
    l2_->repeat_counters(std::vector<double>(since.begin(), since.begin() + static_cast<std::ptrdiff_t>(l2_count)),
                         times);
  // The clock ran through the repeated span `times` more.
  const ClockTotals c = clock_totals(now);
  repeated_clock_.weighted_cycles += (c.weighted_cycles - since[l2_count]) * times;
  repeated_clock_.cycles += (c.cycles - since[l2_count + 1]) * times;
  repeated_clock_.seconds += (c.seconds - since[l2_count + 2]) * times;
  repeated_clock_.limited_s += (c.limited_s - since[l2_count + 3]) * times;
}

void Gpu::issue_dram(int port) {
  DramPort& p = *dram_ports_[static_cast<std::size_t>(port)];
  for (;;) {
    while (p.queue.empty()) wait(p.queued);
    const sc_core::sc_time at = clock().time_of(p.queue.top().cycle);
    if (at > sc_core::sc_time_stamp()) {
      wait(at - sc_core::sc_time_stamp(), p.queued);  // an earlier request may come meanwhile
      continue;
    }
    while (p.port->request_open()) wait(p.port->progress());
    const DramRequest r = p.queue.top();
    p.queue.pop();
    DramPayload* gp = payloads_.allocate();
    gp->acquire();
    gp->tag = r.tag;
    gp->set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp->set_address(r.address);
    gp->set_data_ptr(scratch_.data());
    gp->set_data_length(r.bytes);
    gp->set_streaming_width(r.bytes);
    gp->set_byte_enable_ptr(nullptr);
    gp->set_dmi_allowed(false);
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p.port->begin_request(*gp);
    gp->release();
  }
}

// SchedulerHost: sim.sample: waves' spans, marked and counted again by the SpanRepeater.
bool Gpu::sample_waves() const { return context().may_repeat_with("sample", "waves"); }

namespace {
// The GPU's side of a span: every statistic then, and the SMs' counts.
struct GpuSpanMark : SpanMark {
  GpuSpanMark(SpanRepeater::Mark m, SmCounts c) : mark(std::move(m)), at(std::move(c)) {}
  SpanRepeater::Mark mark;
  SmCounts at;
};
}  // namespace

std::unique_ptr<SpanMark> Gpu::mark_span() {
  return std::make_unique<GpuSpanMark>(context().repeater().mark(), totals());
}

double Gpu::seconds_since(const SpanMark& since) const {
  return (sc_core::sc_time_stamp() - static_cast<const GpuSpanMark&>(since).mark.at).to_seconds();
}

bool Gpu::repeat_waves(const SpanMark& since, double times, std::uint64_t skipped) {
  const auto& s = static_cast<const GpuSpanMark&>(since);
  // Skipped waves count in reported time, which must stay representable as simulated time does.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (context().reported_time()(now).to_seconds() + (now - s.mark.at).to_seconds() * times >=
      to_seconds(sc_core::sc_max_time())) {
    halt_ = Halt::Unrepresentable;
    return false;
  }
  repeat_span(s.mark, s.at, times);
  reused_.ctas += skipped;
  skipped_ctas_.add(skipped);
  return true;
}

SmCounts Gpu::repeat_span(const SpanRepeater::Mark& mark, const SmCounts& at_mark, double times) {
  const SmCounts span = totals().since(at_mark);
  context().repeater().repeat(mark, times, [&] {
    reused_.add(span, times);
    reused_.busy_cycles += scaled_count(span.busy_cycles, times);
  });
  return span;
}

void Gpu::count_kernel(const KernelLaunch& k, const KernelRun& r) {
  warp_instructions_.add(r.warp_instructions);
  ctas_.add(k.ctas());
  kernels_.add();
}

void Gpu::flush_window() {
  // The window's accesses reach the L2 in time order (ties: SM, then the SM's own order).
  std::stable_sort(window_.begin(), window_.end(), [](const GlobalAccess& a, const GlobalAccess& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.sm < b.sm;
  });
  for (const GlobalAccess& a : window_) l2_->access(a);
  window_.clear();
}

void Gpu::wait_until(std::uint64_t cycle) { wait(clock().time_of(cycle) - sc_core::sc_time_stamp()); }

void Gpu::wait_in_windows(const sc_core::sc_time& end) {
  // One wake-up per statistics window, so the power monitor samples a kernel's energy as it is
  // spread over the run (dynamic_energy_j), not as one spike at its end.
  const sc_core::sc_time window(context().stats_window_s(), sc_core::SC_SEC);
  while (sc_core::sc_time_stamp() < end) wait(std::min(window, end - sc_core::sc_time_stamp()));
}

bool Gpu::halted(std::uint64_t cycle) {
  if (halt_ == Halt::None) {
    if (interrupt_flag().load(std::memory_order_relaxed)) halt_ = Halt::Interrupt;
    else if (cycle > last_cycle_) halt_ = Halt::Unrepresentable;
    else if (cycle > limit_cycle_) halt_ = Halt::TimeLimit;
  }
  return halt_ != Halt::None;
}

InputError Gpu::unrepresentable(double cycles, bool at_least) const {
  const double hz = static_cast<double>(clock().frequency_hz());
  return InputError(config().loc, config().path,
                    fmt::format("the run reaches {}{:.4g} s of simulated time, past the {:.0f} s SystemC's 64-bit time "
                                "holds at 1 fs: refused rather than wrapped; simulate less (a smaller grid, shape or "
                                "iteration count)",
                                at_least ? "at least " : "", cycles / hz, to_seconds(sc_core::sc_max_time())));
}

void Gpu::stop_halted() {
  if (halt_ == Halt::Unrepresentable) context().fail(unrepresentable(static_cast<double>(last_cycle_) + 1));
  // The runner ends a run at sim.max_time once SystemC time reaches it.
  const sc_core::sc_time limit(context().time_limit_s(), sc_core::SC_SEC);
  if (halt_ == Halt::TimeLimit && limit > sc_core::sc_time_stamp()) {
    running_energy_ = counted_now_j() - finished_energy_;  // what ran, spread up to the limit
    running_end_ = limit;
    wait(limit - sc_core::sc_time_stamp());
  }
  for (;;) wait(never_);
}

// An instruction's cycles past kMaxCycles (SmCore::tensor_cycles) are past representable time too.
template <typename F>
auto Gpu::guarded(F&& f) {
  try {
    return f();
  } catch (const CycleOverflow&) {
    halt_ = Halt::Unrepresentable;
    stop_halted();
  }
}

void Gpu::set_cycle_limits() {
  last_cycle_ = clock().cycle_at(sc_core::sc_max_time());
  const double limit = context().time_limit_s();
  limit_cycle_ =
      limit > 0 ? std::min(last_cycle_, clock().cycle_at(sc_core::sc_time(limit, sc_core::SC_SEC))) : last_cycle_;
}

void Gpu::run() {
  set_cycle_limits();
  for (;;) {
    while (queue_.empty()) wait(launched_);
    running_ = true;
    // The queued compute-only kernels without clusters, up to the first that is not: when they
    // are of several streams, they run concurrently. A kernel that reaches global memory or has
    // clusters runs alone, after them.
    std::size_t prefix = 0;
    std::set<int> streams;
    while (prefix < queue_.size() && !queue_[prefix].k.global && queue_[prefix].k.kernel.cluster <= 1)
      streams.insert(queue_[prefix++].k.kernel.stream);
    const std::uint64_t launched = clock().cycle_at(clock().next_edge(sc_core::sc_time_stamp()));
    if (streams.size() > 1) {
      std::vector<Pending> batch(std::make_move_iterator(queue_.begin()),
                                 std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(prefix)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(prefix));
      run_batch(std::move(batch), launched);
      continue;
    }
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    run_alone(std::move(p), launched);
  }
}

void Gpu::run_batch(std::vector<Pending> batch, std::uint64_t launched) {
  clock_kernel(batch.front().k.kernel, launched);  // the batch's first kernel sets the clock
  running_live_ = false;
  running_start_ = clock().time_of(launched + kernel_launch_);
  std::vector<const ScheduledKernel*> kernels;
  for (const Pending& p : batch) kernels.push_back(&p.k);
  const std::vector<KernelRun> runs = guarded([&] { return scheduler_->run_concurrent(kernels, launched); });
  if (halt_ != Halt::None) stop_halted();
  for (std::size_t k = 0; k < runs.size(); ++k) count_kernel(batch[k].k.kernel, runs[k]);
  running_energy_ = counted_now_j() - finished_energy_;
  std::vector<std::size_t> order(runs.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return runs[a].end_cycle < runs[b].end_cycle; });
  running_end_ = clock().time_of(runs[order.back()].end_cycle);
  for (std::size_t k : order) {  // each kernel's `done` at its end
    wait_in_windows(clock().time_of(runs[k].end_cycle));
    if (k == order.back()) {
      finished_energy_ = counted_now_j();
      kernel_energy_done(finished_energy_);
      running_ = false;
    }
    batch[k].done(runs[k]);
  }
}

void Gpu::run_alone(Pending p, std::uint64_t launched) {
  clock_kernel(p.k.kernel, launched);
  const std::uint64_t start = launched + p.launch_cycles;
  // A kernel that reaches global memory runs window by window in step with SystemC time, so
  // its counts are live; a compute-only one runs ahead at once and its energy is spread.
  running_live_ = p.k.global;
  running_start_ = clock().time_of(start);
  KernelRun r = guarded([&] { return scheduler_->run(p.k, start); });
  if (halt_ == Halt::None) count_kernel(p.k.kernel, r);
  if (halt_ != Halt::None || r.end_cycle > last_cycle_) {
    halt_ = halt_ == Halt::None ? Halt::Unrepresentable : halt_;
    stop_halted();
  }
  r.launch_cycle = launched;
  running_energy_ = counted_now_j() - finished_energy_;
  running_end_ = clock().time_of(r.end_cycle);
  wait_in_windows(running_end_);
  finished_energy_ = counted_now_j();
  kernel_energy_done(finished_energy_);
  running_ = false;
  p.done(r);
}

void Gpu::finalize(const sc_core::sc_time& end) {
  finalize_graph();
  const SmCounts total = totals();
  sm_busy_cycles_.add(total.busy_cycles);
  for (int op = 0; op < kWarpOps; ++op)
    if (total.by_op[op] > 0)
      counter(fmt::format("instructions.{}", warp_op_name(static_cast<WarpOp>(op))), "instructions",
              fmt::format("{} warp instructions issued", warp_op_name(static_cast<WarpOp>(op))))
          .add(total.by_op[op]);
  for (const auto& [f, n] : total.tensor_macs)
    counter(fmt::format("tensor_macs.{}", f), "MACs", fmt::format("tensor-core MACs in {}", f)).add(n);
  counter("shared_wavefronts", "wavefronts", "shared-memory wavefronts (one access per bank each)")
      .add(total.shared_wavefronts);
  counter("shared_bytes", "B", "bytes moved by shared-memory instructions").add(total.shared_bytes);
  if (total.dsm_bytes > 0)
    counter("dsm_bytes", "B",
            "bytes remote cluster accesses moved over the SM-to-SM network (distributed shared memory)")
        .add(total.dsm_bytes);
  // Over the reported run (sim.reuse adds the repeated layers' spans).
  const double cycles = static_cast<double>(clock().cycle_at(end)) +
                        (reported_s(end) - end.to_seconds()) * static_cast<double>(clock().frequency_hz());
  scalar("sm_utilization", "fraction", "SM-cycles with a CTA resident over SMs x cycles")
      .set(cycles > 0 ? static_cast<double>(total.busy_cycles) / (cycles * sms_) : 0);
  // The energy events, counted at the end (dynamic_energy_j() gave the power monitor a live figure),
  // at the supplies their kernels ran at.
  const double v2 = dvfs_event_factor();
  events_.rf_read->add(total.rf_reads, v2);
  events_.rf_write->add(total.rf_writes, v2);
  events_.fp32->add(total.thread_ops[static_cast<int>(WarpOp::Fp32)], v2);
  events_.fp64->add(total.thread_ops[static_cast<int>(WarpOp::Fp64)], v2);
  events_.integer->add(total.thread_ops[static_cast<int>(WarpOp::Int)], v2);
  events_.sfu->add(total.thread_ops[static_cast<int>(WarpOp::Sfu)], v2);
  if (events_.shared) events_.shared->add(total.shared_wavefronts, v2);
  for (const auto& [f, n] : total.tensor_macs) events_.macs.at(f)->add(n, v2);
  if (events_.l1) events_.l1->add(total.l1_hit_sectors + total.l1_miss_sectors, v2);
  if (gated_clock_event_) gated_clock_event_->add(total.busy_cycles, v2);
  finalize_power(end);
  const auto rate = [](std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  if (timing_.l1_bytes > 0 || total.l1_miss_sectors > 0) {
    counter("l1.hit_sectors", "sectors", "global-load sectors found in the L1").add(total.l1_hit_sectors);
    counter("l1.miss_sectors", "sectors", "global-load sectors sent to the L2").add(total.l1_miss_sectors);
    counter("l1.store_sectors", "sectors", "global-store sectors (written through to the L2)").add(total.store_sectors);
    scalar("l1.hit_rate", "fraction", "L1 hit sectors over global-load sectors")
        .set(rate(total.l1_hit_sectors, total.l1_hit_sectors + total.l1_miss_sectors));
  }
  if (l2_) {
    const std::uint64_t sectors = l2_model_sectors() + total.l2_sectors + total.dram_sectors;
    events_.l2->add(sectors, v2);
    events_.crossbar->add(sectors, v2);
    counter("l2.hit_sectors", "sectors", "load sectors found in the L2").add(l2_->hit_sectors());
    counter("l2.miss_sectors", "sectors", "load sectors the L2 asked the DRAM for (or waited on)")
        .add(l2_->miss_sectors());
    counter("l2.write_sectors", "sectors", "store sectors written into the L2").add(l2_->write_sectors());
    counter("l2.far_accesses", "accesses", "accesses to a slice in the other partition than their SM")
        .add(l2_->far_accesses());
    counter("l2.dram_read_bytes", "B", "bytes the L2 read from the DRAM").add(l2_->dram_read_bytes());
    counter("l2.dram_write_bytes", "B", "dirty bytes the L2 wrote back to the DRAM").add(l2_->dram_write_bytes());
    scalar("l2.hit_rate", "fraction", "L2 hit sectors over load sectors")
        .set(rate(l2_->hit_sectors(), l2_->hit_sectors() + l2_->miss_sectors()));
  }
}

}  // namespace strata