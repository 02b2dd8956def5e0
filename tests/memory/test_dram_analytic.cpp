// The DRAM's closed forms for the analytic fidelity (memory/dram/dram_analytic.h), worked by
// hand on the presets: sustained bandwidth, the bank-group penalty of a plain mapping, a stride
// that stays in one channel, the random-access bound, and row activations of streams.
#include <gtest/gtest.h>

#include <algorithm>

#include "dram_test_util.h"
#include "memory/dram/dram_analytic.h"

namespace strata::testing {
namespace {

struct Analytic {
  std::unique_ptr<DramPreset> preset;
  AddressMapping mapping;
  DramAnalytic model;
  explicit Analytic(std::unique_ptr<DramPreset> p)
      : preset(std::move(p)),
        mapping(preset->mapping, preset->spec.org),
        model(preset->spec, preset->controller, mapping) {}
};

Analytic make(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return Analytic(load_dram_preset(name, overrides));
}

TEST(DramAnalytic, SustainedBandwidthIsThePeakLessAllBankRefresh) {
  const Analytic a = make("hbm2", {"controller.mapping=mop4clxor"});
  const DramTiming& t = a.preset->spec.timing;
  const double refresh = static_cast<double>(t.tRFC + t.tRPab) / t.tREFI;  // (350 + 14) / 3900
  EXPECT_DOUBLE_EQ(a.model.refresh_overhead(), refresh);
  // HBM2: tBURST = tCCD_S = 2, so the column rate is the data bus.
  EXPECT_DOUBLE_EQ(a.model.sustained_bandwidth(), a.preset->spec.peak_bandwidth() * (1 - refresh));
  EXPECT_DOUBLE_EQ(make("hbm2", {"controller.refresh=none"}).model.sustained_bandwidth(),
                   a.preset->spec.peak_bandwidth());
  const Analytic pb = make("hbm2", {"controller.refresh=per_bank"});
  EXPECT_DOUBLE_EQ(pb.model.refresh_overhead(), static_cast<double>(t.tRFCpb) / t.tREFIpb / 16);
}

// row-bank-rank-column-channel keeps a stream's queued bursts in one bank of one bank group:
// a burst per tCCD_L (8 cycles on DDR4-3200, against tCCD_S = tBURST = 4). XOR hashing spreads
// them over bank groups.
TEST(DramAnalytic, PlainMappingStreamsAtTheSameBankGroupRate) {
  Analytic plain = make("ddr4-3200");
  EXPECT_DOUBLE_EQ(plain.model.column_cycles(), 8);
  EXPECT_DOUBLE_EQ(plain.model.bandwidth_share(0, 1, 1 << 20, 1 << 20), 0.5);
  Analytic xored = make("ddr4-3200", {"controller.mapping=mop4clxor"});
  EXPECT_DOUBLE_EQ(xored.model.column_cycles(), 4);
  EXPECT_DOUBLE_EQ(xored.model.bandwidth_share(0, 1, 1 << 20, 1 << 20), 1);
}

// mop4clxor on one HBM2 stack: 4 bursts (128 B) per channel, then the next of 16 controllers.
// Rows of 128 B every 2 KiB all fall in controller 0: a sixteenth of the bandwidth. Rows of
// 100 B at an odd offset also pay for the partial bursts they touch.
TEST(DramAnalytic, AStrideAtTheChannelInterleaveGetsOneChannel) {
  Analytic a = make("hbm2", {"controller.mapping=mop4clxor"});
  EXPECT_DOUBLE_EQ(a.model.bandwidth_share(0, 1024, 128, 2048), 1.0 / 16);
  EXPECT_DOUBLE_EQ(a.model.bandwidth_share(0, 1024, 128, 128 * 17), 1);  // every controller in turn
  EXPECT_DOUBLE_EQ(a.model.bandwidth_share(8, 1, 100, 100), 100.0 / 128);  // bursts 0..3
}

// Random 64 B reads on DDR4-3200 with two ranks: each an activation, the rank's tFAW bound
// (4 per 34 cycles) the tightest, over the command bus (ACT + RD) and the column rate.
TEST(DramAnalytic, RandomReadsAreBoundByActivations) {
  const Analytic a = make("ddr4-3200");
  const DramSpec& s = a.preset->spec;
  const double per_cycle = std::min({2 * 4.0 / 34, 0.5, 1.0 / 4});
  const double bandwidth = per_cycle * 64 / s.tck_s * (1 - a.model.refresh_overhead());
  EXPECT_NEAR(a.model.random_share(64) * a.model.sustained_bandwidth(), bandwidth, bandwidth * 1e-12);
}

// A long stream alone opens each page once (a 1 KiB page of HBM2 holds 32 bursts); interleaved
// with other streams it opens a page for every visit (4 bursts under mop4clxor).
TEST(DramAnalytic, StreamsActivateOncePerPageAloneAndPerVisitInterleaved) {
  Analytic a = make("hbm2", {"controller.mapping=mop4clxor"});
  const std::uint64_t bursts = 1 << 20;
  EXPECT_NEAR(a.model.activations(bursts, false), bursts / 32.0, bursts / 32.0 * 0.01);
  EXPECT_DOUBLE_EQ(a.model.activations(bursts, true), bursts / 4.0);
  // Rows that touch end to end are one contiguous run.
  EXPECT_DOUBLE_EQ(a.model.activations(0, 64, 32, 32, false), a.model.activations(64, false));
}

}  // namespace
}  // namespace strata::testing
