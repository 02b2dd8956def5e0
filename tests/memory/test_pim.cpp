// PIM DRAM (memory/pim/): its commands under the DRAM's checker, the functional units against
// plain reference computations, and GEMV throughput against its closed form.
#include <gtest/gtest.h>

#include <random>

#include "dram_test_util.h"
#include "memory/pim/pim_device.h"
#include "memory/pim/pim_kernels.h"
#include "sim/tech/tech_table.h"
#include "workloads/formats/quantizer.h"

namespace {

using strata::DramCmd;
using strata::PimDevice;
using strata::PimSpec;
using strata::testing::load_dram_preset;

// Samsung HBM-PIM on the HBM2 preset (../shared/reference/pim.md section 1): a unit per bank
// pair, 16 FP16 lanes, GRF_A 8 x 256 bit, GRF_B 8, CRF 32, reserved-row mode switching, one
// instruction per tCCD_L.
PimSpec hbm_pim(const strata::DramSpec& dram) {
  PimSpec p;
  p.placement = strata::PimPlacement::BankPair;
  p.mode_switch = strata::PimModeSwitch::ReservedRows;
  p.command_registers = 32;
  p.timing = {dram.timing.tRCD, dram.timing.tCCD_L, dram.timing.tRC, 4};
  p.cell_read_j_per_bit = 0.44e-12;
  return p;
}

const strata::TechTable& tech() {
  static const auto table = [] {
    static strata::Registry reg;
    strata::register_builtin_kinds(reg);
    return strata::TechTable::load("28nm", {}, "tech", reg.tech_sections());
  }();
  return *table;
}

double fp16(double x) { return strata::round_to_element(x, *strata::find_number_format("fp16")); }

struct Fixture {
  std::unique_ptr<strata::testing::DramPreset> preset;
  PimSpec pim;
  std::unique_ptr<PimDevice> device;
  Fixture(bool functional, std::vector<std::string> overrides = {}, const std::string& memory = "hbm2") {
    preset = load_dram_preset(memory, overrides);
    pim = hbm_pim(preset->spec);
    device = std::make_unique<PimDevice>(preset->spec, preset->controller, pim, tech(), "hbm2",
                                         PimDevice::Options{true, functional, fp16});
  }
};

// Runs an n x k GEMV with data and compares it with the same FP16 products and per-lane FP16
// sums in the same order (lane l takes inputs l, l + 16, ...), the lanes added by the host, or by
// the units' adder tree (summed exactly, rounded once).
void check_functional_gemv(Fixture& f, std::int64_t n, std::int64_t k) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> w(static_cast<std::size_t>(n * k)), x(static_cast<std::size_t>(k));
  for (double& v : w) v = fp16(u(rng));
  for (double& v : x) v = fp16(u(rng));
  const strata::PimGemvLayout layout(f.device->dram(), f.pim, n, k, 0);
  for (std::int64_t o = 0; o < n; ++o)
    for (std::int64_t i = 0; i < k; ++i) {
      const strata::PimPlace p = layout.where(o, i);
      f.device->units(p.channel).store(p.rank, p.bank, p.row, p.element, {w[static_cast<std::size_t>(o * k + i)]});
    }
  strata::PimProgram program = layout.program(&x);
  const strata::PimRun run = f.device->run(program);
  std::vector<std::vector<std::vector<std::vector<double>>>> results(static_cast<std::size_t>(f.device->channels()));
  for (int c = 0; c < f.device->channels(); ++c)
    for (int r = 0; r < f.device->dram().org.ranks; ++r)
      results[static_cast<std::size_t>(c)].push_back(f.device->units(c).take_results(r));
  const std::vector<double> y = layout.outputs_from(results);
  const int lanes = f.pim.lanes;
  double worst = 0;
  for (std::int64_t o = 0; o < n; ++o) {
    std::vector<double> lane(static_cast<std::size_t>(lanes), 0.0);
    double exact = 0;
    for (std::int64_t i = 0; i < k; ++i) {
      const double prod = w[static_cast<std::size_t>(o * k + i)] * x[static_cast<std::size_t>(i)];
      double& acc = lane[static_cast<std::size_t>(i % lanes)];
      acc = fp16(acc + fp16(prod));
      exact += prod;
    }
    double ref = 0;
    for (double v : lane) ref += v;
    if (f.pim.adder_tree) ref = fp16(ref);
    ASSERT_EQ(y[static_cast<std::size_t>(o)], ref) << "output " << o;
    worst = std::max(worst, std::abs(ref - exact));
  }
  EXPECT_LT(worst, 0.05);  // FP16 accumulation of at most 19 products per lane stays close to exact
  EXPECT_GT(run.cycles(), 0u);
}

