// Several GPUs in a package (docs/gpu.md, Several GPUs): tensor-parallel decode over NVLink,
// its collectives timed by the package while each GPU's stream waits, at both fidelities; the
// scaling over 2, 4 and 8 GPUs against first principles; and a collective on a GPU alone.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

nlohmann::json run_tp(TempDir& dir, const std::string& name, const std::string& extra) {
  const CommandResult r = run_strata("run -q '" + source_path("configs/experiments/gpu-llama70b-tp4.yaml") + "' " + extra +
                                     " -o '" + dir.file(name) + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? json_file(dir.file(name + "/stats.json")) : nlohmann::json::object();
}

double value(const nlohmann::json& stats, const std::string& pointer) {
  return stats.at(nlohmann::json::json_pointer(pointer + "/value")).get<double>();
}

// One layer of a Llama-shaped model (hidden 1024, 8 heads, 4 KV heads), FP16, 4 GPUs.
constexpr const char* kSmallLayer =
    "--set workload.model.layers=1 --set workload.model.hidden=1024 --set workload.model.heads=8 "
    "--set workload.model.kv_heads=4 --set workload.model.ffn_hidden=2048 --set workload.model.vocab=4096";

TEST(GpuPackage, TensorParallelDecodeWaitsForItsAllReducesAtBothFidelities) {
  TempDir dir;
  const nlohmann::json cycle = run_tp(dir, "cycle", std::string(kSmallLayer) + " --set sim.fidelity=cycle");
  const nlohmann::json analytic = run_tp(dir, "analytic", kSmallLayer);
  ASSERT_TRUE(cycle.contains("hardware") && analytic.contains("hardware"));
  // One layer: the all-reduces after o_proj and after the down projection, of 1024 FP32
  // partial sums from each of the 4 GPUs.
  for (const nlohmann::json* s : {&cycle, &analytic}) {
    EXPECT_EQ(value(*s, "/hardware/collectives/all_reduce/count"), 2);
    EXPECT_EQ(value(*s, "/hardware/collectives/all_reduce/bytes"), 2.0 * 4 * 1024 * 4);
    EXPECT_GT(value(*s, "/hardware/collectives/all_reduce/time"), 0);
    // Every GPU runs a quarter of each projection: the same FLOPs on each.
    EXPECT_NEAR(value(*s, "/hardware/device1/flops"), value(*s, "/hardware/device0/flops"),
                1e-9 * value(*s, "/hardware/device0/flops"));
  }
  // A GPU's stream drains at each all-reduce and waits for it: its latency covers them.
  const double latency = value(cycle, "/hardware/latency");
  EXPECT_GT(latency, value(cycle, "/hardware/collectives/all_reduce/time"));
  EXPECT_GE(latency, value(cycle, "/hardware/device0/latency"));
  // The analytic fidelity lands within 10% of the cycle level (measured: 4.9%).
  EXPECT_NEAR(value(analytic, "/hardware/latency"), latency, 0.10 * latency);
}

TEST(GpuPackage, Llama70bDecodeScalesOverTwoFourAndEightGpus) {
  // The whole model, analytically. Each GPU streams 1/p of the 138 GB of FP16 weights, so the
  // weights' share of the step shrinks as 1/p; the kernel launches (11 a layer, 4.75 us
  // each) and the all-reduces (160 a step) do not, so the step shortens by less than p/2 from
  // 2 to p GPUs, and the collectives take longer with more members.
  TempDir dir;
  double latency[3] = {}, collectives[3] = {};
  const int gpus[3] = {2, 4, 8};
  for (int i = 0; i < 3; ++i) {
    const std::string p = std::to_string(gpus[i]);
    const nlohmann::json s =
        run_tp(dir, "tp" + p, "--set hardware.devices=" + p + " --set hardware.placement.tensor=" + p);
    ASSERT_TRUE(s.contains("hardware"));
    latency[i] = value(s, "/hardware/latency");
    collectives[i] = value(s, "/hardware/collectives/all_reduce/time");
    EXPECT_EQ(value(s, "/hardware/collectives/all_reduce/count"), 160);
    // No faster than streaming 1/p of the weights at the HBM3 peak (3.35 TB/s).
    EXPECT_GT(latency[i], 138e9 / gpus[i] / 3.35e12);
  }
  EXPECT_LT(latency[1], latency[0]);
  EXPECT_LT(latency[2], latency[1]);
  EXPECT_GT(latency[1], latency[0] / 2);
  EXPECT_GT(latency[2], latency[0] / 4);
  EXPECT_LT(collectives[0], collectives[1]);
  EXPECT_LT(collectives[1], collectives[2]);
}

TEST(GpuPackage, ACollectiveOnAGpuAloneFailsWithOneLine) {
  // An MoE layer with its experts over two devices needs all-to-alls: one GPU cannot run them.
  TempDir dir;
  const std::string e = dir.write(
      "moe.yaml", "name: moe\nhardware: {extends: " + source_path("configs/hardware/gpu/h100-sxm.yaml") +
                      "}\nworkload: {kind: moe_layer, tokens: 8, model: {extends: " +
                      source_path("configs/models/mixtral-8x7b.yaml") +
                      ", hidden: 256, expert_hidden: 512}, routing: {devices: 2}}\n");
  const CommandResult r = run_strata("run -q '" + e + "' -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("(all_to_all)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("package"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

}  // namespace
}  // namespace strata::testing
