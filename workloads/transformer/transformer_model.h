// The shape of a transformer language model, as the `model:` section of a transformer or MoE
// workload gives it (presets in configs/models/, pulled in with `extends:`), and the figures
// that follow from the shape alone: parameter counts and KV-cache size.
//
// Covers GPT-2/OPT (LayerNorm, learned positions, biases), Llama-2/3 (RMSNorm, RoPE, SwiGLU,
// GQA), Mixtral/Qwen-MoE (routed and shared experts) and DeepSeek-V2 (multi-head latent
// attention, MLA, with leading dense layers).
#pragma once

#include <cstdint>
#include <string>

#include "sim/schema.h"

namespace strata {

struct TransformerModel {
  enum class Ffn { Gelu, Relu, SwiGlu };
  enum class Norm { LayerNorm, RmsNorm };
  enum class Positions { Learned, Rope };
  enum class AttentionBias { None, Qkv, All };
  enum class Attention { Mha, Mla };

  std::string name;
  std::int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0;
  Ffn ffn = Ffn::SwiGlu;
  std::int64_t ffn_hidden = 0;
  Norm norm = Norm::RmsNorm;
  std::int64_t vocab = 0, max_positions = 0;
  Positions positions = Positions::Rope;
  std::int64_t position_table = 0;  // rows of a learned position table (OPT keeps 2 extra)
  bool tied_embeddings = false;
  AttentionBias attention_bias = AttentionBias::None;
  bool mlp_bias = false;
  bool qk_norm = false;  // per-head RMSNorm on queries and keys (Qwen3)
  // Multi-head latent attention (DeepSeek-V2/V3).
  Attention attention = Attention::Mha;
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  // Mixture of experts: `experts` routed experts of width expert_hidden, experts_per_token of them
  // per token, plus shared_experts always-on experts of width shared_expert_hidden.
  std::int64_t experts = 0, experts_per_token = 0, shared_experts = 0, expert_hidden = 0, shared_expert_hidden = 0;
  std::int64_t first_dense_layers = 0;
  bool shared_expert_gate = false;  // a sigmoid gate on the shared expert's output (Qwen-MoE)

  static const KindSpec& spec();
  // Reads and cross-checks a validated `model:` section; throws InputError naming the key.
  static TransformerModel from(const ValidatedNode& node);

  bool is_moe() const { return experts > 0; }
  bool is_moe_layer(std::int64_t layer) const { return is_moe() && layer >= first_dense_layers; }
  std::int64_t moe_layers() const { return is_moe() ? layers - first_dense_layers : 0; }
  std::int64_t q_head_dim() const;  // query/key width per head
  std::int64_t o_head_dim() const;  // value width per head

  // Parameter counts (weights and biases, norms included).
  std::int64_t norm_params(std::int64_t width) const;  // one norm over `width`
  std::int64_t attention_params() const;                // per layer, without its norm
  std::int64_t dense_ffn_params() const;                // per dense layer
  std::int64_t ffn_params(std::int64_t width) const;    // one FFN (or expert) of this width
  std::int64_t router_params() const;                   // per MoE layer
  std::int64_t moe_layer_params(bool active_only) const;  // experts + shared + router (+ gate)
  std::int64_t embedding_params() const;                  // token (+ position) tables and LM head
  std::int64_t total_parameters() const;
  std::int64_t active_parameters() const;  // per token: dense parts plus experts_per_token experts
  // KV-cache elements one token adds over all layers (K and V; MLA: latent plus RoPE key).
  std::int64_t kv_cache_elements_per_token() const;
};

}  // namespace strata
