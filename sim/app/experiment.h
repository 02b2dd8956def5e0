// An experiment file: its schema, and resolution from file + overrides to a validated tree and
// a config hash.
//
// Top-level keys (documented here, once):
//   name         string   experiment name; names results/<name>/ (default: the file's stem)
//   description  string   free text, kept in config.yaml (no effect on results or the hash)
//   seed         int      seed of every random stream in the run (default 1)
//   sim          section  simulation options, see sim_section_spec() and the options designs add
//   hardware     kind     the design: a component kind with its parameters and children (needed
//                         to run; an experiment without one can still be characterized)
//   workload     kind     what runs on it: a workload kind with its parameters
#pragma once

#include <string>
#include <vector>

#include "sim/config_node.h"
#include "sim/schema.h"

namespace strata {

class Registry;

// The experiment's schema and its `sim` section, with the sim options the registry's folders
// added (Registry::add_sim_option); kept by the registry.
const KindSpec& experiment_spec(const Registry& registry);
const KindSpec& sim_section_spec(const Registry& registry);

struct ResolvedExperiment {
  std::string source;  // the experiment file as given
  ConfigNode config;   // after extends, overrides and defaults: what config.yaml holds
  ValidatedNode root;
  std::string name;
  std::string hash;  // 32 hex digits
};

// A name that becomes a directory (an experiment's, a sweep's): not empty, no '/', no control
// characters, UTF-8, at most kMaxNameBytes bytes. Throws InputError at `where` naming `key`.
inline constexpr size_t kMaxNameBytes = 128;
void check_result_name(const std::string& name, const SourceLoc& where, const std::string& key);

// Loads, merges, overrides and validates; throws InputError (exit code 2) on any problem.
ResolvedExperiment resolve_experiment(const std::string& path, const std::vector<std::string>& overrides,
                                      const Registry& registry);

// The same for a loaded tree (extends resolved, overrides applied); `source` names it.
ResolvedExperiment resolve_experiment_config(ConfigNode config, const std::string& source, const Registry& registry);

}  // namespace strata
