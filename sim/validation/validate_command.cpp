#include "sim/validation/validate_command.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/process.h"
#include "sim/result_dir.h"
#include "sim/results_writer.h"
#include "sim/text.h"
#include "sim/validation/validation_catalog.h"
#include "sim/validation/validation_report.h"

namespace strata {
namespace fs = std::filesystem;
namespace {

struct PlannedRun {
  ValidationRun run;
  std::string dir;
  std::string label;  // suite/check
  bool ok = false;
  std::string message;  // the run's last line of output when it failed
  std::optional<ValidationRunResult> result;
};

std::vector<const ValidationSuite*> chosen_suites(const std::vector<ValidationSuite>& all,
                                                  const std::vector<std::string>& wanted, const std::string& dir) {
  std::vector<std::string> names;
  for (const ValidationSuite& s : all) names.push_back(s.name);
  std::vector<const ValidationSuite*> out;
  bool every = wanted.empty();
  for (const std::string& w : wanted) every = every || w == "all";
  for (const ValidationSuite& s : all)
    if (every || std::find(wanted.begin(), wanted.end(), s.name) != wanted.end()) out.push_back(&s);
  for (const std::string& w : wanted)
    if (w != "all" && std::find(names.begin(), names.end(), w) == names.end())
      throw InputError(SourceLoc{"strata validate"}, "--suite",
                       fmt::format("no suite \"{}\" in {} (suites: {}, all)", w, dir, fmt::join(names, ", ")));
  return out;
}

std::string last_line(const std::string& text) {
  const std::vector<std::string> lines = split(std::string(trim(text)), '\n');
  return lines.empty() ? "" : lines.back();
}

// Runs every planned run, `jobs` at a time, each `strata run` in its own process.
void execute(std::vector<PlannedRun>& runs, int jobs) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::atomic<size_t> next{0};
  std::mutex print;
  size_t done = 0;
  auto worker = [&] {
    for (size_t i; (i = next++) < runs.size();) {
      PlannedRun& r = runs[i];
      const auto start = std::chrono::steady_clock::now();
      fs::remove_all(r.dir);
      fs::create_directories(fs::path(r.dir).parent_path());
      const ProcessResult p = run_process(self, r.run.args(r.dir));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      r.ok = p.exit_code == 0;
      if (r.ok) {
        try {
          r.result = read_validation_run(r.dir);
        } catch (const std::exception& e) {
          r.ok = false, r.message = e.what();
        }
      } else {
        r.message = fmt::format("strata run exited {}: {}", p.exit_code, last_line(p.output));
      }
      std::lock_guard<std::mutex> lock(print);
      fmt::print(stderr, "validate: [{}/{}] {} {:.1f} s{}\n", ++done, runs.size(), r.label, s, r.ok ? "" : " FAILED");
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, std::min<int>(jobs, static_cast<int>(runs.size()))); ++j) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
}

void draw_plots(const std::string& out) {
  const fs::path script = fs::path(scripts_dir()) / "plot_validation.py";
  const ProcessResult p = run_process(script_python(), {script.string(), out});
  if (p.exit_code != 0)
    throw std::runtime_error(fmt::format("validate: the plots failed ({}): {}", script.string(), last_line(p.output)));
}

}  // namespace

