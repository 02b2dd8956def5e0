#include "sim/app/sweep/sweep_driver.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/app/result_dir.h"
#include "sim/app/sweep/executor.h"
#include "sim/app/sweep/expansion.h"
#include "sim/app/sweep/pareto.h"
#include "sim/app/sweep/point_runner.h"
#include "sim/app/sweep/results_store.h"
#include "sim/app/sweep/sweep_plan.h"
#include "sim/interrupt.h"
#include "sim/results_writer.h"
#include "sim/text.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

void print_points(const SweepSpec& spec, const Expansion& e) {
  std::vector<size_t> width;
  for (const Axis& a : spec.axes) width.push_back(a.column.size());
  for (const SweepPoint& p : e.points)
    for (size_t a = 0; a < p.labels.size(); ++a) width[a] = std::max(width[a], p.labels[a].size());
  std::string head = fmt::format("{:<6} {:<32} {:<9}", "point", "hash", "fidelity");
  for (size_t a = 0; a < spec.axes.size(); ++a) head += fmt::format(" {:<{}}", spec.axes[a].column, width[a]);
  fmt::print("{}\n", head);
  for (const SweepPoint& p : e.points) {
    std::string line = fmt::format("{:<6} {:<32} {:<9}", p.index, p.hash, p.fidelity);
    for (size_t a = 0; a < p.labels.size(); ++a) line += fmt::format(" {:<{}}", p.labels[a], width[a]);
    fmt::print("{}\n", line);
  }
}

std::string describe(const SweepSpec& spec, const Expansion& e) {
  std::string s = fmt::format("{} points ({} over {} axes", e.points.size(), spec.method, spec.axes.size());
  if (e.dropped) s += fmt::format("; {} dropped by the constraints", e.dropped);
  if (e.duplicates) s += fmt::format("; {} duplicates of other points' configurations", e.duplicates);
  return s + ")";
}

// Holds DIR/.sweep.lock for the driver's lifetime: one driver per sweep directory.
class DirLock {
 public:
  explicit DirLock(const std::string& dir) {
    const std::string path = (fs::path(dir) / ".sweep.lock").string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX | LOCK_NB) != 0)
      throw InputError(SourceLoc{dir}, "", "another strata sweep is running in this directory");
  }
  ~DirLock() { ::close(fd_); }

 private:
  int fd_ = -1;
};

// The sweep directory as the expansion fills it, one point directory (point.yaml) at a time
// (the second stage's points too). Until commit(), a failure (a bad point, an interrupt)
// removes what it made, so a sweep file that fails to expand leaves nothing behind.
class SweepDirWriter {
 public:
  explicit SweepDirWriter(std::string dir) : dir_(std::move(dir)) {}
  ~SweepDirWriter() {
    if (committed_) return;
    try {
      std::error_code ec;
      for (const auto& d : made_) fs::remove_all(d, ec);
      if (made_dir_) {
        lock_.reset();
        fs::remove_all(dir_, ec);
      }
    } catch (...) {  // a destructor must not throw (memory may have run out)
    }
  }
  void open() {
    if (lock_) return;
    check_result_dir(dir_, "-o");  // not a file, writable
    std::error_code ec;
    if (!fs::exists(dir_, ec)) {
      fs::create_directories(dir_);
      made_dir_ = true;
    }
    lock_ = std::make_unique<DirLock>(dir_);
  }
  void point(const SweepPoint& p) {
    open();
    const fs::path d = fs::path(dir_) / p.dir();
    std::error_code ec;
    if (fs::create_directory(d, ec)) made_.push_back(d.string());
    const fs::path yaml = d / "point.yaml";
    // Not synced: a point file lost in a crash is written again by the next run of the sweep
    // (and a damaged one fails its --expect-hash check), and a million fsyncs take minutes.
    if (read_text_file(yaml.string()) != p.yaml) write_file_atomic(yaml.string(), p.yaml, false);
  }
  void commit() { committed_ = true; }

