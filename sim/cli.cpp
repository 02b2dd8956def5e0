#include "sim/cli.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/experiment.h"
#include "sim/input_error.h"
#include "sim/kernel.h"
#include "sim/registry.h"
#include "sim/report.h"
#include "sim/runner.h"
#include "sim/sim_context.h"
#include "sim/workload.h"
#include "sim/text.h"

#ifndef STRATA_VERSION
#define STRATA_VERSION "unknown"
#endif

namespace strata {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  // A second Ctrl-C ends the process at once.
  std::signal(SIGINT, SIG_DFL);
}

std::string format_value(const nlohmann::ordered_json& v) {
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

int cmd_run(const std::string& experiment, const std::vector<std::string>& sets, const std::string& output,
            bool timeline, bool progress_on, bool progress_off, bool quiet, const Registry& registry) {
  const ResolvedExperiment exp = resolve_experiment(experiment, sets, registry);
  RunOptions options;
  if (!output.empty()) options.output_dir = output;
  if (timeline) options.timeline = true;
  if (progress_on) options.progress = ProgressMode::On;
  if (progress_off) options.progress = ProgressMode::Off;
  options.interrupt = &g_interrupted;
  std::signal(SIGINT, on_sigint);
  const RunResult r = run_experiment(exp, registry, options);
  if (r.interrupted) {
    fmt::print(stderr, "strata: interrupted; no results written\n");
    return kExitInterrupted;
  }
  if (!quiet) {
    fmt::print("{} ({}): {}\n", exp.name, exp.hash.substr(0, 16), r.summary["status"].get<std::string>());
    for (const auto& [key, value] : r.summary.items()) {
      if (key == "experiment" || key == "config_hash" || key == "status") continue;
      fmt::print("  {:<24} {}\n", key, format_value(value));
    }
  }
  fmt::print("results: {}\n", r.dir);
  return 0;
}

// SCALE-Sim's files: the generated experiment is written into the result directory's parent
// as a temporary file, run like any experiment, and the reports are added to its results.
int cmd_run_scalesim(const std::string& cfg, const std::string& topology, const std::string& output,
                     const std::vector<std::string>& sets, bool quiet, const CliHooks& hooks,
                     const Registry& registry) {
  if (cfg.empty() || topology.empty())
    throw InputError(SourceLoc{"strata run"}, cfg.empty() ? "--scalesim-config" : "--scalesim-topology",
                     "--scalesim-config and --scalesim-topology go together");
  const std::string yaml = hooks.scalesim_experiment(cfg, topology);
  namespace fs = std::filesystem;
  const fs::path tmp = fs::temp_directory_path() / fmt::format("strata-scalesim-{}.yaml", ::getpid());
  {
    std::ofstream out(tmp);
    out << yaml;
  }
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code ec;
      fs::remove(p, ec);
    }
  } remove{tmp};
  const ResolvedExperiment exp = resolve_experiment(tmp.string(), sets, registry);
  RunOptions options;
  if (!output.empty()) options.output_dir = output;
  options.progress = ProgressMode::Off;
  options.interrupt = &g_interrupted;
  std::signal(SIGINT, on_sigint);
  const RunResult r = run_experiment(exp, registry, options);
  if (r.interrupted) {
    fmt::print(stderr, "strata: interrupted; no results written\n");
    return kExitInterrupted;
  }
  hooks.scalesim_reports(cfg, topology, r.dir);
  {
    std::ofstream out(fs::path(r.dir) / "scalesim_experiment.yaml");
    out << yaml;
  }
  if (!quiet) fmt::print("{} ({}): {}; SCALE-Sim reports written\n", exp.name, exp.hash.substr(0, 16),
                         r.summary["status"].get<std::string>());
  fmt::print("results: {}\n", r.dir);
  return 0;
}

