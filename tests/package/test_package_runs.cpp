// Packages of devices through the strata binary: a one-device package is the device (same
// results, both fidelities); tensor parallel over two TPUv4i-style chips times its all-reduces
// exactly as the ring's closed form says (idle, symmetric links), agrees with the analytic
// fidelity within 10% (the NPU's own analytic tolerance, docs/npu.md), and runs a
// Llama-2-13B decode step 1.8-2.0x faster than one chip (each chip streams half the weights;
// the all-reduces and the whole embedding/norms cost the rest); bad placements exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

// A decode step of `model` on `hardware`, `layers` layers, INT8 with FP32 accumulation.
std::string decode(const TempDir& dir, const std::string& name, const std::string& hardware, const std::string& model,
                   int layers, const std::string& extra_hardware = "") {
  return dir.write(name + ".yaml",
                   "name: " + name + "\nseed: 1\nhardware:\n  extends: " + source_path(hardware) + "\n" +
                       extra_hardware +
                       "workload:\n  kind: transformer\n  phase: decode\n  batch: 1\n"
                       "  prompt_len: 512\n  gen_tokens: 1\n  model:\n    extends: " +
                       source_path(model) + "\n    layers: " + std::to_string(layers) +
                       "\n  quant: {weights: int8, activations: int8, kv_cache: int8, accumulate: fp32}\n");
}