TEST(Pim, GemvInFunctionalModeEqualsTheReference) {
  Fixture f(true, {"organization.channels=1"});
  check_functional_gemv(f, 200, 300);  // not multiples of the tiles: padding is exercised
}

// A unit per bank (AttAcc-bank) and per bank group (AttAcc-bg, four banks a unit) with an
// adder tree on two ranks of HBM3: the ranks' streams interleaved, the input loaded once (it fits
// the registers), the results read as whole outputs 16 to a burst.
TEST(Pim, GemvWithAdderTreeOnTwoRanksEqualsTheReference) {
  for (const auto placement : {strata::PimPlacement::Bank, strata::PimPlacement::BankGroup}) {
    Fixture f(true, {"organization.channels=1"}, "hbm3");
    f.pim.placement = placement;
    f.pim.mode_switch = strata::PimModeSwitch::None;
    f.pim.adder_tree = true;
    f.pim.accumulators = 2;
    f.device = std::make_unique<PimDevice>(f.preset->spec, f.preset->controller, f.pim, tech(), "hbm3",
                                           PimDevice::Options{true, true, fp16});
    ASSERT_EQ(f.device->dram().org.ranks, 2);
    check_functional_gemv(f, 300, 100);
  }
}

TEST(Pim, ElementwiseInFunctionalModeEqualsTheReference) {
  for (const auto op : {strata::PimElementwise::Add, strata::PimElementwise::Mul, strata::PimElementwise::Relu}) {
    Fixture f(true, {"organization.channels=1"});
    const std::int64_t n = 1000;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-4, 4);
    std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    for (double& v : a) v = fp16(u(rng));
    for (double& v : b) v = fp16(u(rng));
    const strata::PimVectorLayout layout(f.device->dram(), f.pim, n, 0);
    for (std::int64_t e = 0; e < n; ++e) {
      const auto pa = layout.where(0, e), pb = layout.where(1, e);
      f.device->units(pa.channel).store(pa.rank, pa.bank, pa.row, pa.element, {a[static_cast<std::size_t>(e)]});
      f.device->units(pb.channel).store(pb.rank, pb.bank, pb.row, pb.element, {b[static_cast<std::size_t>(e)]});
    }
    strata::PimProgram program = layout.program(op);
    f.device->run(program);
    const int out = op == strata::PimElementwise::Relu ? 1 : 2;
    for (std::int64_t e = 0; e < n; ++e) {
      const double x = a[static_cast<std::size_t>(e)], y = b[static_cast<std::size_t>(e)];
      const double want = op == strata::PimElementwise::Add   ? fp16(x + y)
                          : op == strata::PimElementwise::Mul ? fp16(x * y)
                                                              : std::max(0.0, x);
      const auto p = layout.where(out, e);
      ASSERT_EQ(f.device->units(p.channel).load(p.rank, p.bank, p.row, p.element), want) << "element " << e;
    }
  }
}

}  // namespace

