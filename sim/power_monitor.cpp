#include "sim/power_monitor.h"

#include <algorithm>

#include "sim/component.h"
#include "sim/kernel.h"
#include "sim/timeline.h"

namespace strata {

PowerMonitor::PowerMonitor(const std::vector<Component*>& components, double window_s, StatsRegistry& stats,
                           SpanRepeater* repeater, Timeline* timeline)
    : components_(components),
      window_(window_s, sc_core::SC_SEC),
      series_(
          stats.time_series("totals.power_over_time", "W", "total power per window of sim.stats_window", window_s, 1)),
      peak_(stats.scalar("totals.peak_power", "W", "highest total power over one window of sim.stats_window")),
      repeater_(repeater),
      timeline_(timeline) {
  // At the board's input: each component's power over its regulators' efficiency.
  for (const Component* c : components_) static_w_ += c->static_power_w() / c->delivery_efficiency();
  if (repeater_) repeater_->listen(this);
}

PowerMonitor::~PowerMonitor() {
  if (repeater_) repeater_->forget(this);
}

double PowerMonitor::dynamic_energy() const {
  double j = 0;
  for (const Component* c : components_) j += c->dynamic_energy_j() / c->delivery_efficiency();
  return j;
}

double PowerMonitor::close_window(const sc_core::sc_time& to) {
  const double j = dynamic_energy();
  const double seconds = to_seconds(to - last_t_);
  const double energy = j - last_j_ + static_w_ * seconds;
  // At the window's middle: its start, in seconds, can round into the previous bin.
  series_.add((to_seconds(last_t_) + to_seconds(to)) / 2, energy);
  if (timeline_) timeline_->counter("power", "W", last_t_, energy / seconds);
  last_j_ = j;
  last_t_ = to;
  return energy / seconds;
}

void PowerMonitor::sample(const sc_core::sc_time& t) {
  if (t <= last_t_) return;
  peak_w_ = std::max(peak_w_, close_window(t));
  any_full_window_ = true;
}

void PowerMonitor::sample_idle_through(const sc_core::sc_time& t) {
  if (next_boundary() > t) return;
  sample(next_boundary());
  const auto idle = static_cast<std::uint64_t>((t - last_t_) / window_);  // whole windows left
  if (idle == 0) return;
  const sc_core::sc_time to = last_t_ + window_ * static_cast<double>(idle);
  double idle_w = 0;
  for (const Component* c : components_) idle_w += c->idle_power_w() / c->delivery_efficiency();
  series_.add_spread(to_seconds(last_t_), to_seconds(to), (static_w_ + idle_w) * to_seconds(to - last_t_));
  if (timeline_) timeline_->counter("power", "W", last_t_, static_w_ + idle_w);
  last_j_ += idle_w * to_seconds(to - last_t_);  // what dynamic_energy() grows by meanwhile
  last_t_ = to;
  peak_w_ = std::max(peak_w_, static_w_ + idle_w);
}

void PowerMonitor::finish(const sc_core::sc_time& end) {
  if (end > last_t_) {
    const double tail_w = close_window(end);
    // A partial last window counts toward the peak only when it is the whole run: a few
    // nanoseconds of tail would otherwise read as a spike.
    if (!any_full_window_) peak_w_ = tail_w;
  }
  series_.finish(end.to_seconds());
  peak_.set(peak_w_);
}

void PowerMonitor::finish_average(const sc_core::sc_time& end) {
  const double seconds = end.to_seconds();
  const double energy = dynamic_energy() + static_w_ * seconds;
  series_.add_spread(0, seconds, energy);
  if (timeline_) timeline_->counter("power", "W", sc_core::SC_ZERO_TIME, seconds > 0 ? energy / seconds : 0);
  series_.finish(seconds);
  peak_.set(seconds > 0 ? energy / seconds : 0);
}

}  // namespace strata
