// `strata sweep` and `strata collect`: expand a sweep, write its plan, run the points that have
// no result with an executor (two stages for two_stage sweeps), and rebuild the results store.
//
// Exit codes: 0 every point ok; 3 the sweep finished but some points failed (see results.csv
// and each point's failed.json); 2 bad input (before any point runs); 130 / 143 interrupted (SIGINT /
// SIGTERM).
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/progress.h"
#include "sim/app/sweep/sweep_spec.h"

namespace strata {

class Registry;

inline constexpr int kExitPointsFailed = 3;

struct SweepOptions {
  std::string output;             // default results/<name>/
  std::vector<std::string> sets;  // --set key=value on the experiment, before the axes
  std::optional<std::string> executor;
  std::optional<int> jobs, retries;
  std::optional<double> timeout_s;
  bool resume = false;   // also retry points recorded as failed
  bool dry_run = false;  // list the points and their hashes; write nothing
  bool submit = true;    // slurm: submit (false: only write the batch script)
  ProgressMode progress = ProgressMode::Auto;
  // slurm: command-line values override the sweep file's where set
  SlurmOptions slurm;
  std::optional<int> max_parallel, points_per_task;
  const std::atomic<bool>* interrupt = nullptr;
};

int run_sweep(const std::string& file, const SweepOptions& options, const Registry& registry);
int collect_sweep(const std::string& dir);

}  // namespace strata
