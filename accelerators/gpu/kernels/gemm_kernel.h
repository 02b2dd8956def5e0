// GEMM kernels in the CUTLASS style: C[m,n] = A[m,k] · B[n,k]ᵀ (weights stored [n,k], as the
// OpGraph has them), `batch` independent products, on the tensor cores.
//
// Two main loops, the ones CUTLASS builds for its two latest architectures:
//   tma_wgmma   (Hopper, CUTLASS 3 `KernelTmaWarpSpecializedCooperative`): one producer warp
//               streams A and B tiles into `stages` shared-memory buffers with TMA, each buffer
//               guarded by a "full" mbarrier (transaction bytes) and an "empty" one (the
//               consumers' release); BM/64 consumer warp groups wait for a full buffer, run
//               m64nBNk wgmmas over it, keep one tile's wgmmas in flight and release the buffer
//               before. The producer is one warp here, not a whole warp group with three idle
//               warps: the idle warps cost the real kernel registers, not time.
//   cp_async_mma (Ampere, CUTLASS 2 `MmaMultistage`): every warp copies its share of the next
//               stage with 16-byte cp.async, commits the group, waits until the stage it
//               computes has landed (cp.async.wait_group stages - 2), meets the CTA at bar.sync,
//               loads its fragments with ldmatrix (an LDS of 16 B a lane) and runs m16n8k mma.sync.
// Both end with the epilogue's 16-byte stores of C. With split-K (`split_k` > 1, batch 1), the
// CTAs of grid z take one K slice each and write FP32 partial sums, and a second kernel adds the
// slices and writes C (CUTLASS's "parallel split-K" with its reduction kernel).
//
// CTA tiles walk the output in bands of `swizzle` tile rows (KernelLaunch::swizzle), as
// CUTLASS's threadblock swizzle does, so a wave's CTAs share A rows and B columns in the L2.
//
// Quantized weights (INT4 groups, MX and NVFP4 blocks, FP8 on a GPU without FP8 tensor cores):
// B is read in its storage bytes (scales included) and converted to the tensor format in the
// main loop, as Marlin-style kernels do: per 8 weights about 4 integer (LOP3/PRMT) and 4 FP32
// (scale) instructions a lane [assumption, not measured].
//
// Tile edges: a CTA's A box has min(BM, m) rows and its B box min(BN, n); an edge CTA of a shape
// that is not a multiple of the tile reads and computes its whole tile (real kernels mask it),
// so edge tiles move a little more than the shape's bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accelerators/gpu/kernels/kernel_target.h"

namespace strata {

struct GemmProblem {
  std::string name;
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  std::string compute = "fp16";     // the format the products run in (the OpGraph's `compute`)
  double a_bytes = 2, b_bytes = 2;  // storage bytes per element, scales included
  double c_bytes = 2;
  std::uint64_t a = 0, b = 0, c = 0;  // where the operands start in global memory
  GemmEpilogue epilogue;              // a bias and fused element-wise operators on C
};

enum class GemmMainLoop { TmaWgmma, CpAsyncMma };
const char* gemm_main_loop_name(GemmMainLoop m);

struct GemmConfig {
  GemmMainLoop main_loop = GemmMainLoop::TmaWgmma;
  int tile_m = 128, tile_n = 128, tile_k = 64;  // CTA tile
  int warps_m = 2, warps_n = 2;                 // cp_async_mma: the CTA's warps (warp tile = tile / warps)
  int stages = 4;
  int split_k = 1;
  std::uint32_t swizzle = 8;
  // tma_wgmma: CTAs per thread-block cluster along M (1 or 2). With 2, the two CTAs (the same
  // B columns, neighbouring A rows) each load half of the B tile and multicast it to both, so
  // the L2 serves B once per pair (CUTLASS's 2x1x1 cluster shape).
  int cluster_m = 1;
  std::string label() const;  // "tma_wgmma 128x256x64 s4 k1 c2"
};

// The GEMM's kernels under `config` (the main kernel, and the reduction after it with split-K).
// Throws std::invalid_argument for a configuration the GPU cannot run (no wgmma, shared memory
// too small, a tile not a multiple of the instruction shape).
std::vector<GpuKernel> make_gemm(const GemmProblem& p, const GemmConfig& config, const GpuKernelTarget& target,
                                 std::uint64_t workspace);

// The configuration a fast, deterministic search picks: it enumerates CTA tiles (64, 128, 256
// rows and columns), stages (what shared memory holds, at most 7), split-K (1, 2, 4, 8 when the
// tiles leave SMs idle) and, on Hopper, clusters of 1 and 2 CTAs along M, of the GPU's main
// loop, and keeps the least estimated time (ties: the order of enumeration)
//     waves x the busiest SM's main loop (tensor cycles of its CTAs, or its share of the L2's and
//     the DRAM's bandwidth, whichever is longer) + the pipeline's fill + the reduction's bytes,
// with each wave's DRAM bytes the A rows and B columns its CTAs touch (swizzle bands).
// What the configuration fixes of the search (0 or empty: the search's choice).
struct GemmConstraints {
  int tile_m = 0, tile_n = 0, tile_k = 0;
  int stages = 0, split_k = 0, cluster_m = 0;
  std::string main_loop;  // "tma_wgmma", "cp_async_mma"; empty: the GPU's latest
  bool any() const { return tile_m || stages || split_k || cluster_m || !main_loop.empty(); }
};
struct GemmChoice {
  GemmConfig config;
  double estimated_cycles = 0;
  int candidates = 0;
};
// Throws std::invalid_argument when no configuration meets `fixed`.
GemmChoice choose_gemm(const GemmProblem& p, const GpuKernelTarget& target, const GemmConstraints& fixed = {});

// The bytes the DRAM moves for the GEMM under `config`, by the same wave model.
double gemm_dram_bytes(const GemmProblem& p, const GemmConfig& config, const GpuKernelTarget& target);

}  // namespace strata
