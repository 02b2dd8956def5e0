// Generates the OpGraph of transformer inference: a prefill pass over the prompt, decode steps
// (one token per sequence per step, the KV cache growing by one position each step), or both.
//
// Per layer: norm → attention (Q/K/V projections, KV-cache append, attention over the cache,
// output projection) → residual add → norm → FFN (dense, or an MoE block) → residual add; then
// the final norm and the LM head on the last position of each sequence. MLA (DeepSeek-V2)
// runs in its absorbed form: the cache holds the latent and the RoPE key, queries are projected
// into the latent space, and the values are read from the latent.
#pragma once

#include <cstdint>
#include <functional>

#include "workloads/opgraph/op_graph.h"
#include "workloads/quant_section.h"
#include "workloads/transformer/moe_block.h"
#include "workloads/transformer/transformer_model.h"

namespace strata {

struct InferenceShape {
  enum class Phase { Prefill, Decode, Generate };
  Phase phase = Phase::Decode;
  std::int64_t batch = 1;
  std::int64_t prompt_len = 128;  // decode: tokens already in the cache
  std::int64_t gen_tokens = 1;    // decode steps (decode, generate)
};

// Routing of `tokens` tokens at MoE layer `moe_layer` (0 = first MoE layer) in step `step`.
using RoutingProvider = std::function<LayerRouting(std::int32_t moe_layer, std::int64_t step, std::int64_t tokens)>;

struct TransformerGraphOptions {
  InferenceShape shape;
  QuantChoice quant;
  RoutingProvider routing;  // required for MoE models
  MoeDispatch dispatch;     // per layer placement is not modeled: one placement for all layers
};

OpGraph generate_transformer(const TransformerModel& model, const TransformerGraphOptions& options);

// Steps of a shape: prefill counts as step 0 of generate; the tokens and kv length of a step.
struct StepShape {
  std::int64_t q_len, kv_len;
};
std::vector<StepShape> inference_steps(const InferenceShape& s);

}  // namespace strata
