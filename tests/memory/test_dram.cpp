// The DRAM model against JEDEC arithmetic: unloaded latencies, saturated stream and random
// bandwidth against their bounds, the protocol checker on random traffic (and on a deliberately
// broken scheduler), energy per command against DRAMsim3's IDD figures, address mappings and
// config errors. These drive ChannelController directly, cycle-exact, without SystemC.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "dram_test_util.h"
#include "memory/dram/dram_energy.h"
#include "memory/dram/timing_table.h"
#include "sim/input_error.h"

using strata::AddressMapping;
using strata::ChannelController;
using strata::ControllerConfig;
using strata::DramAddress;
using strata::DramCmd;
using strata::DramCommand;
using strata::DramSpec;
using strata::ProtocolChecker;
using strata::testing::ControllerHarness;
using strata::testing::dram_presets;
using strata::testing::load_dram_preset;

namespace {

// Latency in cycles of one read to `a` arriving at `now` on an otherwise idle controller.
std::uint64_t read_latency(ControllerHarness& h, const DramAddress& a, std::uint64_t& now) {
  std::vector<ChannelController::Completion> done;
  const std::uint64_t arrival = now;
  h.ctrl().enqueue(1, a, false, now);
  const std::uint64_t end = h.drain(now, done, now + 100000);
  now = end + 1000;  // long past every constraint of this access
  return end - arrival;
}

// Reads `n` requests through one channel with its read queue kept full; returns GB/s.
// `address(i)` gives the i-th request's address; requests of other channels are skipped.
template <class Next>
double saturated_bandwidth(const strata::testing::DramPreset& p, ControllerHarness& h, int n, Next address) {
  const AddressMapping map(p.mapping, p.spec.org);
  std::vector<ChannelController::Completion> done;
  std::uint64_t now = 0, last = 0, tag = 0;
  int issued = 0, completed = 0;
  while (completed < n) {
    while (issued < n && h.ctrl().room(false) > 0) {
      DramAddress a = map.decode(address());
      if (a.channel != 0) continue;
      h.ctrl().enqueue(tag++, a, false, now);
      ++issued;
    }
    done.clear();
    const std::uint64_t next = h.ctrl().step(now, done);
    EXPECT_EQ(h.ctrl().violation(), "");
    for (const auto& c : done) last = std::max(last, c.cycle);
    completed += static_cast<int>(done.size());
    // A freed queue slot is refilled in the next cycle, as a back-to-back front end would.
    now = (issued < n && h.ctrl().room(false) > 0) ? now + 1 : std::min(next, now + 1000000);
  }
  return static_cast<double>(n) * p.spec.org.access_bytes() / (static_cast<double>(last) * p.spec.tck_s) * 1e-9;
}

double refresh_factor(const DramSpec& s) { return 1.0 - static_cast<double>(s.timing.tRFC) / s.timing.tREFI; }

}  // namespace

// Row hit = CL + burst; row closed = RCD + CL + burst; row conflict = RP + RCD + CL + burst.
TEST(Dram, UnloadedReadLatencyIsTheJedecFormulaForEveryStandard) {
  for (const std::string& name : dram_presets()) {
    SCOPED_TRACE(name);
    auto p = load_dram_preset(name, {"controller.refresh=none"});
    const auto& t = p->spec.timing;
    ControllerHarness h(p->spec, p->controller, true);
    std::uint64_t now = 0;
    const DramAddress a{0, 0, 1, 2, 100, 3};
    DramAddress same_row = a, other_row = a;
    same_row.column = 7;
    other_row.row = 200;
    EXPECT_EQ(read_latency(h, a, now), static_cast<std::uint64_t>(t.tRCD + t.CL + t.tBURST)) << "row closed";
    EXPECT_EQ(read_latency(h, same_row, now), static_cast<std::uint64_t>(t.CL + t.tBURST)) << "row hit";
    EXPECT_EQ(read_latency(h, other_row, now), static_cast<std::uint64_t>(t.tRP + t.tRCD + t.CL + t.tBURST))
        << "row conflict";
    EXPECT_EQ(h.stats().row_misses->count(), 1u);
    EXPECT_EQ(h.stats().row_hits->count(), 1u);
    EXPECT_EQ(h.stats().row_conflicts->count(), 1u);
  }
}

