// What the compiler does for the compiler-guided dependence scheme: sets each instruction's
// stall count so that a fixed-latency result is ready before its first reader issues, and
// gives every variable-latency producer (shared-memory access, tensor instruction) a dependence
// counter that its readers wait on; marks sources for the register-file cache. Kernel generators run it so one program
// serves both the scoreboard and the control-bits SM; traces carry no control bits and need the scoreboard.
#pragma once

#include "accelerators/gpu/sm_core.h"
#include "workloads/gpu/warp_program.h"

namespace strata {

// Sets stall, write_barrier and wait_mask of every instruction of `p` from its register
// dependences (a loop body's last instructions feeding its first count too) and the pipe
// latencies of `t`, and the .reuse bits of sources the next instruction reads in the same slot.
void assign_control_bits(WarpProgram& p, const SmTiming& t);

}  // namespace strata
