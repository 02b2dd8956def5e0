// Closed-form systolic GEMM timing. Notation: R×C array, F folds, S the streamed extent of one
// fold (os: K', ws: M, is: N, with K' = ⌈K/rate⌉ for rate ≥ 1, else K), D = R + C − 2 the
// skew/fill/drain of one pass through the array (the last operand enters the far row R−1 and the
// far column C−1 cycles after the first), and R the cycles to shift a stationary tile in (ws/is:
// one array row per cycle) or, in os, to shift the R rows of accumulated outputs out.
//
// scalesim_compat:  cycles = F·(P + S + D) − 1, P = R (ws/is) or 0 (os). This is SCALE-Sim v2's
//   count (os K+R+C−2, ws 2R+C+M−2, is 2R+C+N−2 per fold) and one less than the straightforward
//   count; the missing cycle is taken from fill/drain (SCALE-Sim writes the first output in the
//   last streaming cycle), or from the stream when D = 0 (a 1×1 array).
//
// real, ws/is (preload before the stream):
//   db=0 ov=0  F·(R + S + D)                  every fold preloads, streams, fills and drains
//   db=1 ov=0  R + F·(S + D)                  fold i+1's tile loads into the shadow registers
//                                             during fold i's S + D ≥ R cycles: only the first
//                                             preload is exposed
//   db=0 ov=1  F·(R + S) + D                  folds follow each other without their fill/drain
//                                             but each waits for its own (single-buffered) preload
//   db=1 ov=1  R + (F−1)·max(S, R) + S + D    fold i+1's preload hides behind fold i's stream; a
//                                             stream shorter than R waits for the preload
// real, os (output drain after the stream; R output rows leave one per cycle, the first in the
// last streaming cycle, so a drain occupies R − 1 cycles past its stream):
//   ov=0 (db any)  F·(S + D)                  a fold alone drains inside its own skew tail (SCALE-
//                                             Sim's accounting, +1): nothing to hide
//   db=0 ov=1      F·S + (F−1)·(R−1) + D      the next fold's operands share the column links
//                                             with the drain and wait for it; the last drain is in D
//   db=1 ov=1      (F−1)·max(S, R) + S + D    double-buffered output registers drain fold i while
//                                             fold i+1 streams; a stream shorter than R waits
// rate r < 1: a PE needs 1/r cycles per MAC, so every figure above is multiplied by 1/r.
//
// Traffic (elements, padding excluded; fk = ⌈K'/R⌉ K-folds for ws/is):
//   os: a = ⌈N/C⌉·M·K, b = ⌈M/R⌉·K·N, c_writes = M·N, c_reads = 0 (sums stay in the PEs over all K)
//   ws: a = ⌈N/C⌉·M·K, b = K·N (each weight preloaded once), c_writes = fk·M·N,
//       c_reads = (fk−1)·M·N: each K-fold's partial sums leave the array and are read back to
//       accumulate the next K-fold's
//   is: a = M·K (each input preloaded once), b = ⌈M/C⌉·N·K, c_writes and c_reads as ws.
// These match SCALE-Sim's ifmap/filter/ofmap request counts (ofmap = c_writes).
#include "models/systolic/systolic_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/rounding.h"

