// The base of every hardware model (and of workload drivers): a SystemC module with a
// hierarchical name, a clock, validated parameters, statistics under its name, energy events
// and area.
//
// Energy follows the actions-times-energy-per-action model: a component declares its events
// once (energy_event("read", tech().sram(...).read_j, ...)), counts them while simulating, and
// the framework adds static power (leakage of the declared area plus any background power)
// times simulated time and reports energy by component and by event, and area by component
// and by part. Energies, areas and leakage come from the component's technology table
// (`tech:`, inherited like `clock`).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>

#include "sim/clock.h"
#include "sim/schema.h"
#include "sim/sim_context.h"
#include "sim/simulated_time.h"
#include "sim/stats.h"
#include "sim/tech/tech_table.h"

namespace strata {

class EnergyEvent {
 public:
  EnergyEvent(Counter& count, double joules) : count_(count), joules_(joules) {}
  void add(std::uint64_t n = 1) { count_.add(n); }
  // n events at `factor` times the energy each (DVFS: the supply squared, relative to the
  // table's supply).
  void add(std::uint64_t n, double factor) {
    count_.add(n);
    extra_j_ += static_cast<double>(n) * joules_ * (factor - 1);
  }
  std::uint64_t count() const { return count_.count(); }
  double joules_per_event() const { return joules_; }
  // Energy of the events counted: count x energy each, changed by the factors of add(n, factor).
  double joules() const { return static_cast<double>(count_.count()) * joules_ + extra_j_; }

 private:
  Counter& count_;
  double joules_;
  double extra_j_ = 0;  // exactly 0 unless some events were added at another supply
};

class Component;

// A child built from a role slot (Component::build_child<I>), owning it and seen through its
// role's interface I: `memory_->target_socket()`; component() for what every kind has (its
// config, its capacity).
template <class I>
class RoleChild {
 public:
  RoleChild() = default;
  RoleChild(std::unique_ptr<Component> component, I& role) : component_(std::move(component)), role_(&role) {}
  I* operator->() const { return role_; }
  I& operator*() const { return *role_; }
  I* get() const { return role_; }
  Component& component() const { return *component_; }
  explicit operator bool() const { return role_ != nullptr; }

