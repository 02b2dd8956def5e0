#include "sim/app/experiment.h"

#include <filesystem>

#include <fmt/format.h>

#include "sim/component.h"
#include "sim/config_loader.h"
#include "sim/registry.h"
#include "sim/text.h"

namespace strata {

const KindSpec& sim_section_spec(const Registry& registry) {
  return registry.composed_section("sim", [](const Registry& r) {
    KindSpec s;
    s.name = "sim";
    s.category = "section";
    s.description = "simulation options";
    s.add(param::quantity("max_time", UnitFamily::Time,
                          "stop after this much simulated time; 0 s runs the workload to completion")
              .def("0 s")
              .at_least("0 s"));
    s.add(param::quantity("stats_window", UnitFamily::Time, "window of time-series statistics (bandwidth over time)")
              .def("1 us")
              .range("1 ps", "1000 s"));
    s.add(param::boolean("timeline", "write timeline.json (Chrome trace format, opens in Perfetto)")
              .def("false")
              .no_effect_on_results());
    s.add(param::integer("timeline_max_events", "events kept in timeline.json; later ones are counted as dropped")
              .def("1000000")
              .range("1", "1000000000")
              .no_effect_on_results());
    s.add(param::choice("fidelity", {"cycle", "analytic"},
                        "cycle: simulate the design in SystemC; analytic: evaluate the same components and "
                        "mapping in closed form (tile and roofline formulas, no simulation: tens of milliseconds "
                        "per point, for screening sweeps; within the bounds docs/npu.md states of cycle level). "
                        "Analytic runs report the same keys, with peak power = average power and latency "
                        "distributions estimated or empty; max_time does not apply. Kinds without a closed form "
                        "(a memory driven by a trace) are an error")
              .def("cycle"));
    s.add(param::choice("reuse", {"none", "layers"},
                        "layers: where a cycle-level design runs a workload whose consecutive layers are identical "
                        "(same operators, shapes, formats and mapping, as in a transformer), it simulates the first "
                        "two of each run of them and counts the second again for each later one: timing, energy and "
                        "statistics (summary keys simulated_layers, reused_layers). none: simulate every layer (as "
                        "analytic runs and runs with a max_time do). "
                        "docs/performance.md gives the error (within 0.5% on the shipped decodes) and when reuse is "
                        "not exact")
              .def("layers"));
    s.add(param::boolean("check_protocol",
                         "verify every DRAM command against the standard's timing and state rules, and every "
                         "TLM-2.0 link between components against the base protocol; the run stops at the first "
                         "violation")
              .def("false")
              .no_effect_on_results());
    s.add(param::choice("progress", {"auto", "on", "off"},
                        "progress on stderr: auto shows it on a terminal for runs longer than 2 s")
              .def("auto")
              .no_effect_on_results());
    for (const ParamSpec& option : r.sim_options()) s.add(option);  // the designs' own (Registry::add_sim_option)
    return s;
  });
}

const KindSpec& experiment_spec(const Registry& registry) {
  return registry.composed_section("experiment", [](const Registry& r) {
    KindSpec s;
    s.name = "experiment";
    s.category = "section";
    s.description = "an experiment: a design, a workload and simulation options";
    s.add(param::string("name", "experiment name; results go to results/<name>/<config-hash>/").no_effect_on_results());
    s.add(param::string("description", "free text").def("").no_effect_on_results());
    s.add(param::integer("seed", "seed of every random stream in the run").def("1").range("0", "9223372036854775807"));
    s.add(tech_param());
    s.slot(SlotSpec{"sim", "simulation options", "section", "", false, &sim_section_spec(r)});
    s.slot(SlotSpec{"hardware", "the design to simulate (needed by `strata run`, not by `strata workload info`)",
                    "component", "", false, nullptr});
    s.slot(SlotSpec{"workload", "the workload that runs on the design", "workload", "", true, nullptr});
    return s;
  });
}

void check_result_name(const std::string& name, const SourceLoc& where, const std::string& key) {
  const auto control = first_control_char(name);
  std::string why;
  if (name.empty() || name == "." || name == "..") why = "must be a non-empty name other than '.' and '..'";
  else if (name.find('/') != std::string::npos) why = "must be a name without '/'";
  else if (control)
    why = fmt::format("holds a control character (byte 0x{:02X})", static_cast<unsigned char>(name[*control]));
  else if (first_invalid_utf8(name)) why = "is not UTF-8 text";
  else if (name.size() > kMaxNameBytes)
    why = fmt::format("is {} bytes long; at most {} (it names a directory)", name.size(), kMaxNameBytes);
  if (!why.empty()) throw InputError(where, key, why);
}

ResolvedExperiment resolve_experiment(const std::string& path, const std::vector<std::string>& overrides,
                                      const Registry& registry) {
  ConfigNode config = load_config(path);
  if (!config.is_map())
    throw InputError(config.loc().line ? config.loc() : SourceLoc{path}, "",
                     "an experiment file must hold a mapping (name, hardware, workload, ...)");
  for (const auto& o : overrides) apply_override(config, o);
  return resolve_experiment_config(std::move(config), path, registry);
}

ResolvedExperiment resolve_experiment_config(ConfigNode config, const std::string& source, const Registry& registry) {
  ResolvedExperiment r;
  r.source = source;
  r.config = std::move(config);
  if (!r.config.find("name")) {
    r.config.set("name", ConfigNode::scalar(std::filesystem::path(source).stem().string(), SourceLoc{source}));
  }
  r.root = validate(r.config, experiment_spec(registry), "", registry);
  r.name = r.root.params.string("name");
  check_result_name(r.name, r.root.params.where("name"), "name");
  r.hash = config_hash(r.root);
  return r;
}

}  // namespace strata
