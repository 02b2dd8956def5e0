// The registry of kinds: every component kind and workload kind registers its schema and a
// factory with one line (`registry.add_component<SimpleMemory>()`), and `strata list` prints
// what is registered. Kinds are registered explicitly per folder (see each folder's
// register_kinds.cpp) rather than by static initialisers, which static libraries would drop.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/schema.h"

namespace strata {

class Component;
class Workload;
class SimContext;

class Registry {
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

  const KindSpec* find(const std::string& category, const std::string& name) const;
  // Kind names of a category, sorted.
  std::vector<std::string> names(const std::string& category) const;
  std::vector<const KindSpec*> kinds(const std::string& category) const;

  std::unique_ptr<Component> make_component(const char* name, const ValidatedNode& cfg, SimContext& ctx) const;
  std::unique_ptr<Workload> make_workload(const ValidatedNode& cfg, SimContext& ctx) const;

 private:
  struct Entry {
    std::unique_ptr<KindSpec> spec;  // stable address: ValidatedNode points at it
    ComponentFactory component;
    WorkloadFactory workload;
  };
  void add(KindSpec spec, Entry entry);
  std::map<std::string, std::map<std::string, Entry>> entries_;  // category -> name -> entry
};

// Human-readable description of a kind and its parameters, as `strata list KIND` prints it.
std::string describe_kind(const KindSpec& spec);

}  // namespace strata
