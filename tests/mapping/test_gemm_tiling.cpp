// The mapper's GEMM tile search, on a systolic array's closed-form timing (no SystemC).
#include <gtest/gtest.h>

#include "accelerators/mapping/gemm_tiling.h"
#include "models/systolic/systolic_timing.h"
#include "sim/input_error.h"

namespace strata {
namespace {

MapperTarget array_target(std::int64_t rows, std::uint64_t scratchpad) {
  MapperTarget t;
  SystolicConfig cfg;
  cfg.rows = cfg.cols = rows;
  t.align_m = 1;
  t.align_n = rows;
  t.align_k = rows;
  t.matrix = [cfg](const MatrixWork& w) {
    const SystolicTiming s = systolic_gemm(cfg, w.m, w.n, w.k, 1.0);
    MatrixRun r;
    r.cycles = s.cycles;
    r.macs = s.macs;
    return r;
  };
  t.scratchpad_bytes = scratchpad;
  t.memory_bytes_per_cycle = 64;
  return t;
}

TEST(GemmTiling, ChoiceFitsTheScratchpadAndCoversTheProblem) {
  const MapperTarget t = array_target(32, 256 << 10);
  const GemmShape g{1024, 4096, 4096, 1, 1, 1, "int8"};
  const GemmTiling a = choose_gemm_tiling(t, g, 1);
  EXPECT_LE(a.footprint, t.scratchpad_bytes);
  EXPECT_GT(a.candidates, 100u);
  EXPECT_EQ(a.tn % 32, 0);
  EXPECT_EQ(a.tk % 32 == 0 || a.tk == g.k, true);
  // Traffic is at least every operand once.
  EXPECT_GE(a.memory_bytes, 1024.0 * 4096 + 4096.0 * 4096 + 1024.0 * 4096);
  // Compute is at least the MACs at full rate.
  EXPECT_GE(a.compute_cycles, 1024.0 * 4096 * 4096 / (32 * 32));
}

TEST(GemmTiling, DeterministicForTheSameInput) {
  const MapperTarget t = array_target(16, 1 << 20);
  const GemmShape g{77, 1000, 300, 1, 1, 2, "int8"};
  const GemmTiling a = choose_gemm_tiling(t, g, 2), b = choose_gemm_tiling(t, g, 2);
  EXPECT_EQ(a.tm, b.tm);
  EXPECT_EQ(a.tn, b.tn);
  EXPECT_EQ(a.tk, b.tk);
  EXPECT_EQ(a.order, b.order);
}

TEST(GemmTiling, MemoryBoundGemvStreamsWholeWeightRows) {
  // Decode: one row of activations against a 4096x4096 weight matrix; rows of the weights are
  // contiguous, so the search takes whole K per tile.
  const MapperTarget t = array_target(128, 32 << 20);
  const GemmTiling a = choose_gemm_tiling(t, GemmShape{1, 4096, 4096, 1, 1, 1, "int8"}, 4);
  EXPECT_EQ(a.tk, 4096);
  EXPECT_NEAR(a.memory_bytes, 4096.0 * 4096 + 4096 + 4096, 1.0);
}

TEST(GemmTiling, NothingFitsIsAnInputError) {
  const MapperTarget t = array_target(128, 1024);
  EXPECT_THROW(choose_gemm_tiling(t, GemmShape{512, 512, 512, 2, 2, 2, "fp16"}, 1), InputError);
}

}  // namespace
}  // namespace strata
