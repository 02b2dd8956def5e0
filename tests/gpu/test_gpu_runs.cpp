// Whole GPU runs through the strata binary: every shipped microbenchmark experiment against its
// reference figure, the tensor-core peak of every precision of the three presets, occupancy and
// waves of a grid, determinism, and bad inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

nlohmann::json run_summary(const std::string& args) {
  TempDir dir;
  const CommandResult r = run_strata("run -q " + args + " -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? json_file(dir.file("out/summary.json")) : nlohmann::json::object();
}

// An experiment running `workload` (a YAML flow mapping's body) on the GPU preset `preset`.
std::string experiment(const TempDir& dir, const std::string& preset, const std::string& workload) {
  return "'" + dir.write("e.yaml", "name: gpu\nhardware: {extends: " + source_path("configs/hardware/gpu/" + preset + ".yaml") +
                                     "}\nworkload: {kind: gpu_microbenchmark, " + workload + "}\n") + "'";
}

// The tolerances of the validation ladder (../shared/reference/gpu.md, section 7), for runs
// that are not shipped examples: a latency within 5%; a throughput within 10% of its peak and
// never above it.
void expect_within_tolerance(const nlohmann::json& s, const std::string& what) {
  ASSERT_TRUE(s.contains("measured") && s.contains("reference") && s.contains("error") && s.contains("unit")) << what;
  const double error = s["error"].get<double>();
  if (s["unit"] == "cycles") {
    EXPECT_LE(std::abs(error), 0.05) << what << ": " << s.dump();
  } else {
    EXPECT_LE(s["measured"].get<double>(), s["reference"].get<double>()) << what << ": above the peak";
    EXPECT_GE(error, -0.10) << what << ": " << s.dump();
  }
  EXPECT_GT(s["warp_instructions"].get<double>(), 0) << what;
}

// A shipped example's reference and tolerance are its check in configs/validation/gpu.yaml (the
// same ladder); the example prints its error against its workload's `reference:`, which must be
// the check's figure.
void expect_within_its_check(const nlohmann::json& s, const std::string& example) {
  std::string id = example.substr(std::string("gpu-ubench-").size());
  id = id.substr(0, id.find(".yaml"));
  const ValidationCheck& check = validation_check("gpu", id);
  ASSERT_TRUE(s.contains("measured") && s.contains("reference")) << example;
  EXPECT_EQ(s["reference"].get<double>(), check.reference) << example << ": its reference is not its check's";
  EXPECT_EQ(check.metric, "measured");
  EXPECT_WITHIN_VALIDATION(check, s["measured"].get<double>());
  EXPECT_GT(s["warp_instructions"].get<double>(), 0) << example;
}

// Every gpu-ubench-* example, each its own test (they take seconds each, and much longer under
// the sanitizers).
std::vector<std::string> gpu_ubench_examples() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(source_path("configs/experiments"))) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gpu-ubench-", 0) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}
bool memory_example(const std::string& name) {
  return name.find("-hbm-") != std::string::npos || name.find("-l1-") != std::string::npos ||
         name.find("-l2-") != std::string::npos;
}

class GpuUbenchExample : public ::testing::TestWithParam<std::string> {
 protected:
  std::string path() const { return "'" + source_path("configs/experiments/" + GetParam()) + "'"; }
};

TEST_P(GpuUbenchExample, LandsWithinItsTolerance) { expect_within_its_check(run_summary(path()), GetParam()); }

// Every compute microbenchmark is bound by one resource or one chain, the steady state the
// closed forms are for: within 3% in the figure and the energy (docs/gpu.md, Fidelity). The
// memory ones are looser: the closed form's loads take their level's unloaded latency (no DRAM
// row conflicts) and its L2 and DRAM stream at their peak and sustained bandwidths (within
// 5%); their L2 and DRAM energy is not compared (the closed form counts no L2 sectors).
TEST_P(GpuUbenchExample, AnalyticFidelityLandsNearTheCycleLevelRun) {
  const bool memory = memory_example(GetParam());
  const double tolerance = memory ? 0.05 : 0.03;
  const nlohmann::json cycle = run_summary(path());
  const nlohmann::json analytic = run_summary(path() + " --set sim.fidelity=analytic");
  EXPECT_EQ(analytic["fidelity"], "analytic");
  EXPECT_NEAR(analytic["measured"].get<double>(), cycle["measured"].get<double>(),
              tolerance * cycle["measured"].get<double>());
  if (!memory) {
    EXPECT_NEAR(analytic["energy_j"].get<double>(), cycle["energy_j"].get<double>(),
                0.03 * cycle["energy_j"].get<double>());
  }
  EXPECT_EQ(analytic["warp_instructions"], cycle["warp_instructions"]);
}

