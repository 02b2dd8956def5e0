#include "sim/app/validation/validate_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "sim/app/result_dir.h"
#include "sim/app/validation/validation_catalog.h"
#include "sim/app/validation/validation_report.h"
#include "sim/input_error.h"
#include "sim/interrupt.h"
#include "sim/process.h"
#include "sim/results_writer.h"
#include "sim/text.h"

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

// A child `strata run` that could not write its result (a full disk, `ulimit -f`: its OutputError
// line) fails the whole report: a report of checks that could not write is no report.
constexpr std::string_view kUnwrittenSuffix = "; nothing was changed in the result directory";

std::optional<std::string> write_failure(const ProcessResult& p) {
  if (p.exit_code != kExitInternalError) return std::nullopt;
  std::string line = last_line(p.output);
  if (line.size() < kUnwrittenSuffix.size() ||
      line.compare(line.size() - kUnwrittenSuffix.size(), kUnwrittenSuffix.size(), kUnwrittenSuffix) != 0)
    return std::nullopt;
  line.erase(line.size() - kUnwrittenSuffix.size());
  const std::string prefix = "strata: error: ";
  if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
  return line;
}

// Runs every planned run, `jobs` at a time, each `strata run` in its own process. Returns false
// when an interrupt stopped it: no run starts after the signal, the running ones get it and are
// waited for. An exception in a worker (a run that could not write, a path that cannot be made)
// stops the others from starting and is thrown here once all have ended.
bool execute(std::vector<PlannedRun>& runs, int jobs, const std::atomic<bool>* interrupt) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex print;
  std::exception_ptr failure;
  size_t done = 0;
  auto stopped = [&] { return stop.load() || (interrupt && interrupt->load()); };
  auto worker = [&] {
    try {
      for (size_t i; !stopped() && (i = next++) < runs.size();) {
        PlannedRun& r = runs[i];
        const auto start = std::chrono::steady_clock::now();
        std::error_code ec;
        fs::create_directories(fs::path(r.dir).parent_path(), ec);
        if (ec)
          throw OutputError(fmt::format("cannot create {}: {}", fs::path(r.dir).parent_path().string(), ec.message()));
        const ProcessResult p = run_process(self, r.run.args(r.dir), "", interrupt);
        if (interrupt && interrupt->load()) return;  // its result does not count
        if (const auto why = write_failure(p))
          throw OutputError(fmt::format("the run of {} could not write: {}", r.label, *why));
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
    } catch (...) {
      std::lock_guard<std::mutex> lock(print);
      if (!failure) failure = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, std::min<int>(jobs, static_cast<int>(runs.size()))); ++j) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return !(interrupt && interrupt->load());
}

void draw_plots(const std::string& out, const std::atomic<bool>* interrupt) {
  const fs::path script = fs::path(scripts_dir()) / "plot_validation.py";
  const ProcessResult p = run_process(script_python(), {script.string(), out}, "", interrupt);
  if (interrupt && interrupt->load()) return;
  // The environment's fault (a full disk, matplotlib missing): one line, exit 1, and the
  // staged report is dropped whole.
  if (p.exit_code != 0)
    throw OutputError(fmt::format("the plots failed ({}): {}", script.string(), last_line(p.output)));
}

// The parts of a report, validation.json (the marker of a complete one) first.
const std::vector<std::string>& report_parts() {
  static const std::vector<std::string> parts = {"validation.json", "validation.csv", "report.md", "runs", "plots"};
  return parts;
}

// The staged report's paths, validation.json last: whole parts replacing an older report, or,
// in a directory without one, each run and figure on its own (what else is there stays).
std::vector<std::string> staged_paths(const std::string& staging, bool whole) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = report_parts().rbegin(); it != report_parts().rend(); ++it) {
    const fs::path p = fs::path(staging) / *it;
    if (!fs::exists(p, ec)) continue;
    if (whole || !fs::is_directory(p, ec)) {
      out.push_back(*it);
      continue;
    }
    // runs/SUITE/CHECK and plots/FILE
    const int depth = *it == "runs" ? 2 : 1;
    std::vector<std::string> level = {*it};
    for (int d = 0; d < depth; ++d) {
      std::vector<std::string> below;
      for (const std::string& l : level)
        for (const auto& e : fs::directory_iterator(fs::path(staging) / l, ec))
          below.push_back((fs::path(l) / e.path().filename()).string());
      level = std::move(below);
    }
    std::sort(level.begin(), level.end());
    out.insert(out.end(), level.begin(), level.end());
  }
  return out;
}

}  // namespace