 private:
  std::string dir_;
  std::unique_ptr<DirLock> lock_;
  std::vector<std::string> made_;
  bool made_dir_ = false, committed_ = false;
};

struct StageRun {
  ExecResult exec;
  int done_before = 0, failed_before = 0;
};

StageRun run_stage(const std::string& dir, const std::vector<SweepPoint>& points, const SweepSpec& spec,
                   const SweepOptions& opts, const std::string& label) {
  StageRun run;
  std::vector<ExecItem> items;
  for (const SweepPoint& p : points) {
    const std::string pdir = (fs::path(dir) / p.dir()).string();
    const PointState s = point_state(pdir);
    if (s == PointState::Ok) ++run.done_before;
    else if (s == PointState::Failed && !opts.resume) ++run.failed_before;
    else items.push_back(ExecItem{p.index, p.hash, pdir});
  }
  ExecOptions o;
  o.jobs = spec.jobs > 0 ? spec.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.timeout_s = spec.timeout_s;
  o.retries = spec.retries;
  o.progress = opts.progress;
  o.label = label;
  o.interrupt = opts.interrupt;
  o.done_before = run.done_before;
  o.failed_before = run.failed_before;
  o.slurm = spec.slurm;
  o.submit = opts.submit;
  if (items.empty()) return run;
  run.exec = spec.executor == "slurm" ? run_slurm(dir, items, o) : run_local(items, o);
  return run;
}

// Second-stage candidates: the best top_k screened points by the first objective, and/or the
// screened Pareto front.
std::vector<size_t> select_for_cycle(const std::string& dir, const SweepSpec& spec, const SweepPlan& plan,
                                     const std::vector<SweepPoint>& screened) {
  std::vector<size_t> ok;
  std::vector<std::vector<double>> values;
  for (size_t i = 0; i < screened.size(); ++i) {
    const auto it = std::find_if(plan.points.begin(), plan.points.end(),
                                 [&](const PlanEntry& e) { return e.stage == 1 && e.hash == screened[i].hash; });
    std::vector<double> v;
    for (const Objective& o : spec.objectives) v.push_back(point_figure(dir, plan, *it, o.key));
    if (std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); })) continue;
    ok.push_back(i);
    values.push_back(v);
  }
  std::vector<size_t> chosen;
  if (spec.top_k > 0) {
    std::vector<size_t> order(ok.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const bool min = spec.objectives.front().minimize;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return min ? values[a][0] < values[b][0] : values[a][0] > values[b][0];
    });
    for (size_t i = 0; i < order.size() && static_cast<int>(i) < spec.top_k; ++i) chosen.push_back(ok[order[i]]);
  }
  if (spec.front) {
    std::vector<bool> minimize;
    for (const Objective& o : spec.objectives) minimize.push_back(o.minimize);
    for (int i : pareto_front(values, minimize)) chosen.push_back(ok[static_cast<size_t>(i)]);
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  return chosen;
}

void print_collect(const std::string& dir, const CollectResult& r, bool two_stage) {
  fmt::print("{} ok, {} failed{}; {} on the Pareto front\n", r.ok, r.failed,
             r.pending ? fmt::format(", {} not run yet", r.pending) : "", r.pareto);
  if (two_stage && r.pairs > 0)
    fmt::print("analytic vs cycle ranking: {} of {} pairs ordered differently (Kendall tau {:.3f}); see ranking.csv\n",
               r.disagreements, r.pairs, r.kendall_tau);
  fmt::print("results: {}\n", (fs::path(dir) / "results.csv").string());
}

}  // namespace