INSTANTIATE_TEST_SUITE_P(Examples, GpuUbenchExample, ::testing::ValuesIn(gpu_ubench_examples()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(std::string("gpu-ubench-").size());
                           name = name.substr(0, name.find(".yaml"));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Every check of configs/validation/gpu.yaml runs a gpu-ubench example, and every example has its check.
TEST(GpuRuns, EveryValidationCheckHasItsExample) {
  const auto suites = load_validation_suites(source_path("configs/validation"));
  std::vector<std::string> checked;
  for (const auto& suite : suites)
    if (suite.name == "gpu")
      for (const auto& c : suite.checks)
        checked.push_back(std::filesystem::path(c.run->experiment).filename().string());
  std::sort(checked.begin(), checked.end());
  EXPECT_EQ(checked, gpu_ubench_examples());
  EXPECT_GE(checked.size(), 14u);
}

TEST(GpuRuns, TensorPeaksOfEveryPrecision) {
  // Dense MACs per cycle per SM, ../shared/reference/gpu.md section 2.1 ([E] from vendor peaks).
  struct Case {
    std::string preset, benchmark, format;
    double peak;
  };
  const std::vector<Case> cases = {
      {"h100-sxm", "wgmma_rate", "fp16", 2048},    {"h100-sxm", "wgmma_rate", "bf16", 2048},
      {"h100-sxm", "wgmma_rate", "tf32", 1024},    {"h100-sxm", "wgmma_rate", "fp8_e4m3", 4096},
      {"h100-sxm", "wgmma_rate", "fp8_e5m2", 4096}, {"h100-sxm", "wgmma_rate", "int8", 4096},
      {"a100-sxm", "mma_rate", "fp16", 1024},      {"a100-sxm", "mma_rate", "bf16", 1024},
      {"a100-sxm", "mma_rate", "tf32", 512},       {"a100-sxm", "mma_rate", "int8", 2048},
      {"a100-sxm", "mma_rate", "int4", 4096},      {"rtx-a6000", "mma_rate", "fp16", 512},
      {"rtx-a6000", "mma_rate", "tf32", 256},      {"rtx-a6000", "mma_rate", "int8", 1024},
  };
  for (const Case& c : cases) {
    TempDir dir;
    // mma shapes by format (PTX ISA): 16-bit m16n8k16, tf32 m16n8k8, 8-bit m16n8k32, 4-bit m16n8k64.
    const std::string shape = c.format == "tf32"   ? "m16n8k8"
                              : c.format == "int8" ? "m16n8k32"
                              : c.format == "int4" ? "m16n8k64"
                                                   : "m16n8k16";
    const std::string exp = experiment(dir, c.preset,
                                       "benchmark: " + c.benchmark + ", format: " + c.format + ", shape: " + shape +
                                           ", iterations: 256, reference: " + std::to_string(c.peak));
    expect_within_tolerance(run_summary(exp), c.preset + " " + c.format);
  }
  // 2:4 sparsity doubles the rate.
  const nlohmann::json sparse = run_summary("configs/experiments/gpu-ubench-tensor-rate.yaml --set workload.sparse=true");
  EXPECT_NEAR(sparse["measured"].get<double>(), 4096, 4096 * 0.01);
}

TEST(GpuRuns, Fp32IssueRateOfEachPreset) {
  // FP32 lanes per SM [E]: H100 128, A100 64, RTX A6000 128.
  for (const auto& [preset, lanes] : std::vector<std::pair<std::string, double>>{
           {"h100-sxm", 128}, {"a100-sxm", 64}, {"rtx-a6000", 128}}) {
    TempDir dir;
    expect_within_tolerance(
        run_summary(experiment(dir, preset, "benchmark: issue_rate, pipe: fp32, iterations: 512, reference: " +
                                                std::to_string(lanes))),
        preset);
  }
}

TEST(GpuRuns, GridOccupancyAndWavesFollowTheCudaRules) {
  // One warp a CTA with 200 registers a thread: 6400 a warp, two per sub-core, 8 CTAs an SM
  // (registers bind before the 32 CTA slots); 2113 CTAs on 132 SMs is 1056 a wave: 3 waves.
  // Each SM's CTAs run their FFMA chains side by side, so every wave takes the chain's time (to
  // a cycle: two warps a sub-core miss each other's register-file cache entries, and the last
  // FFMA's bank conflict delays its result).
  TempDir dir;
  const nlohmann::json s = run_summary(
      experiment(dir, "h100-sxm", "benchmark: ffma_chain, ctas: 2113, registers: 200, iterations: 256, reference: 4"));
  EXPECT_EQ(s["ctas_per_sm"].get<double>(), 8);
  EXPECT_EQ(s["waves"].get<double>(), 3);
  EXPECT_NEAR(s["measured"].get<double>(), 4.0, 1.0 / 256);
  EXPECT_EQ(s["warp_instructions"].get<double>(), 2113.0 * 256);
  // Shared memory binding instead: 100 KiB + 1 KiB reserved a CTA, two in 228 KiB.
  const nlohmann::json shared = run_summary("configs/experiments/gpu-ubench-wgmma-latency.yaml --set workload.shared=100KiB");
  EXPECT_EQ(shared["ctas_per_sm"].get<double>(), 2);
}

TEST(GpuRuns, DistributedSharedMemoryLatency) {
  // A pair of CTAs on two SMs of one GPC, each chasing through the other's shared memory:
  // within 5% of the 181-207 cycles' middle (H800 PCIe, Luo et al.); through its own shared
  // memory, the shared-memory latency (30 on the H100 preset).
  const nlohmann::json remote = run_summary("configs/experiments/gpu-ubench-dsm-latency.yaml");
  expect_within_its_check(remote, "gpu-ubench-dsm-latency.yaml");
  EXPECT_EQ(remote["clusters"].get<double>(), 2112);  // pairs in 132 SMs of 32 one-warp CTAs
  EXPECT_EQ(remote["waves"].get<double>(), 1);
  const nlohmann::json local =
      run_summary("configs/experiments/gpu-ubench-dsm-latency.yaml --set workload.remote=false");
  EXPECT_DOUBLE_EQ(local["measured"].get<double>(), 30);
  // A cluster of one reaches only its own CTA.
  const nlohmann::json alone = run_summary("configs/experiments/gpu-ubench-dsm-latency.yaml --set workload.cluster=1");
  EXPECT_DOUBLE_EQ(alone["measured"].get<double>(), 30);
  // cluster.sync() in a pair: an arrive, then the wait dsm_latency (194) later.
  const nlohmann::json sync = run_summary(
      "configs/experiments/gpu-ubench-dsm-latency.yaml --set workload.benchmark=cluster_sync --set "
      "workload.reference=0");
  EXPECT_DOUBLE_EQ(sync["measured"].get<double>(), 195);
}

TEST(GpuRuns, ClusterGridsFollowTheClusterOccupancy) {
  // One warp a CTA with 100 KiB of shared memory: 2 CTAs an SM. Clusters of 8 on the H100's
  // GPCs (18, 18 and six of 16 SMs): floor(36 / 8) = 4 and floor(32 / 8) = 4 a GPC, 32 at once
  // (cudaOccupancyMaxActiveClusters); 70 clusters are 3 waves. Every CTA runs the same FFMA
  // chain, and a wave's clusters take the slots the last one freed the cycle it completes.
  TempDir dir;
  const nlohmann::json s = run_summary(experiment(
      dir, "h100-sxm", "benchmark: ffma_chain, cluster: 8, ctas: 560, shared: 100 KiB, iterations: 256, reference: 4"));
  EXPECT_EQ(s["ctas_per_sm"].get<double>(), 2);
  EXPECT_EQ(s["clusters"].get<double>(), 32);
  EXPECT_EQ(s["waves"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(s["measured"].get<double>(), 4.0);
  EXPECT_EQ(s["warp_instructions"].get<double>(), 560.0 * 256);
  const nlohmann::json analytic = run_summary(
      experiment(dir, "h100-sxm",
                 "benchmark: ffma_chain, cluster: 8, ctas: 560, shared: 100 KiB, iterations: 256, reference: 4") +
      " --set sim.fidelity=analytic");
  EXPECT_EQ(analytic["waves"].get<double>(), 3);
  EXPECT_NEAR(analytic["measured"].get<double>(), 4.0, 0.04);
}

TEST(GpuRuns, AKernelStartsItsLaunchLatencyAfterItsTurn) {
  // The RTX A6000 preset: 5,000 cycles at 1800 MHz before the first CTA. The microbenchmark's
  // figure counts from that CTA; the completion time includes the launch.
  const std::string ffma = "configs/experiments/gpu-ubench-ffma-latency.yaml";
  const nlohmann::json launched = run_summary(ffma);
  const nlohmann::json at_once = run_summary(ffma + " --set hardware.kernel_launch=0");
  EXPECT_EQ(launched["measured"], at_once["measured"]);
  EXPECT_NEAR(launched["latency_s"].get<double>() - at_once["latency_s"].get<double>(), 5000 / 1.8e9, 1e-12);
}

// Stores are acknowledged by their slice, and a slice takes a store whose line evicts dirty data
// only while it has room for the write-back: a fill past the L2 (4 MiB here, so the run is
// short; the L2 starts full of the same array's dirty lines, as between back-to-back fills)
// runs at the rate the DRAM takes the write-backs: near its peak, past it only by what the
// queues between the L2 and the DRAM hold when the kernel ends (under 1 MiB of the 32). With
// room for every write-back the slices take the stores at once and the fill runs at the SMs'
// rate, far above the DRAM's.
TEST(GpuRuns, AFillPastTheL2RunsAtTheDramsWriteRate) {
  TempDir dir;
  const std::string fill = experiment(dir, "h100-sxm", "benchmark: global_write, footprint: 32 MiB, resident: true") +
                           " --set hardware.l2.size=4MiB";
  constexpr double kPeakGbps = 3350;  // the H100 preset's HBM3
  const nlohmann::json paced = run_summary(fill);
  EXPECT_EQ(paced["unit"], "GB/s");
  EXPECT_LT(paced["measured"].get<double>(), 1.03 * kPeakGbps);
  EXPECT_GT(paced["measured"].get<double>(), 0.7 * kPeakGbps);
  const nlohmann::json unpaced = run_summary(fill + " --set hardware.l2.writeback_queue=65536");
  EXPECT_GT(unpaced["measured"].get<double>(), 1.5 * kPeakGbps);
}

TEST(GpuRuns, EnergyAndAreaComeFromTheTechnologyTable) {
  TempDir dir;
  // The modelled blocks alone: the preset's die_area would hold the area at every node.
  const std::string exp = "configs/experiments/gpu-ubench-tensor-rate.yaml --set hardware.die_area=0mm2";
  const CommandResult r = run_strata("run -q " + exp + " -o '" + dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json stats = json_file(dir.file("out/stats.json"))["hardware"];
  const nlohmann::json summary = json_file(dir.file("out/summary.json"));
  // Every tensor MAC is an energy event of its format, and the kernel's energy spreads over its
  // run: a steady kernel's peak power stays near its average (counted at its end, its 36 us of
  // energy would read as a spike of 36 times the average in the last 1 us window).
  EXPECT_EQ(stats["events"]["mac_fp16"]["value"], stats["tensor_macs"]["fp16"]["value"]);
  EXPECT_GT(stats["energy"]["mac_fp16"]["value"].get<double>(), 0);
  EXPECT_GT(stats["energy"]["rf_read"]["value"].get<double>(), 0);
  EXPECT_LT(summary["peak_power_w"].get<double>(), 1.5 * summary["avg_power_w"].get<double>());
  for (const char* part : {"tensor_cores", "register_files", "shared_memory", "fp32_lanes"})
    EXPECT_GT(stats["area"][part]["value"].get<double>(), 0) << part;
  // Another node changes both.
  const nlohmann::json at45 = run_summary(exp + " --set hardware.tech=45nm");  // the preset sets its own node
  EXPECT_GT(at45["energy_j"].get<double>(), 2 * summary["energy_j"].get<double>());
  EXPECT_GT(at45["area_mm2"].get<double>(), 2 * summary["area_mm2"].get<double>());
}

TEST(GpuRuns, RunsAreDeterministic) {
  const nlohmann::json a = run_summary("configs/experiments/gpu-ubench-tensor-rate.yaml");
  const nlohmann::json b = run_summary("configs/experiments/gpu-ubench-tensor-rate.yaml");
  EXPECT_EQ(a["measured"], b["measured"]);
  EXPECT_EQ(a["simulated_time_s"], b["simulated_time_s"]);
}

TEST(GpuRuns, BadInputsFailWithOneLineNamingFileLineAndKey) {
  struct Case {
    std::string preset, workload, key;
  };
  const std::vector<Case> cases = {
      // The A100 has no FP8 tensor path, and no wgmma.
      {"a100-sxm", "benchmark: mma_rate, format: fp8_e4m3", "workload.format"},
      {"a100-sxm", "benchmark: wgmma_rate", "workload.benchmark"},
      {"a100-sxm", "benchmark: mma_chain, shape: m16n8", "workload.shape"},
      {"a100-sxm", "benchmark: mma_chain, format: fp17", "workload.format"},
      {"h100-sxm", "benchmark: wgmma_chain, warps: 6", "workload.warps"},
      {"h100-sxm", "benchmark: issue_rate, registers: 255", "workload.registers"},
      {"h100-sxm", "benchmark: ffma_chain, shared: 300 KiB", "workload.shared"},
      {"h100-sxm", "benchmark: ffma_chain, iterations: 0", "workload.iterations"},
      // Clusters need compute capability 9.0; at most 8 CTAs (portable); whole clusters.
      {"a100-sxm", "benchmark: dsm_chase, cluster: 2", "workload.cluster"},
      {"rtx-a6000", "benchmark: ffma_chain, cluster: 4, ctas: 8", "workload.cluster"},
      {"h100-sxm", "benchmark: dsm_chase, cluster: 12", "workload.cluster"},
      {"h100-sxm", "benchmark: dsm_chase, cluster: 2, ctas: 3", "workload.ctas"},
      // TMA came with Hopper; a stage is whole 512 B copies; the footprint covers two sweeps.
      {"a100-sxm", "benchmark: tma_read, footprint: 64 MiB", "workload.benchmark"},
      {"h100-sxm", "benchmark: cp_async_read, footprint: 64 MiB, box: 1000 B", "workload.box"},
      {"h100-sxm", "benchmark: tma_read, footprint: 1 MiB", "workload.footprint"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const CommandResult r = run_strata("run -q " + experiment(dir, c.preset, c.workload) + " -o '" + dir.file("out") + "'");
    EXPECT_EQ(r.code, 2) << c.workload << "\n" << r.err;
    EXPECT_CONTAINS(r.err, c.key);
    EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(e\.yaml:\d+)"))) << r.err;  // file:line
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out"))) << c.workload << ": left a partial result";
  }
  // A preset's own bad value names the preset's line; a GPU workload on other hardware, its kind.
  TempDir dir;
  const std::string bad = dir.write("bad-gpu.yaml", "extends: " + source_path("configs/hardware/gpu/h100-sxm.yaml") +
                                                        "\ntensor_core:\n  rates: [fp99=1]\n");
  const std::string exp = dir.write("e.yaml", "name: gpu\nhardware: {extends: " + bad +
                                                  "}\nworkload: {kind: gpu_microbenchmark, benchmark: ffma_chain}\n");
  CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "bad-gpu.yaml:3");
  EXPECT_CONTAINS(r.err, "tensor_core.rates");
  const std::string on_dram = dir.write("dram.yaml", "name: gpu\nhardware: {extends: " +
                                                         source_path("configs/hardware/memory/ddr4-3200.yaml") +
                                                         "}\nworkload: {kind: gpu_microbenchmark, benchmark: ffma_chain}\n");
  r = run_strata("run -q '" + on_dram + "' -o '" + dir.file("out2") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "workload.kind");
  EXPECT_CONTAINS(r.err, "needs a gpu");
}

TEST(GpuRuns, ListDocumentsEveryGpuKindAndKey) {
  const CommandResult r = run_strata("list");
  ASSERT_EQ(r.code, 0);
  for (const char* key : {"gpu (component)", "gpu_microbenchmark (workload)", "lane_stride", "reference", "gpcs",
                          "max_cluster_size", "dsm_chase", "remote", "a part providing sm", "sm (part)",
                          "tensor_core (part)", "l2 (part)", "provides: gpu_l2", "  scheduler", "  dependences",
                          "  wgmma_latency", "  dsm_latency", "  dsm_bytes_per_cycle", "  slice_sectors"})
    EXPECT_CONTAINS(r.out, key);
}

}  // namespace
}  // namespace strata::testing
