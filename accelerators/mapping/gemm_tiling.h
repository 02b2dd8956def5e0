// The tile search for one GEMM on one core: C[m,n] = A[m,k]·B[n,k]^T with A, B, C in memory.
// It enumerates tile sizes (multiples of the engine's alignment, powers of two up to the whole
// dimension, plus the whole dimension) and two loop orders, keeps those whose double-buffered
// footprint fits the scratchpad, and picks the one with the least estimated time
//     max(compute cycles, memory bytes × row penalty / bandwidth per core)
//       + the first tile's load + a fixed overhead per tile
// (the row penalty charges blocks whose rows are not contiguous in memory),
// breaking ties by memory traffic, then by the order of enumeration, so the choice is
// deterministic. The space is pruned to at most ~20 sizes per dimension, so the search costs at
// most a few tens of thousands of estimator calls (microseconds each) per distinct shape.
#pragma once

#include <cstdint>
#include <string>

#include "accelerators/mapping/mapper_target.h"

namespace strata {

enum class LoopOrder {
  OutputResident,  // for each C tile, run all of K: C stays in the scratchpad; A and B stream
  WeightResident,  // for each B tile, run all of M: B stays; partial sums of C go out and back
};
const char* loop_order_name(LoopOrder o);  // "output_resident", "weight_resident"

struct GemmShape {
  std::int64_t m = 1, n = 1, k = 1;
  double a_bytes = 1, b_bytes = 1, c_bytes = 2;  // bytes per element, scales included
  std::string format;                            // the engine's number format
};

struct GemmTiling {
  std::int64_t tm = 1, tn = 1, tk = 1;
  LoopOrder order = LoopOrder::OutputResident;
  std::uint64_t footprint = 0;   // scratchpad bytes of one tile's buffers times target.buffers
  double compute_cycles = 0;     // the engine's cycles over every tile
  double memory_bytes = 0;       // traffic to and from memory
  double estimated_cycles = 0;
  std::uint64_t candidates = 0;  // tilings evaluated
};

// Throws InputError (no location) when not even the smallest tile fits the scratchpad.
GemmTiling choose_gemm_tiling(const MapperTarget& target, const GemmShape& shape, int sharing_cores);

}  // namespace strata
