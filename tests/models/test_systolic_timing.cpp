// Systolic GEMM timing: SCALE-Sim v2's cycle counts, the real-mode formulas worked by hand on a
// 4×4 array, number-format rates, operand traffic and invariants over many shapes.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "models/systolic/systolic_timing.h"

namespace strata {
namespace {

constexpr Dataflow kOS = Dataflow::OutputStationary, kWS = Dataflow::WeightStationary, kIS = Dataflow::InputStationary;

SystolicConfig real(std::int64_t r, std::int64_t c, Dataflow d, bool db, bool ov) {
  SystolicConfig cfg;
  cfg.rows = r, cfg.cols = c, cfg.dataflow = d, cfg.double_buffer = db, cfg.overlap_folds = ov;
  return cfg;
}
SystolicConfig compat(std::int64_t r, std::int64_t c, Dataflow d) {
  SystolicConfig cfg = real(r, c, d, false, false);
  cfg.mode = SystolicMode::ScaleSimCompat;
  return cfg;
}
std::uint64_t cycles(const SystolicConfig& cfg, std::int64_t m, std::int64_t n, std::int64_t k, double rate = 1) {
  return systolic_gemm(cfg, m, n, k, rate).cycles;
}

TEST(SystolicTiming, DataflowNames) {
  for (Dataflow d : {kOS, kWS, kIS}) EXPECT_EQ(find_dataflow(dataflow_name(d)), d);
  EXPECT_STREQ(dataflow_name(kWS), "ws");
  EXPECT_FALSE(find_dataflow("xs").has_value());
  EXPECT_FALSE(find_dataflow("").has_value());
}

// SCALE-Sim v2's COMPUTE_REPORT total cycles for GEMMs (M, N, K), checked against its outputs.
TEST(SystolicTiming, ScaleSimCompatReferenceCycles) {
  struct Ref { std::int64_t m, n, k, array; std::uint64_t os, ws, is; };
  const std::vector<Ref> refs = {
      {128, 64, 256, 32, 2543, 3551, 5055},       {128, 64, 256, 128, 509, 1019, 891},
      {512, 512, 512, 32, 146943, 155135, 155135}, {512, 512, 512, 128, 12255, 14303, 14303},
      {1, 3072, 768, 32, 79679, 218879, 75983},    {1, 3072, 768, 128, 24527, 55151, 20723},
  };
  for (const Ref& r : refs) {
    SCOPED_TRACE(::testing::Message() << r.m << "x" << r.n << "x" << r.k << " on " << r.array);
    EXPECT_EQ(cycles(compat(r.array, r.array, kOS), r.m, r.n, r.k), r.os);
    EXPECT_EQ(cycles(compat(r.array, r.array, kWS), r.m, r.n, r.k), r.ws);
    EXPECT_EQ(cycles(compat(r.array, r.array, kIS), r.m, r.n, r.k), r.is);
  }
}

// SCALE-Sim's mapping efficiency: the mean over folds of used PEs / R·C. M = 25, N = 384 on
// 32×32 in os: 12 folds each using 25 of 32 rows and all 32 columns → 800/1024 = 78.125 %.
TEST(SystolicTiming, MappingEfficiencyIsMeanUsedPesPerFold) {
  EXPECT_DOUBLE_EQ(systolic_gemm(compat(32, 32, kOS), 25, 384, 1728).mapping_efficiency, 0.78125);
  // ws maps K on rows and N on columns: K = 40 → row folds use 32 and 8 rows (mean 20/32),
  // N = 48 → column folds 32 and 16 (mean 24/32): 20·24/1024.
  EXPECT_DOUBLE_EQ(systolic_gemm(real(32, 32, kWS, true, true), 7, 48, 40).mapping_efficiency, 480.0 / 1024);
  // is maps K on rows and M on columns.
  EXPECT_DOUBLE_EQ(systolic_gemm(real(32, 32, kIS, true, true), 16, 5, 32).mapping_efficiency, 0.5);
}

// 4×4 array (R = C = 4), M = N = K = 8: every dataflow has F = 4 folds of a streamed extent
// S = 8, fill/drain D = R + C − 2 = 6 (the last operand enters row 3 three cycles after row 0
// and its result leaves column 3 three cycles later), preload (ws/is) or output drain (os) R = 4.
//
// ws (is is the same here, S = N = 8):
//   db=0 ov=0: per fold 4 preload + 8 stream + 6 fill/drain = 18; 4 folds = 72 (SCALE-Sim: 71).
//   db=1 ov=0: fold 1 preloads in cycles 0-3; it streams and drains in 4-17 (14 cycles) while
//              fold 2's weights go to the shadow registers; folds 2..4 need 14 each: 4 + 4·14 = 60.
//   db=0 ov=1: preload 0-3, stream 4-11, preload 12-15, stream 16-23, ... last stream ends at
//              cycle 47; the last input then needs 6 cycles to get through: 4·(4+8) + 6 = 54.
//   db=1 ov=1: preload 0-3; streams 4-11, 12-19, 20-27, 28-35 (each next preload of 4 cycles
//              hides behind an 8-cycle stream); + 6 = 42.
// os (drain of the 4 output rows: one per cycle, the first in the last streaming cycle):
//   ov=0:      stream 8 + skew 6 = 14 per fold, the drain inside the skew tail; 4·14 = 56 with or
//              without double buffering (SCALE-Sim: 55).
//   db=0 ov=1: streams of 8 back to back, but each of the first 3 folds' outputs occupies the
//              column links 3 cycles past its stream: 4·8 + 3·3 + 6 = 47.
//   db=1 ov=1: the shadow output registers drain during the next 8-cycle stream: 4·8 + 6 = 38.
TEST(SystolicTiming, RealModeWorkedByHandSquare) {
  struct Case { Dataflow d; bool db, ov; std::uint64_t cycles, preload, stream, fill_drain; };
  const std::vector<Case> cases = {
      {kWS, false, false, 72, 16, 32, 24}, {kWS, true, false, 60, 4, 32, 24},
      {kWS, false, true, 54, 16, 32, 6},   {kWS, true, true, 42, 4, 32, 6},
      {kIS, false, false, 72, 16, 32, 24}, {kIS, true, false, 60, 4, 32, 24},
      {kIS, false, true, 54, 16, 32, 6},   {kIS, true, true, 42, 4, 32, 6},
      {kOS, false, false, 56, 0, 32, 24},  {kOS, true, false, 56, 0, 32, 24},
      {kOS, false, true, 47, 9, 32, 6},    {kOS, true, true, 38, 0, 32, 6},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << dataflow_name(c.d) << " db=" << c.db << " ov=" << c.ov);
    const SystolicTiming t = systolic_gemm(real(4, 4, c.d, c.db, c.ov), 8, 8, 8);
    EXPECT_EQ(t.folds, 4u);
    EXPECT_EQ(t.cycles, c.cycles);
    EXPECT_EQ(t.preload_cycles, c.preload);
    EXPECT_EQ(t.stream_cycles, c.stream);
    EXPECT_EQ(t.fill_drain_cycles, c.fill_drain);
    EXPECT_EQ(t.macs, 512u);
    EXPECT_DOUBLE_EQ(t.utilization, 512.0 / (16.0 * c.cycles));
    EXPECT_DOUBLE_EQ(t.mapping_efficiency, 1.0);
  }
  EXPECT_EQ(cycles(compat(4, 4, kWS), 8, 8, 8), 71u);
  EXPECT_EQ(cycles(compat(4, 4, kIS), 8, 8, 8), 71u);
  EXPECT_EQ(cycles(compat(4, 4, kOS), 8, 8, 8), 55u);
}

// 4×4, M = 2, N = 8, K = 8: the dataflows now differ.
//   ws: F = ⌈8/4⌉·⌈8/4⌉ = 4, S = M = 2 < R: db=0 ov=0 4·(4+2+6) = 48; db=1 ov=0 4 + 4·(2+6) = 36;
//       db=0 ov=1 4·(4+2) + 6 = 30; db=1 ov=1: a 2-cycle stream waits for the next 4-cycle
//       preload, so folds 1-3 take 4 each: 4 + 3·4 + 2 + 6 = 24 (2 exposed per later fold).
//   is: F = ⌈8/4⌉·⌈2/4⌉ = 2, S = N = 8: 2·18 = 36; 4 + 2·14 = 32; 2·12 + 6 = 30; 4 + 8 + 8 + 6 = 26.
//   os: F = ⌈2/4⌉·⌈8/4⌉ = 2, S = K = 8: ov=0 2·14 = 28; db=0 ov=1 16 + 3 + 6 = 25; db=1 ov=1 22.
// And os with a short stream, M = N = 8, K = 2 (F = 4, S = 2 < R = 4): db=1 ov=1 the shadow
// registers still hold the previous drain, so folds 1-3 take 4: 3·4 + 2 + 6 = 20;
// db=0 ov=1 4·2 + 3·3 + 6 = 23; ov=0 4·(2+6) = 32.
TEST(SystolicTiming, RealModeWorkedByHandShortStreams) {
  struct Case { Dataflow d; std::int64_t m, n, k; std::uint64_t folds, c00, c10, c01, c11, compat; };
  const std::vector<Case> cases = {
      {kWS, 2, 8, 8, 4, 48, 36, 30, 24, 47},
      {kIS, 2, 8, 8, 2, 36, 32, 30, 26, 35},
      {kOS, 2, 8, 8, 2, 28, 28, 25, 22, 27},
      {kOS, 8, 8, 2, 4, 32, 32, 23, 20, 31},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << dataflow_name(c.d) << " " << c.m << "x" << c.n << "x" << c.k);
    EXPECT_EQ(systolic_gemm(real(4, 4, c.d, false, false), c.m, c.n, c.k).folds, c.folds);
    EXPECT_EQ(cycles(real(4, 4, c.d, false, false), c.m, c.n, c.k), c.c00);
    EXPECT_EQ(cycles(real(4, 4, c.d, true, false), c.m, c.n, c.k), c.c10);
    EXPECT_EQ(cycles(real(4, 4, c.d, false, true), c.m, c.n, c.k), c.c01);
    EXPECT_EQ(cycles(real(4, 4, c.d, true, true), c.m, c.n, c.k), c.c11);
    EXPECT_EQ(cycles(compat(4, 4, c.d), c.m, c.n, c.k), c.compat);
  }
  EXPECT_EQ(systolic_gemm(real(4, 4, kWS, true, true), 2, 8, 8).preload_cycles, 4u + 3 * 2);
}

