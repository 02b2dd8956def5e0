// SIGINT and SIGTERM, handled the same way at every phase of a command (SIGTERM is what Slurm
// sends at a time limit or on preemption):
//   - while nothing is written yet (resolving the config, elaborating the design, reading a
//     large topology), the handler ends the process at once with exit 128 + signal and one line;
//     there is nothing to clean up, and an older result in the directory stays as it was;
//   - once a command begins writing (set_interrupt_phase(Phase::Cooperative)), the handler only
//     records the signal; the command notices it at its next check (a simulation chunk, a sweep
//     point) and leaves what its documentation says: interrupted.json for a run, finished points
//     for a sweep.
// A second signal always ends the process at once.
#pragma once

#include <atomic>

namespace strata {

enum class InterruptPhase { Immediate, Cooperative };

// Installs the handlers for SIGINT and SIGTERM, starting in the Immediate phase.
void install_interrupt_handlers();
void set_interrupt_phase(InterruptPhase phase);

// Set by the handler in the Cooperative phase.
const std::atomic<bool>& interrupt_flag();
// 130 after SIGINT, 143 after SIGTERM (128 + the signal, as a shell reports a signal's end).
int interrupt_exit_code();

}  // namespace strata
