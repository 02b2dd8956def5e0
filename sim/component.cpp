#include "sim/component.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/ports.h"
#include "sim/registry.h"

namespace strata {
namespace {
Clock clock_of(const ValidatedNode& cfg) {
  return cfg.params.has("clock") ? Clock(cfg.params.quantity("clock")) : Clock(1e9);
}
}  // namespace

Component::Component(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : sc_core::sc_module(name), cfg_(cfg), ctx_(ctx), clock_(clock_of(cfg)) {
  ctx_.add_component(this);
  ctx_.repeater().track(this);
}

Component::~Component() = default;

std::vector<Component*> Component::with_descendants() {
  const std::string prefix = std::string(name()) + ".";
  std::vector<Component*> out;
  for (Component* c : ctx_.components())
    if (c == this || std::string(c->name()).rfind(prefix, 0) == 0) out.push_back(c);
  return out;
}

std::string Component::stat_name(const std::string& local) const { return std::string(name()) + "." + local; }

Counter& Component::counter(const std::string& l, std::string u, std::string d) {
  return ctx_.stats().counter(stat_name(l), std::move(u), std::move(d));
}
Scalar& Component::scalar(const std::string& l, std::string u, std::string d) {
  return ctx_.stats().scalar(stat_name(l), std::move(u), std::move(d));
}
Average& Component::average(const std::string& l, std::string u, std::string d) {
  return ctx_.stats().average(stat_name(l), std::move(u), std::move(d));
}
TimeAverage& Component::time_average(const std::string& l, std::string u, std::string d) {
  return ctx_.stats().time_average(stat_name(l), std::move(u), std::move(d));
}
Distribution& Component::distribution(const std::string& l, std::string u, std::string d) {
  return ctx_.stats().distribution(stat_name(l), std::move(u), std::move(d));
}
TimeSeries& Component::time_series(const std::string& l, std::string u, std::string d, double rate_scale) {
  return ctx_.stats().time_series(stat_name(l), std::move(u), std::move(d), ctx_.stats_window_s(), rate_scale);
}

const TechTable& Component::tech() const {
  return ctx_.tech(cfg_.params.string("tech"), cfg_.params.where("tech"), cfg_.path.empty() ? "tech" : cfg_.path + ".tech");
}

void Component::add_area(const std::string& part, double mm2, double leakage_w) {
  for (auto& p : area_parts_) {
    if (p.name != part) continue;
    p.mm2 += mm2;
    p.leakage_w += leakage_w;
    return;
  }
  area_parts_.push_back(AreaPart{part, mm2, leakage_w});
}

double Component::area_mm2() const {
  double a = 0;
  for (const auto& p : area_parts_) a += p.mm2;
  return a;
}

double Component::static_power_w() const {
  double leakage = 0;
  for (const auto& p : area_parts_) leakage += p.leakage_w;
  return background_w_ + leakage * leakage_factor_;
}

double Component::dynamic_energy_j() const {
  double j = 0;
  for (const auto& [event, e] : events_) j += e->joules() * factor_of(*e);
  if (managed_clock_) j += managed_clock_->running_clock_j(sc_core::sc_time_stamp().to_seconds());
  return j;
}

double Component::factor_of(const EnergyEvent& e) const {
  return std::find(unscaled_.begin(), unscaled_.end(), &e) == unscaled_.end() ? event_factor_ : 1.0;
}

EnergyEvent& Component::energy_event(const std::string& event, double joules, const std::string& description) {
  Counter& count = counter("events." + event, "events", description);
  events_.emplace_back(event, std::make_unique<EnergyEvent>(count, joules));
  return *events_.back().second;
}

EnergyEvent& Component::clock_energy_event(double joules_per_cycle, const std::string& description,
                                           const std::string& event) {
  EnergyEvent& e = energy_event(event, joules_per_cycle, description);
  clock_tree_events_.push_back(&e);
  return e;
}

std::unique_ptr<Component> Component::build_child(const std::string& slot) { return build_child(slot, slot); }

std::unique_ptr<Component> Component::build_child(const std::string& slot, const std::string& instance) {
  return ctx_.registry().make_component(instance.c_str(), cfg_.child(slot), ctx_);
}

void Component::require_slot_role(const std::string& slot, const char* role) const {
  const SlotSpec* s = cfg_.spec->find_slot(slot);
  if (!s || s->role != role)
    throw std::logic_error(fmt::format("{}.{}: build_child<I> needs a slot of role {}, and the slot's role is '{}'",
                                       name(), slot, role, s ? s->role : std::string("(no such slot)")));
}

void Component::throw_missing_interface(const std::string& slot, const char* role) const {
  throw std::logic_error(fmt::format("{}.{}: kind {} provides role {} but does not implement its interface", name(),
                                     slot, cfg_.child(slot).spec->name, role));
}

void Component::finalize(const sc_core::sc_time&) {}

double Component::reported_s(const sc_core::sc_time& t) const { return ctx_.stats().reported_time()(t.to_seconds()); }

std::vector<double> Component::reuse_totals(const sc_core::sc_time&) const { return {}; }

void Component::repeat_totals(const std::vector<double>&, double, const sc_core::sc_time&) {}

std::pair<double, double> Component::close_accounting(const sc_core::sc_time& end) {
  double total = 0;
  for (const auto& [event, e] : events_) {
    const double joules = e->joules() * factor_of(*e);
    scalar("energy." + event, "J",
           fmt::format("energy of {} events at {:g} J each", event, e->joules_per_event() * factor_of(*e)))
        .set(joules);
    total += joules;
    const bool clock =
        std::find(clock_tree_events_.begin(), clock_tree_events_.end(), e.get()) != clock_tree_events_.end();
    (clock ? split_.clock_j : split_.events_j) += joules;
  }
  const double static_w = static_power_w();
  const double static_j = static_w * end.to_seconds();
  split_.static_j = static_j;
  scalar("energy.static", "J", fmt::format("static (leakage and background) energy at {:g} W", static_w)).set(static_j);
  total += static_j;
  if (delivery_efficiency_ < 1) {
    split_.delivery_j = total * (1 / delivery_efficiency_ - 1);
    scalar(
        "energy.delivery", "J",
        fmt::format("lost in the voltage regulators feeding this component at {:g} efficiency", delivery_efficiency_))
        .set(split_.delivery_j);
    total += split_.delivery_j;
  }
  scalar("energy.total", "J", "dynamic plus static energy of this component").set(total);
  scalar("power.static", "W", "leakage of the declared area plus background power").set(static_w);
  for (const auto& p : area_parts_) scalar("area." + p.name, "mm2", fmt::format("area of the {}", p.name)).set(p.mm2);
  const double area = area_mm2();
  scalar("area.total", "mm2", "silicon area of this component").set(area);
  return {total, area};
}

bool Component::is_memory() const {
  const std::vector<std::string>& roles = cfg_.spec->roles;
  return std::find(roles.begin(), roles.end(), kMemoryTargetRole) != roles.end();
}

KindSpec component_section(KindSpec kind) {
  kind.category = "section";
  kind.add(tech_param());
  return kind;
}

bool reachable_time(const Component& c, double seconds) {
  if (seconds <= kMaxSimulatedSeconds) return true;
  c.context().fail(InputError(c.config().loc, c.config().path,
                              fmt::format("simulated time would reach {:.4g} s, past the {} s that SystemC's 64-bit "
                                          "femtosecond clock can represent; shorten the workload or the timing",
                                          seconds, kMaxSimulatedSeconds)));
  return false;
}

}  // namespace strata
