// The NAND flash model (memory/flash/): its timeline against closed forms (read, program,
// erase and read-compute latencies, the channel and plane ceilings, cache reads, the address
// striping), and the nand_flash component through the strata binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>

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

// Bookings that touch are one interval (commands back to back), a gap too short is passed, and
// a booking of no time occupies nothing: what keeps the calendar's search short.
TEST(BusyCalendar, TouchingBookingsAreOneIntervalAndGapsAreFound) {
  BusyCalendar c;
  for (int i = 0; i < 100000; ++i) EXPECT_DOUBLE_EQ(c.book(0, 1, 0), i);
  EXPECT_EQ(c.intervals(), 1u);
  EXPECT_DOUBLE_EQ(c.book(200000, 1, 0), 200000);  // leaves a gap [100000, 200000)
  EXPECT_EQ(c.intervals(), 2u);
  EXPECT_DOUBLE_EQ(c.book(50, 10, 0), 100000);     // the first gap long enough after 50
  EXPECT_DOUBLE_EQ(c.book(0, 200000, 0), 200001);  // the gap is too short: after the last
  EXPECT_DOUBLE_EQ(c.book(5, 0, 0), 100010);       // no time: the first free instant, unbooked
  EXPECT_EQ(c.intervals(), 2u);
  EXPECT_DOUBLE_EQ(c.book(100010, 99990, 0), 100010);  // fills the gap exactly: all one again
  EXPECT_EQ(c.intervals(), 1u);
  EXPECT_DOUBLE_EQ(c.book(500000, 1, 400001), 500000);  // what ended by the horizon is forgotten
  EXPECT_EQ(c.intervals(), 1u);
}

// A request of many pages books them all at one arrival: a million 4 KiB pages (a 4 GiB read) on
// Cambricon-LLM-S's geometry took the calendar that scanned its list from the start minutes; in
// logarithmic time it is well under a second (the bound is generous, for slow machines).
TEST(FlashTimeline, ARequestOfManyPagesIsBookedInLogarithmicTime) {
  FlashSpec s = cambricon_s();
  s.page_bytes = 4096;
  FlashTimeline t(s);
  const auto begin = std::chrono::steady_clock::now();
  const double done = t.read(0, std::uint64_t{1} << 32, 0);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(), 30);
  EXPECT_EQ(t.page_reads(), 1u << 20);
  // Channel-bound: each bus carries its 131,072 commands and pages back to back.
  const double bus = 131072 * (7e-9 + 4096 / 1e9);
  EXPECT_NEAR(done, bus, 0.01 * bus);
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

// Degenerate timing and page sizes are refused in one line naming the key (exit 2, no result):
// they ran before, as reads at 16 TB/s (tR -1 us, a bus of 0 Hz), a run "complete" at a
// saturated 2^63 fs (tR 1e9 s), or 16,384 page operations a 16 KiB request (a page of 1 B).
TEST(NandFlashRuns, DegenerateTimingAndPageSizesAreRefusedInOneLine) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/flash-cambricon-s-read.yaml");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"hardware.timing.tR=-1 us", "hardware.timing.tR: -1 us is out of range [0 s, 9223 s]"},
      {"hardware.timing.tR=-29 us", "hardware.timing.tR: -29 us is out of range"},
      {"hardware.timing.tR=1e9 s", "longer than SystemC's 64-bit femtosecond clock can simulate"},
      {"hardware.timing.bus_rate=0 Hz", "hardware.timing.bus_rate: 0 Hz is not positive"},
      {"hardware.organization.page=1 B", "hardware.organization.page: 1 B is not a NAND page size: 4, 8 or 16 KiB"},
      {"hardware.organization.page=3 KiB", "hardware.organization.page: 3072 B is not a NAND page size"},
  };
  for (const auto& [set, message] : cases) {
    const CommandResult r = run_strata("run -q '" + exp + "' --set '" + set + "' -o '" + dir.file("r") + "'");
    EXPECT_EQ(r.code, 2) << set;
    EXPECT_CONTAINS(r.err, message);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("r")));
  // The documented sizes run.
  EXPECT_EQ(run_strata("run -q '" + exp + "' --set workload.requests=64 --set 'hardware.organization.page=8 KiB' -o '" +
                       dir.file("ok") + "'")
                .code,
            0);
}

// Requests of many pages keep a run's chunks short, so SIGTERM is honoured at once: a stream of
// 1 MiB reads of 4 KiB pages (256 page bookings each, thousands in flight), stopped while it
// runs, leaves its marker and exits 143 within a generous bound (well under a second here).
TEST(NandFlashRuns, SigtermStopsAStreamOfLargeRequestsPromptly) {
  TempDir dir;
  const std::string out = dir.file("out");
  const std::string cmd =
      "cd '" + std::string(STRATA_SOURCE_DIR) + "' && ('" + std::string(STRATA_BINARY) +
      "' run configs/experiments/flash-cambricon-s-read.yaml --set workload.requests=100000000 --set "
      "'workload.request_bytes=1 MiB' --set workload.max_outstanding=4096 --set 'hardware.organization.page=4 KiB' "
      "--set hardware.queue_depth=4096 -o '" +
      out + "' --no-progress >/dev/null 2>'" + dir.file("err") + "' & pid=$!; for i in $(seq 1500); do ls -a '" + out +
      "' 2>/dev/null | grep -q staging && break; sleep 0.02; done; "
      "sleep 0.5; t0=$(date +%s.%N); kill -TERM $pid; wait $pid; echo $? >'" +
      dir.file("code") + "'; echo \"$t0 $(date +%s.%N)\" >'" + dir.file("times") + "')";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(std::stoi(read_file(dir.file("code"))), 143) << read_file(dir.file("err"));
  double sent = 0, ended = 0;
  std::istringstream(read_file(dir.file("times"))) >> sent >> ended;
  EXPECT_LT(ended - sent, 5.0);
  EXPECT_TRUE(std::filesystem::exists(out + "/interrupted.json"));
}

// A run whose simulated time would pass what SystemC's clock can represent fails in one line
// naming the component (exit 2, no result), instead of saturating at 2^63 fs and reporting
// "complete": a tR of 9,000 s is valid, but four reads queued on a plane end past 9,223 s.
TEST(NandFlashRuns, ATimePastTheSimulatedClockFailsTheRun) {
  TempDir dir;
  const std::string exp = source_path("configs/experiments/flash-cambricon-s-read.yaml");
  const CommandResult r = run_strata(
      "run -q '" + exp + "' --set workload.requests=256 --set 'hardware.timing.tR=9000 s' -o '" + dir.file("r") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "flash-cambricon-s-read.yaml");
  EXPECT_CONTAINS(r.err, "error: hardware: simulated time would reach");
  EXPECT_CONTAINS(r.err, "past the 9223 s that SystemC's 64-bit femtosecond clock can represent");
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r/summary.json")));
}

}  // namespace
}  // namespace strata::testing
