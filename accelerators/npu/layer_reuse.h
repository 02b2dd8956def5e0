// sim.reuse: layers on the NPU. In a transformer the layers are the same operators on the same
// shapes, lowered to the same tiles: a run of N identical consecutive layers is simulated for
// its first two, and the second is repeated N-2 times (sim/reuse.h) instead of simulating the
// rest. The second, not the first, is the one measured: it starts in the state a layer leaves
// behind (open rows, the next layer's weights already streaming), as every later layer does.
//
// Two layers are identical when their lowered operators agree in everything the cores execute:
// operator kind, dimensions, number formats, the mapping, and every tile's loads, steps and
// stores (sizes, strides, which wait for earlier operators), and their dependencies have the
// same shape (within the layer, on the layer before, or on older work). Where their tensors sit
// in memory is not compared: each layer's weights and caches have their own addresses, which
// spread over the same channels and banks in the same proportions but not burst for burst.
#pragma once

#include <cstddef>
#include <vector>

#include "accelerators/npu/npu_program.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

struct LayerRun {
  std::vector<std::size_t> first, second;         // lowered operators of the two simulated layers
  std::vector<std::vector<std::size_t>> repeats;  // each later layer's, position for position
};

// The runs of at least three identical consecutive layers (operators with `layer` >= 0, each
// layer's operators contiguous in program order), and how many layers the program has. A
// layer with an operator that is timed outside the device (a collective) is never reused.
struct LayerReusePlan {
  std::vector<LayerRun> runs;
  std::size_t layers = 0;
  std::size_t reused() const;
};
// Without `find_runs` only the layers are counted.
LayerReusePlan plan_layer_reuse(const OpGraph& graph, const NpuProgram& program, bool find_runs = true);

}  // namespace strata