namespace strata {

std::optional<Dataflow> find_dataflow(std::string_view name) {
  if (name == "os") return Dataflow::OutputStationary;
  if (name == "ws") return Dataflow::WeightStationary;
  if (name == "is") return Dataflow::InputStationary;
  return std::nullopt;
}

const char* dataflow_name(Dataflow d) {
  switch (d) {
    case Dataflow::OutputStationary: return "os";
    case Dataflow::WeightStationary: return "ws";
    case Dataflow::InputStationary: return "is";
  }
  return "?";
}

namespace {
using u64 = std::uint64_t;
}  // namespace

SystolicTiming systolic_gemm(const SystolicConfig& cfg, std::int64_t m, std::int64_t n, std::int64_t k, double rate) {
  if (cfg.rows <= 0 || cfg.cols <= 0)
    throw std::invalid_argument("systolic_gemm: array rows and cols must be positive");
  if (m <= 0 || n <= 0 || k <= 0) throw std::invalid_argument("systolic_gemm: m, n and k must be positive");
  if (!(rate > 0) || !std::isfinite(rate)) throw std::invalid_argument("systolic_gemm: rate must be positive");

  const u64 R = static_cast<u64>(cfg.rows), C = static_cast<u64>(cfg.cols);
  const u64 M = static_cast<u64>(m), N = static_cast<u64>(n), K = static_cast<u64>(k);
  // rate ≥ 1 packs `rate` products per PE per cycle along K; below 1 it slows every cycle.
  const u64 Kp = rate >= 1 ? ceil_snap(static_cast<double>(K) / rate) : K;

  // The two mapped extents (array rows, array cols) and the streamed one.
  u64 on_rows = 0, on_cols = 0, S = 0;
  switch (cfg.dataflow) {
    case Dataflow::OutputStationary: on_rows = M, on_cols = N, S = Kp; break;
    case Dataflow::WeightStationary: on_rows = Kp, on_cols = N, S = M; break;
    case Dataflow::InputStationary: on_rows = Kp, on_cols = M, S = N; break;
  }
  const bool os = cfg.dataflow == Dataflow::OutputStationary;
  const u64 row_folds = ceil_div(on_rows, R), col_folds = ceil_div(on_cols, C);
  const u64 F = row_folds * col_folds;
  const u64 D = R + C - 2;

  u64 preload = 0, stream = F * S, fill_drain = 0;
  if (cfg.mode == SystolicMode::ScaleSimCompat) {
    preload = os ? 0 : F * R;
    fill_drain = F * D;
    if (fill_drain > 0) --fill_drain; else --stream;
  } else if (!os) {
    const bool db = cfg.double_buffer, ov = cfg.overlap_folds;
    fill_drain = ov ? D : F * D;
    if (!db) preload = F * R;
    else if (!ov) preload = R;
    else preload = R + (F - 1) * (R > S ? R - S : 0);
  } else {
    fill_drain = cfg.overlap_folds ? D : F * D;
    if (cfg.overlap_folds) preload = (F - 1) * (cfg.double_buffer ? (R > S ? R - S : 0) : R - 1);
  }
  u64 cycles = preload + stream + fill_drain;
  if (rate < 1) {
    // Scale the parts down (floor) and give the stream the rest, so that they still add up.
    cycles = ceil_snap(static_cast<double>(cycles) / rate);
    preload = floor_snap(static_cast<double>(preload) / rate);
    fill_drain = floor_snap(static_cast<double>(fill_drain) / rate);
    stream = cycles - preload - fill_drain;
  }

  SystolicTiming t;
  t.cycles = cycles;
  t.folds = F;
  t.preload_cycles = preload;
  t.stream_cycles = stream;
  t.fill_drain_cycles = fill_drain;
  t.macs = M * N * K;
  const double peak = static_cast<double>(R * C) * rate * static_cast<double>(cycles);
  // Only SCALE-Sim's one-cycle-short count on a 1×1 array could exceed 1.
  t.utilization = std::min(1.0, static_cast<double>(t.macs) / peak);
  // Mean over the folds of used PEs / R·C: the fold grid is separable, so the mean of the
  // products is the product of the row and column means.
  t.mapping_efficiency = static_cast<double>(on_rows) * static_cast<double>(on_cols) / static_cast<double>(F * R * C);

  const u64 k_folds = ceil_div(Kp, R);  // ws/is only
  switch (cfg.dataflow) {
    case Dataflow::OutputStationary:
      t.a_reads = ceil_div(N, C) * M * K;
      t.b_reads = ceil_div(M, R) * K * N;
      t.c_writes = M * N;
      break;
    case Dataflow::WeightStationary:
      t.a_reads = ceil_div(N, C) * M * K;
      t.b_reads = K * N;
      t.c_writes = k_folds * M * N;
      t.c_reads = (k_folds - 1) * M * N;
      break;
    case Dataflow::InputStationary:
      t.a_reads = M * K;
      t.b_reads = ceil_div(M, C) * N * K;
      t.c_writes = k_folds * M * N;
      t.c_reads = (k_folds - 1) * M * N;
      break;
  }
  return t;
}

}  // namespace strata