 private:
  std::unique_ptr<Component> component_;
  I* role_ = nullptr;
};

// A clock domain another object manages for a component (DevicePower, sim/device_power.h): what
// the component's idle hold and live power ask of it.
class ManagedClock {
 public:
  virtual ~ManagedClock() = default;
  virtual void hold_idle() = 0;                              // the domain at its idle clock from the start
  virtual double clock_power_w() const = 0;                  // its clock tree's power now
  virtual double running_clock_j(double seconds) const = 0;  // that tree's energy so far, until counted
};

class Component : public sc_core::sc_module, public RepeatableTotals {
 public:
  // The clock is the node's `clock` parameter when its kind is clocked, else 1 GHz.
  Component(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~Component() override;

  const Clock& clock() const { return clock_; }
  // DVFS: the component's clock runs at `hz` from cycle `at` on (Clock::retime).
  void retime_clock(std::uint64_t at, double hz) { clock_.retime(at, hz); }
  const Params& params() const { return cfg_.params; }
  const ValidatedNode& config() const { return cfg_; }
  SimContext& context() const { return ctx_; }
  // This component and every component built under it (whose names extend its name).
  std::vector<Component*> with_descendants();
  // "<hierarchical name>.<local>"
  std::string stat_name(const std::string& local) const;

  Counter& counter(const std::string& local, std::string unit, std::string description);
  Scalar& scalar(const std::string& local, std::string unit, std::string description);
  Average& average(const std::string& local, std::string unit, std::string description);
  TimeAverage& time_average(const std::string& local, std::string unit, std::string description);
  Distribution& distribution(const std::string& local, std::string unit, std::string description);
  TimeSeries& time_series(const std::string& local, std::string unit, std::string description, double rate_scale);

  // This component's technology table.
  const TechTable& tech() const;
  // The table's row named by string parameter `key` (a DRAM standard, a link packaging):
  // lookup(table, name). A name the table lacks is reported at `key` (the table's own errors
  // name the tech key).
  template <class Lookup>
  auto tech_row(const std::string& key, Lookup lookup) const {
    const TechTable& table = tech();
    try {
      return lookup(table, params().string(key));
    } catch (const InputError& e) {
      throw InputError(params().where(key), config().path + "." + key, e.message());
    }
  }

  EnergyEvent& energy_event(const std::string& event, double joules_per_event, const std::string& description);
  // A cycle of (part of) the component's clock tree, which energy_split() counts apart: the event
  // "clock" by default; a component whose blocks gate their clocks names each gated part's.
  EnergyEvent& clock_energy_event(double joules_per_cycle, const std::string& description,
                                  const std::string& event = "clock");
  // Power drawn whenever the simulation runs besides leakage (DRAM standby, PLLs).
  void set_background_power(double watts) { background_w_ = watts; }
  // The declared area's leakage at the die's temperature over the table's
  // (TechTable::leakage_factor_at); background power is not leakage and keeps its figure.
  void set_leakage_factor(double factor) { leakage_factor_ = factor; }
  // The share of the board's input power that reaches this component through its voltage
  // regulators (sim/power_management.h): its energy and power are counted at the board's input,
  // the regulators' loss as energy.delivery. 1 (default): no loss counted.
  void set_delivery_efficiency(double efficiency) { delivery_efficiency_ = efficiency; }
  double delivery_efficiency() const { return delivery_efficiency_; }
  // Every event's energy times `factor`: the supply squared of the clock a device's domain runs
  // a whole run at (sim/device_power.h).
  void set_event_energy_factor(double factor) { event_factor_ = factor; }
  // `event` is outside the clock domain (a flash die's MACs counted on the chiplet that drives
  // them): set_event_energy_factor leaves it at the table's supply.
  void keep_at_table_supply(const EnergyEvent& event) { unscaled_.push_back(&event); }
  // The dynamic energy of a cycle with the component busy at its peak rate (every lane, bank or
  // port), at the table's supply: what a device rates its clock against (sim/device_power.h).
  virtual double peak_dynamic_j_per_cycle() const { return 0; }
  // Declares silicon: `part` names it in the area breakdown; its leakage adds to static power.
  void add_area(const std::string& part, double mm2, double leakage_w);
  double area_mm2() const;
  double static_power_w() const;
  // Power drawn between events besides static power, at the component's present state (a clock
  // tree at its present clock): the power monitor closes windows without events at it.
  // (A managed clock's tree's power by default.)
  virtual double idle_power_w() const { return managed_clock_ ? managed_clock_->clock_power_w() : 0; }
  // The run gives the component nothing to do (the `idle` workload): a device with power
  // management holds its idle clock (clocks.idle) from the start. Called while binding.
  virtual void hold_idle() {
    if (managed_clock_) managed_clock_->hold_idle();
  }
  // `m` manages this component's clock domain: hold_idle, idle_power_w and dynamic_energy_j ask it.
  void manage_clock(ManagedClock* m) { managed_clock_ = m; }
  // Dynamic energy so far (events x energy); the power monitor samples it every window.
  // Components that count their events only at the end override it with a live figure; a
  // managed clock's tree counts its energy so far.
  virtual double dynamic_energy_j() const;

  // Builds the child in `slot` with the registry; call from the constructor so that SystemC
  // names it "<this>.<slot>".
  std::unique_ptr<Component> build_child(const std::string& slot);
  // One of several children built from the same slot ("device0", "device1", ...).
  std::unique_ptr<Component> build_child(const std::string& slot, const std::string& instance);
  // The same for a role slot whose kinds all derive from T (the slot's role guarantees it).
  template <class T>
  std::unique_ptr<T> build_part(const std::string& slot, const std::string& instance = "") {
    std::unique_ptr<Component> c = build_child(slot, instance.empty() ? slot : instance);
    if (!dynamic_cast<T*>(c.get())) throw std::logic_error(std::string(name()) + "." + slot + ": wrong role kind");
    return std::unique_ptr<T>(static_cast<T*>(c.release()));
  }
  // The child of a role slot seen as its role's interface I, a class besides Component that the
  // role's kinds implement (MemoryTarget, PackageDevice, NandFlashDevice): I names its role in
  // I::kRole, the slot must require that role (else std::logic_error), and the schema has
  // refused every kind that does not provide it (file, line, key), so a design never casts. A
  // kind that provides the role without implementing I is a programming error (logic_error).
  template <class I>
  RoleChild<I> build_child(const std::string& slot, const std::string& instance = "") {
    require_slot_role(slot, I::kRole);
    std::unique_ptr<Component> c = build_child(slot, instance.empty() ? slot : instance);
    I* role = dynamic_cast<I*>(c.get());
    if (!role) throw_missing_interface(slot, I::kRole);
    return RoleChild<I>(std::move(c), *role);
  }

  // Called once after the run, before accounting: set end-of-run statistics here. `end` is the
  // simulated time of the last event; figures over the run's length (bandwidth, utilisation)
  // divide by reported_s(end), which counts the spans sim.reuse repeated.
  virtual void finalize(const sc_core::sc_time& end);
  // Adds static energy over `reported_end` (reported time), writes the energy/area statistics;
  // returns {energy J, area mm2}.
  std::pair<double, double> close_accounting(const sc_core::sc_time& reported_end);
  // After close_accounting: its energy as static (leakage and background), clock (its
  // clock_energy_event), the other events and the regulators' loss feeding them; and whether it is a memory (a kind in
  // the memory_target role), whose event energy the summary counts apart.
  struct EnergySplit {
    double static_j = 0, clock_j = 0, events_j = 0, delivery_j = 0;
  };
  const EnergySplit& energy_split() const { return split_; }
  bool is_memory() const;
  // Reported time (sim/reported_time.h) of simulated instant `t`, in seconds.
  double reported_s(const sc_core::sc_time& t) const;

  // sim.reuse (sim/reuse.h): totals the component keeps outside its statistics (time integrals,
  // such as the cycles a DRAM rank has a bank open) as they stand at `now`; and `times` more of
  // what they gained since `since`, an earlier reuse_totals(). A component whose end-of-run
  // figures come from such totals overrides both.
  std::vector<double> reuse_totals(const sc_core::sc_time& now) const override;
  void repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time& now) override;