namespace {

// All-bank GEMV throughput against its closed form: every unit of every pseudo-channel issues
// one MAC per tMAC (16 lanes x 2 FLOP), less what each (tile, chunk) block spends outside MACs
// (the input load: mode writes and GRF_A writes; the row switch: PREA, tRPab, ACTAB, tRCD) and
// the refresh (tRFC every tREFI, and the row reopened after it).
TEST(Pim, GemvThroughputMatchesItsClosedForm) {
  Fixture f(false);
  const std::int64_t n = 4096, k = 4096;
  const strata::PimGemvLayout layout(f.device->dram(), f.pim, n, k, 0);
  strata::PimProgram program = layout.program(nullptr);
  const strata::PimRun run = f.device->run(program);
  const auto& t = f.device->dram().timing;
  const auto& org = f.device->dram().org;
  const double units = org.controllers() * f.pim.units_per_rank(org);
  const double macs = static_cast<double>(run.commands[static_cast<std::size_t>(f.device->commands().MACAB)]);
  EXPECT_EQ(macs, static_cast<double>(n * k / f.pim.lanes / f.pim.units_per_rank(org)));  // every weight once
  const double blocks = 4096.0 / (units * 8) * (4096.0 / 128);  // tiles x chunks per pseudo-channel
  const double per_block = 8 * 4 + 2 * 4 + (t.CWL + t.tBURST) + t.tRTP + t.tRPab + t.tRCD;
  const double busy = macs / org.controllers() * f.pim.timing.tMAC + blocks * per_block;
  const double predicted = busy / (1.0 - static_cast<double>(t.tRFC + t.tRCD + t.tRPab) / t.tREFI);
  const double cycles = static_cast<double>(run.cycles());
  EXPECT_NEAR(cycles, predicted, 0.05 * predicted) << "simulated " << cycles << ", closed form " << predicted;
  // The closed form's throughput is the reference of `strata validate`'s check of the example.
  const auto& check = strata::testing::validation_check("pim", "hbm-pim-gemv-4096");
  EXPECT_NEAR(2.0 * n * k / (predicted * f.device->dram().tck_s) * 1e-12, check.reference, 5e-4);
  const double peak = units * f.pim.lanes * 2 / (f.pim.timing.tMAC * f.device->dram().tck_s);
  const double achieved = 2.0 * n * k / (cycles * f.device->dram().tck_s);
  EXPECT_NEAR(peak, 1.024e12, 1e9);  // 128 units x 16 lanes x 2 FLOP / 4 ns (reference 1.5: 8 GFLOP/s per unit)
  EXPECT_GT(achieved, 0.5 * peak);
  std::printf("HBM-PIM GEMV 4096x4096: %.0f cycles (closed form %.0f), %.3f TFLOP/s of %.3f peak\n", cycles, predicted,
              achieved * 1e-12, peak * 1e-12);
}

}  // namespace