TEST(Dram, ClosedPagePrechargesAfterEveryAccess) {
  auto p = load_dram_preset("ddr4-3200", {"controller.refresh=none", "controller.page_policy=closed"});
  ControllerHarness h(p->spec, p->controller, true);
  std::uint64_t now = 0;
  const DramAddress a{0, 0, 1, 2, 100, 3};
  const auto& t = p->spec.timing;
  read_latency(h, a, now);
  // The row was closed behind the first read: the second pays RCD again, not a conflict.
  EXPECT_EQ(read_latency(h, a, now), static_cast<std::uint64_t>(t.tRCD + t.CL + t.tBURST));
  h.ctrl().finish(now);
  EXPECT_EQ(h.stats().commands[static_cast<int>(DramCmd::PRE)]->count(), 2u);
}

// Stream bound per channel: one burst per max(tBURST, tCCD_S) (the XOR mapping moves on to
// another bank group every 4 bursts), less the refresh share tRFC / tREFI. Required: >= 90%.
TEST(Dram, SaturatedStreamWithXorMappingReachesNinetyPercentOfTheBound) {
  for (const char* name : {"ddr4-3200", "hbm2"}) {
    SCOPED_TRACE(name);
    auto p = load_dram_preset(name, {"controller.mapping=mop4clxor"});
    ControllerHarness h(p->spec, p->controller, true);
    std::uint64_t addr = 0;
    const std::uint32_t bytes = p->spec.org.access_bytes();
    const double gbps = saturated_bandwidth(*p, h, 100000, [&] { return (addr += bytes) - bytes; });
    const auto& t = p->spec.timing;
    const double bound = bytes / (std::max(t.tBURST, t.tCCD_S) * p->spec.tck_s) * refresh_factor(p->spec) * 1e-9;
    EXPECT_GE(gbps, 0.90 * bound) << gbps << " GB/s of a " << bound << " GB/s bound";
    EXPECT_LE(gbps, bound * 1.001);
  }
}

// Random-read bound per channel: per rank min(banks / tRC, 4 / tFAW, 1 / tRRD_S) activates per
// cycle, summed over ranks, capped by the data bus, less refresh. Required: within 10%.
TEST(Dram, SaturatedRandomReadsAreWithinTenPercentOfTheActivateBound) {
  for (const char* name : {"ddr4-3200", "hbm2", "lpddr5-6400"}) {
    SCOPED_TRACE(name);
    auto p = load_dram_preset(name);
    ControllerHarness h(p->spec, p->controller, true);
    std::mt19937_64 rng(1);
    const std::uint64_t span = p->spec.org.capacity_bytes();
    const std::uint32_t bytes = p->spec.org.access_bytes();
    const double gbps = saturated_bandwidth(*p, h, 100000, [&] { return rng() % (span / bytes) * bytes; });
    const auto& t = p->spec.timing;
    const double per_rank = std::min({static_cast<double>(p->spec.org.banks_per_rank()) / t.tRC, 4.0 / t.tFAW, 1.0 / t.tRRD_S});
    const double acts = std::min(per_rank * p->spec.org.ranks, 1.0 / std::max(t.tBURST, t.tCCD_S));
    const double bound = acts * bytes / p->spec.tck_s * refresh_factor(p->spec) * 1e-9;
    EXPECT_NEAR(gbps, bound, 0.10 * bound) << gbps << " GB/s against a " << bound << " GB/s bound";
  }
}

