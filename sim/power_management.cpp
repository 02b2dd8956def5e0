#include "sim/power_management.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/component.h"
#include "sim/input_error.h"
#include "sim/tech/tech_table.h"
#include "sim/units.h"

namespace strata {

namespace {
const KindSpec& clocks_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "clocks";
    s.category = "section";
    s.description = "the clock domain's range on the node's voltage-frequency curve (power.voltage_frequency)";
    s.add(param::quantity("boost", UnitFamily::Frequency,
                          "the fastest clock: the top of the voltage-frequency curve, where the technology table's "
                          "energies hold; 0 Hz: no clocks (the device runs at `clock`, unmanaged)")
              .def("0 Hz")
              .range("0 Hz", "100 GHz")
              .hash_only_when_changed());
    s.add(param::quantity("base", UnitFamily::Frequency,
                          "the slowest clock the power limit may step down to (the clock a vendor guarantees "
                          "under its rated power); 0 Hz: the curve's lowest point")
              .def("0 Hz")
              .range("0 Hz", "100 GHz")
              .hash_only_when_changed());
    s.add(param::quantity("idle", UnitFamily::Frequency,
                          "the clock the domain drops to when the device has nothing to run (the `idle` workload: no "
                          "work and no context holding the clock up), at the curve's lowest supply when under its "
                          "lowest point; 0 Hz: it idles at the clock a load starts at")
              .def("0 Hz")
              .range("0 Hz", "100 GHz")
              .hash_only_when_changed());
    return s;
  }();
  return spec;
}
}  // namespace

void add_board_params(KindSpec& kind) {
  kind.add(param::quantity("temperature", UnitFamily::Temperature,
                           "the die's junction temperature while it runs: its leakage is the technology table's (at "
                           "leakage.temperature) doubled every leakage.doubling above it")
               .def("25 C")
               .range("-55 C", "150 C")
               .hash_only_when_changed());
  kind.add(param::real("delivery_efficiency",
                       "the board's voltage regulators: the share of the board's input power that reaches the die and "
                       "its memory; power_limit and every reported power and energy are then the board's input, the "
                       "loss reported as energy_delivery_j; 1: no loss counted")
               .def("1")
               .range("0.5", "1")
               .hash_only_when_changed());
}

void add_power_management_params(KindSpec& kind) {
  kind.add(param::quantity("power_limit", UnitFamily::Power,
                           "the device's power limit: with dvfs: capped, each load runs at the fastest clock whose "
                           "modelled power stays within it; 0 W: no limit")
               .def("0 W")
               .range("0 W", "1000000 W")
               .hash_only_when_changed());
  kind.add(param::choice("dvfs", {"capped", "fixed"},
                         "with clocks: capped runs each load at the boost clock, or lower when the power limit "
                         "requires it; fixed runs every load at `clock` (studies that pin clocks)")
               .def("capped")
               .hash_only_when_changed());
  add_board_params(kind);
  kind.slot(
      SlotSpec{"clocks", "the clock domain's base and boost clocks (DVFS)", "section", "", false, &clocks_spec()});
}

void apply_die_and_board(Component& device) {
  const Params& p = device.params();
  const double leakage = device.tech().leakage_factor_at(p.quantity("temperature"));
  const double efficiency = p.real("delivery_efficiency");
  for (Component* c : device.with_descendants()) {
    c->set_leakage_factor(leakage);
    c->set_delivery_efficiency(efficiency);
  }
}

std::optional<PowerManagement> PowerManagement::read(const ValidatedNode& config, const TechTable& tech) {
  const Params& p = config.params;
  const ValidatedNode& clocks = config.child("clocks");
  PowerManagement m;
  m.tech_ = &tech;
  m.limit_w_ = p.quantity("power_limit");
  m.boost_hz_ = clocks.params.quantity("boost");
  if (!(m.boost_hz_ > 0)) {
    if (m.limit_w_ > 0)
      throw InputError(p.where("power_limit"), config.path + ".power_limit",
                       "a power limit needs the clocks it steps between: set clocks.boost (and clocks.base)");
    return std::nullopt;
  }
  const double lowest = tech.voltage_frequency().front().clock * m.boost_hz_;
  m.base_hz_ = clocks.params.quantity("base");
  if (m.base_hz_ == 0) m.base_hz_ = lowest;
  const auto outside = [&](double hz, const SourceLoc& where, const std::string& key) {
    if (hz < lowest * (1 - 1e-9) || hz > m.boost_hz_ * (1 + 1e-9))
      throw InputError(
          where, key,
          fmt::format("{} is outside the clock's curve: {} to {} (the {} table's lowest point, {} of "
                      "the boost, up to clocks.boost)",
                      format_quantity(hz, UnitFamily::Frequency, 6), format_quantity(lowest, UnitFamily::Frequency, 6),
                      format_quantity(m.boost_hz_, UnitFamily::Frequency, 6), tech.name(),
                      tech.voltage_frequency().front().clock));
  };
  outside(m.base_hz_, clocks.params.where("base"), config.path + ".clocks.base");
  // Below the curve's lowest point a clock gains no further voltage, so an idle clock may be.
  m.idle_hz_ = clocks.params.quantity("idle");
  if (m.idle_hz_ > m.boost_hz_ * (1 + 1e-9))
    throw InputError(clocks.params.where("idle"), config.path + ".clocks.idle",
                     fmt::format("{} is above clocks.boost ({}): an idle clock is at most the boost",
                                 format_quantity(m.idle_hz_, UnitFamily::Frequency, 6),
                                 format_quantity(m.boost_hz_, UnitFamily::Frequency, 6)));
  m.policy_ = p.string("dvfs") == "fixed" ? DvfsPolicy::Fixed : DvfsPolicy::Capped;
  m.fixed_hz_ = p.quantity("clock");
  if (m.policy_ == DvfsPolicy::Fixed) outside(m.fixed_hz_, p.where("clock"), config.path + ".clock");
  return m;
}

double PowerManagement::supply_at(double hz) const { return tech_->supply_at(hz / boost_hz_); }

double PowerManagement::clock_for(const std::function<double(double hz)>& power_at) const {
  if (policy_ == DvfsPolicy::Fixed) return fixed_hz_;
  if (limit_w_ <= 0 || power_at(boost_hz_) <= limit_w_) return boost_hz_;
  if (power_at(base_hz_) >= limit_w_) return base_hz_;
  double lo = base_hz_, hi = boost_hz_;  // power_at(lo) within the limit, power_at(hi) over it
  while (hi - lo > 1e6) {
    const double mid = 0.5 * (lo + hi);
    (power_at(mid) <= limit_w_ ? lo : hi) = mid;
  }
  return std::max(base_hz_, std::floor(lo / 1e6) * 1e6);
}

}  // namespace strata
