// A run's result directory, written as one transaction, so that a run never leaves a result
// that is mixed, half written or another run's:
//   - check_result_dir() refuses a place that cannot hold results (a file, a special file, a
//     place this user cannot write, a name too long) before any work is done;
//   - ResultDir locks the directory (flock on the directory itself) for the process's lifetime:
//     a second run into the same directory stops at once with one line instead of mixing files;
//   - every file of the new result is written into DIR/.staging-<pid>/ first; only when all of
//     them are written does commit() move them into place (summary.json, the marker of a
//     complete result, last, after an older result's summary.json and stale files are gone);
//   - a failure before commit() (a full disk, a JSON error, memory, an exception of any kind)
//     removes the staging directory and leaves the older result exactly as it was.
// Staging directories left by a killed process are removed by the next run into DIR; a second
// SIGINT/SIGTERM (an immediate exit, sim/interrupt.h) removes this process's own first, and so
// does a failure when memory has run out (the removal allocates nothing).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/interrupt.h"

namespace strata {

// Throws InputError (naming `option`, e.g. "-o") when `dir` cannot be a result directory: it
// exists and is not a directory, or it cannot be created or written by this process. Creates
// nothing.
void check_result_dir(const std::string& dir, const std::string& option);

class ResultDir {
 public:
  // Creates and locks `dir` (InputError when another process holds it) and makes a fresh
  // staging directory in it. A run's result files are config.yaml, stats.json, timeline.json,
  // interrupted.json, summary.json and `importer_files` (what the registered `strata run`
  // importers write: their `files` and NAME_experiment.yaml, sim/cli_extension.h); others
  // in the directory (a sweep point's point.yaml, stderr.log) are never touched.
  ResultDir(std::string dir, std::string option, const std::vector<std::string>& importer_files = {});
  ~ResultDir();
  ResultDir(const ResultDir&) = delete;
  ResultDir& operator=(const ResultDir&) = delete;

  const std::string& path() const { return dir_; }
  // Where a file of the new result is written until commit().
  std::string staged(const std::string& name) const;

  // Moves every staged file into the directory; result files of an older run that this one did
  // not write (a timeline, SCALE-Sim reports, an interrupted.json) are removed first, and
  // summary.json is moved last.
  void commit();
  // For a result of several parts (a validation report: tables, runs/, plots/): moves each
  // staged path of `install` (relative to the staging directory; a file or a directory, created
  // parents and all) into place. What is at the paths of `aside` (relative to the directory) is
  // first moved out of the way into DIR/.old-<pid>/, and removed only once every new part is in
  // place; a failure on the way puts it back (OutputError). Put the part that marks the result
  // complete first in `aside` and last in `install`.
  void commit_replacing(const std::vector<std::string>& aside, const std::vector<std::string>& install);
  // For an interrupted run: drops the staged files, removes the older result's files and leaves
  // `marker` as interrupted.json.
  void commit_interrupted(const std::string& marker);

 private:
  void remove_result_files(const std::vector<std::string>& keep);
  std::string dir_, option_, staging_;
  std::vector<std::string> result_files_;
  std::optional<InterruptCleanup> cleanup_;  // the staging directory, for an immediate exit
  int lock_fd_ = -1;
  bool created_ = false, committed_ = false;
};

}  // namespace strata
