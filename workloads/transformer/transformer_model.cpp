#include "workloads/transformer/transformer_model.h"

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {

const KindSpec& TransformerModel::spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "model";
    s.category = "section";
    s.description = "a transformer's shape (presets in configs/models/, use `extends:`)";
    s.add(param::string("name", "model name, for reports").def(""));
    s.add(param::integer("layers", "transformer blocks").range("1", "100000"));
    s.add(param::integer("hidden", "model width d").range("1", "1000000"));
    s.add(param::integer("heads", "attention (query) heads").range("1", "100000"));
    s.add(param::integer("kv_heads", "key/value heads (GQA); 0 means = heads").def("0").range("0", "100000"));
    s.add(param::integer("head_dim", "width of one head; 0 means hidden / heads").def("0").range("0", "100000"));
    s.add(param::choice("ffn", {"gelu", "relu", "swiglu"}, "feed-forward kind: two matrices (gelu, relu) or three (swiglu)"));
    s.add(param::integer("ffn_hidden", "feed-forward width of dense layers").range("1", "10000000"));
    s.add(param::choice("norm", {"layernorm", "rmsnorm"}, "normalization (layernorm has gain and bias)"));
    s.add(param::integer("vocab", "vocabulary size").range("1", "100000000"));
    s.add(param::integer("max_positions", "longest sequence the model takes").range("1", "100000000"));
    s.add(param::choice("positions", {"learned", "rope"}, "position encoding: a learned table or rotary (no weights)"));
    s.add(param::integer("position_table", "rows of the learned position table; 0 means max_positions")
              .def("0")
              .range("0", "100000000"));
    s.add(param::boolean("tied_embeddings", "the LM head reuses the token embedding").def("false"));
    s.add(param::choice("attention_bias", {"none", "qkv", "all"}, "biases of the attention projections").def("none"));
    s.add(param::boolean("mlp_bias", "biases in the feed-forward matrices").def("false"));
    s.add(param::boolean("qk_norm", "per-head RMSNorm on queries and keys").def("false"));
    s.add(param::choice("attention", {"mha", "mla"}, "multi-head (incl. GQA/MQA) or multi-head latent attention").def("mha"));
    s.add(param::integer("q_lora_rank", "MLA: query compression rank; 0 means none").def("0").range("0", "1000000"));
    s.add(param::integer("kv_lora_rank", "MLA: width of the cached KV latent").def("0").range("0", "1000000"));
    s.add(param::integer("qk_nope_head_dim", "MLA: query/key width per head without RoPE").def("0").range("0", "100000"));
    s.add(param::integer("qk_rope_head_dim", "MLA: query/key width per head with RoPE (key shared by heads)")
              .def("0")
              .range("0", "100000"));
    s.add(param::integer("v_head_dim", "MLA: value width per head").def("0").range("0", "100000"));
    s.add(param::integer("experts", "routed experts per MoE layer; 0 for a dense model").def("0").range("0", "100000"));
    s.add(param::integer("experts_per_token", "routed experts each token uses (top-k)").def("0").range("0", "100000"));
    s.add(param::integer("shared_experts", "always-on experts per MoE layer").def("0").range("0", "100000"));
    s.add(param::integer("expert_hidden", "feed-forward width of one routed expert").def("0").range("0", "10000000"));
    s.add(param::integer("shared_expert_hidden", "width of one shared expert; 0 means expert_hidden")
              .def("0")
              .range("0", "10000000"));
    s.add(param::integer("first_dense_layers", "leading layers with a dense FFN instead of experts")
              .def("0")
              .range("0", "100000"));
    s.add(param::boolean("shared_expert_gate", "a sigmoid gate (hidden → 1) scales the shared experts").def("false"));
    return s;
  }();
  return spec;
}

