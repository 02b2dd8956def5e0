// Up-front memory checks for inputs whose size is only a number in a file or a config (a graph
// that claims 2^31 nodes in one line, a feature matrix declared by a comment): such an input
// gets a clear InputError before the allocation, instead of std::bad_alloc or the OOM killer.
#pragma once

#include <cstdint>
#include <string>

#include "sim/input_error.h"

namespace strata {

// The bytes one Strata process may allocate for its data: STRATA_MEMORY_LIMIT when set (a
// size such as "8 GiB"; it may also raise the limit, e.g. on a machine with large swap), else
// the machine's physical memory, lowered by the process's RLIMIT_AS and RLIMIT_DATA (`ulimit
// -v`, a Slurm job's memory limit enforced that way).
std::uint64_t memory_budget();

// The bytes this process has allocated from the heap now (malloc's arenas and its mmapped
// blocks): for measuring what one part of a design costs before making many of it.
std::uint64_t allocated_bytes();

// Throws InputError(loc, key, "<what> needs <bytes>, more than the <budget> ...") when `bytes`
// exceed memory_budget(). `what` names the thing being built, e.g. "a CSR graph of 2^31 nodes".
void require_memory(double bytes, const std::string& what, const SourceLoc& loc = {}, const std::string& key = "");

}  // namespace strata
