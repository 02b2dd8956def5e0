// SIGINT and SIGTERM, handled the same way at every phase of a command (SIGTERM is what Slurm
// sends at a time limit or on preemption):
//   - while nothing is written yet (resolving the config, elaborating the design, reading a
//     large topology), the handler ends the process at once with exit 128 + signal and one line;
//     there is nothing to clean up, and an older result in the directory stays as it was;
//   - once a command begins writing (set_interrupt_phase(Phase::Cooperative)), the handler only
//     records the signal; the command notices it at its next check (a simulation chunk, a sweep
//     point, a validation run) and leaves what its documentation says: interrupted.json for a
//     run, finished points for a sweep, the older report for `strata validate`.
// A second signal always ends the process at once; before it does, it ends (SIGKILL) and reaps
// the child processes registered with InterruptChild and removes the directories registered with
// InterruptCleanup (a run's staging directory), so an immediate exit leaves no orphan and no
// half-written staging directory. Once a command has said its last line about an interrupt
// (report_interrupted), a further signal ends the process silently: everything is said and left
// as documented, and a second "stopping now" line would only repeat it.
//
// SIGXFSZ is ignored (here and, through exec, in every child): a write past `ulimit -f` fails
// with EFBIG and takes the ordinary write-error path instead of killing the process midway.
#pragma once

#include <atomic>
#include <string>

#include <sys/types.h>

namespace strata {

enum class InterruptPhase { Immediate, Cooperative, Reported };

// Installs the handlers for SIGINT and SIGTERM, starting in the Immediate phase, and ignores
// SIGXFSZ.
void install_interrupt_handlers();
void set_interrupt_phase(InterruptPhase phase);

// Set by the handler in the Cooperative phase.
const std::atomic<bool>& interrupt_flag();
// 130 after SIGINT, 143 after SIGTERM (128 + the signal, as a shell reports a signal's end).
int interrupt_exit_code();

// Writes `line` (one line, its newline included) to stderr as a command's last word on an
// interrupt, enters the Reported phase, and returns interrupt_exit_code(). SIGINT and SIGTERM are
// blocked meanwhile, so a signal arriving then is handled after the phase changes: the user sees
// the line once and nothing after it.
int report_interrupted(const std::string& line);

// A directory the immediate exit removes (recursively, with async-signal-safe calls only) for as
// long as the object lives. At most 8 at once; more are simply not registered.
class InterruptCleanup {
 public:
  explicit InterruptCleanup(const std::string& dir);
  ~InterruptCleanup();
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;

 private:
  int slot_ = -1;
};

// A child process the immediate exit kills and reaps, for as long as the object lives.
class InterruptChild {
 public:
  explicit InterruptChild(pid_t pid);
  ~InterruptChild();
  InterruptChild(const InterruptChild&) = delete;
  InterruptChild& operator=(const InterruptChild&) = delete;

 private:
  int slot_ = -1;
};

// Removes `path` and everything under it without allocating memory (openat, getdents64,
// unlinkat): safe in a signal handler and when memory has run out. Returns false when something
// could not be removed. Does not follow symbolic links.
bool remove_tree_no_alloc(const char* path) noexcept;

}  // namespace strata