nlohmann::json run(const TempDir& dir, const std::string& exp, const std::string& fidelity, const std::string& out,
                   const std::string& sets = "") {
  const CommandResult r =
      run_strata("run -q '" + exp + "' --set sim.fidelity=" + fidelity + " " + sets + " -o '" + dir.file(out) + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  return json_file(dir.file(out + "/summary.json"));
}

double stat(const TempDir& dir, const std::string& out, const std::string& path) {
  nlohmann::json j = json_file(dir.file(out + "/stats.json"));
  size_t start = 0;
  for (size_t dot = path.find('.'); dot != std::string::npos; start = dot + 1, dot = path.find('.', start)) {
    // Stat names may contain dots; descend while the prefix is a key.
    const std::string key = path.substr(start, dot - start);
    if (!j.contains(key)) break;
    j = j[key];
  }
  return j.at(path.substr(start)).at("value").get<double>();
}

TEST(PackageRuns, OneDevicePackageIsTheDevice) {
  TempDir dir;
  const std::string plain = decode(dir, "plain", "configs/hardware/npu/edge-npu.yaml", "configs/models/gpt2.yaml", 2);
  const std::string one =
      dir.write("one.yaml",
                "name: one\nseed: 1\nhardware:\n  kind: package\n  devices: 1\n  device:\n    extends: " +
                    source_path("configs/hardware/npu/edge-npu.yaml") +
                    "\nworkload:\n  kind: transformer\n  phase: decode\n  batch: 1\n  prompt_len: 512\n"
                    "  gen_tokens: 1\n  model:\n    extends: " +
                    source_path("configs/models/gpt2.yaml") +
                    "\n    layers: 2\n  quant: {weights: int8, activations: int8, kv_cache: int8, accumulate: fp32}\n");
  for (const char* fidelity : {"cycle", "analytic"}) {
    const auto a = run(dir, plain, fidelity, std::string("plain-") + fidelity);
    const auto b = run(dir, one, fidelity, std::string("one-") + fidelity);
    EXPECT_EQ(a["latency_s"], b["latency_s"]) << fidelity;
    EXPECT_EQ(a["energy_j"], b["energy_j"]) << fidelity;
    EXPECT_EQ(b["collective_time_s"], 0.0);
  }
}

TEST(PackageRuns, TensorParallelAllReducesAreTimedOverTheLinks) {
  TempDir dir;
  const std::string exp = decode(dir, "tp", "configs/hardware/package/tpuv4i-x2.yaml", "configs/models/gpt2.yaml", 2);
  const auto cycle = run(dir, exp, "cycle", "cycle");
  const auto analytic = run(dir, exp, "analytic", "analytic");
  // Two all-reduces per layer of 768 FP32 partial sums; the ring over two chips sends a quarter
  // of them each way per step, two steps, on 50 GB/s links with 500 ns latency.
  const double one = 2 * (500e-9 + 768.0 * 4 / 4 / 50e9);
  for (const auto* s : {&cycle, &analytic}) {
    EXPECT_NEAR((*s)["collective_time_s"].get<double>(), 4 * one, 1e-15);
    EXPECT_EQ((*s)["link_bytes"].get<double>(), 4 * 768.0 * 4 * 2);  // each step: a quarter each way from both
  }
  EXPECT_EQ(stat(dir, "cycle", "hardware.collectives.all_reduce.count"), 4);
  EXPECT_NEAR(analytic["latency_s"].get<double>(), cycle["latency_s"].get<double>(),
              0.10 * cycle["latency_s"].get<double>());
  // Link energy is SerDes energy per bit (2 pJ/bit in the technology table).
  EXPECT_NEAR(stat(dir, "cycle", "hardware.cw0.energy.bit"), stat(dir, "cycle", "hardware.cw0.bytes") * 8 * 2e-12,
              1e-18);
}

TEST(PackageRuns, Llama13BOnTwoChipsIsNearlyTwiceAsFast) {
  TempDir dir;
  const std::string one = decode(dir, "one", "configs/hardware/npu/tpuv4i.yaml", "configs/models/llama-2-13b.yaml", 40);
  const std::string two = source_path("configs/experiments/npu-llama-13b-2chip.yaml");
  const double t1 = run(dir, one, "analytic", "one")["latency_s"].get<double>();
  const auto s2 = run(dir, two, "analytic", "two");
  const double t2 = s2["latency_s"].get<double>();
  EXPECT_GT(t1 / t2, 1.8);
  EXPECT_LT(t1 / t2, 2.0);
  EXPECT_EQ(stat(dir, "two", "hardware.collectives.all_reduce.count"), 80);  // o_proj and down, 40 layers
  EXPECT_GT(s2["collective_time_s"].get<double>(), 0);
}

TEST(PackageRuns, BadPlacementsExitTwoNamingTheKey) {
  TempDir dir;
  const std::string exp = decode(dir, "bad", "configs/hardware/package/tpuv4i-x2.yaml", "configs/models/gpt2.yaml", 1,
                                 "  placement: {tensor: 3}\n");
  CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.yaml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tensor x pipeline = 3 x 1 = 3, but the package has 2 devices"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
  const std::string moe =
      dir.write("moe.yaml",
                "name: moe\nseed: 1\nhardware:\n  extends: " + source_path("configs/hardware/package/tpuv4i-x2.yaml") +
                    "\nworkload:\n  kind: moe_layer\n  tokens: 16\n  model:\n    extends: " +
                    source_path("configs/models/mixtral-8x7b.yaml") + "\n  routing: {devices: 4}\n");
  r = run_strata("run -q '" + moe + "' -o '" + dir.file("moe") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("routing.devices must equal placement.tensor"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("moe")));
}

TEST(PackageRuns, ExpertParallelSplitsTheExperts) {
  TempDir dir;
  auto moe = [&](const std::string& name, const std::string& hardware, int devices) {
    return dir.write(name + ".yaml", "name: " + name + "\nseed: 1\nhardware:\n  extends: " + source_path(hardware) +
                                         "\nworkload:\n  kind: moe_layer\n  tokens: 64\n  model:\n    extends: " +
                                         source_path("configs/models/mixtral-8x7b.yaml") +
                                         "\n  quant: {weights: int8, activations: int8, accumulate: fp32}\n"
                                         "  routing: {devices: " +
                                         std::to_string(devices) + "}\n");
  };
  // Analytic: the cycle-level run takes minutes (the same split measured 1.94x at cycle level).
  const double one = run(dir, moe("one", "configs/hardware/npu/tpuv4i.yaml", 1), "analytic", "one")["latency_s"];
  const double two = run(dir, moe("two", "configs/hardware/package/tpuv4i-x2.yaml", 2), "analytic", "two")["latency_s"];
  // Each chip streams half of the experts' weights; dispatch and combine cross the links.
  EXPECT_GT(one / two, 1.6);
  EXPECT_EQ(stat(dir, "two", "hardware.placement.pinned_ops") > 0, true);
  EXPECT_GT(stat(dir, "two", "hardware.collectives.all_to_all.count"), 0);
}

}  // namespace
}  // namespace strata::testing