int run_sweep(const std::string& file, const SweepOptions& opts, const Registry& registry) {
  SweepSpec spec = load_sweep(file, opts.sets);
  if (opts.executor) spec.executor = *opts.executor;
  if (opts.jobs) spec.jobs = *opts.jobs;
  if (opts.retries) spec.retries = *opts.retries;
  if (opts.timeout_s) spec.timeout_s = *opts.timeout_s;
  SlurmOptions& s = spec.slurm;
  if (!opts.slurm.partition.empty()) s.partition = opts.slurm.partition;
  if (!opts.slurm.account.empty()) s.account = opts.slurm.account;
  if (!opts.slurm.time.empty()) s.time = opts.slurm.time;
  if (!opts.slurm.mem.empty()) s.mem = opts.slurm.mem;
  for (const auto& e : opts.slurm.extra) s.extra.push_back(e);
  if (opts.max_parallel) s.max_parallel = *opts.max_parallel;
  if (opts.points_per_task) s.points_per_task = *opts.points_per_task;
  if (spec.two_stage() && spec.executor == "slurm" && !opts.submit)
    throw InputError(SourceLoc{file}, "sweep.two_stage",
                     "a two-stage sweep cannot be written as one batch script (the second stage depends on the first's "
                     "results); use --submit=yes or the local executor");

  // Interrupts are noticed between points, of the expansion and of the runs.
  set_interrupt_phase(InterruptPhase::Cooperative);
  const std::string dir = opts.output.empty() ? (fs::path("results") / spec.name).string() : opts.output;
  SweepDirWriter out(dir);
  ExpandOptions expand;
  if (!opts.dry_run) expand.sink = [&](const SweepPoint& p) { out.point(p); };
  expand.progress = opts.progress;
  expand.interrupt = opts.interrupt;
  Expansion e;
  try {
    e = expand_sweep(spec, registry, spec.two_stage() ? "analytic" : "", expand);
  } catch (const Interrupted&) {
    return report_interrupted("strata: sweep interrupted while its points were being expanded; nothing was written\n");
  }
  if (opts.dry_run) {
    fmt::print("{}: {}{}\n", spec.name, describe(spec, e),
               spec.two_stage() ? "; screened analytically, the best then at cycle level" : "");
    print_points(spec, e);
    return 0;
  }
  out.open();
  SweepPlan plan = make_plan(spec);
  add_points(plan, e.points, 1);
  write_plan(dir, plan);
  out.commit();
  fmt::print("sweep {}: {}, {} executor -> {}\n", spec.name, describe(spec, e), spec.executor, dir);

  StageRun first = run_stage(dir, e.points, spec, opts, spec.two_stage() ? spec.name + " (analytic)" : spec.name);
  if (spec.executor == "slurm" && !opts.submit) {
    for (const auto& script : first.exec.scripts) fmt::print("wrote {}\n", script);
    fmt::print("submit it with `sbatch {}`; once it is done, `strata collect {}` gathers the results\n",
               first.exec.scripts.empty() ? "" : first.exec.scripts.front(), dir);
    return 0;
  }
  bool interrupted = first.exec.interrupted;
  if (spec.two_stage() && !interrupted) {
    std::vector<SweepPoint> second;
    for (size_t i : select_for_cycle(dir, spec, plan, e.points))
      second.push_back(refidelity(spec, e.points[i], registry, "cycle"));
    fmt::print("{} screened points go on to cycle level\n", second.size());
    add_points(plan, second, 2);
    for (const SweepPoint& p : second) out.point(p);
    write_plan(dir, plan);
    interrupted = run_stage(dir, second, spec, opts, spec.name + " (cycle)").exec.interrupted;
  }
  const CollectResult r = collect_results(dir, plan);
  if (interrupted) {
    return report_interrupted(
        fmt::format("strata: sweep interrupted; `strata sweep {} --resume` continues it\n", file));
  }
  print_collect(dir, r, plan.two_stage);
  return r.failed > 0 ? kExitPointsFailed : 0;
}

int collect_sweep(const std::string& dir) {
  const SweepPlan plan = read_plan(dir);
  print_collect(dir, collect_results(dir, plan, /*refuse_damaged=*/true), plan.two_stage);
  return 0;
}

}  // namespace strata
