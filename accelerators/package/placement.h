// The placement pass: splits one OpGraph over the devices of a package, one graph per device,
// plus the collectives and transfers between them (timed by the package over its links).
//
// Devices form `pipeline` stages of `tensor` devices each (device = stage · tensor + rank).
//
// Pipeline parallel: layer l runs on stage ⌊l · stages / layers⌋; operators outside the layers
// stay with the stage of the operator before them (embedding on the first, the head on the
// last). A tensor a stage reads from an earlier one arrives by `send_recv` (rank r to rank r).
//
// Tensor parallel (Megatron-LM, Shoeybi et al. 2019), decided per tensor by propagation, so
// the usual pattern falls out of the graph's shape rather than operator names:
//   - a linear layer (gemm/gemv on a weights tensor) whose input is whole on every device
//     splits its output columns (column parallel: q/k/v, gate/up, the LM head), its weights
//     split by rows;
//   - one whose input is split by columns splits its reduction (row parallel: o_proj, down)
//     and is followed by an `all_reduce` of its partial sums, in its accumulation format;
//   - attention splits by heads (when heads and KV heads divide), its KV cache with it;
//     element-wise operators and KV-cache appends follow their inputs;
//   - everything else (norms, softmax, routing, embeddings) runs whole on every device.
// A split that some consumer cannot take is undone until every operator is consistent.
//
// Expert parallel: when the graph spreads MoE experts over devices (`routing.devices` equal
// to `tensor`: the generator pins each expert's grouped GEMM to a device and emits
// `all_to_all` dispatch and combine), a pinned operator and the operators that consume only
// its results run on that rank alone, and the graph's `all_to_all`s become collectives of the
// stage's devices.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "accelerators/package/collectives.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

struct PlacementPlan {
  int tensor = 1;    // devices per stage
  int pipeline = 1;  // stages
  int devices() const { return tensor * pipeline; }
};

struct PlacedCollective {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string name;
  std::vector<int> members;               // package devices (send_recv: sender, receiver)
  std::uint64_t bytes = 0;                // per member (send_recv: the bytes sent)
  std::vector<std::pair<int, OpId>> ops;  // each member's operator in its graph
};

struct DevicePart {
  std::shared_ptr<OpGraph> graph;
  std::map<OpId, int> collective;  // operator of `graph` -> index in Placement::collectives
};

struct Placement {
  std::vector<DevicePart> devices;
  std::vector<PlacedCollective> collectives;
  std::int64_t split_ops = 0;   // operators split over a stage's devices
  std::int64_t whole_ops = 0;   // operators every device of a stage runs whole
  std::int64_t pinned_ops = 0;  // operators one device runs (expert parallel)
};

// Thrown for a graph the plan cannot place (collectives over another device count, fewer
// layers than stages); the message says what to change.
struct PlacementError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

Placement place_graph(const OpGraph& graph, const PlacementPlan& plan);

}  // namespace strata
