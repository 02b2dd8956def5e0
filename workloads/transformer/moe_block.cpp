#include "workloads/transformer/moe_block.h"

#include <map>

#include <fmt/format.h>

namespace strata {

TensorId emit_ffn(GraphBuilder& b, const TransformerModel& m, const std::string& name, const std::string& prefix,
                  TensorId x, std::int64_t tokens, std::int64_t width) {
  const std::int64_t d = m.hidden;
  const bool bias = m.mlp_bias;
  if (m.ffn == TransformerModel::Ffn::SwiGlu) {
    TensorId g = b.linear(name + ".gate", x, tokens, d, width, prefix + ".gate", bias);
    const TensorId u = b.linear(name + ".up", x, tokens, d, width, prefix + ".up", bias);
    g = b.unary(OpKind::Silu, name + ".silu", g, tokens * width);
    const TensorId h = b.binary(OpKind::Mul, name + ".mul", g, u, tokens * width);
    return b.linear(name + ".down", h, tokens, width, d, prefix + ".down", bias);
  }
  TensorId u = b.linear(name + ".up", x, tokens, d, width, prefix + ".up", bias);
  u = b.unary(m.ffn == TransformerModel::Ffn::Gelu ? OpKind::Gelu : OpKind::Relu,
              name + (m.ffn == TransformerModel::Ffn::Gelu ? ".gelu" : ".relu"), u, tokens * width);
  return b.linear(name + ".down", u, tokens, width, d, prefix + ".down", bias);
}

namespace {

struct Bucket {
  std::int32_t device;
  std::string format;
  std::vector<std::int32_t> experts;
};

// Experts grouped by (device, weight format), in order of first expert, so each bucket is one
// grouped GEMM chain with one weight tensor per matrix.
std::vector<Bucket> make_buckets(const TransformerModel& m, const QuantChoice& q, const MoeDispatch& dispatch) {
  std::map<std::pair<std::int32_t, std::string>, size_t> index;
  std::vector<Bucket> buckets;
  for (std::int32_t e = 0; e < m.experts; ++e) {
    const std::int32_t dev = dispatch.expert_device.empty() ? 0 : dispatch.expert_device[static_cast<size_t>(e)];
    const std::string& fmt = q.experts.empty() ? q.weights : q.experts[static_cast<size_t>(e)];
    auto [it, fresh] = index.try_emplace({dev, fmt}, buckets.size());
    if (fresh) buckets.push_back({dev, fmt, {}});
    buckets[it->second].experts.push_back(e);
  }
  return buckets;
}

}  // namespace

MoeBlockResult emit_moe_block(GraphBuilder& b, const TransformerModel& m, std::int32_t layer, TensorId x,
                              std::int64_t tokens, LayerRouting routing, const MoeDispatch& dispatch) {
  MoeBlockResult r;
  const std::int64_t d = m.hidden, E = m.experts, k = m.experts_per_token, F = m.expert_hidden;
  const std::string w = fmt::format("l{}.", layer);
  const TensorId logits = b.linear("router", x, tokens, d, E, w + "router");
  const TensorId probs = b.activation("router.softmax", {tokens, E});
  b.emit(OpKind::Softmax, "router.softmax", {{"rows", tokens}, {"cols", E}}, {logits}, {probs});
  const TensorId chosen = b.activation("router.top_k", {tokens, k});
  const OpId topk = b.emit(OpKind::TopK, "router.top_k", {{"rows", tokens}, {"cols", E}, {"k", k}}, {probs}, {chosen});

  if (dispatch.capacity_factor > 0) r.dropped = apply_capacity(routing, dispatch.capacity_factor);
  r.expert_tokens = routing.expert_load();
  std::int64_t kept = 0;
  for (auto n : r.expert_tokens) kept += n;

  r.out = b.activation("moe.out", {tokens, d});
  if (kept > 0) {
    // Dispatch: copies of the routed token rows, grouped by expert.
    TensorId routed = b.activation("moe.dispatch", {kept, d});
    const OpId g =
        b.emit(OpKind::Gather, "moe.dispatch", {{"rows", kept}, {"cols", d}, {"src_rows", tokens}}, {x}, {routed});
    b.graph().add_dependency(g, topk);  // top-k decides where the rows go
    if (dispatch.devices > 1) {
      const TensorId moved = b.activation("moe.dispatch.a2a", {kept, d});
      b.emit(OpKind::AllToAll, "moe.dispatch.a2a", {{"elements", kept * d}, {"devices", dispatch.devices}}, {routed},
             {moved});
      routed = moved;
    }
    const auto buckets = make_buckets(m, b.quant(), dispatch);
    for (size_t bi = 0; bi < buckets.size(); ++bi) {
      const Bucket& bucket = buckets[bi];
      const std::string tag = buckets.size() == 1 ? "" : fmt::format(".b{}", bi);
      const auto groups = static_cast<std::int64_t>(bucket.experts.size());
      std::vector<std::int64_t> sizes;
      std::int64_t rows = 0;
      for (auto e : bucket.experts) {
        sizes.push_back(r.expert_tokens[static_cast<size_t>(e)]);
        rows += sizes.back();
      }
      const std::string wp = w + "experts" + tag;
      const bool swiglu = m.ffn == TransformerModel::Ffn::SwiGlu;
      const TensorId w_up = b.weight(wp + ".up", {groups, F, d}, bucket.format);
      const TensorId w_gate = swiglu ? b.weight(wp + ".gate", {groups, F, d}, bucket.format) : -1;
      const TensorId w_down = b.weight(wp + ".down", {groups, d, F}, bucket.format);
      if (rows == 0) continue;  // no token reached these experts: weights exist, nothing runs
      TensorId in = routed;
      const std::string name = "moe.experts" + tag;
      if (buckets.size() > 1) {
        in = b.activation(name + ".rows", {rows, d});
        b.emit(OpKind::Gather, name + ".rows", {{"rows", rows}, {"cols", d}, {"src_rows", kept}}, {routed}, {in});
      }
      auto grouped = [&](const std::string& op, TensorId a, TensorId wt, std::int64_t n, std::int64_t kk) {
        const TensorId y = b.activation(name + op, {rows, n});
        const OpId id = b.emit(OpKind::GroupedGemm, name + op, {{"groups", groups}, {"m", rows}, {"n", n}, {"k", kk}},
                               {a, wt}, {y}, true, sizes);
        b.graph().set_device(id, bucket.device);
        return y;
      };
      TensorId h = grouped(".up", in, w_up, F, d);
      if (swiglu) {
        const TensorId gt = b.unary(OpKind::Silu, name + ".silu", grouped(".gate", in, w_gate, F, d), rows * F);
        h = b.binary(OpKind::Mul, name + ".mul", gt, h, rows * F);
      } else {
        h = b.unary(m.ffn == TransformerModel::Ffn::Gelu ? OpKind::Gelu : OpKind::Relu, name + ".act", h, rows * F);
      }
      TensorId y = grouped(".down", h, w_down, d, F);
      if (dispatch.devices > 1) {
        const TensorId back = b.activation(name + ".combine.a2a", {rows, d});
        b.emit(OpKind::AllToAll, name + ".combine.a2a", {{"elements", rows * d}, {"devices", dispatch.devices}}, {y},
               {back});
        y = back;
      }
      r.writers.push_back(b.emit(OpKind::Scatter, name + ".combine",
                                 {{"rows", rows}, {"cols", d}, {"dst_rows", tokens}, {"accumulate", 1}}, {y}, {r.out}));
    }
  }
  if (m.shared_experts > 0) {
    const TensorId shared =
        emit_ffn(b, m, "moe.shared", w + "shared", x, tokens, m.shared_experts * m.shared_expert_hidden);
    if (m.shared_expert_gate) {
      // sigmoid(x·w_g) scales the shared output; its matrix is the part that costs anything.
      b.linear("moe.shared_gate", x, tokens, d, 1, w + "shared_gate");
    }
    const TensorId sum = b.activation("moe.sum", {tokens, d});
    const OpId add = b.emit(OpKind::Add, "moe.sum", {{"elements", tokens * d}}, {r.out, shared}, {sum});
    for (OpId wr : r.writers) b.graph().add_dependency(add, wr);
    r.out = sum;
    r.writers = {add};
  } else if (r.writers.empty()) {
    // Every assignment was dropped: the block outputs zeros.
    r.writers.push_back(b.emit(OpKind::Copy, "moe.zero", {{"elements", tokens * d}}, {x}, {r.out}));
  }
  return r;
}

}  // namespace strata
