// Cube engine GEMM timing. With mb = ⌈m/m0⌉, nb = ⌈n/n0⌉:
//   rate r ≥ 1: block_products = mb·nb·⌈k/(k0·r)⌉, one per cycle (r k0-slices per cycle)
//   rate r < 1: block_products = mb·nb·⌈k/k0⌉, each takes 1/r cycles: ⌈block_products/r⌉ cycles
//   cycles = pipeline_latency + the block products' cycles (the pipeline fills once per tile;
//            block products issue back to back, the unit accumulating in place across k).
// Traffic in useful elements (padding to the block shape excluded), the cube's L0 ports:
//   a_reads = m·k·nb (each A block is read again for every column block of B),
//   b_reads = k·n·mb, c_writes = m·n (partial sums stay in the accumulator over all of k).
#include "models/cube/cube_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/rounding.h"

namespace strata {

namespace {
using u64 = std::uint64_t;
}  // namespace

CubeTiming cube_gemm(const CubeConfig& cfg, std::int64_t m, std::int64_t n, std::int64_t k, double rate) {
  if (cfg.m0 <= 0 || cfg.n0 <= 0 || cfg.k0 <= 0)
    throw std::invalid_argument("cube_gemm: m0, n0 and k0 must be positive");
  if (cfg.pipeline_latency < 0) throw std::invalid_argument("cube_gemm: pipeline_latency must not be negative");
  if (m <= 0 || n <= 0 || k <= 0) throw std::invalid_argument("cube_gemm: m, n and k must be positive");
  if (!(rate > 0) || !std::isfinite(rate)) throw std::invalid_argument("cube_gemm: rate must be positive");

  const u64 M = static_cast<u64>(m), N = static_cast<u64>(n), K = static_cast<u64>(k);
  const u64 mb = ceil_div(M, static_cast<u64>(cfg.m0)), nb = ceil_div(N, static_cast<u64>(cfg.n0));
  const u64 kb = rate >= 1 ? ceil_snap(static_cast<double>(K) / (static_cast<double>(cfg.k0) * rate))
                           : ceil_div(K, static_cast<u64>(cfg.k0));

  CubeTiming t;
  t.block_products = mb * nb * kb;
  const u64 block_cycles = rate >= 1 ? t.block_products : ceil_snap(static_cast<double>(t.block_products) / rate);
  t.cycles = static_cast<u64>(cfg.pipeline_latency) + block_cycles;
  t.macs = M * N * K;
  const double peak = static_cast<double>(cfg.m0 * cfg.n0 * cfg.k0) * rate * static_cast<double>(t.cycles);
  t.utilization = static_cast<double>(t.macs) / peak;
  t.a_reads = M * K * nb;
  t.b_reads = K * N * mb;
  t.c_writes = M * N;
  return t;
}

}  // namespace strata
