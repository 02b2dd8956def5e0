#include "workloads/transformer/transformer_generator.h"

#include <stdexcept>

#include <fmt/format.h>

#include "workloads/opgraph/graph_builder.h"

namespace strata {

std::vector<StepShape> inference_steps(const InferenceShape& s) {
  std::vector<StepShape> steps;
  using P = InferenceShape::Phase;
  if (s.phase != P::Decode) steps.push_back({s.prompt_len, s.prompt_len});
  if (s.phase != P::Prefill)
    for (std::int64_t i = 0; i < s.gen_tokens; ++i) steps.push_back({1, s.prompt_len + i + 1});
  return steps;
}

namespace {

class Generator {
 public:
  Generator(const TransformerModel& m, const TransformerGraphOptions& o) : m_(m), o_(o), b_(g_, o.quant) {
    const auto steps = inference_steps(o.shape);
    max_len_ = steps.back().kv_len;
    if (m.is_moe() && !o.routing) throw std::logic_error("generate_transformer: an MoE model needs a routing provider");
  }

  OpGraph run() {
    g_.name = m_.name;
    g_.parameters = m_.total_parameters();
    g_.active_parameters = m_.active_parameters();
    const auto steps = inference_steps(o_.shape);
    for (size_t s = 0; s < steps.size(); ++s) step(static_cast<std::int64_t>(s), steps[s]);
    return std::move(g_);
  }

 private:
  void step(std::int64_t s, StepShape shape) {
    const std::int64_t B = o_.shape.batch, Q = shape.q_len, T = B * Q, d = m_.hidden;
    const bool ln = m_.norm == TransformerModel::Norm::LayerNorm;
    b_.at(-1, fmt::format("s{}.", s));
    const TensorId table = b_.weight("embed.tokens", {m_.vocab, d});
    TensorId x = b_.activation("embed", {T, d});
    b_.emit(OpKind::Embedding, "embed", {{"tokens", T}, {"dim", d}}, {table}, {x});
    if (m_.positions == TransformerModel::Positions::Learned) {
      const TensorId pos_table = b_.weight("embed.positions", {m_.position_table, d});
      const TensorId p = b_.activation("embed.pos", {T, d});
      // Every sequence reads the same Q positions' rows.
      b_.emit(OpKind::Embedding, "embed.pos", {{"tokens", T}, {"dim", d}, {"table_rows", Q}}, {pos_table}, {p});
      x = b_.binary(OpKind::Add, "embed.add", x, p, T * d);
    }
    std::vector<OpId> x_writers;
    for (std::int32_t l = 0; l < m_.layers; ++l) {
      b_.at(l, fmt::format("s{}.l{}.", s, l));
      const std::string w = fmt::format("l{}.", l);
      const TensorId h = b_.norm("norm1", ln, x, T, d, w + "norm1");
      const TensorId a = m_.attention == TransformerModel::Attention::Mla ? mla(l, h, T, shape) : mha(l, h, T, shape);
      x = residual("add1", x, a, T * d, x_writers);
      const TensorId h2 = b_.norm("norm2", ln, x, T, d, w + "norm2");
      TensorId f;
      if (m_.is_moe_layer(l)) {
        const std::int32_t moe_layer = static_cast<std::int32_t>(l - m_.first_dense_layers);
        MoeBlockResult r = emit_moe_block(b_, m_, l, h2, T, o_.routing(moe_layer, s, T), o_.dispatch);
        f = r.out;
        x_writers = r.writers;
      } else {
        f = emit_ffn(b_, m_, "ffn", w + "ffn", h2, T, m_.ffn_hidden);
      }
      x = residual("add2", x, f, T * d, x_writers);
    }
    b_.at(-1, fmt::format("s{}.", s));
    x = b_.norm("norm_final", ln, x, T, d, "norm_final");
    if (Q > 1) {  // logits of the last position of each sequence only
      const TensorId last = b_.activation("last", {B, d});
      b_.emit(OpKind::Gather, "last", {{"rows", B}, {"cols", d}, {"src_rows", T}}, {x}, {last});
      x = last;
    }
    b_.linear("lm_head", x, B, d, m_.vocab, m_.tied_embeddings ? "embed.tokens" : "lm_head");
  }

  // x + y; `extra` are writers of y the data flow does not show (the MoE block's scatters).
  TensorId residual(const char* name, TensorId x, TensorId y, std::int64_t elements, std::vector<OpId>& extra) {
    const TensorId out = b_.activation(name, g_.tensor(x).shape);
    const OpId add = b_.emit(OpKind::Add, name, {{"elements", elements}}, {x, y}, {out});
    for (OpId w : extra) g_.add_dependency(add, w);
    extra.clear();
    return out;
  }

  TensorId attention(TensorId q, TensorId k_cache, TensorId v_cache, std::int64_t heads, std::int64_t kv_heads,
                     std::int64_t head_dim, std::int64_t v_dim, StepShape shape) {
    const std::int64_t B = o_.shape.batch;
    const TensorId o = b_.activation("attn", {B * shape.q_len, heads * v_dim});
    std::vector<TensorId> in{q, k_cache};
    if (v_cache >= 0) in.push_back(v_cache);
    const OpId id = b_.emit(OpKind::Attention, "attn",
            {{"batch", B},
             {"heads", heads},
             {"kv_heads", kv_heads},
             {"head_dim", head_dim},
             {"v_head_dim", v_dim},
             {"q_len", shape.q_len},
             {"kv_len", shape.kv_len},
             {"causal", shape.q_len > 1 ? 1 : 0}},
            std::move(in), {o}, true);
    for (OpId w : pending_) g_.add_dependency(id, w);
    pending_.clear();
    return o;
  }

