// The transformer generator against published parameter counts (every model in the zoo) and
// hand calculations of KV-cache bytes and decode FLOPs.
#include <gtest/gtest.h>

#include <cmath>

#include "workload_test_util.h"
#include "workloads/opgraph/graph_summary.h"
#include "workloads/opgraph/opgraph_jsonl.h"

namespace strata {
namespace {

using testing::WorkloadFixture;
using testing::transformer_yaml;

std::int64_t weight_elements(const OpGraph& g) {
  std::int64_t n = 0;
  for (const auto& t : g.tensors())
    if (t.cls == TensorClass::Weights) n += t.elements();
  return n;
}

double flops_of(const OpGraph& g, OpKind kind) {
  double f = 0;
  for (const auto& op : g.ops())
    if (op.kind == kind) f += op_flops(op);
  return f;
}

struct Published {
  const char* model;
  double total;       // as published (../shared/reference/models.md and the model cards)
  double total_unit;  // one unit of the published figure's last digit
  double active = 0;  // MoE: active per token
  double active_unit = 0;
};

// Published figures are rounded, or truncated (Qwen3's "3.3 B" active is 3.35 B, DeepSeek-V3's
// "37 B" is 37.55 B), to their last digit: a count must lie within one unit of that digit.
const Published kPublished[] = {
    {"gpt2", 124e6, 1e6},
    {"gpt2-medium", 355e6, 1e6},
    {"gpt2-large", 774e6, 1e6},
    {"gpt2-xl", 1.56e9, 0.01e9},
    {"opt-1.3b", 1.3e9, 0.1e9},
    {"opt-6.7b", 6.7e9, 0.1e9},
    {"opt-13b", 13e9, 1e9},
    {"opt-30b", 30e9, 1e9},
    {"opt-66b", 66e9, 1e9},
    {"llama-2-7b", 6.74e9, 0.01e9},
    {"llama-2-13b", 13.0e9, 0.1e9},
    {"llama-2-70b", 69.0e9, 0.1e9},
    {"llama-3-8b", 8.03e9, 0.01e9},
    {"llama-3-70b", 70.6e9, 0.1e9},
    {"mixtral-8x7b", 46.7e9, 0.1e9, 12.9e9, 0.1e9},
    {"qwen1.5-moe-a2.7b", 14.3e9, 0.1e9, 2.7e9, 0.1e9},
    {"qwen3-30b-a3b", 30.5e9, 0.1e9, 3.3e9, 0.1e9},
    {"deepseek-v3", 671e9, 1e9, 37e9, 1e9},
    // DeepSeek counts activated parameters without the input embedding table; the total is
    // checked here and the active count in its own test below.
    {"deepseek-v2-lite", 15.7e9, 0.1e9},
};

void PrintTo(const Published& p, std::ostream* os) { *os << p.model; }

class ModelZoo : public ::testing::TestWithParam<Published> {};

TEST_P(ModelZoo, ParameterCountMatchesPublished) {
  const Published& p = GetParam();
  WorkloadFixture f;
  // One prefill token is enough to create every weight; MoE routing must reach every expert's
  // weights, which exist whether or not tokens reach them.
  const OpGraph& g = f.graph_of_yaml(transformer_yaml(p.model, "  phase: prefill\n  prompt_len: 1\n"));
  EXPECT_NEAR(static_cast<double>(g.parameters), p.total, p.total_unit) << p.model;
  EXPECT_EQ(weight_elements(g), g.parameters) << "the graph's weights and the model's count disagree";
  if (p.active > 0) {
    EXPECT_NEAR(static_cast<double>(g.active_parameters), p.active, p.active_unit) << p.model;
  }
}

INSTANTIATE_TEST_SUITE_P(Published, ModelZoo, ::testing::ValuesIn(kPublished),
                         [](const auto& info) {
                           std::string n = info.param.model;
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(Transformer, ExactCountsOfWellKnownCheckpoints) {
  // Exact parameter counts of the Hugging Face checkpoints.
  const std::pair<const char*, std::int64_t> exact[] = {
      {"gpt2", 124439808},           {"gpt2-medium", 354823168},   {"opt-1.3b", 1315758080},
      {"llama-2-7b", 6738415616},    {"llama-3-8b", 8030261248},   {"mixtral-8x7b", 46702792704},
      {"llama-2-70b", 68976648192},
  };
  for (const auto& [model, count] : exact) {
    WorkloadFixture f;
    EXPECT_EQ(f.graph_of_yaml(transformer_yaml(model, "  phase: prefill\n  prompt_len: 1\n")).parameters, count)
        << model;
  }
}

TEST(Transformer, DeepSeekActiveParametersWithoutInputEmbedding) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(transformer_yaml("deepseek-v2-lite", "  phase: prefill\n  prompt_len: 1\n"));
  // "2.4 B activated": 2.45 B without the 102400 × 2048 input table (2.66 B with it).
  EXPECT_NEAR(static_cast<double>(g.active_parameters - 102400 * 2048), 2.4e9, 0.1e9);
}

TEST(Transformer, KvCacheBytesPerToken) {
  // 2 × layers × kv_heads × head_dim × 2 bytes at FP16 (models.md): 512 KiB, 320 KiB, 128 KiB.
  const std::pair<const char*, double> cases[] = {
      {"llama-2-7b", 512 * 1024}, {"llama-2-70b", 320 * 1024}, {"mixtral-8x7b", 128 * 1024}};
  for (const auto& [model, bytes] : cases) {
    WorkloadFixture f;
    GraphWorkload& w = f.make(f.dir().write(std::string(model) + ".yaml",
                                            transformer_yaml(model, "  prompt_len: 100\n  gen_tokens: 28\n")));
    EXPECT_EQ((*w.info())["model"]["kv_cache_bytes_per_token"].get<double>(), bytes) << model;
    // The cache tensors hold batch × (prompt + generated) positions.
    EXPECT_EQ(summarize(w.graph()).footprint[static_cast<size_t>(TensorClass::KvCache)], bytes * 128) << model;
  }
  // MLA caches the 512-wide latent and the 64-wide RoPE key per layer: 27 × 576 × 2 bytes.
  WorkloadFixture f;
  GraphWorkload& w = f.make(f.dir().write("ds.yaml", transformer_yaml("deepseek-v2-lite")));
  EXPECT_EQ((*w.info())["model"]["kv_cache_bytes_per_token"].get<double>(), 27 * 576 * 2);
}

TEST(Transformer, Llama2DecodeStepMatchesHandCalculation) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(transformer_yaml("llama-2-7b", "  prompt_len: 511\n  gen_tokens: 1\n"));
  const double d = 4096, L = 32, F = 11008, V = 32000, kv = 512;
  // Batch 1: every linear layer is a GEMV; 2 FLOPs per weight of the projections, FFN and head.
  EXPECT_EQ(flops_of(g, OpKind::Gemv), 2 * (L * (4 * d * d + 3 * d * F) + V * d));
  EXPECT_EQ(flops_of(g, OpKind::Gemm), 0);
  // Attention: QKᵀ and PV over 512 cached positions, 32 heads of 128.
  EXPECT_EQ(flops_of(g, OpKind::Attention), L * 2 * 32 * kv * (128 + 128));
  // The weights are read once per step (FP16: 2 bytes each, embeddings: one row).
  const GraphSummary s = summarize(g);
  EXPECT_EQ(s.bytes[static_cast<size_t>(TensorClass::Weights)],
            2 * (L * (4 * d * d + 3 * d * F + 2 * d) + V * d + d + d));
  // K and V of 512 positions read, one position appended, per layer.
  EXPECT_EQ(s.bytes[static_cast<size_t>(TensorClass::KvCache)], L * 2 * (kv + 1) * d * 2);
  // Batch-1 decode is memory bound: about 1 FLOP per byte at FP16 (models.md).
  EXPECT_GT(s.arithmetic_intensity(), 0.9);
  EXPECT_LT(s.arithmetic_intensity(), 1.1);
}

TEST(Transformer, DecodeStepsGrowTheCache) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(transformer_yaml("gpt2", "  prompt_len: 10\n  gen_tokens: 3\n"));
  std::vector<std::int64_t> kv_lens;
  for (const auto& op : g.ops())
    if (op.kind == OpKind::Attention && op.layer == 0) kv_lens.push_back(op.dim("kv_len"));
  EXPECT_EQ(kv_lens, (std::vector<std::int64_t>{11, 12, 13}));
  EXPECT_NO_THROW(g.check_dependencies());
}

TEST(Transformer, PrefillIsCausalAndEmitsLogitsForTheLastPositions) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(transformer_yaml("llama-3-8b", "  phase: prefill\n  batch: 2\n  prompt_len: 64\n"));
  double attn = 0;
  for (const auto& op : g.ops()) {
    if (op.kind == OpKind::Attention) {
      EXPECT_EQ(op.dim("causal"), 1);
      EXPECT_EQ(op.dim("kv_heads"), 8);
      attn += op_flops(op);
    }
    if (op.name == "s0.lm_head") {
      EXPECT_EQ(op.dim("m"), 2);
    }
  }
  EXPECT_EQ(attn, 32.0 * 2 * 2 * 32 * (64 * 65 / 2) * 256);
}