int run_validate(const ValidateOptions& options, const Registry& registry) {
  const auto start = std::chrono::steady_clock::now();
  const std::string dir = options.checks_dir.empty() ? (fs::path(STRATA_SOURCE_DIR) / "configs/validation").string()
                                                     : options.checks_dir;
  const std::vector<ValidationSuite> all = load_validation_suites(dir);
  const std::vector<const ValidationSuite*> suites = chosen_suites(all, options.suites, dir);
  std::vector<const ValidationCheck*> checks;
  for (const ValidationSuite* s : suites)
    for (const ValidationCheck& c : s->checks)
      if (!options.quick || c.quick) checks.push_back(&c);
  if (checks.empty())
    throw InputError(SourceLoc{"strata validate"}, "--quick", "the chosen suites have no quick checks");
  check_result_dir(options.output, "-o");
  // A previous report in the directory is replaced whole (its runs and figures of suites not
  // chosen now included); a directory that holds no report is left as it is but for ours.
  if (fs::exists(fs::path(options.output) / "validation.json"))
    for (const char* part : {"runs", "plots", "validation.json", "validation.csv", "report.md"})
      fs::remove_all(fs::path(options.output) / part);

  // One run per distinct command line: checks that read the same run share it.
  std::vector<PlannedRun> runs;
  std::map<std::string, size_t> by_key;
  auto plan = [&](const ValidationRun& r, const std::string& name, const ValidationCheck& c) {
    auto [it, fresh] = by_key.emplace(r.key(), runs.size());
    if (fresh) {
      PlannedRun p;
      p.run = r;
      p.dir = (fs::path(options.output) / "runs" / c.suite / name).string();
      p.label = c.suite + "/" + name;
      runs.push_back(std::move(p));
    }
    return it->second;
  };
  std::map<const ValidationCheck*, std::pair<std::optional<size_t>, std::optional<size_t>>> uses;
  for (const ValidationCheck* c : checks) {
    if (c->run) uses[c].first = plan(*c->run, c->id, *c);
    if (c->baseline) uses[c].second = plan(*c->baseline, c->id + "-baseline", *c);
  }
  const unsigned cores = std::thread::hardware_concurrency();
  execute(runs, options.jobs > 0 ? options.jobs : static_cast<int>(cores ? cores : 2));

  ValidationReportInput in;
  in.suites = suites;
  in.quick = options.quick;
  in.command = options.command;
  for (const ValidationCheck* c : checks) {
    ValidationOutcome o;
    o.check = c;
    const auto& [run, base] = uses[c];
    const PlannedRun* failed = nullptr;
    for (const auto& i : {run, base})
      if (i && !runs[*i].ok) failed = &runs[*i];
    if (failed) {
      o.status = "error", o.message = failed->message;
    } else {
      try {
        o.model = validation_figure(*c, run ? &*runs[*run].result : nullptr, base ? &*runs[*base].result : nullptr,
                                    registry);
        o.status = validation_status(*c, *o.model);
      } catch (const InputError& e) {
        o.status = "error", o.message = e.what();
      }
    }
    in.outcomes.push_back(std::move(o));
  }
  in.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  fs::create_directories(options.output);
  write_file_atomic((fs::path(options.output) / "validation.csv").string(), validation_csv(in));
  write_file_atomic((fs::path(options.output) / "validation.json").string(), validation_json(in).dump(2) + "\n");
  write_file_atomic((fs::path(options.output) / "report.md").string(), validation_markdown(in));
  if (options.plots) draw_plots(options.output);

  int bad = 0;
  fmt::print("{:<10} {:>6} {:>6} {:>6} {:>8} {:>6} {:>9} {:>9}\n", "suite", "checks", "passed", "failed", "reported",
             "errors", "MAPE", "max err");
  for (const ValidationSuite* s : suites) {
    const std::vector<ValidationOutcome> mine = suite_outcomes(in, s->name);
    if (mine.empty()) continue;
    const ValidationSuiteSummary sum = summarize(mine);
    bad += sum.failed + sum.errors;
    fmt::print("{:<10} {:>6} {:>6} {:>6} {:>8} {:>6} {:>8.2f}% {:>8.2f}%\n", s->name, sum.checks, sum.passed, sum.failed,
               sum.reported, sum.errors, 100 * sum.mape.value_or(0), 100 * sum.max_error.value_or(0));
  }
  for (const ValidationOutcome& o : in.outcomes) {
    if (o.status == "fail")
      fmt::print(stderr, "validate: FAILED {}/{}: {} {} against {} {} ({:+.2f}%, tolerance -{:g}%/+{:g}%)\n",
                 o.check->suite, o.check->id, fmt::format("{:.6g}", *o.model), o.check->unit, o.check->reference,
                 o.check->unit, 100 * o.check->error(*o.model), 100 * o.check->below, 100 * o.check->above);
    else if (o.status == "error")
      fmt::print(stderr, "validate: ERROR {}/{}: {}\n", o.check->suite, o.check->id, o.message);
  }
  fmt::print("validation: {} ({:.0f} s)\n", options.output, in.wall_time_s);
  return bad ? kValidationFailedExitCode : 0;
}

}  // namespace strata