// Random reads and writes, every standard, every page policy and refresh mode: the independent
// checker must see no violation.
TEST(Dram, ProtocolCheckerPassesRandomTrafficOnEveryStandard) {
  for (const std::string& name : dram_presets()) {
    for (const char* page : {"open", "closed", "adaptive"}) {
      for (const char* refresh : {"all_bank", "per_bank"}) {
        if (name == "ddr4-3200" && std::string(refresh) == "per_bank") continue;  // DDR4 has none
        SCOPED_TRACE(name + " " + page + " " + refresh);
        auto p = load_dram_preset(name, {std::string("controller.page_policy=") + page,
                                         std::string("controller.refresh=") + refresh, "controller.read_queue=16",
                                         "controller.write_queue=16"});
        ControllerHarness h(p->spec, p->controller, true);
        const AddressMapping map(p->mapping, p->spec.org);
        std::mt19937_64 rng(7);
        std::vector<ChannelController::Completion> done;
        std::uint64_t now = 0;
        // Bursts of traffic with idle gaps (so refresh also happens while parked), over a
        // small span so rows hit, miss and conflict.
        for (int i = 0; i < 6000 && h.ctrl().violation().empty(); ++i) {
          const bool write = rng() % 3 == 0;
          DramAddress a = map.decode(rng() % (1u << 22) * p->spec.org.access_bytes());
          if (h.ctrl().room(write) > 0) h.ctrl().enqueue(static_cast<std::uint64_t>(i), a, write, now);
          done.clear();
          const std::uint64_t next = h.ctrl().step(now, done);
          now = (i % 1000 == 999) ? now + 3 * static_cast<std::uint64_t>(p->spec.timing.tREFI)
                                  : (rng() % 4 == 0 && next != ChannelController::kIdle ? next : now + 1);
        }
        h.drain(now, done, now + 10000000);
        EXPECT_EQ(h.ctrl().violation(), "");
        EXPECT_GT(h.stats().commands[static_cast<int>(DramCmd::WR)]->count(), 100u);
        EXPECT_GT(h.stats().commands[static_cast<int>(refresh == std::string("per_bank") ? DramCmd::REFpb : DramCmd::REF)]->count(), 3u);
      }
    }
  }
}

// The mutation test: schedule with a timing one cycle short while the checker keeps the real
// one; the first violation names the rule, the command, the bank and the cycle.
TEST(Dram, ProtocolCheckerCatchesAnInjectedViolation) {
  for (const char* rule : {"tRCD", "tRP", "tFAW", "tCCD_L", "tRAS"}) {
    SCOPED_TRACE(rule);
    auto p = load_dram_preset("ddr4-3200");
    DramSpec wrong = p->spec;
    auto& t = wrong.timing;
    if (std::string(rule) == "tRCD") t.tRCD -= 1;
    if (std::string(rule) == "tRP") t.tRP -= 1;
    if (std::string(rule) == "tFAW") t.tFAW -= 1;
    if (std::string(rule) == "tCCD_L") t.tCCD_L -= 1;
    if (std::string(rule) == "tRAS") t.tRAS -= 1;
    ControllerHarness h(p->spec, p->controller, true);
    h.ctrl().use_timing_for_scheduling(wrong);
    std::mt19937_64 rng(3);
    const std::uint32_t bytes = p->spec.org.access_bytes();
    std::uint64_t addr = 0;
    const bool stream = std::string(rule) == "tCCD_L";
    const AddressMapping map(p->mapping, p->spec.org);
    std::vector<ChannelController::Completion> done;
    std::uint64_t now = 0;
    for (int i = 0; i < 200000 && h.ctrl().violation().empty(); ++i) {
      while (h.ctrl().room(false) > 0)
        h.ctrl().enqueue(0, map.decode(stream ? (addr += bytes) : rng() % (1u << 28) * bytes), false, now);
      done.clear();
      const std::uint64_t next = h.ctrl().step(now, done);
      now = next == ChannelController::kIdle ? now + 1 : next;
    }
    EXPECT_NE(h.ctrl().violation().find(std::string(rule) + " violated:"), std::string::npos) << h.ctrl().violation();
    EXPECT_NE(h.ctrl().violation().find("at cycle"), std::string::npos);
    EXPECT_NE(h.ctrl().violation().find("bank group"), std::string::npos);
  }
}

TEST(Dram, ProtocolCheckerReportsStateErrors) {
  auto p = load_dram_preset("ddr4-3200");
  ProtocolChecker c(p->spec, false);
  EXPECT_EQ(c.check(DramCommand{DramCmd::ACT, 0, 0, 1, 2, 5}), "");
  EXPECT_EQ(c.check(DramCommand{DramCmd::RD, 21, 0, 1, 2, 5}),
            "tRCD violated: RD at cycle 21 to rank 0 bank group 1 bank 2 row 5 is 21 cycles after ACT at cycle 0 "
            "(needs 22)");
  ProtocolChecker d(p->spec, false);
  EXPECT_NE(d.check(DramCommand{DramCmd::RD, 10, 0, 0, 0, 5}).find("state violated: RD"), std::string::npos);
  ProtocolChecker e(p->spec, false);
  e.check(DramCommand{DramCmd::ACT, 0, 0, 0, 0, 5});
  EXPECT_NE(e.check(DramCommand{DramCmd::REF, 100, 0, 0, 0, 0}).find("state violated: REF"), std::string::npos);
}

