// Running another program and capturing its output (Verilator and CMake for rtl-check; sbatch,
// squeue and scancel for the Slurm executor). Arguments go to the program as they are, with no
// shell in between, so paths need no quoting.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace strata {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when a signal ended it; -1 when it could not start
  std::string output;  // stdout and stderr together
};

// The null-terminated argv that exec and posix_spawn take, pointing into `args` (which must
// outlive it).
std::vector<char*> exec_argv(std::vector<std::string>& args);

// Where Strata's Python scripts (scripts/plot_*.py) are: $STRATA_SCRIPTS, else the source tree's
// scripts/.
std::string scripts_dir();
// The interpreter that runs them: Debian's python3, which has python3-matplotlib (a python3
// earlier on PATH may not).
std::string script_python();

// Runs `program` (looked up on PATH) with `args` in `cwd` (default: this process's) and waits.
// With `interrupt` (sim/interrupt.h's flag), the child runs in a process group of its own, is
// registered for the immediate exit of a second signal (InterruptChild: killed and reaped), and
// once the flag is set gets the signal that set it, once; the call still waits for it to end.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args, const std::string& cwd = "",
                          const std::atomic<bool>* interrupt = nullptr);

}  // namespace strata
