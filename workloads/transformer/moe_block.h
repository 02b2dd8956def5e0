// Emits one mixture-of-experts feed-forward block into an OpGraph: router GEMM, softmax,
// top-k, dispatch (gather, and an all-to-all across devices), one grouped GEMM chain per
// (device, weight format) bucket of experts, combine (all-to-all back, weighted scatter-add)
// and the shared experts. Used by the transformer generator and the `moe_layer` workload.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/moe/expert_placement.h"
#include "workloads/moe/routing.h"
#include "workloads/opgraph/graph_builder.h"
#include "workloads/transformer/transformer_model.h"

namespace strata {

struct MoeBlockResult {
  TensorId out = -1;
  std::vector<OpId> writers;  // every operator writing `out` (consumers must wait for all)
  std::int64_t dropped = 0;   // (token, expert) assignments over capacity
  std::vector<std::int64_t> expert_tokens;
};

// `x` is the normalized input [tokens, hidden]; `routing` routes exactly `tokens` tokens.
MoeBlockResult emit_moe_block(GraphBuilder& b, const TransformerModel& m, std::int32_t layer, TensorId x,
                              std::int64_t tokens, LayerRouting routing, const MoeDispatch& dispatch);

// Emits a dense feed-forward block of the given width (weights named `<prefix>.gate/up/down`).
TensorId emit_ffn(GraphBuilder& b, const TransformerModel& m, const std::string& name, const std::string& prefix,
                  TensorId x, std::int64_t tokens, std::int64_t width);

}  // namespace strata
