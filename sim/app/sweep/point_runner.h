// Running one sweep point in a process of its own (`strata run` on its point.yaml), and
// recording how it ended. Used by the local executor (many at once) and by Slurm array tasks
// (one after another), so both leave the same files:
//   DIR/<hash16>/point.yaml    the point as an experiment file (written by the plan)
//   DIR/<hash16>/summary.json  ...and the other `strata run` files: the point succeeded
//   DIR/<hash16>/failed.json   its last attempt failed: exit code or signal, timeout, stderr tail
//   DIR/<hash16>/stderr.log    the last attempt's stderr
//   DIR/<hash16>/.lock         held (flock) by whichever process runs the point, including the
//                              child itself, so a point still running after its driver was
//                              killed is waited for, never started twice
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

#include <sys/types.h>

namespace strata {

// The program run for each point: $STRATA_EXECUTABLE if set (a wrapper for profilers or fault
// injection), else this executable.
std::string point_executable();

enum class PointState { Ok, Failed, Pending };

// What the point's directory says: Ok (a summary.json that parses), Failed (failed.json and no
// such summary) or Pending.
PointState point_state(const std::string& point_dir);
// Attempts recorded in failed.json (0 without one).
int recorded_attempts(const std::string& point_dir);

struct PointOutcome {
  bool ok = false;
  bool interrupted = false;  // ended by SIGINT/SIGTERM (no result, not a failure)
  int exit_code = -1;        // when it exited
  int signal = 0;            // when a signal ended it
  bool timed_out = false;
  double wall_s = 0;
};

class PointProcess {
 public:
  enum class Start { Started, Busy, AlreadyDone };
  // Locks and starts the point; Busy when another process holds its lock, AlreadyDone when it
  // has a result already.
  Start start(const std::string& point_dir, const std::string& hash, double timeout_s);
  ~PointProcess();
  PointProcess() = default;
  PointProcess(const PointProcess&) = delete;
  PointProcess& operator=(const PointProcess&) = delete;
  PointProcess(PointProcess&& o) noexcept;
  PointProcess& operator=(PointProcess&& o) noexcept;

  // Non-blocking: the outcome once the process has ended (kills it at its time limit).
  std::optional<PointOutcome> poll();
  // Blocks until it ends.
  // Blocks until it ends; once `interrupt` is set, the signal that set it (sim/interrupt.h)
  // is passed on to the point's process group.
  PointOutcome wait(const std::atomic<bool>* interrupt = nullptr);
  void signal(int sig);
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }

 private:
  PointOutcome finish(int status);
  std::string dir_;
  pid_t pid_ = -1;
  int lock_fd_ = -1;
  double timeout_s_ = 0;
  bool timed_out_ = false;
  std::chrono::steady_clock::time_point start_;
};

// Records an attempt's outcome in the point's directory: removes failed.json after a success,
// writes it (with the attempt count and the tail of stderr.log) after a failure. Returns the
// attempts made so far.
int record_outcome(const std::string& point_dir, int point, const std::string& hash, const PointOutcome& o);

// Records a failure seen from outside the point's process (a Slurm task that ended first).
int record_lost(const std::string& point_dir, int point, const std::string& hash, const std::string& why);

}  // namespace strata
