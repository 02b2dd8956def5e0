// Operator graphs on the GPU through the strata binary: the `gemm` workload's kernels against
// first principles and the relative results public measurements agree on, the GEMV's bandwidth,
// the analytic fidelity beside the cycle level, and what the mapper refuses.
#include <cmath>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

struct GemmRun {
  nlohmann::json summary, stats;
  double seconds() const { return summary["latency_s"].get<double>(); }
  double launch(const std::string& stat) const {
    return stats["hardware"]["launches"]["gemm"][stat]["value"].get<double>();
  }
};

// A `gemm` workload of shape m x n x k in `format` (A and B) on the GPU preset `preset`.
GemmRun run_gemm(const std::string& preset, std::int64_t m, std::int64_t n, std::int64_t k,
                 const std::string& format = "fp16", const std::string& extra = "") {
  TempDir dir;
  const std::string e = dir.write(
      "e.yaml", "name: gemm\nhardware: {extends: " + source_path("configs/hardware/gpu/" + preset + ".yaml") +
                    "}\nworkload: {kind: gemm, m: " + std::to_string(m) + ", n: " + std::to_string(n) +
                    ", k: " + std::to_string(k) + ", quant: {activations: " + format + ", weights: " + format +
                    ", accumulate: fp32}}\n");
  const CommandResult r = run_strata("run -q '" + e + "' " + extra + " -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {};
  return {json_file(dir.file("out/summary.json")), json_file(dir.file("out/stats.json"))};
}

// A small Llama-shaped FP16 decode step (hidden 512, 8 heads, 128-token context) of `layers`
// layers on the preset `hardware` (e.g. "gpu/h100-sxm"), written to `file` in `dir`.
std::string small_llama_decode(const TempDir& dir, const std::string& file, const std::string& hardware, int layers) {
  return dir.write(file,
                   "name: decode\nhardware: {extends: " + source_path("configs/hardware/" + hardware + ".yaml") +
                       "}\nworkload: {kind: transformer, phase: decode, batch: 1, prompt_len: 128, gen_tokens: 1, "
                       "model: {extends: " +
                       source_path("configs/models/llama-2-7b.yaml") + ", layers: " + std::to_string(layers) +
                       ", hidden: 512, heads: 8, kv_heads: 8, ffn_hidden: 1376, vocab: 1024}, "
                       "quant: {weights: fp16, activations: fp16, kv_cache: fp16, accumulate: fp32}}\n");
}

// H100 SXM dense tensor peaks (../shared/reference/gpu.md, section 2.2).
constexpr double kH100Fp16 = 989.4, kH100Fp8 = 1978.9;

TEST(GpuGemm, LargeGemmApproachesButNeverExceedsTheTensorPeak) {
  const GemmRun r = run_gemm("h100-sxm", 2048, 2048, 2048);
  const double in_kernel = r.launch("flops") / (r.seconds() - 8700 / 1.83e9) * 1e-12;
  EXPECT_LT(in_kernel, kH100Fp16);
  // Without TMA multicast the model's FP16 GEMM is held by the L2's bandwidth near half the
  // peak (docs/gpu.md, Kernels); cuBLAS reaches about 80%. The bound states that gap.
  EXPECT_GT(in_kernel, 0.25 * kH100Fp16);
  EXPECT_EQ(r.launch("memory_bound"), 0);
  EXPECT_GT(r.summary["mapper_candidates"].get<double>(), 1);
}

TEST(GpuGemm, WaveQuantizationStepsWhereTheTilesPassTheSmCount) {
  // 1024 x 2048 in 128 x 128 tiles is 128 tiles: one wave on 132 SMs. 2176 and 2304 columns
  // need more tiles than SMs: a second (partial) wave each, so the same time for more work.
  // At one clock (dvfs: fixed): under the power limit the full wave draws more and runs slower
  // than the kernels whose second wave is partial, which hides part of the step.
  const std::string fixed = "--set hardware.dvfs=fixed";
  const GemmRun one = run_gemm("h100-sxm", 1024, 2048, 1024, "fp16", fixed);
  const GemmRun two = run_gemm("h100-sxm", 1024, 2176, 1024, "fp16", fixed);
  const GemmRun same = run_gemm("h100-sxm", 1024, 2304, 1024, "fp16", fixed);
  EXPECT_EQ(one.launch("waves"), 1);
  EXPECT_GT(two.seconds(), 1.2 * one.seconds());
  EXPECT_NEAR(same.seconds(), two.seconds(), 0.03 * two.seconds());
}

TEST(GpuGemm, WaveSamplingLandsNearTheFullRun) {
  // 8192 x 4096 x 512 in 128 x 256 tiles: 1024 CTAs in clusters of 2, 132 at once (7.75 waves).
  // sim.sample: waves simulates the first wave, the second (which starts in step and completes
  // slower) and the third and fourth (steady: within 3% of each other), counts those two again
  // for the two whole waves not yet placed, and simulates the wave in flight and the last
  // 0.75 wave. Measured: latency +0.8%, energy -0.4%, warp instructions +1.2% of the full run.
  // DRAM bytes are not held to it: the skipped waves' results would have filled the L2 and
  // begun its write-backs, a change of state a repeated steady wave does not carry. At the
  // clock the tensor peaks are quoted at (dvfs: fixed): under the 700 W limit the clock drops
  // to about 1.78 GHz, where this shape's waves differ by more than sim.sample's 3% and all run.
  const std::string fixed = "--set hardware.dvfs=fixed --set sim.sample=";
  const GemmRun full = run_gemm("h100-sxm", 8192, 4096, 512, "fp16", fixed + "none");
  const GemmRun sampled = run_gemm("h100-sxm", 8192, 4096, 512, "fp16", fixed + "waves");
  ASSERT_TRUE(full.summary.contains("latency_s") && sampled.summary.contains("latency_s"));
  EXPECT_EQ(sampled.summary["skipped_ctas"].get<double>(), 2 * 132);
  EXPECT_FALSE(full.summary.contains("skipped_ctas"));
  EXPECT_EQ(sampled.launch("flops"), full.launch("flops"));
  for (const char* key : {"latency_s", "energy_j", "warp_instructions"})
    EXPECT_NEAR(sampled.summary[key].get<double>(), full.summary[key].get<double>(),
                0.02 * full.summary[key].get<double>())
        << key;
  EXPECT_EQ(sampled.stats["hardware"]["ctas"]["value"], full.stats["hardware"]["ctas"]["value"]);
}

TEST(GpuGemm, WaveSamplingSkipsWholeWavesOnASmallGpu) {
  // 2048 x 2048 x 512 on an H100 cut to 16 SMs: 128 CTAs of 128 x 256, 16 at once (8 waves).
  // The whole waves left once two steady waves are measured are skipped, in whole waves. With
  // 16 CTAs a wave the waves' rates scatter more than on 132 SMs: measured +2.0% latency, +3.1%
  // energy, +0.8% warp instructions.
  const std::string small = "--set hardware.sms=16 --set hardware.gpcs=2 --set sim.sample=";
  const GemmRun full = run_gemm("h100-sxm", 2048, 2048, 512, "fp16", small + "none");
  const GemmRun sampled = run_gemm("h100-sxm", 2048, 2048, 512, "fp16", small + "waves");
  ASSERT_TRUE(full.summary.contains("latency_s") && sampled.summary.contains("latency_s"));
  const double skipped = sampled.summary["skipped_ctas"].get<double>();
  EXPECT_GE(skipped, 16);
  EXPECT_EQ(std::fmod(skipped, 16), 0);
  for (const char* key : {"latency_s", "energy_j", "warp_instructions"})
    EXPECT_NEAR(sampled.summary[key].get<double>(), full.summary[key].get<double>(),
                0.05 * full.summary[key].get<double>())
        << key;
}

TEST(GpuGemm, Fp8OutrunsFp16WithinWhatThePeaksAllow) {
  // Public: 1402.6 / 794.5 = 1.77 at each format's best shape (stas00/ml-engineering). The
  // model's FP16 runs nearer the L2's bandwidth bound than its FP8 (half the bytes per MAC), so
  // it lands above that ratio; it may not pass the peaks' 2 by more than that bound explains.
  const GemmRun fp16 = run_gemm("h100-sxm", 2048, 2048, 2048);
  const GemmRun fp8 = run_gemm("h100-sxm", 2048, 2048, 2048, "fp8_e4m3");
  const double ratio = fp16.seconds() / fp8.seconds();
  EXPECT_GT(ratio, 1.3);
  EXPECT_LT(ratio, 2.6);
  EXPECT_LT(fp8.launch("tflops"), kH100Fp8);
  EXPECT_GT(fp8.stats["hardware"]["tensor_macs"]["fp8_e4m3"]["value"].get<double>(), 0);
}

TEST(GpuGemm, H100OutrunsA100OnTheSameGemm) {
  // Public: 794.5 / 271.2 = 2.9 (BF16, each GPU's best shape, stas00/ml-engineering); the peaks'
  // ratio is 989.4 / 312 = 3.2. The A100 runs the cp.async + mma.sync main loop, which reaches
  // about 55% of its peak here against cuBLAS's 87% (docs/gpu.md), so the model's ratio sits
  // near 3.9: the bound allows that gap and no more.
  const GemmRun h100 = run_gemm("h100-sxm", 2048, 2048, 2048);
  const GemmRun a100 = run_gemm("a100-sxm", 2048, 2048, 2048);
  const double ratio = a100.seconds() / h100.seconds();
  EXPECT_GT(ratio, 1.5);
  EXPECT_LT(ratio, 4.5);
}

TEST(GpuGemm, SkinnyGemvIsBandwidthBoundBelowThePeak) {
  const GemmRun r = run_gemm("h100-sxm", 1, 4096, 4096);
  EXPECT_EQ(r.launch("memory_bound"), 1);
  // The weights (32 MiB) are read once: at least those bytes, below the HBM3 peak of 3.35 TB/s.
  EXPECT_GE(r.launch("dram_bytes"), 4096.0 * 4096 * 2);
  EXPECT_LT(r.launch("bandwidth"), 3350);
  EXPECT_GT(r.launch("bandwidth"), 0.3 * 3350);
}

// The silicon suite's GEMV and 4096^3 GEMM checks (configs/validation/silicon.yaml): the H100
// preset against the measured card's times per call (../shared/reference/gpu-silicon.md: 69.8
// and 197.4 us), back to back (no launch), within the suite's 10%. The GEMV streams its weights
// at the DRAM's rate (-0.3%); the GEMM runs at the clock its modelled power holds under the
// 700 W limit, about 1580 MHz (-7.4%; docs/gpu.md, Against a measured H100).
TEST(GpuGemm, TheMeasuredH100sGemvAndGemmLandWithinTheSiliconSuitesTolerance) {
  const GemmRun gemv = run_gemm("h100-sxm", 1, 22016, 4096, "fp16", "--set hardware.kernel_launch=0");
  EXPECT_NEAR(gemv.seconds(), 69.8e-6, 0.1 * 69.8e-6);
  const GemmRun gemm = run_gemm("h100-sxm", 4096, 4096, 4096, "fp16", "--set hardware.kernel_launch=0");
  EXPECT_NEAR(gemm.seconds(), 197.4e-6, 0.1 * 197.4e-6);
}

TEST(GpuGemm, AnalyticFidelityLandsNearTheCycleLevelRun) {
  // Stated bound: within 40% on these steady GEMMs; the analytic model has no L2 queueing.
  for (const std::int64_t m : {1, 1024}) {
    const GemmRun cycle = run_gemm("h100-sxm", m, 2048, 2048);
    const GemmRun analytic = run_gemm("h100-sxm", m, 2048, 2048, "fp16", "--set sim.fidelity=analytic");
    EXPECT_NEAR(analytic.seconds(), cycle.seconds(), 0.4 * cycle.seconds()) << "m = " << m;
  }
}

TEST(GpuGemm, TheGemmWorkloadRunsOnTheNpuToo) {
  TempDir dir;
  const std::string e = dir.write("e.yaml", "name: gemm\nhardware: {extends: " +
                                                source_path("configs/hardware/npu/edge-npu.yaml") +
                                                "}\nworkload: {kind: gemm, m: 64, n: 256, k: 256}\n");
  const CommandResult r = run_strata("run -q '" + e + "' -o '" + dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_DOUBLE_EQ(json_file(dir.file("out/summary.json"))["flops"].get<double>(), 2.0 * 64 * 256 * 256);
}

TEST(GpuGemm, BadShapesFailWithOneLine) {
  TempDir dir;
  const std::string bad = dir.write("bad.yaml", "name: g\nhardware: {extends: " +
                                                    source_path("configs/hardware/gpu/h100-sxm.yaml") +
                                                    "}\nworkload: {kind: gemm, m: 0, n: 8, k: 8}\n");
  CommandResult r = run_strata("run -q '" + bad + "' -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("workload.m"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST(GpuGraph, LayerReuseLandsOnTheFullRun) {
  // A small Llama-shaped decode step of 5 layers. Fused kernels cross the layers' edges (a
  // layer's first norm takes the residual add before it), so the first layer, whose norm has no
  // add before it, differs from the rest: with sim.reuse the fourth and fifth layers are the
  // third counted again; latency, instructions and energy stay within 2% of simulating every
  // layer (they differ only in where each layer's weights sit in memory).
  TempDir dir;
  const std::string e = small_llama_decode(dir, "e.yaml", "gpu/h100-sxm", 5);
  const auto run = [&](const std::string& reuse) {
    const CommandResult r = run_strata("run -q '" + e + "' --set sim.reuse=" + reuse + " -o '" + dir.file(reuse) + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json_file(dir.file(reuse + "/summary.json")) : nlohmann::json::object();
  };
  const nlohmann::json all = run("none"), reused = run("layers");
  ASSERT_TRUE(all.contains("latency_s") && reused.contains("latency_s"));
  EXPECT_EQ(reused["simulated_layers"].get<double>(), 3);
  EXPECT_EQ(reused["reused_layers"].get<double>(), 2);
  EXPECT_EQ(all["reused_layers"].get<double>(), 0);
  for (const char* key : {"latency_s", "energy_j", "warp_instructions", "flops"})
    EXPECT_NEAR(reused[key].get<double>(), all[key].get<double>(), 0.02 * all[key].get<double>()) << key;
  // The L2's counters are counted again with the layers.
  const auto l2 = [&](const std::string& reuse, const char* stat) {
    return json_file(dir.file(reuse + "/stats.json"))["hardware"]["l2"][stat]["value"].get<double>();
  };
  for (const char* stat : {"hit_sectors", "miss_sectors", "dram_read_bytes"})
    EXPECT_NEAR(l2("layers", stat), l2("none", stat), 0.02 * l2("none", stat)) << stat;
}

TEST(GpuGraph, BiasAndGeluJoinTheProductsEpilogue) {
  // A small GPT-2 (hidden 256; biases everywhere, GELU between its feed-forward products). With
  // kernels.fuse the up projection's GEMM (prefill) or GEMV (decode) adds its bias and applies
  // the GELU before its stores, as cuBLASLt's GELU_BIAS epilogue: no GELU launch, the product's
  // row reports epilogue_ops, and the step saves the launch (4.75 us) less the epilogue's math.
  TempDir dir;
  for (const char* phase : {"prefill", "decode"}) {
    const std::string e = dir.write(
        std::string(phase) + ".yaml",
        "name: gpt2\nhardware: {extends: " + source_path("configs/hardware/gpu/h100-sxm.yaml") +
            "}\nworkload: {kind: transformer, phase: " + phase +
            ", batch: 1, prompt_len: 64, gen_tokens: 1, model: {extends: " + source_path("configs/models/gpt2.yaml") +
            ", layers: 2, hidden: 256, heads: 4, ffn_hidden: 1024, vocab: 512}, quant: {weights: fp16, "
            "activations: fp16, kv_cache: fp16, accumulate: fp32}}\n");
    const auto run = [&](const std::string& fuse) {
      const std::string out = dir.file(std::string(phase) + fuse);
      const CommandResult r =
          run_strata("run -q '" + e + "' --set hardware.kernels.fuse=" + fuse + " -o '" + out + "'");
      EXPECT_EQ(r.code, 0) << r.err;
      return r.code == 0 ? json_file(out + "/stats.json")["hardware"] : nlohmann::json::object();
    };
    const nlohmann::json fused = run("true"), apart = run("false");
    ASSERT_TRUE(fused.contains("launches") && apart.contains("launches")) << phase;
    for (const char* layer : {"l0", "l1"}) {
      const nlohmann::json& f = fused["launches"]["s0"][layer]["ffn"];
      EXPECT_EQ(f["up"]["epilogue_ops"]["value"].get<double>(), 1) << phase << layer;
      EXPECT_FALSE(f.contains("gelu")) << phase << layer;
      EXPECT_TRUE(apart["launches"]["s0"][layer]["ffn"].contains("gelu")) << phase << layer;
      EXPECT_FALSE(apart["launches"]["s0"][layer]["ffn"]["up"].contains("epilogue_ops")) << phase << layer;
      // The epilogue's math costs the product less than a launch of its own.
      EXPECT_LT(f["up"]["time"]["value"].get<double>() -
                    apart["launches"]["s0"][layer]["ffn"]["up"]["time"]["value"].get<double>(),
                4.75e-6);
    }
  }
}

TEST(GpuGroupedGemm, ExpertsWithoutTokensCostNothing) {
  // One Mixtral-shaped MoE block (hidden 512, expert hidden 2048, MXFP4 experts, FP8
  // activations) over 16 tokens from a routing trace: every token to experts 0 and 1, or the
  // tokens spread over all eight. Both grouped GEMMs do the same work (32 rows); the first
  // reads two experts' weights, the second eight, and at 16 tokens the weights set the time.
  TempDir dir;
  std::string two, eight;
  for (int t = 0; t < 16; ++t) {
    two +=
        "{\"layer\": 0, \"token_idx\": " + std::to_string(t) + ", \"experts\": [0, 1], \"gating_probs\": [0.5, 0.4]}\n";
    eight += "{\"layer\": 0, \"token_idx\": " + std::to_string(t) + ", \"experts\": [" + std::to_string(t % 8) + ", " +
             std::to_string((t + 1) % 8) + "], \"gating_probs\": [0.5, 0.4]}\n";
  }
  const auto run = [&](const std::string& name, const std::string& trace) {
    const std::string e = dir.write(
        name + ".yaml", "name: moe\nhardware: {extends: " + source_path("configs/hardware/gpu/h100-sxm.yaml") +
                            "}\nworkload: {kind: moe_layer, tokens: 16, model: {extends: " +
                            source_path("configs/models/mixtral-8x7b.yaml") +
                            ", hidden: 512, expert_hidden: 2048}, quant: {weights: mxfp4, activations: fp8_e4m3, "
                            "accumulate: fp32}, routing: {source: trace, trace: " +
                            dir.write(name + ".jsonl", trace) + ", capacity_factor: 0}}\n");
    const CommandResult r = run_strata("run -q '" + e + "' -o '" + dir.file(name) + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json_file(dir.file(name + "/stats.json"))["hardware"]["launches"]["moe"]["experts"]["up"]
                       : nlohmann::json::object();
  };
  const nlohmann::json a = run("two", two), b = run("eight", eight);
  ASSERT_TRUE(a.contains("groups") && b.contains("groups"));
  const auto v = [](const nlohmann::json& j, const char* key) { return j[key]["value"].get<double>(); };
  EXPECT_EQ(v(a, "groups"), 2);
  EXPECT_EQ(v(b, "groups"), 8);
  EXPECT_DOUBLE_EQ(v(a, "flops"), 2.0 * 32 * 2048 * 512);
  EXPECT_DOUBLE_EQ(v(b, "flops"), v(a, "flops"));
  // Each active expert's 2048 x 512 MXFP4 weights (4.25 bits an element) come from the DRAM
  // once, with the activations and outputs on top (at most 10% more here).
  const double expert = 2048.0 * 512 * 4.25 / 8;
  EXPECT_GE(v(a, "dram_bytes"), 2 * expert);
  EXPECT_LT(v(a, "dram_bytes"), 2.2 * expert);
  EXPECT_GE(v(b, "dram_bytes"), 8 * expert);
  EXPECT_LT(v(b, "dram_bytes"), 8.8 * expert);
  // Four times the weights: more time (launch overhead, 4.75 us, is common to both).
  EXPECT_GT(v(b, "time") - 4.75e-6, 2 * (v(a, "time") - 4.75e-6));
}

TEST(GpuGraph, DecodeStepMovesTheSameBytesAndFlopsOnTheGpuTheNpuAndAnalytically) {
  // A small Llama-shaped decode step (2 layers, hidden 512, 128-token context, FP16) on the H100
  // and on the TPUv4i-style NPU, each at cycle level and analytically. The FLOPs are the graph's
  // on every run; the DRAM moves the weights and KV cache once (the workload's 14.34 MB) within
  // 3% on each (measured: 14.28, 14.31, 14.39 and 14.39 MB). The achieved bandwidths differ
  // with the designs' overheads: the GPU's 23 kernel launches (4.75 us each) against the NPU's
  // operators back to back (docs/gpu.md, Validation).
  TempDir dir;
  const std::string gpu = small_llama_decode(dir, "gpu.yaml", "gpu/h100-sxm", 2);
  const std::string npu = small_llama_decode(dir, "npu.yaml", "npu/tpuv4i", 2);
  const CommandResult info = run_strata("workload info --json '" + gpu + "'");
  ASSERT_EQ(info.code, 0) << info.err;
  const nlohmann::json w = nlohmann::json::parse(info.out);
  const double flops = w["flops"].get<double>(), bytes = w["bytes"]["total"].get<double>();
  for (const auto& [file, design] : {std::pair{gpu, "gpu"}, std::pair{npu, "npu"}})
    for (const char* fidelity : {"cycle", "analytic"}) {
      const std::string out = dir.file(std::string(design) + fidelity);
      const CommandResult r = run_strata("run -q '" + file + "' --set sim.fidelity=" + fidelity + " -o '" + out + "'");
      ASSERT_EQ(r.code, 0) << r.err;
      const nlohmann::json s = json_file(out + "/summary.json");
      EXPECT_DOUBLE_EQ(s["flops"].get<double>(), flops) << design << " " << fidelity;
      const double moved = s["dram_bandwidth_gbps"].get<double>() * 1e9 * s["simulated_time_s"].get<double>();
      EXPECT_NEAR(moved, bytes, 0.03 * bytes) << design << " " << fidelity;
    }
}

TEST(GpuGraph, AdjacentElementwiseAndNormKernelsFuse) {
  // A 2-layer Llama-shaped decode step: the residual add and the next RMSNorm share a kernel
  // (vLLM's fused_add_rms_norm, which also writes the residual), as do SiLU and the gate's
  // multiply (silu_and_mul); the Q, K and V projections run as one product, as do gate and up
  // (qkv_proj, gate_up_proj): 12 of 35 kernels go, with their launches; the FLOPs stay.
  TempDir dir;
  const std::string e = small_llama_decode(dir, "e.yaml", "gpu/h100-sxm", 2);
  const auto run = [&](const std::string& fuse) {
    const CommandResult r = run_strata("run -q '" + e + "' --set hardware.kernels.fuse=" + fuse + " -o '" + dir.file(fuse) + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json_file(dir.file(fuse + "/stats.json"))["hardware"] : nlohmann::json::object();
  };
  const nlohmann::json fused = run("true"), separate = run("false");
  ASSERT_TRUE(fused.contains("kernels") && separate.contains("kernels"));
  const auto v = [](const nlohmann::json& j, const char* key) { return j[key]["value"].get<double>(); };
  EXPECT_EQ(v(separate, "kernels"), 35);
  EXPECT_EQ(v(fused, "kernels"), 23);
  EXPECT_DOUBLE_EQ(v(fused, "flops"), v(separate, "flops"));
  const nlohmann::json& layer = fused["launches"]["s0"]["l0"];
  EXPECT_EQ(layer["ffn"]["mul"]["fused_ops"]["value"].get<double>(), 2);
  EXPECT_FALSE(layer["ffn"].contains("silu"));
  EXPECT_EQ(layer["q_proj"]["merged_ops"]["value"].get<double>(), 3);
  EXPECT_EQ(layer["ffn"]["gate"]["merged_ops"]["value"].get<double>(), 2);
  EXPECT_FALSE(layer.contains("k_proj") || layer["ffn"].contains("up"));
  // Twelve launches fewer (4.75 us each), and no more DRAM traffic.
  EXPECT_LT(v(fused, "latency"), v(separate, "latency") - 11 * 4.75e-6);
  EXPECT_LE(v(fused, "dram_bytes"), v(separate, "dram_bytes"));
}

}  // namespace
}  // namespace strata::testing