// Operand traffic, 4×4, M = 2, N = 8, K = 8 (A is 2×8, B 8×8, C 2×8):
//   os: A enters the row edge once per column fold (2): 32; B once per row fold (1): 64;
//       16 results leave, no partial sums.
//   ws: A streams once per column fold (2): 32; each weight preloaded once: 64; two K-folds each
//       write the 16 partial sums (32), the second reads the first's back (16).
//   is: each input preloaded once: 16; B streams once per column fold of M (1): 64; C as ws.
TEST(SystolicTiming, OperandTraffic) {
  struct Case { Dataflow d; std::uint64_t a, b, cw, cr; };
  for (const Case& c : {Case{kOS, 32, 64, 16, 0}, Case{kWS, 32, 64, 32, 16}, Case{kIS, 16, 64, 32, 16}}) {
    SCOPED_TRACE(dataflow_name(c.d));
    for (bool compat_mode : {false, true}) {
      const SystolicTiming t = systolic_gemm(compat_mode ? compat(4, 4, c.d) : real(4, 4, c.d, true, true), 2, 8, 8);
      EXPECT_EQ(t.a_reads, c.a);
      EXPECT_EQ(t.b_reads, c.b);
      EXPECT_EQ(t.c_writes, c.cw);
      EXPECT_EQ(t.c_reads, c.cr);
    }
  }
  // One K-fold: no partial sums go back and forth.
  const SystolicTiming t = systolic_gemm(real(8, 8, kWS, true, true), 4, 4, 8);
  EXPECT_EQ(t.c_writes, 16u);
  EXPECT_EQ(t.c_reads, 0u);
}

