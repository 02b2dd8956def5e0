// Cambricon-LLM (accelerators/chiplet/): the hardware-aware tiling rule and the flash/NPU split
// against the paper's figures and the formulas, and decode runs through the strata binary.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "accelerators/chiplet/flash_tiling.h"
#include "test_util.h"

namespace strata::testing {
namespace {

FlashSpec cambricon(int channels, int chips) {
  FlashSpec s;
  s.channels = channels;
  s.chips_per_channel = chips;
  s.dies_per_chip = 2;
  s.planes_per_die = 2;
  s.page_bytes = 16384;
  s.t_read = 30e-6;
  s.bus_bytes_per_s = s.bus_transfers_per_s = 1e9;
  return s;
}

// The rule's tile: H_req = sqrt(cores per channel x page), W_req = channels x H_req. S is the
// paper's 256 x 2048 [V]; L's 512 x 16384 follows [E]; M's sqrt(8 x 16 KiB) = 362 = 2^8.5 is
// halfway between powers of two and rounds up to 512 (the paper's rounding is not stated).
TEST(FlashTiling, HardwareAwareTilesOfTheThreeConfigurations) {
  EXPECT_EQ(compute_cores(cambricon(8, 2)), 32);
  const FlashTile s = hardware_aware_tile(cambricon(8, 2));
  EXPECT_EQ(s.rows, 256);
  EXPECT_EQ(s.cols, 2048);
  const FlashTile m = hardware_aware_tile(cambricon(16, 4));
  EXPECT_EQ(m.rows, 512);
  EXPECT_EQ(m.cols, 8192);
  const FlashTile l = hardware_aware_tile(cambricon(32, 8));
  EXPECT_EQ(l.rows, 512);
  EXPECT_EQ(l.cols, 16384);
  EXPECT_EQ(l.rows * l.cols, 512 * 16384);  // H_req x W_req = total cores x page
}

// The split by the published formulas (S: t_rc 30.256 us, rate_rc 512 / 30,000, t_r 16.668 us,
// alpha 0.355, which the reproduction quotes as about 0.35), and the balanced share with a
// channel's 4 (S) or 16 (L) cores.
TEST(FlashTiling, SplitFollowsTheFormulas) {
  const FlashSpec f = cambricon(8, 2);
  const FlashSplit s = flash_split(f, hardware_aware_tile(f));
  EXPECT_NEAR(s.t_rc, 30e-6 + 2048 / 8e9, 1e-12);
  EXPECT_NEAR(s.rate_rc, 512.0 / 30000, 1e-12);
  EXPECT_NEAR(s.t_r, 16384 / ((1 - 512.0 / 30000) * 1e9), 1e-12);
  EXPECT_NEAR(s.alpha, 0.3552, 5e-4);
  EXPECT_NEAR(s.alpha_balanced, 4 * s.t_r / (4 * s.t_r + s.t_rc), 1e-12);
  EXPECT_NEAR(s.alpha_balanced, 0.688, 1e-3);
  const FlashSpec l = cambricon(32, 8);
  EXPECT_NEAR(flash_split(l, hardware_aware_tile(l)).alpha, 0.357, 1e-3);
  EXPECT_NEAR(flash_split(l, hardware_aware_tile(l)).alpha_balanced, 0.899, 1e-3);
}

// A decode token of Llama-2-7B on S, one layer (the smoke setting): reports tokens/s, energy per
// token and area; the flash computes its share of the weight pages (alpha of them, to a page per
// GEMV); a bad split is one line naming the key.
TEST(CambriconRuns, DecodeReportsTokensEnergyAndAreaAndSplitsThePages) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/chiplet-cambricon-s-llama7b.yaml");
  const CommandResult r = run_strata("run -q '" + exp + "' --set workload.model.layers=1 -o '" + dir.file("o") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = json_file(dir.file("o/summary.json"));
  for (const char* key : {"tokens_per_s", "energy_per_token_j", "area_mm2", "latency_s"})
    EXPECT_GT(s[key].get<double>(), 0) << key;
  EXPECT_NEAR(s["tokens_per_s"].get<double>() * s["latency_s"].get<double>(), 1, 1e-9);  // batch 1
  const auto h = json_file(dir.file("o/stats.json"))["hardware"];
  const double computed = h["flash_pages_computed"]["value"], read = h["flash_pages_read"]["value"];
  const double alpha = h["flash_share"]["value"];
  EXPECT_NEAR(computed / (computed + read), alpha, 0.01);
  // W4A16: a page holds twice the weights, so half the pages; the same MACs.
  const CommandResult w4 = run_strata("run -q '" + exp +
                                      "' --set workload.model.layers=1 --set workload.quant.weights=int4 --set "
                                      "workload.quant.activations=fp16 -o '" +
                                      dir.file("w4") + "'");
  ASSERT_EQ(w4.code, 0) << w4.err;
  const auto h4 = json_file(dir.file("w4/stats.json"))["hardware"];
  const double pages4 =
      h4["flash_pages_computed"]["value"].get<double>() + h4["flash_pages_read"]["value"].get<double>();
  EXPECT_NEAR(pages4 / (computed + read), 0.5, 0.01);
  const auto macs = [](const nlohmann::json& hw) {
    return hw["events"]["flash_core_mac"]["value"].get<double>() + hw["events"]["npu_mac"]["value"].get<double>();
  };
  EXPECT_NEAR(macs(h4) / macs(h), 1, 0.01);
  const CommandResult bad = run_strata("run -q '" + exp + "' --set hardware.split=1.5 -o '" + dir.file("b") + "'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_CONTAINS(bad.err, "hardware.split");
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
}

// The die-to-die link's energy per bit by packaging (the technology table's links rows, from the
// reference sheet: UCIe standard package 0.5 pJ/bit, advanced package 0.25, hybrid bonding
// 0.05): the same bytes cross it whatever the packaging.
TEST(CambriconRuns, LinkEnergyPerBitFollowsThePackaging) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/chiplet-cambricon-s-llama7b.yaml");
  for (const auto& [packaging, pj] : std::vector<std::pair<std::string, double>>{
           {"ucie_standard", 0.5}, {"ucie_advanced", 0.25}, {"hybrid_bonding", 0.05}}) {
    const CommandResult r =
        run_strata("run -q '" + exp + "' --set workload.model.layers=1 --set hardware.link.packaging=" + packaging +
                   " -o '" + dir.file(packaging) + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto link = json_file(dir.file(packaging + "/stats.json"))["hardware"]["link"];
    const double bits = 8 * link["bytes"]["value"].get<double>();
    EXPECT_GT(bits, 0);
    EXPECT_NEAR(link["energy"]["bit"]["value"].get<double>() / bits, pj * 1e-12, 1e-3 * pj * 1e-12) << packaging;
  }
}

// Contents that do not fit their memory are refused up front in one line naming the capacity's
// key (exit 2, no result): Llama-2-7B's 6.7 GB of weights in a flash of 256 MiB (one block a
// plane) ran as fast as in 128 GiB, and its KV cache in a DRAM too small for it.
TEST(CambriconRuns, WeightsAndKvCacheMustFitTheirMemories) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/chiplet-cambricon-s-llama7b.yaml");
  const auto run = [&](const std::string& sets) {
    const CommandResult r = run_strata("run -q '" + exp + "' " + sets + " -o '" + dir.file("r") + "'");
    EXPECT_EQ(r.code, 2) << sets;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    return r.err;
  };
  const std::string flash = run("--set hardware.flash.organization.blocks_per_plane=1");
  EXPECT_CONTAINS(flash, "cambricon-llm-s.yaml");
  EXPECT_CONTAINS(flash, "hardware.flash.organization: holds 256 MiB, less than the");
  EXPECT_CONTAINS(flash, "of the weights of llama-2-7b, page-aligned");
  const std::string kv = run("--set hardware.kv_memory.organization.rows=64");
  EXPECT_CONTAINS(kv, "hardware.kv_memory.organization: holds");
  EXPECT_CONTAINS(kv, "of the KV cache of llama-2-7b");
  // A flash page of 1 B (16,384 page operations a 16 KiB read) is refused before anything runs.
  EXPECT_CONTAINS(run("--set 'hardware.flash.organization.page=1 B'"),
                  "hardware.flash.organization.page: 1 B is not a NAND page size");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r")));
}

// The flash slot takes a kind with the `nand_flash` role (the NPU chiplet runs the flash's
// controller), kv_memory one with `memory_target`: another kind is refused by the schema at its
// `kind:` key, one line with file, line and key, exit 2, no result. Before, a wrong flash was
// found by a cast after elaboration.
TEST(CambriconRuns, RoleSlotsRefuseKindsOfAnotherRole) {
  TempDir dir;
  const std::string hw = source_path("configs/hardware/chiplet/cambricon-llm-s.yaml");
  const auto run = [&](const std::string& slot, const std::string& kind) {
    const std::string exp =
        dir.write("wrong.yaml", "name: wrong\nseed: 1\nhardware:\n  extends: " + hw + "\n  " + slot +
                                    ":\n    kind: " + kind + "\nworkload:\n  kind: gemm\n  m: 1\n  n: 256\n  k: 256\n");
    const CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("r") + "'");
    EXPECT_EQ(r.code, 2) << slot << " " << kind;
    EXPECT_CONTAINS(r.err, "wrong.yaml:6:");
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    return r.err;
  };
  EXPECT_CONTAINS(run("flash", "dram"),
                  "hardware.flash.kind: kind 'dram' cannot be used here: this slot needs a nand_flash");
  EXPECT_CONTAINS(run("flash", "simple_memory"),
                  "hardware.flash.kind: kind 'simple_memory' cannot be used here: this slot needs a nand_flash");
  EXPECT_CONTAINS(run("kv_memory", "chip_link"),
                  "hardware.kv_memory.kind: kind 'chip_link' cannot be used here: this slot needs a memory_target");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r")));
}

}  // namespace
}  // namespace strata::testing
