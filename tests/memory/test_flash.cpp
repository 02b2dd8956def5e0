// The NAND flash model (memory/flash/): its timeline against closed forms (read, program,
// erase and read-compute latencies, the channel and plane ceilings, cache reads, the address
// striping), and the nand_flash component through the strata binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <cmath>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "memory/flash/flash_timeline.h"
#include "memory/flash/outlier_ecc.h"
#include "sim/registry.h"
#include "test_util.h"

namespace strata::testing {
namespace {

// Cambricon-LLM-S's flash (../shared/reference/chiplet-flash.md, Table II): 8 channels x 2
// chips x 2 dies x 2 planes, 16 KiB pages, tR 30 us, 1 GB/s channels, 7-cycle commands.
FlashSpec cambricon_s() {
  FlashSpec s;
  s.channels = 8;
  s.chips_per_channel = 2;
  s.dies_per_chip = 2;
  s.planes_per_die = 2;
  s.page_bytes = 16384;
  s.t_read = 30e-6;
  s.t_program = 750e-6;
  s.t_erase = 3.8e-3;
  s.bus_transfers_per_s = 1e9;
  s.bus_bytes_per_s = 1e9;
  s.command_cycles = 7;
  return s;
}

// Consecutive pages go to consecutive channels, then chips, dies and planes.
TEST(FlashTimeline, PagesStripeOverChannelsThenChipsDiesPlanes) {
  const FlashTimeline t(cambricon_s());
  EXPECT_EQ(t.decode(0).channel, 0);
  EXPECT_EQ(t.decode(16384).channel, 1);
  EXPECT_EQ(t.decode(7 * 16384 + 100).channel, 7);
  EXPECT_EQ(t.decode(7 * 16384 + 100).offset, 100u);
  const FlashAddress a = t.decode(8 * 16384);  // channel 0, its second chip
  EXPECT_EQ(a.channel, 0);
  EXPECT_EQ(a.die, 2);  // chip 1 of channel 0: dies 2 and 3
  EXPECT_EQ(t.decode(16 * 16384).die, 1);
  EXPECT_EQ(t.decode(32 * 16384).plane, 1);           // plane 1 of die 0
  EXPECT_EQ(t.decode(64 * 16384).page, 1);            // every plane's page 0 used: page 1
  EXPECT_EQ(t.spec().capacity(), 64ull * 2048 * 256 * 16384);
}

// On an idle device: read = 7 command cycles + tR + the bytes over the bus; program = the
// command and the data over the bus + tPROG; erase = the command + tBERS; read-compute = the
// command and the input vector + tR + the GEMV + the result.
TEST(FlashTimeline, IdleLatenciesAreTheClosedForms) {
  const FlashSpec s = cambricon_s();
  FlashTimeline t(s);
  EXPECT_NEAR(t.read(0, 16384, 0), 7e-9 + 30e-6 + 16.384e-6, 1e-12);
  EXPECT_NEAR(s.read_latency(16384), 7e-9 + 30e-6 + 16.384e-6, 1e-12);
  FlashTimeline p(s);
  EXPECT_NEAR(p.program(0, 16384, 1e-3), 1e-3 + 7e-9 + 16.384e-6 + 750e-6, 1e-12);
  FlashTimeline e(s);
  EXPECT_NEAR(e.erase(0, 0), 7e-9 + 3.8e-3, 1e-12);
  FlashTimeline rc(s);
  EXPECT_NEAR(rc.read_compute(0, 256, 64, 8e-6, 0), 7e-9 + 256e-9 + 30e-6 + 8e-6 + 64e-9, 1e-12);
  // A read across a page boundary: two pages on two channels, in parallel.
  FlashTimeline two(s);
  EXPECT_NEAR(two.read(8192, 16384, 0), 7e-9 + 30e-6 + 8.192e-6, 1e-12);
  EXPECT_EQ(two.page_reads(), 2u);
}

// Many page reads at once: the channel buses carry at most 8 x 1 GB/s; the 64 planes could
// sense 64 x 16 KiB / 30 us = 35 GB/s. With the buses made 100x faster the planes set the
// ceiling instead; without cache reads a plane holds its page until it has left on the bus.
TEST(FlashTimeline, StreamsMeetTheChannelOrThePlaneCeiling) {
  const auto stream = [](const FlashSpec& s, int pages) {
    FlashTimeline t(s);
    double done = 0;
    for (int i = 0; i < pages; ++i) done = std::max(done, t.read(static_cast<std::uint64_t>(i) * s.page_bytes, s.page_bytes, 0));
    return static_cast<double>(pages) * static_cast<double>(s.page_bytes) / done;
  };
  FlashSpec s = cambricon_s();
  EXPECT_NEAR(s.read_bandwidth(), 8e9, 1);
  EXPECT_NEAR(stream(s, 4096), 8e9, 0.01 * 8e9);  // within 1%: the first tR is not hidden
  s.bus_bytes_per_s = s.bus_transfers_per_s = 100e9;
  const double planes = 64 * 16384 / 30e-6;
  EXPECT_NEAR(s.read_bandwidth(), planes, 1);
  EXPECT_NEAR(stream(s, 64 * 64), planes, 0.02 * planes);
  // One plane, no cache read: page / (tR + transfer); with cache read the transfer overlaps.
  FlashSpec one = cambricon_s();
  one.channels = one.chips_per_channel = one.dies_per_chip = one.planes_per_die = 1;
  one.cache_read = false;
  EXPECT_NEAR(stream(one, 200), 16384 / (7e-9 + 30e-6 + 16.384e-6), 0.01 * 16384 / 46.4e-6);
  one.cache_read = true;
  EXPECT_NEAR(stream(one, 200), 16384 / (30e-6 + 7e-9), 0.01 * 16384 / 30e-6);
}

// The outlier ECC's size for a 16 KB INT8 page: 163 protected values, 8 x 9 + 35 x 163 = 5,777
// bits = 723 B (the paper prints 722), inside the 1,664 B spare area.
TEST(OutlierEcc, SizeOfAPagesProtection) {
  EXPECT_EQ(outlier_ecc_protected(16384), 163);
  EXPECT_EQ(outlier_ecc_bytes(16384), 723u);
  EXPECT_LT(outlier_ecc_bytes(16384), 1664u);
  EXPECT_EQ(outlier_ecc_protected(50), 1);
}

// Raw bit errors on Gaussian INT8 weight pages: about x of the bits flip; with the ECC a
// protected bit stays wrong with probability 3x^2 - 2x^3 (two or three of its copies flipped),
// no unprotected value is left above the threshold, and the same seed gives the same page.
TEST(OutlierEcc, ProtectedBitsStayWrongAtThreeXSquared) {
  boost::random::mt19937_64 rng(7);
  boost::random::normal_distribution<double> weight(0, 20);
  std::vector<std::int8_t> page(16384);
  for (auto& v : page) v = static_cast<std::int8_t>(std::clamp(std::lround(weight(rng)), -127L, 127L));
  const double x = 0.03;
  std::uint64_t flips = 0, wrong = 0, bits = 0, plain_wrong = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const BitErrorResult r = read_with_bit_errors(page, x, seed, true);
    flips += r.raw_flips;
    wrong += r.protected_bit_errors;
    bits += r.protected_bits;
    // Above the threshold (the 163rd largest magnitude) only the protected values can be.
    std::vector<int> magnitudes;
    for (const std::int8_t v : page) magnitudes.push_back(std::abs(static_cast<int>(v)));
    std::nth_element(magnitudes.begin(), magnitudes.begin() + 162, magnitudes.end(), std::greater<int>());
    const int threshold = magnitudes[162];
    EXPECT_LE(std::count_if(r.read.begin(), r.read.end(),
                            [&](std::int8_t v) { return std::abs(static_cast<int>(v)) > threshold; }),
              163);
    const BitErrorResult plain = read_with_bit_errors(page, x, seed, false);
    for (std::size_t i = 0; i < page.size(); ++i)
      plain_wrong += std::bitset<8>(static_cast<std::uint8_t>(plain.read[i] ^ page[i])).count();
  }
  const double stored_bits = 40.0 * (8 * 16384 + 8 * outlier_ecc_bytes(16384));
  EXPECT_NEAR(static_cast<double>(flips) / stored_bits, x, 0.05 * x);
  EXPECT_NEAR(static_cast<double>(plain_wrong) / (40.0 * 8 * 16384), x, 0.05 * x);
  // An entry is lost when two or more of its address codeword's 19 bits flip (11% at 3%).
  const double kept = std::pow(1 - x, 19) + 19 * x * std::pow(1 - x, 18);
  EXPECT_NEAR(static_cast<double>(bits), 40 * 163 * 8 * kept, 0.05 * 40 * 163 * 8 * kept);
  EXPECT_NEAR(static_cast<double>(wrong) / static_cast<double>(bits), 3 * x * x - 2 * x * x * x, 0.25 * 3 * x * x);
  const BitErrorResult a = read_with_bit_errors(page, x, 5, true), b = read_with_bit_errors(page, x, 5, true);
  EXPECT_EQ(a.read, b.read);
  EXPECT_EQ(read_with_bit_errors(page, 0, 1, true).read, page);
}

// The component: a stream of page reads through Cambricon-LLM-S's flash reaches the channels'
// 8 GB/s within the ramp-up, with the channel buses nearly always busy; the analytic fidelity
// takes the same ceiling.
TEST(NandFlashRuns, PageReadStreamIsChannelBound) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/flash-cambricon-s-read.yaml");
  ASSERT_EQ(run_strata("run -q '" + exp + "' -o '" + dir.file("c") + "'").code, 0);
  ASSERT_EQ(run_strata("run -q '" + exp + "' --set sim.fidelity=analytic -o '" + dir.file("a") + "'").code, 0);
  const auto c = json_file(dir.file("c/summary.json")), a = json_file(dir.file("a/summary.json"));
  // Channel-bound (8 x 1 GB/s) and the energy's closed form: configs/validation/chiplet.yaml.
  Registry registry;
  const ValidationRunResult run{dir.file("c"), c, json_file(dir.file("c/stats.json"))};
  for (const char* id : {"flash-stream-channel-bound", "flash-stream-energy"}) {
    const ValidationCheck& check = validation_check("chiplet", id);
    EXPECT_EQ(check.run->experiment, exp);
    EXPECT_WITHIN_VALIDATION(check, validation_figure(check, &run, nullptr, registry));
  }
  EXPECT_NEAR(a["bandwidth_gbps"].get<double>(), c["bandwidth_gbps"].get<double>(),
              0.15 * c["bandwidth_gbps"].get<double>());
  const auto stats = json_file(dir.file("c/stats.json"));
  EXPECT_GT(stats["hardware"]["channel_utilization"]["value"].get<double>(), 0.9);
  // The outlier ECC: decoded on die (5 us a page here) before the data leave; a spare area too
  // small for it is refused in one line naming the key.
  ASSERT_EQ(run_strata("run -q '" + exp + "' --set hardware.ecc=outlier --set 'hardware.timing.t_ecc=5 us' -o '" +
                       dir.file("e") + "'")
                .code,
            0);
  const auto e = json_file(dir.file("e/summary.json"));
  EXPECT_GT(e["avg_latency_ns"].get<double>(), c["avg_latency_ns"].get<double>());
  const CommandResult small =
      run_strata("run -q '" + exp + "' --set hardware.ecc=outlier --set 'hardware.organization.spare=512 B' -o '" +
                 dir.file("s") + "'");
  EXPECT_EQ(small.code, 2);
  EXPECT_CONTAINS(small.err, "hardware.organization.spare");
  EXPECT_CONTAINS(small.err, "needs 723 B of spare area");
  EXPECT_FALSE(std::filesystem::exists(dir.file("s")));
}

}  // namespace
}  // namespace strata::testing