namespace {

// The same GEMV on the same DRAM without PIM streams every weight over the channel. Bank
// versus channel bandwidth: 8 units x 32 B per tMAC = 4 ns against 32 B per tBURST = 2 ns is
// 4x; each side keeps the share of its time its overheads leave (the closed forms), so the
// speed-up is 4 x (PIM efficiency / host efficiency).
TEST(Pim, GemvSpeedupOverTheSameDramFollowsBankVersusChannelBandwidth) {
  Fixture f(false);
  const std::int64_t n = 4096, k = 4096;
  const strata::PimGemvLayout layout(f.device->dram(), f.pim, n, k, 0);
  strata::PimProgram pim = layout.program(nullptr);
  const double pim_cycles = static_cast<double>(f.device->run(pim).cycles());
  strata::PimProgram host = strata::host_stream_program(f.device->dram(), layout.bytes_per_channel(), 0);
  const strata::PimRun h = f.device->run(host);
  const auto& t = f.device->dram().timing;
  const auto& org = f.device->dram().org;
  const double bursts = static_cast<double>(layout.bytes_per_channel()) / org.access_bytes();
  EXPECT_EQ(static_cast<double>(h.commands[static_cast<std::size_t>(DramCmd::RD)]), bursts * org.controllers());
  const double host_predicted = bursts * t.tBURST / (1.0 - static_cast<double>(t.tRFC + t.tRCD) / t.tREFI);
  EXPECT_NEAR(static_cast<double>(h.cycles()), host_predicted, 0.05 * host_predicted);
  const double ratio = (f.pim.units_per_rank(org) * org.access_bytes() / double(f.pim.timing.tMAC)) /
                       (org.access_bytes() / double(t.tBURST));
  EXPECT_DOUBLE_EQ(ratio, 4.0);
  const double pim_efficiency = bursts / f.pim.units_per_rank(org) * f.pim.timing.tMAC / pim_cycles;
  const double host_efficiency = bursts * t.tBURST / static_cast<double>(h.cycles());
  const double speedup = static_cast<double>(h.cycles()) / pim_cycles;
  EXPECT_NEAR(speedup, ratio * pim_efficiency / host_efficiency, 1e-9);
  EXPECT_GT(speedup, 2.5);
  EXPECT_LT(speedup, 4.0);
  std::printf("speed-up %.2f (bank/channel %.0fx, PIM efficiency %.2f, host %.2f)\n", speedup, ratio, pim_efficiency,
              host_efficiency);
}

// Energy per weight bit of the PIM GEMV, its DRAM side against the data-path figures AttAcc's
// simulator takes from O'Connor et al. (MICRO 2017; reference section 4.1): bank-level PIM
// pays the activation (0.11 pJ/bit) and the cell read (0.44 pJ/bit) and no I/O, where the host
// pays 3.59 pJ/bit to reach a GPU. Here the activation comes from the IDD model (HBM2's 1 KB
// row for 0.42 nJ is 0.05 pJ/bit), so the DRAM side lands within 25% of 0.55 pJ/bit.
TEST(Pim, GemvEnergyPerBitAgreesWithTheDataPathFigures) {
  Fixture f(false);
  const std::int64_t n = 4096, k = 4096;
  const strata::PimGemvLayout layout(f.device->dram(), f.pim, n, k, 0);
  strata::PimProgram pim = layout.program(nullptr);
  const strata::PimRun r = f.device->run(pim);
  const double bits = 16.0 * n * k;
  const auto count = [&](DramCmd c) { return static_cast<double>(r.commands[static_cast<std::size_t>(c)]); };
  const auto& e = f.device->dram_energy();
  const auto& u = f.device->unit_energy();
  const double units = f.pim.units_per_rank(f.device->dram().org);
  const double act = count(f.device->commands().ACTAB) * f.device->dram().org.banks_per_rank() * e.act;
  const double column = count(f.device->commands().MACAB) * units * u.column;
  const double data_path = (act + column) / bits;
  EXPECT_NEAR(data_path, 0.55e-12, 0.25 * 0.55e-12) << data_path * 1e12 << " pJ/bit";
  // The lanes: one FP16 multiply and add per weight (28 nm: Horowitz's 45 nm figures scaled).
  const double lanes = count(f.device->commands().MACAB) * units * f.pim.lanes * u.mac_lane / bits;
  EXPECT_NEAR(lanes * 16, u.mac_lane, 1e-18);
  // All of it (refresh and active standby included) stays below the host's 3.59 pJ/bit path.
  EXPECT_LT(r.energy_j / bits, 3.59e-12);
}

// The checker knows the PIM commands: a controller scheduling with a tMAC of 2 (the checker
// keeps 4) is caught at the first MAC too early, and a kernel that skips the reserved-row entry
// into all-bank mode is caught at its first all-bank command.
TEST(Pim, TheCheckerCatchesAPimScheduleThatBreaksARule) {
  {
    Fixture f(false);
    PimSpec wrong = f.pim;
    wrong.timing.tMAC = 2;
    f.device->use_timing_for_scheduling(f.device->dram(), wrong);
    strata::PimProgram program = strata::PimGemvLayout(f.device->dram(), f.pim, 256, 256, 0).program(nullptr);
    try {
      f.device->run(program);
      FAIL() << "no violation";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("tMAC violated: MACAB"), std::string::npos) << e.what();
    }
  }
  {
    Fixture f(false);
    strata::PimProgram program = strata::PimGemvLayout(f.device->dram(), f.pim, 256, 256, 0).program(nullptr);
    // Drop the four activations and precharges of row 0x17ff that enter all-bank mode.
    program.segments_.erase(program.segments_.begin(), program.segments_.begin() + 8);
    try {
      f.device->run(program);
      FAIL() << "no violation";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("PIM mode violated: WRGB at cycle"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("in single-bank mode"), std::string::npos) << e.what();
    }
  }
}

// A refresh in the middle of a kernel closes its rows: the controller precharges, refreshes and
// reopens the row before the next MAC, and the functional result is unchanged.
TEST(Pim, RefreshInsideAKernelReopensItsRow) {
  Fixture f(false);
  strata::PimProgram program = strata::PimGemvLayout(f.device->dram(), f.pim, 4096, 4096, 0).program(nullptr);
  const strata::PimRun r = f.device->run(program);
  const double refreshes =
      static_cast<double>(r.commands[static_cast<std::size_t>(DramCmd::REF)]) / f.device->dram().org.controllers();
  EXPECT_NEAR(refreshes, static_cast<double>(r.cycles()) / f.device->dram().timing.tREFI, 1.0);
  EXPECT_GT(r.reopens, 0u);
  EXPECT_LE(r.reopens, r.commands[static_cast<std::size_t>(DramCmd::REF)]);
}

}  // namespace