int cmd_config(const std::string& experiment, const std::vector<std::string>& sets, bool hash_only,
               const Registry& registry) {
  const ResolvedExperiment exp = resolve_experiment(experiment, sets, registry);
  if (hash_only) {
    fmt::print("{}\n", exp.hash);
  } else {
    fmt::print("# config hash {}\n{}", exp.hash, exp.config.to_yaml());
  }
  return 0;
}

// The experiment's workload, made without hardware (for info and export).
struct WorkloadOnly {
  ResolvedExperiment exp;
  std::unique_ptr<SimContext> ctx;
  std::unique_ptr<Workload> workload;

  WorkloadOnly(const std::string& experiment, const std::vector<std::string>& sets, const Registry& registry)
      : exp(resolve_experiment(experiment, sets, registry)),
        ctx(std::make_unique<SimContext>(registry, static_cast<std::uint64_t>(exp.root.params.integer("seed")), 1e-6)),
        workload(registry.make_workload(exp.root.child("workload"), *ctx)) {}

  [[noreturn]] void unsupported(const std::string& what) const {
    const ValidatedNode& w = exp.root.child("workload");
    throw InputError(w.loc, "workload.kind", fmt::format("workload kind '{}' {}", w.spec->name, what));
  }
};

int cmd_workload_info(const std::string& experiment, const std::vector<std::string>& sets, bool json,
                      const Registry& registry) {
  const WorkloadOnly w(experiment, sets, registry);
  const auto info = w.workload->info();
  if (!info) w.unsupported("has no hardware-independent figures");
  if (json)
    fmt::print("{}\n", info->dump(2));
  else
    fmt::print("{}", w.workload->info_text());
  return 0;
}

int cmd_trace_export(const std::string& experiment, const std::vector<std::string>& sets, const std::string& output,
                     const Registry& registry) {
  const WorkloadOnly w(experiment, sets, registry);
  if (!w.workload->export_trace(output)) w.unsupported("is not an operator graph");
  fmt::print("{}\n", output);
  return 0;
}

int cmd_list(const std::string& kind, const Registry& registry) {
  if (!kind.empty()) {
    for (const char* category : {"component", "workload"}) {
      if (const KindSpec* spec = registry.find(category, kind)) {
        fmt::print("{}", describe_kind(*spec));
        return 0;
      }
    }
    std::vector<std::string> all = registry.names("component");
    for (const auto& w : registry.names("workload")) all.push_back(w);
    std::string msg = fmt::format("strata list: unknown kind '{}'", kind);
    if (auto best = closest_match(kind, all)) msg += fmt::format(" (did you mean '{}'?)", *best);
    fmt::print(stderr, "{}\n", msg);
    return kExitBadInput;
  }
  for (const char* category : {"component", "workload"}) {
    fmt::print("{} kinds:\n", category);
    for (const KindSpec* spec : registry.kinds(category)) fmt::print("\n{}", describe_kind(*spec));
    fmt::print("\n");
  }
  fmt::print("experiment keys:\n\n{}\n{}", describe_kind(experiment_spec()), describe_kind(sim_section_spec()));
  return 0;
}

