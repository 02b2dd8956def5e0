#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/sweep/executor.h"
#include "sim/app/sweep/point_runner.h"
#include "sim/app/sweep/sweep_plan.h"
#include "sim/app/sweep/sweep_progress.h"
#include "sim/input_error.h"
#include "sim/interrupt.h"
#include "sim/process.h"
#include "sim/results_writer.h"
#include "sim/text.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return std::string(trim(s));
}

// A round's tasks file: one line per array task, "point:hash" items separated by spaces.
std::string tasks_path(const std::string& dir, int round) {
  return (fs::path(dir) / "slurm" / fmt::format("round-{}.tasks", round)).string();
}

std::string write_round(const std::string& dir, int round, const std::vector<const ExecItem*>& items,
                        const ExecOptions& o) {
  const fs::path slurm = fs::path(dir) / "slurm";
  fs::create_directories(slurm / "logs");
  // Chunks keep the array within Slurm's default MaxArraySize (1001) unless told otherwise.
  const size_t per_task = o.slurm.points_per_task > 0 ? static_cast<size_t>(o.slurm.points_per_task)
                                                      : std::max<size_t>(1, (items.size() + 999) / 1000);
  std::string tasks;
  size_t n_tasks = 0;
  for (size_t i = 0; i < items.size(); i += per_task, ++n_tasks) {
    for (size_t j = i; j < std::min(items.size(), i + per_task); ++j)
      tasks += fmt::format("{}{}:{}", j == i ? "" : " ", items[j]->point, items[j]->hash);
    tasks += "\n";
  }
  write_file_atomic(tasks_path(dir, round), tasks);

  const std::string abs_dir = fs::absolute(dir).lexically_normal().string();
  std::string s = "#!/bin/bash\n";
  s +=
      fmt::format("# Strata sweep {}: round {}, {} points in {} array tasks.\n", o.label, round, items.size(), n_tasks);
  s += "# Submit with sbatch; collect with `strata collect " + abs_dir + "` once it is done.\n";
  s += fmt::format("#SBATCH --job-name=strata-{}\n", o.label);
  s += fmt::format("#SBATCH --array=0-{}{}\n", n_tasks - 1,
                   o.slurm.max_parallel > 0 ? fmt::format("%{}", o.slurm.max_parallel) : "");
  s += fmt::format("#SBATCH --output={}/slurm/logs/round-{}_%a.out\n", abs_dir, round);
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  if (!o.slurm.partition.empty()) s += "#SBATCH --partition=" + o.slurm.partition + "\n";
  if (!o.slurm.account.empty()) s += "#SBATCH --account=" + o.slurm.account + "\n";
  if (!o.slurm.time.empty()) s += "#SBATCH --time=" + o.slurm.time + "\n";
  if (!o.slurm.mem.empty()) s += "#SBATCH --mem=" + o.slurm.mem + "\n";
  for (const auto& e : o.slurm.extra) s += "#SBATCH " + e + "\n";
  s += fmt::format("exec {} sweep-task {} --round {} --task \"$SLURM_ARRAY_TASK_ID\"\n",
                   shell_quote(point_executable()), shell_quote(abs_dir), round);
  const std::string script = (slurm / fmt::format("round-{}.sbatch", round)).string();
  write_file_atomic(script, s);
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  return script;
}

// True while the job (any of its array tasks) is known to squeue.
bool job_listed(const std::string& job) {
  const ProcessResult c = run_process("squeue", {"-h", "-j", job, "-o", "%i"});
  if (c.exit_code != 0) {
    // A job that has aged out of slurmctld is "Invalid job id": gone.
    if (c.output.find("Invalid job id") != std::string::npos) return false;
    throw std::runtime_error("squeue failed: " + one_line(c.output));
  }
  return !trim(c.output).empty();
}

void wait_for_job(const std::string& job, const std::vector<const ExecItem*>& items, const ExecOptions& o,
                  SweepProgress& progress, ExecResult& result) {
  bool cancelled = false;
  while (true) {
    const bool listed = job_listed(job);
    int ok = 0, failed = 0;
    for (const ExecItem* i : items) {
      const PointState s = point_state(i->dir);
      ok += s == PointState::Ok;
      failed += s == PointState::Failed;
    }
    progress.update(o.done_before + result.ok + ok, o.failed_before + result.failed + failed,
                    static_cast<int>(items.size()) - ok - failed);
    if (!listed) return;
    if (!cancelled && o.interrupt && o.interrupt->load()) {
      run_process("scancel", {job});
      cancelled = true;
      result.interrupted = true;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(o.slurm.poll_s));
  }
}

// Resubmissions of one point after its task was preempted, before it counts as a failure.
constexpr int kMaxPreemptions = 20;

}  // namespace

