#include "workloads/transformer/transformer_workload.h"

#include <fmt/format.h>

#include "sim/input_error.h"
#include "workloads/formats/gemm_error.h"
#include "workloads/moe/routing_section.h"
#include "workloads/quant_section.h"
#include "workloads/transformer/transformer_generator.h"

namespace strata {

namespace {

void add_model_slots(KindSpec& s) {
  s.slot(SlotSpec{"model", "the model's shape (extends: a preset in configs/models/)", "section", "", true,
                  &TransformerModel::spec()});
  s.slot(SlotSpec{"quant", "number formats", "section", "", false, &quant_section_spec(QuantExtras::Experts)});
  s.slot(SlotSpec{"routing", "MoE routing (MoE models only)", "section", "", false, &routing_section_spec()});
}

QuantChoice checked_quant(const ValidatedNode& cfg, const TransformerModel& m) {
  const ValidatedNode& node = cfg.child("quant");
  QuantChoice q = read_quant_section(node);
  if (!q.experts.empty() && static_cast<std::int64_t>(q.experts.size()) != m.experts)
    throw InputError(node.params.where("experts"), node.path + ".experts",
                     fmt::format("gives {} formats for {} routed experts", q.experts.size(), m.experts));
  return q;
}

// GEMM error of the weight × activation product in the chosen formats, on seeded data with
// outlier channels: what the quantization choice costs in accuracy.
nlohmann::ordered_json quant_figures(const QuantChoice& q, std::uint64_t seed, std::int64_t row) {
  GemmErrorOptions opt;
  opt.seed = seed;
  const GemmError e = gemm_error(parse_quant_spec(q.activations), parse_quant_spec(q.weights),
                                 *find_number_format(q.accumulate), opt);
  nlohmann::ordered_json j;
  j["weights"] = q.weights;
  j["activations"] = q.activations;
  j["kv_cache"] = q.kv_cache;
  j["accumulate"] = q.accumulate;
  j["weight_bits_per_element"] = parse_quant_spec(q.weights).bits_per_element(row);
  j["gemm_sqnr_db"] = e.sqnr_db;
  j["gemm_relative_error"] = e.relative_frobenius;
  return j;
}

nlohmann::ordered_json routing_figures(const std::vector<LayerRouting>& layers) {
  const RoutingStats r = measure_routing(layers);
  nlohmann::ordered_json j;
  j["layers"] = r.layers;
  j["tokens"] = r.tokens;
  j["hot_ratio"] = r.hot_ratio;
  j["max_hot_ratio"] = r.max_hot_ratio;
  j["load_cv"] = r.cv;
  j["token_persistence"] = r.persistence;
  j["layer_affinity"] = r.layer_affinity;
  return j;
}

std::vector<std::int64_t> total_load(const std::vector<LayerRouting>& layers, std::int64_t experts) {
  std::vector<std::int64_t> load(static_cast<size_t>(experts));
  for (const auto& l : layers) {
    const auto part = l.expert_load();
    for (size_t e = 0; e < load.size(); ++e) load[e] += part[e];
  }
  return load;
}

}  // namespace

// --- transformer ---------------------------------------------------------------------------

KindSpec TransformerWorkload::spec() {
  KindSpec s;
  s.name = "transformer";
  s.description = "transformer inference: prefill, decode steps with a growing KV cache, or both";
  s.add(param::choice("phase", {"prefill", "decode", "generate"},
                      "prefill: one pass over the prompt; decode: gen_tokens steps after a cached prompt; generate: both")
            .def("decode"));
  s.add(param::integer("batch", "sequences processed together").def("1").range("1", "1000000"));
  s.add(param::integer("prompt_len", "prompt tokens (decode: already in the KV cache)").def("128").range("1", "100000000"));
  s.add(param::integer("gen_tokens", "decode steps, one token per sequence each").def("1").range("1", "1000000"));
  add_model_slots(s);
  return s;
}

TransformerWorkload::TransformerWorkload(const ValidatedNode& cfg, SimContext& ctx)
    : GraphWorkload(cfg, ctx), model_(TransformerModel::from(cfg.child("model"))) {
  const Params& p = cfg.params;
  const std::int64_t len = p.integer("prompt_len") + (p.string("phase") == "prefill" ? 0 : p.integer("gen_tokens"));
  if (len > model_.max_positions)
    throw InputError(p.where("prompt_len"), cfg.path + ".prompt_len",
                     fmt::format("sequences reach {} tokens, beyond the model's max_positions ({})", len,
                                 model_.max_positions));
  quant_ = checked_quant(cfg, model_);
  if (model_.is_moe())
    routing_.emplace(cfg.child("routing"), static_cast<std::int32_t>(model_.experts),
                     static_cast<std::int32_t>(model_.experts_per_token), ctx.seed());
}

OpGraph TransformerWorkload::build() const {
  const Params& p = cfg_.params;
  TransformerGraphOptions o;
  const std::string phase = p.string("phase");
  o.shape.phase = phase == "prefill" ? InferenceShape::Phase::Prefill
                  : phase == "decode" ? InferenceShape::Phase::Decode
                                      : InferenceShape::Phase::Generate;
  o.shape.batch = p.integer("batch");
  o.shape.prompt_len = p.integer("prompt_len");
  o.shape.gen_tokens = p.integer("gen_tokens");
  o.quant = quant_;
  if (routing_) {
    // Route every token of every sequence once per MoE layer, then hand each step its slice.
    const auto steps = inference_steps(o.shape);
    std::vector<std::int64_t> start;
    std::int64_t positions = 0;
    for (const auto& st : steps) {
      start.push_back(positions);
      positions += st.q_len;
    }
    auto layers = std::make_shared<std::vector<LayerRouting>>(
        routing_->route(static_cast<std::int32_t>(model_.moe_layers()), o.shape.batch * positions));
    o.dispatch = routing_->dispatch(total_load(*layers, model_.experts));
    const std::int64_t batch = o.shape.batch;
    o.routing = [layers, start, steps, positions, batch](std::int32_t moe_layer, std::int64_t step, std::int64_t tokens) {
      const LayerRouting& all = (*layers)[static_cast<size_t>(moe_layer)];
      LayerRouting r;
      r.layer = all.layer;
      r.num_experts = all.num_experts;
      const auto s = static_cast<size_t>(step);
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t i = 0; i < steps[s].q_len; ++i)
          r.tokens.push_back(all.tokens[static_cast<size_t>(b * positions + start[s] + i)]);
      if (static_cast<std::int64_t>(r.tokens.size()) != tokens) throw std::logic_error("routing slice size");
      return r;
    };
  }
  return generate_transformer(model_, o);
}

