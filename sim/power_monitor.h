// Power over time: total power of the design per fixed window of simulated time (sim.stats_window),
// and its peak. The runner advances the simulation to each window boundary and samples here,
// so the windows, and so the peak, are the same on every machine. (A sampling process of its
// own would keep the kernel from starving and move the end of the run to a window boundary.)
#pragma once

#include <vector>

#include <systemc>

#include "sim/reuse.h"
#include "sim/stats.h"

namespace strata {

class Component;
class Timeline;

class PowerMonitor : public SpanRepeater::Listener {
 public:
  // Call after elaboration, when every component has declared its area and static power. With
  // a repeater, the energy sim.reuse adds at a repeat goes to the repeated span, not to the
  // window being sampled.
  // With a timeline, each window's power is also its counter track "power" (W).
  PowerMonitor(const std::vector<Component*>& components, double window_s, StatsRegistry& stats,
               SpanRepeater* repeater = nullptr, Timeline* timeline = nullptr);
  ~PowerMonitor() override;
  PowerMonitor(const PowerMonitor&) = delete;
  PowerMonitor& operator=(const PowerMonitor&) = delete;
  void before_repeat() override { energy_before_repeat_ = dynamic_energy(); }
  void after_repeat() override { last_j_ += dynamic_energy() - energy_before_repeat_; }

  // The windows' length (sim.stats_window); they tile time from 0.
  sc_core::sc_time window() const { return window_; }
  // The end of the window being accumulated.
  sc_core::sc_time next_boundary() const { return last_t_ + window_; }
  // Closes the window ending at `t` (= next_boundary()); call once every event before `t` has run.
  void sample(const sc_core::sc_time& t);
  // Closes every window that ends at or before `t`, when no event lies between the current
  // window and `t`: the windows after the current one hold only leakage and close together, so
  // an idle gap of hours costs no more than one window.
  void sample_idle_through(const sc_core::sc_time& t);
  // Closes the last, partial window at the end of the run and sets totals.peak_power.
  void finish(const sc_core::sc_time& end);
  // For a run that was not simulated (sim.fidelity: analytic): its energy spread evenly over
  // [0, end], so every window, and the peak, is the average power.
  void finish_average(const sc_core::sc_time& end);

 private:
  double dynamic_energy() const;
  double close_window(const sc_core::sc_time& to);  // returns the window's average power

  const std::vector<Component*>& components_;
  sc_core::sc_time window_;
  double static_w_ = 0;
  sc_core::sc_time last_t_ = sc_core::SC_ZERO_TIME;
  double last_j_ = 0;
  double energy_before_repeat_ = 0;
  double peak_w_ = 0;
  bool any_full_window_ = false;
  TimeSeries& series_;
  Scalar& peak_;
  SpanRepeater* repeater_;
  Timeline* timeline_;
};

}  // namespace strata