TransformerModel TransformerModel::from(const ValidatedNode& node) {
  const Params& p = node.params;
  TransformerModel m;
  auto fail = [&](const char* key, const std::string& msg) {
    throw InputError(p.where(key), node.path + "." + key, msg);
  };
  m.name = p.string("name");
  m.layers = p.integer("layers");
  m.hidden = p.integer("hidden");
  m.heads = p.integer("heads");
  m.kv_heads = p.integer("kv_heads") ? p.integer("kv_heads") : m.heads;
  m.head_dim = p.integer("head_dim") ? p.integer("head_dim") : m.hidden / m.heads;
  const std::string ffn = p.string("ffn");
  m.ffn = ffn == "gelu" ? Ffn::Gelu : ffn == "relu" ? Ffn::Relu : Ffn::SwiGlu;
  m.ffn_hidden = p.integer("ffn_hidden");
  m.norm = p.string("norm") == "layernorm" ? Norm::LayerNorm : Norm::RmsNorm;
  m.vocab = p.integer("vocab");
  m.max_positions = p.integer("max_positions");
  m.positions = p.string("positions") == "learned" ? Positions::Learned : Positions::Rope;
  m.position_table = p.integer("position_table") ? p.integer("position_table") : m.max_positions;
  m.tied_embeddings = p.flag("tied_embeddings");
  const std::string bias = p.string("attention_bias");
  m.attention_bias = bias == "none" ? AttentionBias::None : bias == "qkv" ? AttentionBias::Qkv : AttentionBias::All;
  m.mlp_bias = p.flag("mlp_bias");
  m.qk_norm = p.flag("qk_norm");
  m.attention = p.string("attention") == "mla" ? Attention::Mla : Attention::Mha;
  m.q_lora_rank = p.integer("q_lora_rank");
  m.kv_lora_rank = p.integer("kv_lora_rank");
  m.qk_nope_head_dim = p.integer("qk_nope_head_dim");
  m.qk_rope_head_dim = p.integer("qk_rope_head_dim");
  m.v_head_dim = p.integer("v_head_dim");
  m.experts = p.integer("experts");
  m.experts_per_token = p.integer("experts_per_token");
  m.shared_experts = p.integer("shared_experts");
  m.expert_hidden = p.integer("expert_hidden");
  m.shared_expert_hidden = p.integer("shared_expert_hidden") ? p.integer("shared_expert_hidden") : m.expert_hidden;
  m.first_dense_layers = p.integer("first_dense_layers");
  m.shared_expert_gate = p.flag("shared_expert_gate");

  if (m.heads % m.kv_heads != 0) fail("kv_heads", fmt::format("heads ({}) must be a multiple of kv_heads ({})", m.heads, m.kv_heads));
  if (m.attention == Attention::Mla) {
    if (!m.kv_lora_rank || !m.qk_nope_head_dim || !m.qk_rope_head_dim || !m.v_head_dim)
      fail("attention", "mla needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
  } else if (m.q_lora_rank || m.kv_lora_rank) {
    fail("attention", "q_lora_rank and kv_lora_rank need attention: mla");
  }
  if (m.is_moe()) {
    if (m.experts_per_token < 1 || m.experts_per_token > m.experts)
      fail("experts_per_token", fmt::format("must be between 1 and experts ({})", m.experts));
    if (!m.expert_hidden) fail("expert_hidden", "an MoE model needs the expert width");
    if (m.first_dense_layers >= m.layers) fail("first_dense_layers", "must leave at least one MoE layer");
  } else if (m.experts_per_token || m.shared_experts || m.expert_hidden || m.first_dense_layers) {
    fail("experts", "expert settings need experts > 0");
  }
  return m;
}

std::int64_t TransformerModel::q_head_dim() const {
  return attention == Attention::Mla ? qk_nope_head_dim + qk_rope_head_dim : head_dim;
}
std::int64_t TransformerModel::o_head_dim() const { return attention == Attention::Mla ? v_head_dim : head_dim; }

std::int64_t TransformerModel::norm_params(std::int64_t width) const {
  return norm == Norm::LayerNorm ? 2 * width : width;
}

std::int64_t TransformerModel::attention_params() const {
  const std::int64_t d = hidden;
  std::int64_t n = 0;
  if (attention == Attention::Mla) {
    const std::int64_t q_width = heads * q_head_dim();
    n += q_lora_rank ? d * q_lora_rank + q_lora_rank + q_lora_rank * q_width : d * q_width;
    n += d * (kv_lora_rank + qk_rope_head_dim) + kv_lora_rank;  // latent down-projection and its norm
    n += kv_lora_rank * heads * (qk_nope_head_dim + v_head_dim);
    n += heads * v_head_dim * d;
    return n;
  }
  const std::int64_t q = heads * head_dim, kv = kv_heads * head_dim;
  n = d * (q + 2 * kv) + q * d;
  if (attention_bias != AttentionBias::None) n += q + 2 * kv;
  if (attention_bias == AttentionBias::All) n += d;
  if (qk_norm) n += 2 * head_dim;
  return n;
}

std::int64_t TransformerModel::ffn_params(std::int64_t width) const {
  const std::int64_t d = hidden;
  if (ffn == Ffn::SwiGlu) return 3 * d * width + (mlp_bias ? 2 * width + d : 0);
  return 2 * d * width + (mlp_bias ? width + d : 0);
}

std::int64_t TransformerModel::dense_ffn_params() const { return ffn_params(ffn_hidden); }

std::int64_t TransformerModel::router_params() const { return experts * hidden; }

std::int64_t TransformerModel::moe_layer_params(bool active_only) const {
  const std::int64_t routed = active_only ? experts_per_token : experts;
  return routed * ffn_params(expert_hidden) + shared_experts * ffn_params(shared_expert_hidden) + router_params() +
         (shared_expert_gate ? hidden : 0);
}

std::int64_t TransformerModel::embedding_params() const {
  std::int64_t n = vocab * hidden * (tied_embeddings ? 1 : 2);
  if (positions == Positions::Learned) n += position_table * hidden;
  return n;
}

std::int64_t TransformerModel::total_parameters() const {
  const std::int64_t per_layer = attention_params() + 2 * norm_params(hidden);
  const std::int64_t dense = layers - moe_layers();
  return embedding_params() + norm_params(hidden) + layers * per_layer + dense * dense_ffn_params() +
         moe_layers() * moe_layer_params(false);
}

std::int64_t TransformerModel::active_parameters() const {
  const std::int64_t per_layer = attention_params() + 2 * norm_params(hidden);
  const std::int64_t dense = layers - moe_layers();
  return embedding_params() + norm_params(hidden) + layers * per_layer + dense * dense_ffn_params() +
         moe_layers() * moe_layer_params(true);
}

std::int64_t TransformerModel::kv_cache_elements_per_token() const {
  if (attention == Attention::Mla) return layers * (kv_lora_rank + qk_rope_head_dim);
  return 2 * layers * kv_heads * head_dim;
}

}  // namespace strata