// A device's own command joins the protocol as data (what it does, its rules): the timing
// table holds the controller to its rules, and the checker checks its state and rules without
// a line of either changed (the ground PIM commands stand on).
TEST(Dram, ADevicesOwnCommandJoinsTheTimingTableAndTheChecker) {
  auto p = load_dram_preset("ddr4-3200");
  strata::DramSpec spec = p->spec;
  const int tRCD = spec.timing.tRCD;
  spec.extend_protocol = [](strata::DramProtocol& protocol, const strata::DramSpec& s) {
    strata::DramCommandInfo mac;
    mac.name = "MAC";
    mac.column = true;  // reads its bank's open row into the bank's multiply-accumulate unit
    const DramCmd id = protocol.add_command(mac);
    protocol.add_rule({DramCmd::ACT, id, strata::TimingLevel::Bank, s.timing.tRCD, "tRCD"});
    protocol.add_rule({id, id, strata::TimingLevel::Group, 4, "tMAC"});
    protocol.add_rule({id, DramCmd::PRE, strata::TimingLevel::Bank, 9, "tMAC_PRE"});
  };
  const strata::DramProtocol protocol = spec.protocol();
  ASSERT_EQ(protocol.size(), strata::kStandardDramCmds + 1);
  const DramCmd mac = *protocol.find("MAC");

  strata::TimingTable t(spec);
  t.issue(DramCommand{DramCmd::ACT, 0, 0, 1, 2, 5});
  EXPECT_EQ(t.earliest(mac, 0, 1, 2), static_cast<std::uint64_t>(tRCD));
  t.issue(DramCommand{mac, 100, 0, 1, 2, 5});
  EXPECT_EQ(t.earliest(mac, 0, 1, 3), 104u);  // same bank group
  EXPECT_EQ(t.earliest(mac, 0, 0, 3), 0u);    // another bank group: no rule
  EXPECT_GE(t.earliest(DramCmd::PRE, 0, 1, 2), 109u);

  strata::ProtocolChecker c(spec, false);
  EXPECT_EQ(c.check(DramCommand{DramCmd::ACT, 0, 0, 1, 2, 5}), "");
  EXPECT_EQ(c.check(DramCommand{mac, static_cast<std::uint64_t>(tRCD) - 1, 0, 1, 2, 5}),
            fmt::format("tRCD violated: MAC at cycle {} to rank 0 bank group 1 bank 2 row 5 is {} cycles after ACT to "
                        "the same bank at cycle 0 (needs {})",
                        tRCD - 1, tRCD - 1, tRCD));
  strata::ProtocolChecker ok(spec, false);
  EXPECT_EQ(ok.check(DramCommand{DramCmd::ACT, 0, 0, 1, 2, 5}), "");
  EXPECT_EQ(ok.check(DramCommand{mac, 100, 0, 1, 2, 5}), "");
  EXPECT_NE(ok.check(DramCommand{mac, 102, 0, 1, 2, 5}).find("tMAC violated"), std::string::npos);
  EXPECT_NE(ok.check(DramCommand{DramCmd::PRE, 105, 0, 1, 2, 0}).find("tMAC_PRE violated"), std::string::npos);
  strata::ProtocolChecker closed(spec, false);
  EXPECT_NE(closed.check(DramCommand{mac, 100, 0, 1, 2, 5}).find("state violated: MAC"), std::string::npos);
}

// Energy per command from the IDD model. DRAMsim3 multiplies currents by cycles without tCK
// (its figures are right when tCK = 1 ns): HBM2 (tCK 1 ns) matches it exactly, per bit;
// DDR4-3200 matches it times tCK / 1 ns = 0.625. Reference: ../shared/reference/dram.
TEST(Dram, EnergyPerCommandMatchesDramsim3IddFigures) {
  {
    auto p = load_dram_preset("hbm2");
    const auto e = strata::DramEnergy::from(p->spec);
    // DRAMsim3's 128-bit legacy channel: 0.80 nJ per 64 B read, 0.83 nJ per 2 KB activation;
    // a 64-bit pseudo-channel moves half the bits and opens half the row.
    EXPECT_NEAR(e.read / (32 * 8), 0.80e-9 / (64 * 8), 0.01 * 0.80e-9 / (64 * 8));  // 1.57 pJ/bit
    EXPECT_NEAR(e.act, 0.83e-9 / 2, 0.01 * 0.83e-9 / 2);
  }
  {
    auto p = load_dram_preset("ddr4-3200");
    const auto e = strata::DramEnergy::from(p->spec);
    EXPECT_NEAR(e.act, 6.72e-9 * 0.625, 0.01 * 6.72e-9 * 0.625);
    EXPECT_NEAR(e.read, 4.45e-9 * 0.625, 0.01 * 4.45e-9 * 0.625);
  }
}