// Learned positions: every sequence of a batch reads the same prompt_len rows of the position
// table, so a batch of full-length prompts fits the table (GPT-2's 1024 positions: 2 x 1024 tokens
// used to read "2048 rows" and fail its shape check), and decode reads one row.
TEST(Transformer, LearnedPositionsReadEachPositionsRowOncePerBatch) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(transformer_yaml("gpt2", "  phase: prefill\n  batch: 2\n  prompt_len: 1024\n"));
  const Operator* pos = nullptr;
  for (const auto& op : g.ops())
    if (op.name == "s0.embed.pos") pos = &op;
  ASSERT_NE(pos, nullptr);
  EXPECT_EQ(pos->dim("tokens"), 2048);
  EXPECT_EQ(input_elements(*pos, 0), 1024 * 768);
  EXPECT_EQ(output_elements(*pos, 0), 2048 * 768);
  const OpGraph& d = f.graph_of_yaml(transformer_yaml("gpt2", "  batch: 4\n  prompt_len: 100\n"));
  for (const auto& op : d.ops())
    if (op.name == "s0.embed.pos") EXPECT_EQ(input_elements(op, 0), 768);
}

TEST(Transformer, QuantizationChangesBytesNotFlops) {
  WorkloadFixture f;
  const GraphSummary fp16 = summarize(f.graph_of_yaml(transformer_yaml("llama-2-7b")));
  const GraphSummary w4 =
      summarize(f.graph_of_yaml(transformer_yaml("llama-2-7b", "  quant: {weights: int4_g128, kv_cache: fp8_e4m3}\n")));
  EXPECT_EQ(w4.flops, fp16.flops);
  const auto W = static_cast<size_t>(TensorClass::Weights), K = static_cast<size_t>(TensorClass::KvCache);
  EXPECT_NEAR(w4.footprint[W] / fp16.footprint[W], 4.125 / 16, 1e-6);
  EXPECT_DOUBLE_EQ(w4.footprint[K] / fp16.footprint[K], 0.5);
}