// INT4 at rate 2 halves the K extent (rounded up): the same cycles as K' = ⌈K/2⌉ at rate 1,
// with the MACs of the full K.
TEST(SystolicTiming, RateAboveOneHalvesK) {
  for (Dataflow d : {kOS, kWS, kIS})
    for (bool db : {false, true})
      for (bool ov : {false, true}) {
        SCOPED_TRACE(::testing::Message() << dataflow_name(d) << " db=" << db << " ov=" << ov);
        const SystolicConfig cfg = real(4, 4, d, db, ov);
        for (std::int64_t k : {1, 7, 8, 9, 33}) {
          const SystolicTiming t2 = systolic_gemm(cfg, 8, 8, k, 2.0);
          const SystolicTiming t1 = systolic_gemm(cfg, 8, 8, (k + 1) / 2, 1.0);
          EXPECT_EQ(t2.cycles, t1.cycles);
          EXPECT_EQ(t2.folds, t1.folds);
          EXPECT_EQ(t2.macs, static_cast<std::uint64_t>(64 * k));
        }
      }
  // ws, K = 8 on 4 rows: two K-folds at INT8, one at INT4.
  EXPECT_EQ(systolic_gemm(real(4, 4, kWS, true, true), 8, 8, 8, 2.0).folds, 2u);
  EXPECT_EQ(systolic_gemm(real(4, 4, kWS, true, true), 8, 8, 8, 2.0).c_reads, 0u);
  // rate 1.5: ⌈9/1.5⌉ = 6 exactly (no floating-point step to 7).
  EXPECT_EQ(cycles(real(4, 4, kOS, true, true), 4, 4, 9, 1.5), cycles(real(4, 4, kOS, true, true), 4, 4, 6));
  EXPECT_EQ(cycles(compat(32, 32, kOS), 128, 64, 512, 2.0), 2543u);
}

