// Executors run a list of sweep points and return when each has a result, has failed its
// retries, or the sweep was interrupted. Both leave the same per-point files (point_runner.h).
//   local  a pool of `--jobs` processes on this machine
//   slurm  one job array per round (sbatch --array=0-N%M), each task running a chunk of points
//          in turn (`strata sweep-task`); squeue is polled until the array is gone, points
//          without a result are recorded as failed and resubmitted in a new round while they
//          have retries left
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "sim/app/progress.h"
#include "sim/app/sweep/sweep_spec.h"

namespace strata {

struct ExecItem {
  int point = 0;
  std::string hash;
  std::string dir;  // the point's directory
};

struct ExecOptions {
  int jobs = 1;
  double timeout_s = 0;
  int retries = 1;
  ProgressMode progress = ProgressMode::Auto;
  std::string label;
  const std::atomic<bool>* interrupt = nullptr;
  // Counted in the progress bar as already finished.
  int done_before = 0, failed_before = 0;
  // slurm
  SlurmOptions slurm;
  bool submit = true;
};

struct ExecResult {
  int ok = 0, failed = 0;
  bool interrupted = false;
  std::vector<std::string> scripts;  // slurm: batch scripts written (and submitted, if submit)
};

ExecResult run_local(const std::vector<ExecItem>& items, const ExecOptions& options);
ExecResult run_slurm(const std::string& sweep_dir, const std::vector<ExecItem>& items, const ExecOptions& options);

// One Slurm array task: runs the points of task `task` in round `round` of the sweep in
// `sweep_dir`, one after another (`strata sweep-task`).
int run_sweep_task(const std::string& sweep_dir, int round, int task);

}  // namespace strata
