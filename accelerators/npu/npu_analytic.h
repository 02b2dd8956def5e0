// The NPU's analytic fidelity (sim/analytic.h): the program the mapper built, evaluated tile by
// tile with closed forms instead of simulated, following what the cores' two threads do
// (npu_core.h) with the same tiles, buffers and dependencies.
//
// Per core, in program order, with B = `buffers`, tile j of the core's sequence:
//   loads     issued when tile j - B has computed (its buffer is free; at once for the first B
//             tiles); loads of data an earlier operator writes wait for its end (an operator's
//             first tile prefetches the rest while the loader waits, as the loader does)
//   DMA       a queue served in issue order (stores of tile j - B before the loads of tile j,
//             as they are issued at the same time): a batch of b bytes in r requests issued at
//             t completes at max(t + latency, completion of the batch before) + duration, with
//             duration = max(sum of each descriptor's bytes / (memory share x its bandwidth
//             share), b / NoC path bandwidth, r x DMA cycle, r x latency / max_outstanding)
//   compute   E_j = max(E_{j-1}, loads of tile j done) + the tile's compute cycles
//             (NpuCore::compute_tile: engine and vector steps, or its scratchpad reads)
//   stores    issued at E_j; the operator ends on a core when its last tile has computed and its
//             last store completed, everywhere when it has on every core
// memory share  the memory's sustained bandwidth / the cores the operator runs on; a
//               descriptor gets the share of it its addresses can use
//               (MemoryTarget::bandwidth_share: partial bursts, channels it falls in)
// NoC path      its narrowest link shared by the operator's cores crossing it (Noc::analytic_bandwidth)
// latency       the memory's unloaded latency (read, or posted write), the NoC round trip, and the
//               other cores' DMA windows drained at the bandwidth they share (what a request
//               issued into an idle queue waits behind)
// So with two or more buffers a tile's loads overlap the compute before it (max of the two per
// tile, plus the first load and the last store); with one they add.
//
// Every block counts what the cycle-level run counts, through its own methods: the engine's
// MACs, the vector unit's element operations and the scratchpad's words (NpuCore::compute_tile
// and Scratchpad::read/write, as at cycle level), the DMA's descriptors, requests and bytes, the
// NoC's messages and bit-hops, and the memory's requests, bursts, row activations (with the
// operator's cores as interleaved streams) and, at finalize, refresh and standby.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "accelerators/npu/npu_core.h"
#include "accelerators/npu/npu_program.h"
#include "models/noc/noc.h"
#include "sim/ports.h"

namespace strata {

struct NpuParts {
  std::vector<NpuCore*> cores;
  Noc* noc = nullptr;
  AnalyticMemory* memory = nullptr;
  int buffers = 2;
};

// Evaluates the program in steps: it stops at every external operator (a collective, inside a
// package) until the package, which knows when every device reached it, says when it ended; a
// lone device's program has none. finish() counts every block's events and returns each
// operator's end time in seconds (program order).
class NpuProgramEvaluator {
 public:
  NpuProgramEvaluator(const NpuProgram& program, const NpuParts& parts);
  ~NpuProgramEvaluator();
  struct Reached {
    std::size_t op;  // index in the program
    double at;       // s: when its inputs were there and the cores had passed what came before
  };
  // Evaluates up to and including the next external operator; nothing at the program's end.
  std::optional<Reached> advance();
  void complete(std::size_t op, double end);
  // Accounts every block's events; each operator's end time in seconds.
  std::vector<double> finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata
