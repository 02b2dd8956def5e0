#include "sim/device_power.h"

#include <cmath>

#include "sim/component.h"
#include "sim/tech/tech_table.h"

namespace strata {

DevicePower::DevicePower(Component& device, const std::vector<Component*>& domain, double memory_peak_w)
    : device_(device), memory_peak_w_(memory_peak_w) {
  device.manage_clock(this);
  apply_die_and_board(device);
  hz_ = static_cast<double>(device.clock().frequency_hz());
  power_ = PowerManagement::read(device.config(), device.tech());
  if (!power_) return;
  for (Component* c : device.with_descendants()) static_w_ += c->static_power_w();
  clocked_ = {&device};
  for (Component* root : domain)
    for (Component* c : root->with_descendants()) clocked_.push_back(c);
  double area = 0;
  for (const Component* c : clocked_) {
    area += c->area_mm2();
    peak_j_per_cycle_ += c->peak_dynamic_j_per_cycle();
  }
  clock_event_ = &device.clock_energy_event(device.tech().clock_j_per_mm2_cycle() * area,
                                            "cycles of the clock tree over the clock domain's area "
                                            "(power.clock_at_1ghz x area)");
  retime(power_->clock_for([this](double hz) { return rated_power_w(hz); }));
  device.context().report("sustained_clock_hz", device.stat_name("sustained_clock_hz"));
  device.context().report("power_limited_fraction", device.stat_name("power_limited_fraction"));
}

void DevicePower::retime(double hz) {
  hz_ = hz;
  const double factor = power_->energy_factor(hz_);
  for (Component* c : clocked_) {
    c->retime_clock(0, hz_);
    c->set_event_energy_factor(factor);
  }
}

void DevicePower::hold_idle() {
  if (!power_) return;
  idle_ = true;
  retime(power_->idle_hz());
}

double DevicePower::rated_power_w(double hz) const {
  const double dynamic = (peak_j_per_cycle_ + clock_event_->joules_per_event()) * hz * power_->energy_factor(hz);
  return (static_w_ + dynamic + memory_peak_w_) / device_.delivery_efficiency();
}

double DevicePower::running_clock_j(double seconds) const {
  if (!power_ || finalized_) return 0;
  return clock_event_->joules_per_event() * power_->energy_factor(hz_) * std::round(seconds * hz_);
}

double DevicePower::clock_power_w() const {
  return power_ ? clock_event_->joules_per_event() * power_->energy_factor(hz_) * hz_ : 0;
}

void DevicePower::finalize(double seconds) {
  if (!power_) return;
  finalized_ = true;
  clock_event_->add(static_cast<std::uint64_t>(std::llround(seconds * hz_)));
  const bool limited = !idle_ && power_->policy() == DvfsPolicy::Capped && hz_ < power_->boost_hz() * (1 - 1e-9);
  device_.scalar("sustained_clock_hz", "Hz", "the clock domain's clock over the run").set(hz_);
  device_.scalar("power.rated", "W", "the rated power at the run's clock: every unit busy, at the board's input")
      .set(rated_power_w(hz_));
  device_.scalar("power.rated_at_boost", "W", "the rated power at clocks.boost").set(rated_power_w(power_->boost_hz()));
  device_.scalar("power.supply_factor", "fraction",
                 "the clock domain's events' energy over the table's: the supply squared at the run's clock")
      .set(power_->energy_factor(hz_));
  device_.scalar("power_limited_fraction", "fraction",
                 "the share of the run the power limit held the clock below its boost (a run holds one clock)")
      .set(limited ? 1 : 0);
}

}  // namespace strata
