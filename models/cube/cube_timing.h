// Cycle counts of matrix products on a cube engine: a unit that multiplies an m0×k0 block by a
// k0×n0 block every cycle (Ascend's Cube Unit: 16×16×16 for FP16; NVIDIA tensor cores are the
// same idea per warp). Operands arrive from L0 buffers, so the cost of a GEMM is its count of
// block products plus the unit's pipeline latency once per tile. SystemC-free.
//
// Number formats run at `rate` relative to the engine's base format: rate r ≥ 1 processes r
// k0-slices per cycle (INT8 at 2 on Ascend's FP16 cube: k0 = 32), r < 1 takes 1/r cycles per
// block product.
#pragma once

#include <cstdint>

namespace strata {

struct CubeConfig {
  std::int64_t m0 = 16, n0 = 16, k0 = 16;
  std::int64_t pipeline_latency = 8;  // cycles from the first block in to the first result out
};

struct CubeTiming {
  std::uint64_t cycles = 0;
  std::uint64_t block_products = 0;  // ⌈m/m0⌉·⌈n/n0⌉·⌈k/(k0·r)⌉ (before dividing by r < 1)
  std::uint64_t macs = 0;            // useful m·n·k
  double utilization = 0;            // macs / (m0·n0·k0·rate·cycles), never above 1
  std::uint64_t a_reads = 0, b_reads = 0, c_writes = 0;  // elements moved from/to the L0 buffers
};

// Throws std::invalid_argument for non-positive sizes or rate.
CubeTiming cube_gemm(const CubeConfig& cfg, std::int64_t m, std::int64_t n, std::int64_t k, double rate = 1.0);

}  // namespace strata