int cmd_report(const std::string& dir, const std::string& format) {
  const EnergyAreaReport r = read_report(dir);
  if (format == "csv") fmt::print("{}", report_csv(r));
  else if (format == "json") fmt::print("{}\n", report_json(r).dump(2));
  else fmt::print("{}", report_table(r));
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv, const Registry& registry, const CliHooks& hooks) {
  CLI::App app{"Strata: a cycle-level, event-driven simulator and design-space explorer for AI hardware", "strata"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print the version and exit");

  std::string experiment, output, kind;
  std::vector<std::string> sets;
  bool timeline = false, progress_on = false, progress_off = false, quiet = false, hash_only = false;

  CLI::App* run = app.add_subcommand("run", "run one experiment and write its result directory");
  std::string scalesim_config, scalesim_topology;
  run->add_option("experiment", experiment, "experiment file (YAML)");
  run->add_option("--scalesim-config", scalesim_config,
                  "run SCALE-Sim's files instead: its config (.cfg); writes its three reports into the result "
                  "directory as well");
  run->add_option("--scalesim-topology", scalesim_topology, "with --scalesim-config: its topology CSV (conv or GEMM form)");
  run->add_option("-o,--output", output, "result directory (default results/<name>/<config-hash>/)");
  run->add_option("--set", sets, "override a config key: --set hardware.latency=\"40 ns\" (repeatable)");
  run->add_flag("--timeline", timeline, "also write timeline.json (Chrome trace format, for Perfetto)");
  run->add_flag("--progress", progress_on, "show progress on stderr even when it is not a terminal");
  run->add_flag("--no-progress", progress_off, "never show progress");
  run->add_flag("-q,--quiet", quiet, "print only the result directory");

  CLI::App* config = app.add_subcommand("config", "print the resolved configuration and its hash");
  config->add_option("experiment", experiment, "experiment file (YAML)")->required();
  config->add_option("--set", sets, "override a config key (repeatable)");
  config->add_flag("--hash", hash_only, "print only the config hash");

  CLI::App* list = app.add_subcommand("list", "list component and workload kinds with their parameters");
  list->add_option("kind", kind, "show one kind");

  std::string report_dir, report_format = "table";
  CLI::App* report = app.add_subcommand("report", "print a result's energy and area by component and by event");
  report->add_option("dir", report_dir, "result directory (results/<name>/<hash>/)")->required();
  report->add_option("--format", report_format, "table (default), csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));

  bool json = false;
  CLI::App* workload = app.add_subcommand("workload", "characterize workloads without hardware");
  workload->require_subcommand(1);
  CLI::App* info = workload->add_subcommand("info", "print FLOPs, bytes by tensor class, parameters and more");
  info->add_option("experiment", experiment, "experiment file (YAML)")->required();
  info->add_option("--set", sets, "override a config key (repeatable)");
  info->add_flag("--json", json, "print one JSON object");

  CLI::App* trace = app.add_subcommand("trace", "operator traces (JSON Lines)");
  trace->require_subcommand(1);
  CLI::App* trace_export = trace->add_subcommand("export", "write the experiment's operator graph as a trace");
  trace_export->add_option("experiment", experiment, "experiment file (YAML)")->required();
  trace_export->add_option("-o,--output", output, "trace file to write (.jsonl)")->required();
  trace_export->add_option("--set", sets, "override a config key (repeatable)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "strata: error: {} (see strata --help)\n", e.what());
    return kExitBadInput;
  }
  if (version) {
    fmt::print("strata {}\n", STRATA_VERSION);
    return 0;
  }
  try {
    init_systemc();
    if (run->parsed() && (!scalesim_config.empty() || !scalesim_topology.empty())) {
      if (!experiment.empty())
        throw InputError(SourceLoc{"strata run"}, "experiment", "give an experiment file or SCALE-Sim files, not both");
      return cmd_run_scalesim(scalesim_config, scalesim_topology, output, sets, quiet, hooks, registry);
    }
    if (run->parsed() && experiment.empty())
      throw InputError(SourceLoc{"strata run"}, "experiment", "an experiment file (or --scalesim-config and --scalesim-topology) is required");
    if (run->parsed()) return cmd_run(experiment, sets, output, timeline, progress_on, progress_off, quiet, registry);
    if (config->parsed()) return cmd_config(experiment, sets, hash_only, registry);
    if (list->parsed()) return cmd_list(kind, registry);
    if (report->parsed()) return cmd_report(report_dir, report_format);
    if (info->parsed()) return cmd_workload_info(experiment, sets, json, registry);
    if (trace_export->parsed()) return cmd_trace_export(experiment, sets, output, registry);
    fmt::print("{}", app.help());
    return kExitBadInput;
  } catch (const InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "strata: internal error: {}\n", e.what());
    return kExitInternalError;
  }
}

}  // namespace strata