TEST(Dram, AddressMappingsDecodeAndEncode) {
  auto p = load_dram_preset("ddr4-3200");
  const auto& org = p->spec.org;
  // row-bank-rank-column-channel: 64 B bursts, then 128 columns, then rank, then bank group
  // and bank, then row.
  const AddressMapping ro("row-bank-rank-column-channel", org);
  EXPECT_EQ(ro.decode(64).column, 1u);
  EXPECT_EQ(ro.decode(64 * 128).rank, 1);
  EXPECT_EQ(ro.decode(64 * 128 * 2).bank_group, 1);
  EXPECT_EQ(ro.decode(64 * 128 * 2 * 4).bank, 1);
  EXPECT_EQ(ro.decode(64ull * 128 * 2 * 16).row, 1u);
  const AddressMapping x("mop4clxor", org);
  // Four bursts per bank, then the next bank group.
  EXPECT_EQ(x.decode(3 * 64).bank_group, x.decode(0).bank_group);
  EXPECT_NE(x.decode(4 * 64).bank_group, x.decode(0).bank_group);
  std::mt19937_64 rng(5);
  for (const char* scheme :
       {"row-bank-rank-column-channel", "row-rank-bankgroup-bank-column-channel", "mop4clxor", "mop4clxor_channels"}) {
    const AddressMapping m(scheme, org);
    for (int i = 0; i < 1000; ++i) {
      const std::uint64_t a = rng() % org.capacity_bytes() / 64 * 64;
      EXPECT_EQ(m.encode(m.decode(a)), a) << scheme;
    }
  }
  EXPECT_THROW(AddressMapping("row-bank-rank-column", org), std::invalid_argument);
  EXPECT_THROW(AddressMapping("row-bank-bank-rank-column-channel", org), std::invalid_argument);
  EXPECT_THROW(AddressMapping("row-bnak-rank-column-channel", org), std::invalid_argument);
}

TEST(Dram, ChannelHashingSpreadsAPowerOfTwoPitchOverEveryChannel) {
  // A GEMM tile's rows 16 KiB apart: without channel hashing they camp on the few channels
  // whose bits the pitch reaches; mop4clxor_channels spreads them over all.
  const auto p = load_dram_preset("hbm3", {});
  const auto& org = p->spec.org;
  const auto channels_of = [&](const char* scheme) {
    const AddressMapping m(scheme, org);
    std::set<int> seen;
    for (std::uint64_t row = 0; row < 256; ++row) seen.insert(m.decode(row * 16384).channel);
    return seen.size();
  };
  EXPECT_LE(channels_of("mop4clxor"), 8u);
  EXPECT_GE(channels_of("mop4clxor_channels"), static_cast<std::size_t>(3 * org.controllers() / 4));
}

TEST(Dram, ReadsOfQueuedWritesAreForwarded) {
  auto p = load_dram_preset("ddr4-3200", {"controller.refresh=none"});
  ControllerHarness h(p->spec, p->controller, true);
  const DramAddress a{0, 1, 2, 3, 40, 5};
  EXPECT_EQ(h.ctrl().enqueue(1, a, true, 0), ChannelController::Enqueued::Step);
  EXPECT_EQ(h.ctrl().enqueue(2, a, false, 0), ChannelController::Enqueued::Forwarded);
  EXPECT_EQ(h.stats().forwarded_reads->count(), 1u);
}

TEST(Dram, ContradictoryConfigsAreRejectedWithTheKey) {
  const auto error = [](const std::string& preset, const std::string& override) {
    try {
      load_dram_preset(preset, {override});
    } catch (const strata::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("ddr4-3200", "timing.tRC=10").find("hardware.timing.tRC: 10 is less than tRAS + tRP"),
            std::string::npos);
  EXPECT_NE(error("ddr4-3200", "organization.ranks=3").find("not a power of two"), std::string::npos);
  EXPECT_NE(error("hbm2", "timing.tCCD_S=1").find("data would collide"), std::string::npos);
}