nlohmann::ordered_json TransformerWorkload::details() const {
  const Params& p = cfg_.params;
  nlohmann::ordered_json j;
  nlohmann::ordered_json m;
  m["name"] = model_.name;
  m["layers"] = model_.layers;
  m["hidden"] = model_.hidden;
  // Scales amortized over the cache's rows (a head's width; latent plus RoPE key for MLA).
  const std::int64_t row = model_.attention == TransformerModel::Attention::Mla
                               ? model_.kv_lora_rank + model_.qk_rope_head_dim
                               : model_.head_dim;
  m["kv_cache_bytes_per_token"] = static_cast<double>(model_.kv_cache_elements_per_token()) *
                                  parse_quant_spec(quant_.kv_cache).bits_per_element(row) / 8;
  m["phase"] = p.string("phase");
  m["batch"] = p.integer("batch");
  m["prompt_len"] = p.integer("prompt_len");
  m["gen_tokens"] = p.integer("gen_tokens");
  j["model"] = m;
  j["quant"] = quant_figures(quant_, ctx_.seed(), model_.hidden);
  return j;
}

// --- moe_layer -----------------------------------------------------------------------------

KindSpec MoeLayerWorkload::spec() {
  KindSpec s;
  s.name = "moe_layer";
  s.description = "one mixture-of-experts feed-forward block (router, experts, shared experts) over a batch of tokens";
  s.add(param::integer("tokens", "tokens entering the block (batch × sequence positions)").def("16").range("1", "100000000"));
  s.add(param::integer("layer", "which MoE layer (its routing: generator stream or trace layer)").def("0").range("0", "100000"));
  add_model_slots(s);
  return s;
}

MoeLayerWorkload::MoeLayerWorkload(const ValidatedNode& cfg, SimContext& ctx)
    : GraphWorkload(cfg, ctx), model_(TransformerModel::from(cfg.child("model"))) {
  if (!model_.is_moe())
    throw InputError(cfg.child("model").loc, cfg.path + ".model.experts", "moe_layer needs a model with experts > 0");
  if (cfg.params.integer("layer") >= model_.moe_layers())
    throw InputError(cfg.params.where("layer"), cfg.path + ".layer",
                     fmt::format("the model has {} MoE layers", model_.moe_layers()));
  quant_ = checked_quant(cfg, model_);
  const MoeRouting routing(cfg.child("routing"), static_cast<std::int32_t>(model_.experts),
                           static_cast<std::int32_t>(model_.experts_per_token), ctx.seed());
  routing_ = routing.route(1, cfg.params.integer("tokens"), static_cast<std::int32_t>(cfg.params.integer("layer")))[0];
  dispatch_ = routing.dispatch(routing_.expert_load());
}

OpGraph MoeLayerWorkload::build() const {
  const std::int64_t tokens = cfg_.params.integer("tokens");
  const auto layer = static_cast<std::int32_t>(cfg_.params.integer("layer"));
  OpGraph g;
  g.name = fmt::format("{} MoE layer {}", model_.name, layer);
  g.parameters = model_.moe_layer_params(false);
  g.active_parameters = model_.moe_layer_params(true);
  GraphBuilder b(g, quant_);
  const std::int32_t l = static_cast<std::int32_t>(layer + model_.first_dense_layers);
  b.at(l, "");
  const TensorId x = b.activation("x", {tokens, model_.hidden});
  emit_moe_block(b, model_, l, x, tokens, routing_, dispatch_);
  return g;
}

nlohmann::ordered_json MoeLayerWorkload::details() const {
  nlohmann::ordered_json j;
  j["routing"] = routing_figures({routing_});
  LayerRouting kept = routing_;
  if (dispatch_.capacity_factor > 0) j["routing"]["dropped_assignments"] = apply_capacity(kept, dispatch_.capacity_factor);
  j["routing"]["expert_tokens"] = kept.expert_load();
  if (dispatch_.devices > 1)
    j["routing"]["device_tokens"] = device_load(dispatch_.expert_device, dispatch_.devices, kept.expert_load());
  j["quant"] = quant_figures(quant_, ctx_.seed(), model_.hidden);
  return j;
}

}  // namespace strata