// FP16 at rate ½: every cycle count doubles, in every mode.
TEST(SystolicTiming, RateBelowOneScalesCycles) {
  for (Dataflow d : {kOS, kWS, kIS})
    for (int mode = 0; mode < 5; ++mode) {
      const SystolicConfig cfg = mode == 4 ? compat(4, 4, d) : real(4, 4, d, (mode & 1) != 0, (mode & 2) != 0);
      const SystolicTiming h = systolic_gemm(cfg, 5, 9, 13, 0.5), f = systolic_gemm(cfg, 5, 9, 13, 1.0);
      EXPECT_EQ(h.cycles, 2 * f.cycles);
      EXPECT_EQ(h.preload_cycles, 2 * f.preload_cycles);
      EXPECT_EQ(h.stream_cycles, 2 * f.stream_cycles);
      EXPECT_EQ(h.fill_drain_cycles, 2 * f.fill_drain_cycles);
      EXPECT_EQ(h.folds, f.folds);
      EXPECT_DOUBLE_EQ(h.utilization, f.utilization);
    }
  EXPECT_EQ(cycles(real(4, 4, kWS, true, true), 8, 8, 8, 0.125), 8 * 42u);
}

// Over many shapes, arrays, rates and modes: utilization in (0, 1], the parts add up to the
// cycles, double buffering and overlapping never cost cycles, compat is the straightforward
// count less one.
TEST(SystolicTiming, InvariantsOverManyShapes) {
  const std::vector<std::int64_t> dims = {1, 2, 3, 5, 8, 16, 17, 33, 100};
  const std::vector<std::pair<std::int64_t, std::int64_t>> arrays = {{1, 1}, {1, 4}, {4, 1}, {2, 2},
                                                                     {4, 4}, {7, 3}, {32, 32}};
  const std::vector<double> rates = {0.125, 0.3, 0.5, 1, 1.5, 2, 4};
  for (auto [r, c] : arrays)
    for (Dataflow d : {kOS, kWS, kIS})
      for (std::int64_t m : dims)
        for (std::int64_t n : dims)
          for (std::int64_t k : dims)
            for (double rate : rates) {
              SCOPED_TRACE(::testing::Message() << r << "x" << c << " " << dataflow_name(d) << " " << m << "," << n
                                                << "," << k << " rate " << rate);
              std::uint64_t c_opt[4] = {};
              for (int o = 0; o < 5; ++o) {
                const SystolicConfig cfg = o == 4 ? compat(r, c, d) : real(r, c, d, (o & 1) != 0, (o & 2) != 0);
                const SystolicTiming t = systolic_gemm(cfg, m, n, k, rate);
                ASSERT_GT(t.utilization, 0);
                ASSERT_LE(t.utilization, 1.0);
                ASSERT_GT(t.mapping_efficiency, 0);
                ASSERT_LE(t.mapping_efficiency, 1.0);
                ASSERT_EQ(t.preload_cycles + t.stream_cycles + t.fill_drain_cycles, t.cycles);
                ASSERT_EQ(t.macs, static_cast<std::uint64_t>(m * n * k));
                if (o < 4) {
                  c_opt[o] = t.cycles;
                } else if (rate == 1) {
                  ASSERT_EQ(t.cycles + 1, c_opt[0]);
                }
              }
              ASSERT_LE(c_opt[1], c_opt[0]);  // double buffering
              ASSERT_LE(c_opt[2], c_opt[0]);  // overlapping folds
              ASSERT_LE(c_opt[3], c_opt[1]);
              ASSERT_LE(c_opt[3], c_opt[2]);
            }
}

TEST(SystolicTiming, RejectsNonPositiveSizesAndRates) {
  const SystolicConfig cfg;
  EXPECT_THROW(systolic_gemm(cfg, 0, 1, 1), std::invalid_argument);
  EXPECT_THROW(systolic_gemm(cfg, 1, -1, 1), std::invalid_argument);
  EXPECT_THROW(systolic_gemm(cfg, 1, 1, 0), std::invalid_argument);
  EXPECT_THROW(systolic_gemm(cfg, 1, 1, 1, 0.0), std::invalid_argument);
  EXPECT_THROW(systolic_gemm(cfg, 1, 1, 1, -2.0), std::invalid_argument);
  SystolicConfig bad = cfg;
  bad.rows = 0;
  EXPECT_THROW(systolic_gemm(bad, 1, 1, 1), std::invalid_argument);
  bad = cfg;
  bad.cols = -4;
  EXPECT_THROW(systolic_gemm(bad, 1, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace strata
