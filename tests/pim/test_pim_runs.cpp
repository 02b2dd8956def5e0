// Whole PIM designs through the strata binary: the examples' summaries, the analytic fidelity
// against the cycle-level kernels, the split between PIM and host, and bad inputs.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "accelerators/builtin_kinds.h"
#include "sim/app/experiment.h"
#include "sim/registry.h"
#include "test_util.h"

namespace strata::testing {
namespace {

nlohmann::json run_summary(const std::string& experiment, const std::string& sets, const TempDir& dir,
                           const std::string& out = "out") {
  const CommandResult r =
      run_strata("run -q '" + source_path(experiment) + "' " + sets + " -o '" + dir.file(out) + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  return json_file(dir.file(out + "/summary.json"));
}

// The GEMV example at its smoke size: the summary keys the issue names, the speed-up inside
// what bank versus channel bandwidth allows (4x on HBM-PIM), and the analytic fidelity within 10%
// of the cycle-level streams on both sides (at 12 us the kernel sees three refreshes, which the
// closed form spreads evenly; 5% at the example's 8192^2).
TEST(PimRuns, GemvExampleReportsThroughputAndSpeedupAndTheAnalyticFidelityAgrees) {
  TempDir dir;
  const std::string sets = "--set workload.n=2048 --set workload.k=2048 --set sim.check_protocol=true";
  const auto cycle = run_summary("configs/experiments/pim-gemv.yaml", sets, dir, "cycle");
  const auto analytic = run_summary("configs/experiments/pim-gemv.yaml", sets + " --set sim.fidelity=analytic", dir, "analytic");
  ASSERT_TRUE(cycle.contains("achieved_tflops"));
  ASSERT_TRUE(cycle.contains("speedup_vs_no_pim"));
  EXPECT_GT(cycle["achieved_tflops"].get<double>(), 0.4);  // of 1.02 peak
  EXPECT_LT(cycle["achieved_tflops"].get<double>(), 1.024);
  EXPECT_GT(cycle["speedup_vs_no_pim"].get<double>(), 2.0);
  EXPECT_LT(cycle["speedup_vs_no_pim"].get<double>(), 4.0);
  EXPECT_NEAR(analytic["latency_s"].get<double>(), cycle["latency_s"].get<double>(), 0.10 * cycle["latency_s"].get<double>());
  EXPECT_NEAR(analytic["speedup_vs_no_pim"].get<double>(), cycle["speedup_vs_no_pim"].get<double>(),
              0.10 * cycle["speedup_vs_no_pim"].get<double>());
  EXPECT_NEAR(analytic["energy_j"].get<double>(), cycle["energy_j"].get<double>(),
              0.10 * cycle["energy_j"].get<double>());
  EXPECT_GT(cycle["energy_j"].get<double>(), 0);
  EXPECT_GT(cycle["area_mm2"].get<double>(), 0);
}

// The shipped GEMV at 4096^2 and 8192^2 against the closed form of the bank-parallel schedule
// (configs/validation/pim.yaml; Pim.GemvThroughputMatchesItsClosedForm derives it).
TEST(PimRuns, GemvThroughputLandsOnTheClosedForm) {
  TempDir dir;
  Registry registry;
  for (const char* id : {"hbm-pim-gemv-4096", "hbm-pim-gemv-8192"}) {
    const ValidationCheck& check = validation_check("pim", id);
    const ValidationRunResult r = run_validation(*check.run, dir.file(id));
    EXPECT_WITHIN_VALIDATION(check, validation_figure(check, &r, nullptr, registry));
  }
}

// PIM-GPT runs every matrix product in the banks (attention's too) and the norms, GELU and
// softmax on the ASIC; the same graph without PIM streams the weights to the ASIC.
TEST(PimRuns, PimGptSplitsGpt2BetweenTheBanksAndTheAsic) {
  TempDir dir;
  const auto s = run_summary("configs/experiments/pim-gpt2-decode.yaml",
                             "--set workload.model.layers=1 --set hardware.compare_without_pim=true "
                             "--set sim.check_protocol=true",
                             dir);
  const auto stats = json_file(dir.file("out/stats.json"));
  const auto& l0 = stats["hardware"]["ops"]["s0"]["l0"];
  for (const char* op : {"q_proj", "k_proj", "v_proj", "o_proj", "attn"}) {
    EXPECT_EQ(l0[op]["on_pim"]["value"].get<double>(), 1) << op;
    EXPECT_GT(l0[op]["pim_cycles"]["value"].get<double>(), 0) << op;
  }
  EXPECT_EQ(l0["ffn"]["up"]["on_pim"]["value"].get<double>(), 1);
  EXPECT_EQ(l0["ffn"]["gelu"]["on_pim"]["value"].get<double>(), 0);
  EXPECT_EQ(l0["norm1"]["on_pim"]["value"].get<double>(), 0);
  EXPECT_GT(s["pim_time_fraction"].get<double>(), 0.5);
  EXPECT_GT(s["speedup_vs_no_pim"].get<double>(), 2.0);
}

// AttAcc keeps the projections on the GPU at batch and sends attention over NVLink to the PIM.
TEST(PimRuns, AttAccRunsAttentionInThePimAndTheRestOnTheGpu) {
  TempDir dir;
  const auto s = run_summary("configs/experiments/pim-llama-attention.yaml", "--set workload.model.layers=1", dir);
  const auto stats = json_file(dir.file("out/stats.json"));
  const auto& l0 = stats["hardware"]["ops"]["s0"]["l0"];
  EXPECT_EQ(l0["attn"]["on_pim"]["value"].get<double>(), 1);
  EXPECT_EQ(l0["q_proj"]["on_pim"]["value"].get<double>(), 0);
  EXPECT_GT(stats["hardware"]["energy"]["link"]["value"].get<double>(), 0);
  const auto gpu = run_summary("configs/experiments/pim-llama-attention.yaml",
                               "--set workload.model.layers=1 --set 'hardware.offload=[]'", dir, "gpu");
  EXPECT_EQ(gpu["pim_time_fraction"].get<double>(), 0);
  // The attention streams 2k x 8 sequences of KV cache: faster in 4096 bank units than through
  // the H100's 3.35 TB/s.
  EXPECT_LT(s["latency_s"].get<double>(), gpu["latency_s"].get<double>());
}

// The sweep of PIM designs against the NPU and the GPU runs every point (one layer each) and
// its plot draws.
TEST(PimRuns, PimVersusHostSweepRunsAndPlots) {
  TempDir dir;
  ::setenv("STRATA_EXECUTABLE", STRATA_BINARY, 1);
  const std::string out = dir.file("sweep");
  const CommandResult r = run_strata("sweep " + source_path("configs/sweeps/pim-vs-host.yaml") +
                                     " --set workload.model.layers=1 --jobs 2 -o " + out);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // 36 points less the 4 that cannot hold Llama-2-7B's weights (left out by the constraint).
  EXPECT_NE(r.out.find("32 ok, 0 failed"), std::string::npos) << r.out;
  const CommandResult plot =
      run_strata("plot line " + out + " --x model --y latency_s --group design --logy -o " + dir.file("plot"));
  ASSERT_EQ(plot.code, 0) << plot.err;
  EXPECT_TRUE(std::ifstream(dir.file("plot.png")).good());
}

// Bad inputs: one line naming the file, line and key, exit code 2, no result left behind.
TEST(PimRuns, BadInputsNameTheKey) {
  TempDir dir;
  const std::string hw = source_path("configs/hardware/pim/hbm-pim.yaml");
  const auto run = [&](const std::string& body) {
    const std::string exp = dir.write("bad.yaml", "name: bad\nseed: 1\nhardware:\n  extends: " + hw + "\n" + body +
                                                      "workload:\n  kind: gemm\n  m: 1\n  n: 256\n  k: 256\n");
    return run_strata("run -q '" + exp + "' -o '" + dir.file("res") + "'");
  };
  const CommandResult lanes = run("  pim:\n    lanes: 8\n");
  EXPECT_EQ(lanes.code, 2);
  EXPECT_NE(lanes.err.find("bad.yaml"), std::string::npos) << lanes.err;
  EXPECT_NE(lanes.err.find("lanes"), std::string::npos) << lanes.err;
  EXPECT_NE(lanes.err.find("one burst of the DRAM is 32 B"), std::string::npos) << lanes.err;
  const CommandResult memory = run("  memory:\n    kind: simple_memory\n");
  EXPECT_EQ(memory.code, 2);
  EXPECT_NE(memory.err.find("memory"), std::string::npos) << memory.err;
  const CommandResult offload = run("  offload: [softmax]\n");
  EXPECT_EQ(offload.code, 2);
  EXPECT_NE(offload.err.find("offload"), std::string::npos) << offload.err;
  EXPECT_FALSE(std::ifstream(dir.file("res/summary.json")).good());
}

// The memory slot takes a kind with the `dram` role (the PIM models that DRAM itself): any other
// kind is refused by the schema at its `kind:` key, one line with file, line and key, exit 2,
// no result. Before, the design compared the kind's name after elaboration.
TEST(PimRuns, MemorySlotRefusesAKindWithoutTheDramRole) {
  TempDir dir;
  const std::string hw = source_path("configs/hardware/pim/hbm-pim.yaml");
  for (const std::string kind : {"simple_memory", "nand_flash"}) {
    const std::string exp = dir.write("wrong.yaml", "name: wrong\nseed: 1\nhardware:\n  extends: " + hw +
                                                        "\n  memory:\n    kind: " + kind +
                                                        "\nworkload:\n  kind: gemm\n  m: 1\n  n: 256\n  k: 256\n");
    const CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("res") + "'");
    EXPECT_EQ(r.code, 2) << kind;
    EXPECT_CONTAINS(r.err, "wrong.yaml:6:");
    EXPECT_CONTAINS(r.err, "hardware.memory.kind: kind '" + kind + "' cannot be used here: this slot needs a dram");
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_FALSE(std::ifstream(dir.file("res/summary.json")).good());
  }
}

// The host is a part in a `host` role slot (models/host/companion_host.h): the presets' host
// keys are the default kind's (roofline_host), so naming it changes no config hash, and a part
// without the role is refused at its `kind:`.
TEST(PimRuns, HostSlotTakesAHostRolePart) {
  Registry registry;
  register_builtin_kinds(registry);
  const std::string gemv = source_path("configs/experiments/pim-gemv.yaml");
  EXPECT_EQ(resolve_experiment(gemv, {}, registry).hash,
            resolve_experiment(gemv, {"hardware.host.kind=roofline_host"}, registry).hash);
  TempDir dir;
  const CommandResult r = run_strata("run -q '" + gemv + "' --set hardware.host.kind=sm -o '" + dir.file("res") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "hardware.host.kind: kind 'sm' cannot be used here: this slot needs a host");
  EXPECT_FALSE(std::ifstream(dir.file("res/summary.json")).good());
}

// A host's bandwidths must be positive (0 on the link: a host on the DRAM's bus), the weights
// must fit the PIM DRAM, and a step that would end past what SystemC's clock can represent fails
// the run: each is one line naming the key, exit 2, no result. Before, 0 and -1 GB/s were read
// as infinitely fast and 32 GiB of weights ran in a DRAM of a few.
TEST(PimRuns, DegenerateRatesContentsTooLargeAndTimesPastTheClockAreRefused) {
  TempDir dir;
  const auto run = [&](const std::string& experiment, const std::string& sets) {
    const CommandResult r =
        run_strata("run -q '" + source_path(experiment) + "' " + sets + " -o '" + dir.file("r") + "'");
    EXPECT_EQ(r.code, 2) << sets;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    return r.err;
  };
  const std::string gemv = "configs/experiments/pim-gemv.yaml", gpt2 = "configs/experiments/pim-gpt2-decode.yaml";
  EXPECT_CONTAINS(run(gemv, "--set 'hardware.host.bandwidth=0 GB/s'"),
                  "hardware.host.bandwidth: 0 GB/s is not positive");
  EXPECT_CONTAINS(run(gemv, "--set 'hardware.host.bandwidth=-1 GB/s'"),
                  "hardware.host.bandwidth: -1 GB/s is not positive");
  EXPECT_CONTAINS(run(gemv, "--set 'hardware.host.link_bandwidth=-5 GB/s'"),
                  "hardware.host.link_bandwidth: -5 GB/s is below the minimum 0 GB/s");
  const std::string big = run(gemv, "--set workload.n=262144 --set workload.k=65536");
  EXPECT_CONTAINS(big, "hardware.memory.organization: holds");
  EXPECT_CONTAINS(big, "less than the 32 GiB of the weights and KV caches of gemm that the PIM DRAM holds");
  const std::string slow = run(gpt2, "--set workload.model.layers=1 --set 'hardware.host.bandwidth=0.001 B/s'");
  EXPECT_CONTAINS(slow, "pim-gpt2-decode.yaml");
  EXPECT_CONTAINS(slow, "error: hardware: simulated time would reach");
  EXPECT_FALSE(std::ifstream(dir.file("r/summary.json")).good());
}

}  // namespace
}  // namespace strata::testing
