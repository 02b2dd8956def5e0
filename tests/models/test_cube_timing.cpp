// Cube engine timing worked by hand on Ascend's 16×16×16 cube (pipeline latency 8).
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/cube/cube_timing.h"

namespace strata {
namespace {

// 32×32×32: 2·2·2 = 8 block products, one per cycle, + 8 of pipeline = 16 cycles; the unit could
// do 4096·16 MACs in that time, so 32768 useful MACs are half of it. Each of the 2·2 A blocks
// (per k slice) is read for both column blocks: 32·32·2 elements; B likewise; C written once.
TEST(CubeTiming, WorkedByHand) {
  const CubeConfig cfg;
  const CubeTiming t = cube_gemm(cfg, 32, 32, 32);
  EXPECT_EQ(t.block_products, 8u);
  EXPECT_EQ(t.cycles, 16u);
  EXPECT_EQ(t.macs, 32768u);
  EXPECT_DOUBLE_EQ(t.utilization, 0.5);
  EXPECT_EQ(t.a_reads, 2048u);
  EXPECT_EQ(t.b_reads, 2048u);
  EXPECT_EQ(t.c_writes, 1024u);

  // One row past a block: ⌈17/16⌉ = 2 block products, 10 cycles, 17·16·16 / (4096·10) used.
  const CubeTiming r = cube_gemm(cfg, 17, 16, 16);
  EXPECT_EQ(r.block_products, 2u);
  EXPECT_EQ(r.cycles, 10u);
  EXPECT_DOUBLE_EQ(r.utilization, 4352.0 / 40960);
  EXPECT_EQ(r.a_reads, 17u * 16);  // one column block
  EXPECT_EQ(r.b_reads, 16u * 16 * 2);  // two row blocks

  // A single full block with no pipeline latency runs the unit flat out.
  CubeConfig flat;
  flat.pipeline_latency = 0;
  EXPECT_EQ(cube_gemm(flat, 16, 16, 16).cycles, 1u);
  EXPECT_DOUBLE_EQ(cube_gemm(flat, 16, 16, 16).utilization, 1.0);
}

// INT8 at rate 2 on the FP16 cube: k0·r = 32 per cycle. 32×32×32: 2·2·1 = 4 block products,
// 12 cycles, 32768 / (4096·2·12) = 1/3. k = 33 needs ⌈33/32⌉ = 2 slices again.
// Rate ½: 8 block products of 2 cycles each: 8 + 16 = 24. Rate 0.3: ⌈8/0.3⌉ = 27, + 8 = 35.
TEST(CubeTiming, Rates) {
  const CubeConfig cfg;
  const CubeTiming i8 = cube_gemm(cfg, 32, 32, 32, 2.0);
  EXPECT_EQ(i8.block_products, 4u);
  EXPECT_EQ(i8.cycles, 12u);
  EXPECT_DOUBLE_EQ(i8.utilization, 1.0 / 3);
  EXPECT_EQ(i8.macs, 32768u);
  EXPECT_EQ(cube_gemm(cfg, 32, 32, 33, 2.0).block_products, 8u);
  EXPECT_EQ(cube_gemm(cfg, 32, 32, 48, 1.5).block_products, 8u);  // 48 / 24 = 2 exactly

  const CubeTiming half = cube_gemm(cfg, 32, 32, 32, 0.5);
  EXPECT_EQ(half.block_products, 8u);
  EXPECT_EQ(half.cycles, 24u);
  EXPECT_DOUBLE_EQ(half.utilization, 32768.0 / (4096 * 0.5 * 24));
  EXPECT_EQ(cube_gemm(cfg, 32, 32, 32, 0.3).cycles, 35u);
}

TEST(CubeTiming, UtilizationAtMostOneAndMonotone) {
  CubeConfig cfg;
  for (std::int64_t lat : {0, 8})
    for (double rate : {0.125, 0.3, 0.5, 1.0, 1.5, 2.0, 4.0})
      for (std::int64_t m : {1, 15, 16, 17, 64, 100})
        for (std::int64_t n : {1, 16, 33, 64})
          for (std::int64_t k : {1, 16, 31, 32, 64, 129}) {
            cfg.pipeline_latency = lat;
            const CubeTiming t = cube_gemm(cfg, m, n, k, rate);
            ASSERT_GT(t.utilization, 0);
            ASSERT_LE(t.utilization, 1.0);
            ASSERT_GE(cube_gemm(cfg, m + 1, n, k, rate).cycles, t.cycles);
            ASSERT_GE(cube_gemm(cfg, m, n + 1, k, rate).cycles, t.cycles);
            ASSERT_GE(cube_gemm(cfg, m, n, k + 1, rate).cycles, t.cycles);
          }
}

TEST(CubeTiming, RejectsNonPositiveSizesAndRates) {
  const CubeConfig cfg;
  EXPECT_THROW(cube_gemm(cfg, 0, 16, 16), std::invalid_argument);
  EXPECT_THROW(cube_gemm(cfg, 16, -1, 16), std::invalid_argument);
  EXPECT_THROW(cube_gemm(cfg, 16, 16, 0), std::invalid_argument);
  EXPECT_THROW(cube_gemm(cfg, 16, 16, 16, 0.0), std::invalid_argument);
  CubeConfig bad;
  bad.k0 = 0;
  EXPECT_THROW(cube_gemm(bad, 16, 16, 16), std::invalid_argument);
  bad = cfg;
  bad.pipeline_latency = -1;
  EXPECT_THROW(cube_gemm(bad, 16, 16, 16), std::invalid_argument);
}

}  // namespace
}  // namespace strata