TEST(Transformer, MoeDecodeRoutesEveryTokenToKExperts) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(transformer_yaml("mixtral-8x7b", "  batch: 8\n  gen_tokens: 2\n"));
  for (const auto& op : g.ops()) {
    if (op.kind != OpKind::GroupedGemm) continue;
    std::int64_t rows = 0;
    for (auto r : op.group_sizes) rows += r;
    EXPECT_EQ(rows, 8 * 2) << op.name;  // 8 tokens, top-2, no capacity limit
  }
  EXPECT_NO_THROW(g.check_dependencies());
  EXPECT_EQ(g.active_parameters, 12879925248);  // 2 of 8 experts, by hand
}

TEST(Transformer, SameSeedSameGraphOtherSeedOtherRouting) {
  const std::string yaml = transformer_yaml("qwen1.5-moe-a2.7b", "  batch: 4\n  routing: {popularity: zipf, hot_ratio: 3}\n");
  WorkloadFixture a, b, c;
  const std::string ga = opgraph_jsonl(a.graph_of_yaml(yaml));
  EXPECT_EQ(ga, opgraph_jsonl(b.graph_of_yaml(yaml)));
  EXPECT_NE(ga, opgraph_jsonl(c.graph_of_yaml("seed: 2\n" + yaml)));
}

TEST(Transformer, BadInputsNameTheirKeys) {
  WorkloadFixture f;
  auto err = [&](const std::string& extra, const std::string& model = "llama-2-7b") {
    return f.error_of_yaml(transformer_yaml(model, extra));
  };
  EXPECT_NE(err("  quant: {weights: int4_g100}\n").find("workload.quant.weights"), std::string::npos);
  EXPECT_NE(err("  quant: {accumulate: int8}\n").find("cannot accumulate"), std::string::npos);
  EXPECT_NE(err("  prompt_len: 4000\n  gen_tokens: 200\n").find("beyond the model's max_positions (4096)"), std::string::npos);
  EXPECT_NE(err("  quant: {experts: [mxfp4, int8]}\n", "mixtral-8x7b").find("gives 2 formats for 8 routed experts"),
            std::string::npos);
  EXPECT_NE(err("  routing: {popularity: uniform, hot_ratio: 3}\n", "mixtral-8x7b").find("workload.routing"),
            std::string::npos);
  EXPECT_NE(f.error_of_yaml("workload:\n  kind: transformer\n  model: {layers: 2, hidden: 64, heads: 3, kv_heads: 2, ffn: "
                            "gelu, ffn_hidden: 8, norm: rmsnorm, vocab: 10, max_positions: 8, positions: rope}\n")
                .find("workload.model.kv_heads: heads (3) must be a multiple of kv_heads (2)"),
            std::string::npos);
}

TEST(Transformer, PerExpertFormatsSplitTheExperts) {
  WorkloadFixture f;
  const OpGraph& g = f.graph_of_yaml(transformer_yaml(
      "mixtral-8x7b", "  quant: {experts: [mxfp4, mxfp4, mxfp4, mxfp4, int8_pc, int8_pc, fp16, fp16]}\n"));
  EXPECT_EQ(g.tensor(g.find_tensor("l0.experts.b0.up")).format, "mxfp4");
  EXPECT_EQ(g.tensor(g.find_tensor("l0.experts.b0.up")).shape, (std::vector<std::int64_t>{4, 14336, 4096}));
  EXPECT_EQ(g.tensor(g.find_tensor("l0.experts.b2.down")).format, "fp16");
  EXPECT_EQ(weight_elements(g), g.parameters);
}

}  // namespace
}  // namespace strata
