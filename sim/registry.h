// The registry of kinds: every component kind and workload kind registers its schema and a
// factory with one line (`registry.add_component<SimpleMemory>()`), and `strata list` prints
// what is registered. Kinds are registered explicitly per folder (see each folder's
// register_kinds.cpp) rather than by static initialisers, which static libraries would drop.
// Kinds of categories sim/ does not know (rtl/'s reference models) register a factory of a
// base class their folder names (`add_kind<ReferenceModel>`), and the folders above sim/ add
// the `strata` subcommands and `strata run` importers they own (sim/cli_extension.h).
#pragma once

#include <any>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli_extension.h"
#include "sim/schema.h"
#include "sim/tech/tech_section.h"

namespace strata {

class Component;
class Workload;
class SimContext;

// Kinds of category "part" are SystemC-free models a component makes from a role slot and
// instantiates as it needs (the GPU's SM, tensor core and L2: `make<SmPart>(node)`); they are
// registered with add_kind and listed by `strata list` with components and workloads.
inline constexpr const char* kPartCategory = "part";
inline constexpr std::array<const char*, 3> kListedCategories{"component", "workload", kPartCategory};

class Registry : public KindCatalog {
 public:
  using ComponentFactory =
      std::function<std::unique_ptr<Component>(const char* name, const ValidatedNode&, SimContext&)>;
  using WorkloadFactory = std::function<std::unique_ptr<Workload>(const ValidatedNode&, SimContext&)>;

  // T must have `static KindSpec spec()` and a constructor (sc_core::sc_module_name, const
  // ValidatedNode&, SimContext&) for components (by value: SystemC's naming needs it), or
  // (const ValidatedNode&, SimContext&) for workloads.
  template <class T>
  void add_component() {
    add_component(T::spec(), [](const char* name, const ValidatedNode& cfg, SimContext& ctx) {
      return std::unique_ptr<Component>(std::make_unique<T>(name, cfg, ctx));
    });
  }
  template <class T>
  void add_workload() {
    add_workload(T::spec(), [](const ValidatedNode& cfg, SimContext& ctx) {
      return std::unique_ptr<Workload>(std::make_unique<T>(cfg, ctx));
    });
  }
  void add_component(KindSpec spec, ComponentFactory factory);
  void add_workload(KindSpec spec, WorkloadFactory factory);

  // A kind of another category (spec.category), made as a `Base` from its validated node.
  template <class Base>
  using Factory = std::function<std::unique_ptr<Base>(const ValidatedNode&)>;
  template <class Base>
  void add_kind(KindSpec spec, Factory<Base> factory) {
    Entry e;
    e.other = std::move(factory);
    add(std::move(spec), std::move(e));
  }
  template <class Base>
  std::unique_ptr<Base> make(const ValidatedNode& node) const {
    return std::any_cast<const Factory<Base>&>(entry(node.spec->category, node.spec->name).other)(node);
  }

  // A `sim.*` option a folder adds for its designs (the GPU's `sample`): validated and hashed
  // with the experiment's sim section, documented by `strata list`, read in a run with
  // SimContext::sim_options(). Options are added before the first experiment is validated.
  void add_sim_option(ParamSpec option);
  const std::vector<ParamSpec>& sim_options() const { return sim_options_; }
  // A section spec composed from what is registered (the experiment's, with the sim options),
  // made by `make` on first use and kept here: validated trees point to their specs.
  const KindSpec& composed_section(const std::string& name, const std::function<KindSpec(const Registry&)>& make) const;

  // `strata` subcommands and `strata run` importers, in the order they were added.
  void add_command(CliCommand command);
  void add_run_importer(RunImporter importer);
  const std::vector<CliCommand>& commands() const { return commands_; }
  const std::vector<RunImporter>& run_importers() const { return importers_; }

  // The device sections a technology table may have, added by the folders that own them
  // (sim/tech/tech_section.h).
  TechSections& tech_sections() { return tech_sections_; }
  const TechSections& tech_sections() const { return tech_sections_; }

  const KindSpec* find(const std::string& category, const std::string& name) const override;
  std::vector<std::string> names(const std::string& category) const override;
  std::vector<const KindSpec*> kinds(const std::string& category) const;

  // A template only so that Component need be complete where a component is made (the caller
  // includes sim/component.h), not here: component.cpp builds its children through the registry.
  template <class C = Component>
  std::unique_ptr<C> make_component(const char* name, const ValidatedNode& cfg, SimContext& ctx) const {
    return component_factory(cfg)(name, cfg, ctx);
  }
  std::unique_ptr<Workload> make_workload(const ValidatedNode& cfg, SimContext& ctx) const;

 private:
  struct Entry {
    std::unique_ptr<KindSpec> spec;  // stable address: ValidatedNode points at it
    ComponentFactory component;
    WorkloadFactory workload;
    std::any other;  // Factory<Base> of add_kind
  };
  void add(KindSpec spec, Entry entry);
  const ComponentFactory& component_factory(const ValidatedNode& cfg) const;
  const Entry& entry(const std::string& category, const std::string& name) const;
  std::map<std::string, std::map<std::string, Entry>> entries_;  // category -> name -> entry
  std::vector<ParamSpec> sim_options_;
  mutable std::map<std::string, std::unique_ptr<KindSpec>> composed_;
  std::vector<CliCommand> commands_;
  std::vector<RunImporter> importers_;
  TechSections tech_sections_;
};

// Human-readable description of a kind and its parameters, as `strata list KIND` prints it.
std::string describe_kind(const KindSpec& spec);

}  // namespace strata