 private:
  void require_slot_role(const std::string& slot, const char* role) const;
  [[noreturn]] void throw_missing_interface(const std::string& slot, const char* role) const;

  const ValidatedNode& cfg_;
  SimContext& ctx_;
  Clock clock_;
  std::vector<std::pair<std::string, std::unique_ptr<EnergyEvent>>> events_;
  std::vector<const EnergyEvent*> clock_tree_events_;
  ManagedClock* managed_clock_ = nullptr;
  std::vector<const EnergyEvent*> unscaled_;  // keep_at_table_supply
  double factor_of(const EnergyEvent& e) const;
  struct AreaPart {
    std::string name;
    double mm2 = 0, leakage_w = 0;
  };
  std::vector<AreaPart> area_parts_;
  EnergySplit split_;
  double background_w_ = 0, leakage_factor_ = 1, delivery_efficiency_ = 1, event_factor_ = 1;
};

// A component kind's spec made into a fixed section of an enclosing kind (no `kind:` key, the
// enclosing kind builds it): category "section", plus the `tech` key the registry adds to
// registered kinds.
KindSpec component_section(KindSpec kind);

// Whether simulated time `seconds` can be reached (at most kMaxSimulatedSeconds, not NaN). When
// not, the run fails with one line naming `c`'s config node (SimContext::fail: the runner stops
// after its chunk and the CLI exits 2) instead of reporting a saturated time as "complete"; the
// caller then schedules nothing past it.
bool reachable_time(const Component& c, double seconds);

}  // namespace strata
