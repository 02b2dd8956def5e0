// The H200 SXM preset (configs/hardware/gpu/h200-sxm.yaml), made from public specifications
// only: the H100's SMs and clocks, 60 MiB of L2 and 4.8 TB/s of HBM3e (8 stacks' worth of
// channels clocked to that peak, configs/hardware/memory/hbm3e-h200.yaml).
#include <gtest/gtest.h>

#include "accelerators/builtin_kinds.h"
#include "sim/app/experiment.h"
#include "sim/registry.h"
#include "test_util.h"

namespace strata::testing {
namespace {

std::string h200_read(const TempDir& dir) {
  return dir.write("h200.yaml", "name: h200-read\nhardware: {extends: " +
                                    source_path("configs/hardware/gpu/h200-sxm.yaml") +
                                    "}\nworkload: {kind: gpu_microbenchmark, benchmark: global_read, "
                                    "footprint: 128 MiB, reference: 4800}\n");
}

TEST(GpuPresets, H200HasTheH100sSmsWithItsOwnL2AndHbm3e) {
  TempDir dir;
  Registry registry;
  register_builtin_kinds(registry);
  const ResolvedExperiment e = resolve_experiment(h200_read(dir), {}, registry);
  const ValidatedNode& gpu = e.root.child("hardware");
  EXPECT_EQ(gpu.params.integer("sms"), 132);
  EXPECT_DOUBLE_EQ(gpu.child("l2").params.quantity("size"), 60.0 * (1 << 20));
  const ValidatedNode& hbm = gpu.child("memory");
  const Params& org = hbm.child("organization").params;
  // 128 channels x 2 pseudo-channels x 32 bit at 4 bits a pin a clock of 1171.875 MHz.
  const double bits = static_cast<double>(org.integer("channels") * org.integer("pseudo_channels") * 32);
  EXPECT_NEAR(bits * 4 * hbm.params.quantity("clock") / 8, 4.8e12, 1e9);
}

// The read stream lands where the H100's does against its peak (91%: docs/gpu.md, Validation),
// below the peak and within the validation ladder's 10%.
TEST(GpuPresets, H200StreamsHbmNearItsPeak) {
  TempDir dir;
  const CommandResult r = run_strata("run -q '" + h200_read(dir) + "' -o '" + dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const double measured = json_file(dir.file("out/summary.json")).at("measured").get<double>();
  EXPECT_LT(measured, 4800);
  EXPECT_GT(measured, 4800 * 0.9);
}

}  // namespace
}  // namespace strata::testing
