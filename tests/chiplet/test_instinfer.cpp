// InstInfer (accelerators/chiplet/instinfer.h): a small decode step with its attention offloaded
// to computational SSDs, through the strata binary.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

// One layer, hidden 256 in 4 heads, FP16, 1,024 prompt tokens: each drive reads 1/8 of its
// share of the K and V caches (1,025 x 256 x 2 B each) from flash; the attention's time (query
// out, flash reads, products, output back) is part of the step; two drives read the same bytes
// in all, each half, and finish the offloaded attention sooner.
TEST(InstInferRuns, AttentionRunsOnTheDrivesNextToTheKvCache) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/instinfer-opt13b.yaml");
  const std::string small = " --set workload.model.layers=1 --set workload.model.hidden=256 --set workload.model.heads=4"
                            " --set workload.model.ffn_hidden=1024 --set workload.model.vocab=1024";
  const auto run = [&](const std::string& out, const std::string& sets) {
    const CommandResult r = run_strata("run -q '" + exp + "'" + small + sets + " -o '" + dir.file(out) + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    return std::make_pair(json_file(dir.file(out + "/summary.json")), json_file(dir.file(out + "/stats.json"))["hardware"]);
  };
  const auto [s1, h1] = run("one", "");
  EXPECT_GT(s1["tokens_per_s"].get<double>(), 0);
  EXPECT_GT(s1["energy_per_token_j"].get<double>(), 0);
  // SparF's 1/8 of K and V, 2 x 1,025 x 256 x 2 B / 8: configs/validation/chiplet.yaml.
  const ValidationCheck& check = validation_check("chiplet", "instinfer-kv-share-per-drive");
  EXPECT_EQ(check.run->sets.size(), 5u);  // the same small model as `small`
  const double kv = check.reference;
  EXPECT_WITHIN_VALIDATION(check, h1["csd"]["kv_read_bytes"]["value"].get<double>());
  const double attention = h1["csd"]["attention_s"]["value"];
  EXPECT_GT(attention, 1e-6);  // at least the PCIe latency each way
  EXPECT_LT(attention, s1["latency_s"].get<double>());
  const auto [s2, h2] = run("two", " --set hardware.csds=2");
  EXPECT_NEAR(h2["csd"]["kv_read_bytes"]["value"].get<double>(), kv, 2);
  EXPECT_LT(h2["csd"]["attention_s"]["value"].get<double>(), attention);
}

// Each drive's share of the KV cache must fit its flash: refused up front in one line naming the
// flash's organization (exit 2, no result). OPT-13B's cache at 1,024 tokens (about 840 MB in
// FP16) does not fit a flash of one block a plane (512 MiB).
TEST(InstInferRuns, KvCacheMustFitEachDrivesFlash) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/instinfer-opt13b.yaml");
  const CommandResult r = run_strata(
      "run -q '" + exp + "' --set hardware.csd_flash.organization.blocks_per_plane=1 -o '" + dir.file("r") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "instinfer-a100.yaml");
  EXPECT_CONTAINS(r.err, "hardware.csd_flash.organization: holds 512 MiB, less than the");
  EXPECT_CONTAINS(r.err, "of a drive's share of the KV cache of opt-13b, page-aligned");
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r")));
}

// The drives' flash takes a kind with the `nand_flash` role (each drive's engine runs its
// controller), the host one with `package_device`: another kind is refused by the schema at its
// `kind:` key, one line with file, line and key, exit 2, no result.
TEST(InstInferRuns, RoleSlotsRefuseKindsOfAnotherRole) {
  TempDir dir;
  const std::string hw = source_path("configs/hardware/chiplet/instinfer-a100.yaml");
  const auto run = [&](const std::string& slot, const std::string& kind) {
    const std::string exp = dir.write("wrong.yaml", "name: wrong\nseed: 1\nhardware:\n  extends: " + hw + "\n  " +
                                                        slot + ":\n    kind: " + kind +
                                                        "\nworkload:\n  kind: gemm\n  m: 1\n  n: 256\n  k: 256\n");
    const CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("r") + "'");
    EXPECT_EQ(r.code, 2) << slot << " " << kind;
    EXPECT_CONTAINS(r.err, "wrong.yaml:6:");
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    return r.err;
  };
  EXPECT_CONTAINS(run("csd_flash", "dram"),
                  "hardware.csd_flash.kind: kind 'dram' cannot be used here: this slot needs a nand_flash");
  EXPECT_CONTAINS(run("host", "nand_flash"),
                  "hardware.host.kind: kind 'nand_flash' cannot be used here: this slot needs a package_device");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r")));
}

}  // namespace
}  // namespace strata::testing
