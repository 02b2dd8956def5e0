// The GPU's power management (sim/power_management.h): the clock each kernel runs at under the
// power limit, the clock tree's power, and dynamic energy at the supply of each kernel's clock.
#include <algorithm>
#include <cmath>

#include "accelerators/gpu/gpu.h"
#include "accelerators/gpu/gpu_analytic.h"
#include "sim/tech/tech_table.h"

namespace strata {

void Gpu::declare_power() {
  apply_die_and_board(*this);
  power_ = PowerManagement::read(config(), tech());
  if (!power_) return;
  retime_clock(0, power_->start_hz());
  // The die beyond the modelled blocks (I/O, NVLink, media engines, the crossbar's wires and
  // control) leaks and is clocked like logic.
  const double die = params().quantity("die_area");
  const double modelled = area_mm2();
  if (die > modelled) add_area("uncore", die - modelled, (die - modelled) * tech().logic_leakage_w_per_mm2());
  // Clock gating stops a share of the tree while the SMs are idle (GPUs gate idle engines and
  // blocks: the SMs, the L2 and crossbar they keep busy); the rest runs whenever the clock does.
  const double tree = tech().clock_j_per_mm2_cycle() * area_mm2();
  const double gated = params().real("clock_gating");
  clock_event_ = &clock_energy_event(tree * (1 - gated),
                                     "SM-clock cycles of the clock tree over the die, less its gated share "
                                     "(power.clock_at_1ghz x area x (1 - clock_gating))");
  if (gated > 0)
    gated_clock_event_ = &clock_energy_event(tree * gated / sms_,
                                             "SM-cycles with a CTA resident: an SM's part of the gated clock tree "
                                             "(power.clock_at_1ghz x area x clock_gating / sms)",
                                             "clock_gated");
  context().report("sustained_clock_hz", stat_name("sustained_clock_hz"));
  context().report("power_limited_fraction", stat_name("power_limited_fraction"));
}

MemoryEstimate Gpu::memory_estimate(double hz) const {
  MemoryEstimate m;
  if (!l2_) return m;
  AnalyticMemory& dram = analytic_memory(*dram_, memory_component_->config());
  const L2Config& l2 = l2_config_;
  m.l1_bytes = timing_.l1_bytes;
  m.l1_latency = timing_.l1_latency;
  m.l2_bytes = l2.bytes;
  // Half the slices are in the other partition: half the far penalty on average.
  m.l2_latency = static_cast<double>(l2.latency) + static_cast<double>(l2.far_latency) / 2;
  m.dram_latency = m.l2_latency + 2.0 * static_cast<double>(l2.dram_latency) + dram.unloaded_latency(false) * hz;
  m.l2_bytes_per_cycle = static_cast<double>(l2.slices * l2.slice_sectors * kSectorBytes);
  m.dram_bytes_per_cycle = dram.sustained_bandwidth() / hz;
  return m;
}

double Gpu::kernel_power_w(const KernelLaunch& kernel, double hz) const {
  const double s2 = power_->energy_factor(hz);
  double w = static_power_w() + clock_event_->joules_per_event() * hz * s2;
  if (memory_component_) w += memory_component_->static_power_w();
  const Occupancy occ = occupancy(limits_, kernel.threads_per_cta(), kernel.registers_per_thread, kernel.shared_bytes);
  try {
    const KernelEstimate e =
        estimate_kernel(kernel, occ, timing_, sms_, memory_estimate(hz), active_clusters(kernel, occ) * kernel.cluster);
    if (e.cycles > 0) {
      double memory_j = 0;
      if (dram_ && e.dram_bytes > 0)
        memory_j = static_cast<double>(e.dram_bytes) *
                   analytic_memory(*dram_, memory_component_->config()).streaming_energy_per_byte();
      w += (energy_of(with_memory_side(e)) * s2 + memory_j) / (static_cast<double>(e.cycles) / hz);
    }
  } catch (const CycleOverflow&) {
    // a kernel too long to time: its events spread over no measurable span
  }
  return w / delivery_efficiency();
}

void Gpu::clock_kernel(const KernelLaunch& kernel, std::uint64_t at) {
  if (!power_) return;
  const double hz = power_->clock_for([&](double f) { return kernel_power_w(kernel, f); });
  if (static_cast<std::uint64_t>(std::llround(hz)) != clock().frequency_hz()) {
    retime_clock(at, hz);
    set_cycle_limits();  // a slower clock fits fewer cycles before the end of representable time
  }
  kernel_factor_ = power_->energy_factor(hz);
}

void Gpu::kernel_energy_done(double nominal_j) {
  if (!power_) return;
  scaled_done_j_ += (nominal_j - nominal_done_j_) * kernel_factor_;
  nominal_done_j_ = nominal_j;
}

Gpu::ClockTotals Gpu::clock_totals(const sc_core::sc_time& t) const {
  ClockTotals c;
  if (!power_) return c;
  const double boost = power_->boost_hz();
  clock().for_each_rate(clock().cycle_at(t), [&](std::uint64_t hz, std::uint64_t n) {
    const double f = static_cast<double>(hz), cycles = static_cast<double>(n);
    c.weighted_cycles += cycles * power_->energy_factor(f);
    c.cycles += cycles;
    c.seconds += cycles / f;
    if (!idle_ && power_->policy() == DvfsPolicy::Capped && f < boost * (1 - 1e-9)) c.limited_s += cycles / f;
  });
  return c;
}

double Gpu::powered_energy_j(double nominal_j, const sc_core::sc_time& now) const {
  if (!power_) return nominal_j;
  // An analytic run simulates no time: its clock runs to the end finalize was given.
  const double clock_cycles = clock_totals(std::max(now, clock_end_)).weighted_cycles + repeated_clock_.weighted_cycles;
  return scaled_done_j_ + (nominal_j - nominal_done_j_) * kernel_factor_ +
         clock_cycles * clock_event_->joules_per_event();
}

double Gpu::idle_power_w() const {
  if (!power_) return 0;
  const double hz = static_cast<double>(clock().frequency_hz());
  return clock_event_->joules_per_event() * hz * power_->energy_factor(hz);
}

void Gpu::hold_idle() {
  if (!power_) return;
  idle_ = true;
  retime_clock(0, power_->idle_hz());
}

double Gpu::dvfs_event_factor() const { return power_ && nominal_done_j_ > 0 ? scaled_done_j_ / nominal_done_j_ : 1.0; }

void Gpu::finalize_power(const sc_core::sc_time& end) {
  if (!power_) return;
  clock_end_ = end;
  ClockTotals c = clock_totals(end);
  c.weighted_cycles += repeated_clock_.weighted_cycles;
  c.cycles += repeated_clock_.cycles;
  c.seconds += repeated_clock_.seconds;
  c.limited_s += repeated_clock_.limited_s;
  // The clock tree's energy: its cycles, each at its supply squared.
  const auto cycles = static_cast<std::uint64_t>(std::llround(c.cycles));
  clock_event_->add(cycles, cycles > 0 ? c.weighted_cycles / c.cycles : 1.0);
  const double seconds = c.seconds, limited_s = c.limited_s;
  scalar("sustained_clock_hz", "Hz", "the SM clock over the run, time-weighted (cycles over seconds)")
      .set(seconds > 0 ? c.cycles / seconds : static_cast<double>(clock().frequency_hz()));
  scalar("power_limited_fraction", "fraction", "the share of the run the power limit held the SM clock below its boost")
      .set(seconds > 0 ? limited_s / seconds : 0);
}

}  // namespace strata
