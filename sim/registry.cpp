#include "sim/registry.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/tech/tech_table.h"
#include "sim/workload.h"

namespace strata {

void Registry::add_command(CliCommand command) {
  for (const CliCommand& c : commands_)
    if (c.name == command.name) throw std::logic_error("command registered twice: " + command.name);
  commands_.push_back(std::move(command));
}

void Registry::add_run_importer(RunImporter importer) { importers_.push_back(std::move(importer)); }

const Registry::Entry& Registry::entry(const std::string& category, const std::string& name) const {
  return entries_.at(category).at(name);
}

void Registry::add(KindSpec spec, Entry entry) {
  auto& category = entries_[spec.category];
  if (category.count(spec.name)) throw std::logic_error("kind registered twice: " + spec.name);
  const std::string name = spec.name;
  entry.spec = std::make_unique<KindSpec>(std::move(spec));
  category.emplace(name, std::move(entry));
}

void Registry::add_component(KindSpec spec, ComponentFactory factory) {
  spec.category = "component";
  spec.add(tech_param());
  Entry e;
  e.component = std::move(factory);
  add(std::move(spec), std::move(e));
}

void Registry::add_workload(KindSpec spec, WorkloadFactory factory) {
  spec.category = "workload";
  Entry e;
  e.workload = std::move(factory);
  add(std::move(spec), std::move(e));
}

const KindSpec* Registry::find(const std::string& category, const std::string& name) const {
  auto c = entries_.find(category);
  if (c == entries_.end()) return nullptr;
  auto e = c->second.find(name);
  return e == c->second.end() ? nullptr : e->second.spec.get();
}

std::vector<std::string> Registry::names(const std::string& category) const {
  std::vector<std::string> out;
  if (auto c = entries_.find(category); c != entries_.end())
    for (const auto& [name, entry] : c->second) out.push_back(name);
  return out;
}

std::vector<const KindSpec*> Registry::kinds(const std::string& category) const {
  std::vector<const KindSpec*> out;
  if (auto c = entries_.find(category); c != entries_.end())
    for (const auto& [name, entry] : c->second) out.push_back(entry.spec.get());
  return out;
}

const Registry::ComponentFactory& Registry::component_factory(const ValidatedNode& cfg) const {
  return entry("component", cfg.spec->name).component;
}

std::unique_ptr<Workload> Registry::make_workload(const ValidatedNode& cfg, SimContext& ctx) const {
  return entry("workload", cfg.spec->name).workload(cfg, ctx);
}

namespace {

// Parameters and slots of `spec`, keys prefixed with `prefix` ("controller."); the keys of
// fixed sections follow their section's line.
void describe_keys(const KindSpec& spec, const std::string& prefix, std::string& out) {
  for (const auto& p : spec.params) {
    std::string constraint;
    if (p.required()) constraint = "required";
    else constraint = "default " + (p.default_text->empty() ? std::string("\"\"") : *p.default_text);
    if (p.min && p.max) constraint += ", range " + range_text(p);
    else if (p.min || p.max) constraint += ", " + range_text(p);
    out += fmt::format("  {:<28} {:<12} {}  ({})\n", prefix + p.name, p.type_label(), p.description, constraint);
  }
  for (const auto& s : spec.slots) {
    std::string what = s.fixed ? "section" : ("a " + s.category + (s.role.empty() ? "" : " providing " + s.role));
    out += fmt::format("  {:<28} {:<12} {}  ({}{})\n", prefix + s.name,
                       "<" + std::string(s.fixed ? "section" : "kind") + ">", s.description, what,
                       s.required ? ", required" : "");
    if (s.fixed) describe_keys(*s.fixed, prefix + s.name + ".", out);
  }
}

}  // namespace

std::string describe_kind(const KindSpec& spec) {
  std::string out = fmt::format("{} ({}): {}\n", spec.name, spec.category, spec.description);
  if (!spec.roles.empty()) {
    out += "  provides:";
    for (const auto& r : spec.roles) out += " " + r;
    out += "\n";
  }
  describe_keys(spec, "", out);
  return out;
}

void Registry::add_sim_option(ParamSpec option) {
  if (!composed_.empty())
    throw std::logic_error("sim option '" + option.name + "' added after an experiment was validated");
  sim_options_.push_back(std::move(option));
}

const KindSpec& Registry::composed_section(const std::string& name,
                                           const std::function<KindSpec(const Registry&)>& make) const {
  auto it = composed_.find(name);
  if (it == composed_.end()) it = composed_.emplace(name, std::make_unique<KindSpec>(make(*this))).first;
  return *it->second;
}

}  // namespace strata
