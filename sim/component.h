// The base of every hardware model (and of workload drivers): a SystemC module with a
// hierarchical name, a clock, validated parameters, statistics under its name, energy events
// and area.
//
// Energy follows the actions-times-energy-per-action model: a component declares its events
// once (energy_event("read", 12e-12, ...)), counts them while simulating, and the framework adds
// static power times simulated time and reports both by component and by event.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "sim/clock.h"
#include "sim/schema.h"
#include "sim/sim_context.h"
#include "sim/stats.h"

namespace strata {

class EnergyEvent {
 public:
  EnergyEvent(Counter& count, double joules) : count_(count), joules_(joules) {}
  void add(std::uint64_t n = 1) { count_.add(n); }
  std::uint64_t count() const { return count_.count(); }
  double joules_per_event() const { return joules_; }

 private:
  Counter& count_;
  double joules_;
};

class Component : public sc_core::sc_module {
 public:
  // The clock is the node's `clock` parameter when its kind is clocked, else 1 GHz.
  Component(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~Component() override;

  const Clock& clock() const { return clock_; }
  const Params& params() const { return cfg_.params; }
  const ValidatedNode& config() const { return cfg_; }
  SimContext& context() const { return ctx_; }
  // "<hierarchical name>.<local>"
  std::string stat_name(const std::string& local) const;

  Counter& counter(const std::string& local, std::string unit, std::string description);
  Scalar& scalar(const std::string& local, std::string unit, std::string description);
  Average& average(const std::string& local, std::string unit, std::string description);
  TimeAverage& time_average(const std::string& local, std::string unit, std::string description);
  Distribution& distribution(const std::string& local, std::string unit, std::string description);
  TimeSeries& time_series(const std::string& local, std::string unit, std::string description, double rate_scale);

  EnergyEvent& energy_event(const std::string& event, double joules_per_event, const std::string& description);
  void set_static_power(double watts) { static_power_w_ = watts; }
  void set_area(double mm2) { area_mm2_ = mm2; }

  // Builds the child in `slot` with the registry; call from the constructor so that SystemC
  // names it "<this>.<slot>".
  std::unique_ptr<Component> build_child(const std::string& slot);

  // Called once after the run, before accounting: set end-of-run statistics here.
  virtual void finalize(const sc_core::sc_time& end);
  // Adds static energy, writes the energy/area statistics; returns {energy J, area mm2}.
  std::pair<double, double> close_accounting(const sc_core::sc_time& end);

 private:
  const ValidatedNode& cfg_;
  SimContext& ctx_;
  Clock clock_;
  std::vector<std::pair<std::string, std::unique_ptr<EnergyEvent>>> events_;
  double static_power_w_ = 0;
  double area_mm2_ = 0;
};

}  // namespace strata
