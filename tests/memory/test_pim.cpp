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

struct Fixture {
  std::unique_ptr<strata::testing::DramPreset> preset;
  PimSpec pim;
  std::unique_ptr<PimDevice> device;
  Fixture(bool functional, std::vector<std::string> overrides = {}) {
    preset = load_dram_preset("hbm2", overrides);
    pim = hbm_pim(preset->spec);
    device = std::make_unique<PimDevice>(preset->spec, preset->controller, pim, tech(), "hbm2",
                                         PimDevice::Options{true, functional});
  }
};

double fp16(double x) { return strata::round_to_element(x, *strata::find_number_format("fp16")); }

TEST(Pim, GemvInFunctionalModeEqualsTheReference) {
  Fixture f(true, {"organization.channels=1"});
  const std::int64_t n = 200, k = 300;  // not multiples of the tiles: padding is exercised
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
  std::vector<std::vector<std::vector<std::vector<double>>>> results;
  for (int c = 0; c < f.device->channels(); ++c) results.push_back({f.device->units(c).take_results(0)});
  const std::vector<double> y = layout.outputs_from(results);

  // The reference: the same FP16 products and per-lane FP16 sums in the same order (lane l
  // takes inputs l, l + 16, ...), the lanes added by the host.
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
    ASSERT_EQ(y[static_cast<std::size_t>(o)], ref) << "output " << o;
    worst = std::max(worst, std::abs(ref - exact));
  }
  EXPECT_LT(worst, 0.05);  // FP16 accumulation of 19 products per lane stays close to exact
  EXPECT_GT(run.cycles(), 0u);
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
    const strata::PimVectorLayout layout(f.device->dram(), f.pim, n, 3, 0);
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