ExecResult run_slurm(const std::string& dir, const std::vector<ExecItem>& items, const ExecOptions& o) {
  ExecResult result;
  std::vector<const ExecItem*> pending;
  for (const ExecItem& i : items) pending.push_back(&i);
  std::map<const ExecItem*, int> attempts, preemptions;
  SweepProgress progress(o.progress, o.label, o.done_before + o.failed_before + static_cast<int>(items.size()));
  // Rounds already in the directory (an earlier driver's) keep their files.
  int round = 0;
  while (fs::exists(tasks_path(dir, round))) ++round;
  while (!pending.empty()) {
    const std::string script = write_round(dir, round, pending, o);
    result.scripts.push_back(script);
    if (!o.submit) return result;
    const ProcessResult sb = run_process("sbatch", {"--parsable", script});
    const std::string job(trim(sb.output.substr(0, sb.output.find(';'))));
    if (sb.exit_code != 0 || job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(SourceLoc{script}, "slurm", "sbatch refused the job array: " + one_line(sb.output));
    write_file_atomic((fs::path(dir) / "slurm" / fmt::format("round-{}.job", round)).string(), job + "\n");
    wait_for_job(job, pending, o, progress, result);
    std::vector<const ExecItem*> again;
    for (const ExecItem* i : pending) {
      PointState s = point_state(i->dir);
      if (s == PointState::Ok) {
        ++result.ok;
        continue;
      }
      if (result.interrupted) continue;
      // A point stopped by SIGTERM (preemption, or a task's time limit reached) left its marker:
      // it runs again in the next round without using up a retry, a bounded number of times.
      std::error_code ec;
      if (s == PointState::Pending && fs::exists(fs::path(i->dir) / "interrupted.json", ec) &&
          ++preemptions[i] <= kMaxPreemptions) {
        again.push_back(i);
        continue;
      }
      if (s == PointState::Pending)
        record_lost(
            i->dir, i->point, i->hash,
            fmt::format("its Slurm array task (job {}, round {}) ended before the point did (time limit, memory "
                        "limit or node failure; see slurm/logs/)",
                        job, round));
      if (++attempts[i] <= o.retries) again.push_back(i);
      else ++result.failed;
    }
    if (result.interrupted) break;
    pending.swap(again);
    ++round;
  }
  progress.finish();
  return result;
}

int run_sweep_task(const std::string& dir, int round, int task) {
  // SIGTERM (preemption, the task's time limit) reaches the running point, which leaves its
  // interrupted.json; no further point starts, and the driver submits the rest again.
  set_interrupt_phase(InterruptPhase::Cooperative);
  const SweepPlan plan = read_plan(dir);
  std::ifstream in(tasks_path(dir, round));
  if (!in) throw InputError(SourceLoc{tasks_path(dir, round)}, "", "no such file");
  std::string line;
  for (int i = 0; i <= task; ++i)
    if (!std::getline(in, line))
      throw InputError(SourceLoc{tasks_path(dir, round)}, "", fmt::format("has no task {}", task));
  std::istringstream items(line);
  std::string item;
  while (items >> item) {
    if (interrupt_flag().load()) return interrupt_exit_code();
    const size_t colon = item.find(':');
    const int point = std::stoi(item.substr(0, colon));
    const std::string hash = item.substr(colon + 1);
    const std::string pdir = (fs::path(dir) / hash.substr(0, 16)).string();
    while (true) {
      PointProcess p;
      const auto started = p.start(pdir, hash, plan.timeout_s);
      if (started == PointProcess::Start::AlreadyDone) break;
      if (started == PointProcess::Start::Busy) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      const PointOutcome o = p.wait(&interrupt_flag());
      if (!o.interrupted) record_outcome(pdir, point, hash, o);
      // A point stopped before its run began writing (still elaborating, or a wrapper not yet
      // past its own start) ends without a marker of its own; it was preempted all the same, so
      // the task leaves the marker the driver reads, and the point is not counted as lost.
      std::error_code ec;
      if (o.interrupted && !fs::exists(fs::path(pdir) / "interrupted.json", ec)) {
        nlohmann::ordered_json marker;
        marker["status"] = "interrupted";
        marker["point"] = point;
        marker["stage"] = "before the run began writing";
        write_file_atomic((fs::path(pdir) / "interrupted.json").string(), marker.dump(2) + "\n");
      }
      fmt::print("point {} ({}): {}\n", point, hash.substr(0, 16),
                 o.ok            ? "ok"
                 : o.interrupted ? "interrupted"
                                 : "failed");
      break;
    }
  }
  return interrupt_flag().load() ? interrupt_exit_code() : 0;
}

}  // namespace strata