  // Writes part of a larger tensor; the next attention waits for every such writer.
  void write_part(const char* name, TensorId x, TensorId whole, std::int64_t elements) {
    pending_.push_back(b_.emit(OpKind::Copy, name, {{"elements", elements}}, {x}, {whole}));
  }

  TensorId mha(std::int32_t l, TensorId h, std::int64_t T, StepShape shape) {
    const std::int64_t d = m_.hidden, H = m_.heads, KV = m_.kv_heads, hd = m_.head_dim;
    const std::string w = fmt::format("l{}.", l);
    const bool qkv_bias = m_.attention_bias != TransformerModel::AttentionBias::None;
    TensorId q = b_.linear("q_proj", h, T, d, H * hd, w + "q_proj", qkv_bias);
    TensorId k = b_.linear("k_proj", h, T, d, KV * hd, w + "k_proj", qkv_bias);
    const TensorId v = b_.linear("v_proj", h, T, d, KV * hd, w + "v_proj", qkv_bias);
    if (m_.qk_norm) {
      q = b_.norm("q_norm", false, q, T * H, hd, w + "q_norm");
      k = b_.norm("k_norm", false, k, T * KV, hd, w + "k_norm");
    }
    const std::int64_t B = o_.shape.batch;
    const TensorId kc = b_.kv_cache(w + "k_cache", {B, KV, max_len_, hd});
    const TensorId vc = b_.kv_cache(w + "v_cache", {B, KV, max_len_, hd});
    write_part("k_append", k, kc, T * KV * hd);
    write_part("v_append", v, vc, T * KV * hd);
    const TensorId o = attention(q, kc, vc, H, KV, hd, hd, shape);
    return b_.linear("o_proj", o, T, H * hd, d, w + "o_proj",
                     m_.attention_bias == TransformerModel::AttentionBias::All);
  }

  TensorId mla(std::int32_t l, TensorId h, std::int64_t T, StepShape shape) {
    const std::int64_t d = m_.hidden, H = m_.heads, nope = m_.qk_nope_head_dim, rope = m_.qk_rope_head_dim,
                       lat = m_.kv_lora_rank, vd = m_.v_head_dim, B = o_.shape.batch;
    const std::string w = fmt::format("l{}.", l);
    TensorId qin = h;
    std::int64_t qk = d;
    if (m_.q_lora_rank) {
      qin = b_.linear("q_a", h, T, d, m_.q_lora_rank, w + "q_a");
      qin = b_.norm("q_a_norm", false, qin, T, m_.q_lora_rank, w + "q_a_norm");
      qk = m_.q_lora_rank;
    }
    const TensorId q_nope = b_.linear("q_nope", qin, T, qk, H * nope, w + "q_nope");
    const TensorId q_rope = b_.linear("q_rope", qin, T, qk, H * rope, w + "q_rope");
    TensorId c = b_.linear("kv_latent", h, T, d, lat, w + "kv_latent");
    c = b_.norm("kv_latent_norm", false, c, T, lat, w + "kv_latent_norm");
    const TensorId k_rope = b_.linear("k_rope", h, T, d, rope, w + "k_rope");
    const TensorId cache = b_.kv_cache(w + "kv_cache", {B, 1, max_len_, lat + rope});
    write_part("latent_append", c, cache, T * lat);
    write_part("k_rope_append", k_rope, cache, T * rope);
    // Absorb the key up-projection into the queries: q_lat[h] = q_nope[h]·W_uk[h].
    const TensorId q_lat = b_.activation("q_absorb", {H, T, lat});
    b_.emit(OpKind::BatchedGemm, "q_absorb", {{"batch", H}, {"m", T}, {"n", lat}, {"k", nope}},
            {q_nope, b_.weight(w + "kv_up.k", {H, lat, nope})}, {q_lat}, true);
    const TensorId q_full = b_.activation("q_full", {T, H, lat + rope});
    write_part("q_full.latent", q_lat, q_full, T * H * lat);
    write_part("q_full.rope", q_rope, q_full, T * H * rope);
    const TensorId o_lat = attention(q_full, cache, -1, H, 1, lat + rope, lat, shape);
    // Values come out in latent space; the value up-projection is applied per head.
    const TensorId o = b_.activation("v_absorb", {H, T, vd});
    b_.emit(OpKind::BatchedGemm, "v_absorb", {{"batch", H}, {"m", T}, {"n", vd}, {"k", lat}},
            {o_lat, b_.weight(w + "kv_up.v", {H, vd, lat})}, {o}, true);
    return b_.linear("o_proj", o, T, H * vd, d, w + "o_proj");
  }

  const TransformerModel& m_;
  const TransformerGraphOptions& o_;
  OpGraph g_;
  GraphBuilder b_;
  std::int64_t max_len_ = 0;
  std::vector<OpId> pending_;
};

}  // namespace

OpGraph generate_transformer(const TransformerModel& model, const TransformerGraphOptions& options) {
  return Generator(model, options).run();
}

}  // namespace strata
