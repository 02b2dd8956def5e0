// Runs one resolved experiment in this process (SystemC elaborates once per process) and
// writes its result directory:
// Every file is written into a staging directory and moved into place only when all are
// written (sim/app/result_dir.h): a failure leaves an older result in the directory as it was, and
// a second run into the same directory is refused while one is writing.
//   config.yaml    the resolved configuration (extends, overrides and defaults applied)
//   stats.json     every statistic, nested by hierarchical name; byte-identical across reruns
//   timeline.json  on request (sim.timeline or --timeline): Chrome trace events for Perfetto
//   summary.json   headline figures; written last, so its presence marks a complete result
//   interrupted.json  instead of the others when SIGINT or SIGTERM stopped the run: experiment,
//                  config_hash, status "interrupted", simulated_time_s and progress reached (a
//                  partial-results marker; an older result's files in the directory are removed)
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/experiment.h"
#include "sim/app/progress.h"
#include "sim/app/result_dir.h"

namespace strata {

class Registry;

struct RunOptions {
  std::optional<std::string> output_dir;         // default results/<name>/<first 16 hash digits>
  std::optional<bool> timeline;                  // overrides sim.timeline
  std::optional<ProgressMode> progress;          // overrides sim.progress
  const std::atomic<bool>* interrupt = nullptr;  // set asynchronously (SIGINT, SIGTERM) to stop
  // Writes further files of the result (SCALE-Sim's reports) into the staging directory
  // (ResultDir::staged) before the result is committed.
  std::function<void(const ResultDir&)> extra_files;
};

struct RunResult {
  std::string dir;
  nlohmann::ordered_json summary;
  bool interrupted = false;  // only interrupted.json was written
};

// Default result directory of an experiment.
std::string default_result_dir(const ResolvedExperiment& exp);

// Throws InputError for problems found during elaboration or simulation (exit code 2); writes
// nothing unless the run completes.
RunResult run_experiment(const ResolvedExperiment& exp, const Registry& registry, const RunOptions& options);

}  // namespace strata
