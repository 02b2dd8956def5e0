#include "sim/app/cli.h"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>

#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "sim/app/experiment.h"
#include "sim/app/report.h"
#include "sim/app/runner.h"
#include "sim/app/sweep/executor.h"
#include "sim/app/sweep/sweep_driver.h"
#include "sim/app/validation/validate_command.h"
#include "sim/cli_extension.h"
#include "sim/config_loader.h"
#include "sim/input_error.h"
#include "sim/interrupt.h"
#include "sim/kernel.h"
#include "sim/process.h"
#include "sim/registry.h"
#include "sim/results_writer.h"
#include "sim/sim_context.h"
#include "sim/text.h"
#include "sim/units.h"
#include "sim/workload.h"

#ifndef STRATA_VERSION
#define STRATA_VERSION "unknown"
#endif

namespace strata {
namespace {

std::string format_value(const nlohmann::ordered_json& v) {
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

int report_interrupted_run(const RunResult& r) {
  return report_interrupted(
      fmt::format("strata: interrupted; partial-run marker {}/interrupted.json, no results\n", r.dir));
}

int cmd_run(const std::string& experiment, const std::vector<std::string>& sets, const std::string& output,
            bool timeline, bool progress_on, bool progress_off, bool quiet, const std::string& expect_hash,
            const Registry& registry) {
  const ResolvedExperiment exp = resolve_experiment(experiment, sets, registry);
  if (!expect_hash.empty() && expect_hash != exp.hash)
    throw InputError(SourceLoc{experiment}, "",
                     fmt::format("resolves to config hash {}, not {} (a file it names changed since the sweep was "
                                 "planned; run the sweep again)",
                                 exp.hash, expect_hash));
  RunOptions options;
  if (!output.empty()) options.output_dir = output;
  if (timeline) options.timeline = true;
  if (progress_on) options.progress = ProgressMode::On;
  if (progress_off) options.progress = ProgressMode::Off;
  options.interrupt = &interrupt_flag();
  const RunResult r = run_experiment(exp, registry, options);
  if (r.interrupted) return report_interrupted_run(r);
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

// A peer's files (sim/cli_extension.h): the generated experiment is resolved in memory (its
// errors name the importer's first file), run like any experiment, and the importer's files and
// the generated experiment join its result before it is committed.
int cmd_run_imported(const RunImporter& importer, const std::vector<std::string>& values, const std::string& output,
                     const std::vector<std::string>& sets, bool quiet, const Registry& registry) {
  const std::string& source = values.front();
  const std::string yaml = importer.experiment(values);
  ConfigNode config = ConfigNode::parse(yaml, source);
  config.relocate(SourceLoc{source});
  for (const auto& o : sets) apply_override(config, o);
  const ResolvedExperiment exp = resolve_experiment_config(std::move(config), source, registry);
  RunOptions options;
  if (!output.empty()) options.output_dir = output;
  options.progress = ProgressMode::Off;
  options.interrupt = &interrupt_flag();
  options.extra_files = [&](const ResultDir& out) {
    importer.extra_files(values, out.staged(""));
    write_file_atomic(out.staged(importer.name + "_experiment.yaml"), yaml);
  };
  const RunResult r = run_experiment(exp, registry, options);
  if (r.interrupted) return report_interrupted_run(r);
  if (!quiet)
    fmt::print("{} ({}): {}; {}\n", exp.name, exp.hash.substr(0, 16), r.summary["status"].get<std::string>(),
               importer.written);
  fmt::print("results: {}\n", r.dir);
  return 0;
}

// "--a and --b": the options an importer needs together.
std::string importer_flags(const RunImporter& imp) {
  std::vector<std::string> flags;
  for (const auto& o : imp.options) flags.push_back(o.flag);
  return fmt::format("{}", fmt::join(flags, " and "));
}

// Which importer `strata run`'s options chose, if any, checked: all of its options or none, and
// not with an experiment file.
const RunImporter* chosen_importer(const Registry& registry, const std::vector<std::vector<std::string>>& values,
                                   const std::string& experiment) {
  const RunImporter* chosen = nullptr;
  for (size_t i = 0; i < registry.run_importers().size() && !chosen; ++i) {
    const RunImporter& imp = registry.run_importers()[i];
    const std::string* missing = nullptr;
    bool any = false;
    for (size_t k = 0; k < imp.options.size(); ++k) {
      if (!values[i][k].empty()) any = true;
      else if (!missing) missing = &imp.options[k].flag;
    }
    if (!any) continue;
    if (missing) throw InputError(SourceLoc{"strata run"}, *missing, importer_flags(imp) + " go together");
    if (!experiment.empty())
      throw InputError(SourceLoc{"strata run"}, "experiment",
                       fmt::format("give an experiment file or {} files, not both", imp.label));
    chosen = &imp;
  }
  return chosen;
}

std::string importer_alternatives(const Registry& registry) {
  std::vector<std::string> alternatives;
  for (const RunImporter& imp : registry.run_importers()) alternatives.push_back(importer_flags(imp));
  return alternatives.empty() ? "" : fmt::format(" (or {})", fmt::join(alternatives, ", or "));
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
  if (json) fmt::print("{}\n", info->dump(2));
  else fmt::print("{}", w.workload->info_text());
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
    for (const char* category : kListedCategories) {
      if (const KindSpec* spec = registry.find(category, kind)) {
        fmt::print("{}", describe_kind(*spec));
        return 0;
      }
    }
    std::vector<std::string> all;
    for (const char* category : kListedCategories)
      for (const auto& name : registry.names(category)) all.push_back(name);
    std::string msg = fmt::format("strata list: unknown kind '{}'", kind);
    if (auto best = closest_match(kind, all)) msg += fmt::format(" (did you mean '{}'?)", *best);
    fmt::print(stderr, "{}\n", msg);
    return kExitBadInput;
  }
  for (const char* category : kListedCategories) {
    fmt::print("{} kinds:\n", category);
    for (const KindSpec* spec : registry.kinds(category)) fmt::print("\n{}", describe_kind(*spec));
    fmt::print("\n");
  }
  fmt::print("experiment keys:\n\n{}\n{}", describe_kind(experiment_spec(registry)),
             describe_kind(sim_section_spec(registry)));
  return 0;
}

ProgressMode progress_mode(bool on, bool off) {
  return on ? ProgressMode::On : off ? ProgressMode::Off : ProgressMode::Auto;
}

// `strata plot KIND DIR [options]`: the plotting scripts (python3 + matplotlib) do the work.
int cmd_plot(const std::string& kind, const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  const fs::path scripts = scripts_dir();
  const fs::path script = scripts / fmt::format("plot_{}.py", kind);
  if (!fs::exists(script))
    throw InputError(
        SourceLoc{"strata plot"}, "kind",
        fmt::format("no plot '{}' (kinds: pareto, breakdown, roofline, heatmap, line, normalized; scripts in {})", kind,
                    scripts.string()));
  const std::string python = script_python();
  std::vector<std::string> argv_s = {python, script.string()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv = exec_argv(argv_s);
  std::fflush(stdout);
  ::execvp(argv[0], argv.data());
  throw std::runtime_error(fmt::format("cannot run {}: {}", python, std::strerror(errno)));
}

int cmd_report(const std::string& dir, const std::string& format) {
  const EnergyAreaReport r = read_report(dir);
  if (format == "csv") fmt::print("{}", report_csv(r));
  else if (format == "json") fmt::print("{}\n", report_json(r).dump(2));
  else fmt::print("{}", report_table(r));
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv, const Registry& registry) {
  CLI::App app{"Strata: a cycle-level, event-driven simulator and design-space explorer for AI hardware", "strata"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print the version and exit");

  std::string experiment, output, kind;
  std::vector<std::string> sets;
  bool timeline = false, progress_on = false, progress_off = false, quiet = false, hash_only = false;

  CLI::App* run = app.add_subcommand("run", "run one experiment and write its result directory");
  run->add_option("experiment", experiment, "experiment file (YAML)");
  std::vector<std::vector<std::string>> imported;  // per importer, per option
  for (const RunImporter& imp : registry.run_importers()) {
    imported.emplace_back(imp.options.size());
    for (size_t k = 0; k < imp.options.size(); ++k)
      run->add_option(imp.options[k].flag, imported.back()[k], imp.options[k].help);
  }
  run->add_option("-o,--output", output, "result directory (default results/<name>/<config-hash>/)");
  run->add_option("--set", sets, "override a config key: --set hardware.latency=\"40 ns\" (repeatable)");
  run->add_flag("--timeline", timeline, "also write timeline.json (Chrome trace format, for Perfetto)");
  run->add_flag("--progress", progress_on, "show progress on stderr even when it is not a terminal");
  run->add_flag("--no-progress", progress_off, "never show progress");
  run->add_flag("-q,--quiet", quiet, "print only the result directory");
  std::string expect_hash;
  run->add_option("--expect-hash", expect_hash,
                  "fail (exit 2) unless the experiment resolves to this config hash (used by sweeps)");

  SweepOptions sweep_opts;
  std::string sweep_file, executor, timeout, submit = "yes";
  int jobs = 0, retries = -1, max_parallel = -1, points_per_task = -1;
  CLI::App* sweep = app.add_subcommand("sweep", "run a sweep: every point in its own process, locally or on Slurm");
  sweep->add_option("sweep", sweep_file, "sweep file (YAML: an experiment plus a sweep: section)")->required();
  sweep->add_option("-o,--output", sweep_opts.output, "sweep directory (default results/<name>/)");
  sweep->add_option("--set", sweep_opts.sets,
                    "override a key of the swept experiment, before the axes apply, or of the sweep section: "
                    "--set sweep.constraints=[...] (repeatable)");
  sweep->add_option("--executor", executor, "local (default) or slurm")->check(CLI::IsMember({"local", "slurm"}));
  sweep->add_option("-j,--jobs", jobs, "local: points at once (default the number of cores)")
      ->check(CLI::Range(1, 4096));
  sweep->add_flag("--resume", sweep_opts.resume,
                  "also re-run points recorded as failed (finished points are always kept)");
  sweep->add_flag("--dry-run", sweep_opts.dry_run, "list the points and their config hashes; run nothing");
  sweep->add_option("--timeout", timeout, "wall-clock limit of one point, e.g. \"10 min\"");
  sweep->add_option("--retries", retries, "re-runs of a failed point")->check(CLI::Range(0, 100));
  sweep->add_option("--partition", sweep_opts.slurm.partition, "slurm: partition");
  sweep->add_option("--time", sweep_opts.slurm.time, "slurm: time limit of one array task (sbatch --time)");
  sweep->add_option("--mem", sweep_opts.slurm.mem, "slurm: memory of one array task (sbatch --mem)");
  sweep->add_option("--account", sweep_opts.slurm.account, "slurm: account");
  sweep->add_option("--sbatch", sweep_opts.slurm.extra,
                    "slurm: a further #SBATCH line, e.g. --sbatch=--qos=short (repeatable)");
  sweep->add_option("--max-parallel", max_parallel, "slurm: array tasks at once (%M)")->check(CLI::Range(0, 1000000));
  sweep->add_option("--points-per-task", points_per_task, "slurm: points one array task runs")
      ->check(CLI::Range(1, 100000000));
  sweep->add_option("--submit", submit, "slurm: yes (default) submits and waits; no only writes the batch script")
      ->check(CLI::IsMember({"yes", "no"}));
  bool sweep_progress_on = false, sweep_progress_off = false;
  sweep->add_flag("--progress", sweep_progress_on, "show progress on stderr even when it is not a terminal");
  sweep->add_flag("--no-progress", sweep_progress_off, "never show progress");

  std::string collect_dir;
  ValidateOptions validate_opts;
  CLI::App* validate = app.add_subcommand(
      "validate", "run the reference checks of configs/validation/ and write a validation report (exit 3: some fail)");
  validate
      ->add_option(
          "--suite", validate_opts.suites,
          "suites to run, by the `suite:` of a file in the checks directory (configs/validation/: dram, npu, gpu, "
          "...), or all (default; comma-separated or repeated)")
      ->delimiter(',');
  validate->add_flag("--quick", validate_opts.quick, "only the checks marked quick (seconds; what CI runs)");
  validate->add_option("-o,--output", validate_opts.output, "report directory (default results/validation/)");
  validate->add_option("-j,--jobs", validate_opts.jobs, "runs at once (default the number of cores)")
      ->check(CLI::Range(1, 4096));
  validate->add_option("--checks", validate_opts.checks_dir, "directory of suite files (default configs/validation/)");
  bool validate_no_plots = false;
  validate->add_flag("--no-plots", validate_no_plots, "write the tables only");

  CLI::App* collect =
      app.add_subcommand("collect", "rebuild a sweep's results.csv, results.sqlite and pareto.csv from its points");
  collect->add_option("dir", collect_dir, "sweep directory")->required();

  std::string task_dir;
  int task_round = 0, task_index = 0;
  CLI::App* sweep_task =
      app.add_subcommand("sweep-task", "run one Slurm array task of a sweep (used by its batch script)");
  sweep_task->group("");  // internal: not listed in --help
  sweep_task->add_option("dir", task_dir, "sweep directory")->required();
  sweep_task->add_option("--round", task_round, "round")->required();
  sweep_task->add_option("--task", task_index, "array task index")->required();

  std::vector<std::pair<CLI::App*, std::function<int()>>> registered;
  for (const CliCommand& c : registry.commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    registered.emplace_back(sub, c.define(*sub, registry));
  }

  std::string plot_kind;
  CLI::App* plot =
      app.add_subcommand("plot", "paper figures from a sweep: pareto, breakdown, roofline, heatmap, line, normalized");
  plot->add_option("kind", plot_kind, "pareto, breakdown, roofline, heatmap, line or normalized")->required();
  // Everything after KIND (the sweep directory and the plot's options, `strata plot KIND --help`)
  // goes to the script untouched.
  plot->prefix_command();
  plot->set_help_flag();  // so that `strata plot KIND --help` reaches the script

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
    install_memory_reserve();
    install_interrupt_handlers();
    init_systemc();
    if (run->parsed()) {
      if (const RunImporter* imp = chosen_importer(registry, imported, experiment))
        return cmd_run_imported(*imp, imported[static_cast<size_t>(imp - registry.run_importers().data())], output,
                                sets, quiet, registry);
      if (experiment.empty())
        throw InputError(SourceLoc{"strata run"}, "experiment",
                         fmt::format("an experiment file{} is required", importer_alternatives(registry)));
    }
    if (run->parsed())
      return cmd_run(experiment, sets, output, timeline, progress_on, progress_off, quiet, expect_hash, registry);
    if (sweep->parsed()) {
      if (!executor.empty()) sweep_opts.executor = executor;
      if (sweep->count("--jobs")) sweep_opts.jobs = jobs;
      if (retries >= 0) sweep_opts.retries = retries;
      if (max_parallel >= 0) sweep_opts.max_parallel = max_parallel;
      if (points_per_task >= 0) sweep_opts.points_per_task = points_per_task;
      if (!timeout.empty()) {
        try {
          sweep_opts.timeout_s = parse_quantity(timeout, UnitFamily::Time);
        } catch (const UnitError& e) {
          throw InputError(SourceLoc{"strata sweep"}, "--timeout", e.what());
        }
      }
      sweep_opts.submit = submit == "yes";
      sweep_opts.progress = progress_mode(sweep_progress_on, sweep_progress_off);
      sweep_opts.interrupt = &interrupt_flag();
      return run_sweep(sweep_file, sweep_opts, registry);
    }
    if (validate->parsed()) {
      validate_opts.plots = !validate_no_plots;
      std::vector<std::string> words(argv + 1, argv + argc);
      validate_opts.command = fmt::format("strata {}", fmt::join(words, " "));
      return run_validate(validate_opts, registry);
    }
    if (collect->parsed()) return collect_sweep(collect_dir);
    if (sweep_task->parsed()) return run_sweep_task(task_dir, task_round, task_index);
    if (plot->parsed()) return cmd_plot(plot_kind, plot->remaining());
    for (const auto& [sub, command] : registered)
      if (sub->parsed()) return command();
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
  } catch (const OutputError& e) {
    // The environment's fault (a full disk, an I/O error); the result being written was dropped
    // whole, and an older one in its directory is as it was.
    fmt::print(stderr, "strata: error: {}; nothing was changed in the result directory\n", e.what());
    return kExitInternalError;
  } catch (const std::bad_alloc&) {
    // The up-front checks (sim/memory_budget.h) catch the inputs known to be large; this is the
    // backstop for the rest, still one line and no abort trace.
    // No allocation here: formatting could throw bad_alloc again, out of main, and abort.
    std::fputs(kOutOfMemoryLine, stderr);
    return kExitBadInput;
  } catch (const std::exception& e) {
    // SystemC reports a coroutine stack it could not allocate (E518) as a report, not as
    // bad_alloc: the same shortage of memory, told the same way.
    if (std::strstr(e.what(), "failed to allocate stack memory")) {
      std::fputs(kOutOfMemoryLine, stderr);
      return kExitBadInput;
    }
    fmt::print(stderr, "strata: internal error: {}\n", e.what());
    return kExitInternalError;
  }
}

}  // namespace strata
