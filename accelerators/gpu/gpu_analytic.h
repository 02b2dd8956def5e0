// The GPU's analytic fidelity (`sim.fidelity: analytic`): a kernel's cycles from closed-form
// bounds instead of a cycle-level run, for screening sweeps. Per wave, an SM takes the longest
// of:
//   - one warp's dependence chain: a lone warp's pass over one and two loop iterations gives
//     the chain's fixed part and its time per iteration (no other warp, no contention);
//   - each sub-core's issue slots, pipe cycles and tensor-core cycles, summed over its warps;
//   - the SM's shared-memory wavefronts, and its port's bytes to the SM-to-SM network;
//   - its share of the L2's and the DRAM's bandwidth for its global traffic (a load's latency
//     in the lone pass is that of the level its footprint fits: MemoryEstimate).
// Full waves run at the occupancy's CTAs per SM, the last one at what is left. The counts (warp
// instructions, lane operations, MACs, wavefronts, register accesses) are exact: they follow
// from the programs and the grid.
#pragma once

#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"
#include "workloads/gpu/warp_program.h"

namespace strata {

// The memory hierarchy in closed form: a global load's latency by the level its footprint fits
// (no footprint: a stream from the DRAM), and the L2's and the DRAM's bytes per cycle.
struct MemoryEstimate {
  std::uint64_t l1_bytes = 0, l2_bytes = 0;
  double l1_latency = 0, l2_latency = 0, dram_latency = 0;  // cycles, issue to data
  double l2_bytes_per_cycle = 0, dram_bytes_per_cycle = 0;
  // Every global load comes from the L2 (the kernel's DRAM traffic is its generator's
  // KernelLaunch::expected_dram_bytes).
  bool loads_from_l2 = false;
};

struct KernelEstimate {
  std::uint64_t cycles = 0;
  std::uint64_t waves = 0;
  SmCounts counts;  // of the whole grid
  std::uint64_t dram_bytes = 0;  // global traffic that reaches the DRAM
  std::uint64_t l2_bytes = 0;    // global traffic between the SMs and the L2 (past the L1)
};

// `ctas_per_wave`: the CTAs of a wave when not ctas_per_sm x sms (a kernel of clusters: its
// co-resident clusters' CTAs).
KernelEstimate estimate_kernel(const KernelLaunch& k, const Occupancy& occ, const SmTiming& t, int sms,
                               const MemoryEstimate& m = {}, std::uint64_t ctas_per_wave = 0);

}  // namespace strata