int run_validate(const ValidateOptions& options, const Registry& registry) {
  const auto start = std::chrono::steady_clock::now();
  const std::string dir =
      options.checks_dir.empty() ? (fs::path(STRATA_SOURCE_DIR) / "configs/validation").string() : options.checks_dir;
  const std::vector<ValidationSuite> all = load_validation_suites(dir);
  const std::vector<const ValidationSuite*> suites = chosen_suites(all, options.suites, dir);
  std::vector<const ValidationCheck*> checks;
  for (const ValidationSuite* s : suites)
    for (const ValidationCheck& c : s->checks)
      if (!options.quick || c.quick) checks.push_back(&c);
  if (checks.empty())
    throw InputError(SourceLoc{"strata validate"}, "--quick", "the chosen suites have no quick checks");
  // Every input is checked before the output directory is touched: the suite files (above), the
  // technology tables the tech checks read (an unknown node is the suite file's error, exit 2),
  // the output directory.
  std::map<const ValidationCheck*, double> tech_figures;
  for (const ValidationCheck* c : checks)
    if (c->tech) tech_figures[c] = validation_figure(*c, nullptr, nullptr, registry);
  check_result_dir(options.output, "-o");

  // From here on the report is written into DIR/.staging-<pid>/ (the runs too) and replaces an
  // older one only once it is complete: a failure or an interrupt drops the staged report and
  // leaves the older one as it was (sim/app/result_dir.h).
  const std::atomic<bool>* interrupt = &interrupt_flag();
  set_interrupt_phase(InterruptPhase::Cooperative);
  ResultDir out(options.output, "-o");
  const std::string staging = out.staged("");
  const auto interrupted = [&] {
    return report_interrupted(
        fmt::format("strata: validate interrupted; the report in {} was left as it was\n", options.output));
  };

  // One run per distinct command line: checks that read the same run share it.
  std::vector<PlannedRun> runs;
  std::map<std::string, size_t> by_key;
  auto plan = [&](const ValidationRun& r, const std::string& name, const ValidationCheck& c) {
    auto [it, fresh] = by_key.emplace(r.key(), runs.size());
    if (fresh) {
      PlannedRun p;
      p.run = r;
      p.dir = (fs::path(staging) / "runs" / c.suite / name).string();
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
  if (!execute(runs, options.jobs > 0 ? options.jobs : static_cast<int>(cores ? cores : 2), interrupt))
    return interrupted();

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
        o.model = c->tech ? tech_figures.at(c)
                          : validation_figure(*c, run ? &*runs[*run].result : nullptr,
                                              base ? &*runs[*base].result : nullptr, registry);
        o.status = validation_status(*c, *o.model);
      } catch (const InputError& e) {
        o.status = "error", o.message = e.what();
      }
    }
    in.outcomes.push_back(std::move(o));
  }
  in.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  write_file_atomic(out.staged("validation.csv"), validation_csv(in));
  write_file_atomic(out.staged("validation.json"), validation_json(in).dump(2) + "\n");
  write_file_atomic(out.staged("report.md"), validation_markdown(in));
  if (options.plots) draw_plots(staging, interrupt);
  if (interrupt->load()) return interrupted();
  // A previous report in the directory is replaced whole (its runs and figures of suites not
  // chosen now included); a directory that holds no report keeps what it holds but for ours.
  const bool older = fs::exists(fs::path(options.output) / "validation.json");
  const std::vector<std::string> install = staged_paths(staging, older);
  std::vector<std::string> aside = older ? report_parts() : install;
  if (!older) std::reverse(aside.begin(), aside.end());
  out.commit_replacing(aside, install);

  int bad = 0;
  fmt::print("{:<10} {:>6} {:>6} {:>6} {:>8} {:>6} {:>9} {:>9}\n", "suite", "checks", "passed", "failed", "reported",
             "errors", "MAPE", "max err");
  for (const ValidationSuite* s : suites) {
    const std::vector<ValidationOutcome> mine = suite_outcomes(in, s->name);
    if (mine.empty()) continue;
    const ValidationSuiteSummary sum = summarize(mine);
    bad += sum.failed + sum.errors;
    fmt::print("{:<10} {:>6} {:>6} {:>6} {:>8} {:>6} {:>8.2f}% {:>8.2f}%\n", s->name, sum.checks, sum.passed,
               sum.failed, sum.reported, sum.errors, 100 * sum.mape.value_or(0), 100 * sum.max_error.value_or(0));
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
