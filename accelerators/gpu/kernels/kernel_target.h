// What the GPU kernel generators (accelerators/gpu/kernels/) read of the GPU they generate for,
// as plain values so they run and are tested without SystemC, and the kernels they return.
// Every generator documents the library kernel it follows; its programs go through
// assign_control_bits, so they serve both the scoreboard and the control-bits SM.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"
#include "workloads/gpu/warp_program.h"

namespace strata {

// The ISA's figures the generators build on (PTX ISA, CUDA C++ programming guide).
inline constexpr int kWarpThreads = 32;
inline constexpr int kLaneBytes = 16;  // the widest access a lane makes: a cp.async, an ldmatrix row, LDG.128
inline constexpr int kWarpBytes = kWarpThreads * kLaneBytes;  // what one such warp instruction moves
inline constexpr std::uint32_t kMaxRegistersPerThread = 255;  // the ISA's register numbers
inline constexpr std::uint32_t kRegisterStep = 8;             // registers are allocated (and setmaxnreg set) in 8s
inline constexpr std::uint64_t kMbarrierBytes = 8;            // an mbarrier: one 64-bit word of shared memory
// Tensor instructions: an mma.sync or wgmma reads 32 bytes of its format along K (m16n8k16 in
// FP16); mma.sync is issued as m16n8; a wgmma is 64 rows of a warp group of four warps by an N
// of 8 to 256 in 8s.
inline constexpr double kInstructionKBytes = 32;
inline constexpr int kMmaRows = 16, kMmaCols = 8;
inline constexpr int kWgmmaRows = 64, kWgmmaMinN = 8, kWgmmaMaxN = 256;
inline constexpr int kWarpGroupWarps = 4;
// Bytes per element within which an operand already is in the tensor format (no conversion).
inline constexpr double kFormatTolerance = 0.01;
inline constexpr double kPartialBytes = 4;  // split-K's partial sums are FP32
inline constexpr double kPackedBytes = 2;   // elements this narrow are computed in packed pairs (HFMA2)
inline constexpr int kWarpReduceSteps = 5;  // a warp-wide reduction: five butterfly shuffles (32 lanes)
inline constexpr double kPow2Slack = 1e-9;  // a size this close to a power of two is that power
// Memory-bound kernels size their grids to fill this share (1 / 2) of the SMs' warp slots:
// enough loads in flight to cover the DRAM's latency.
inline constexpr double kWarpSlotsShare = 2;

struct GpuKernelTarget {
  int sms = 132;
  SmLimits limits;
  SmTiming timing;
  std::uint64_t l2_bytes = 50ull << 20;
  double l2_bytes_per_cycle = 4096;   // the L2's slices together
  double dram_bytes_per_cycle = 1800; // sustained, in SM cycles
  double clock_hz = 1.83e9;
  std::uint64_t launch_cycles = 0;    // kernel_launch
  std::vector<int> gpcs;              // SMs per GPC; empty: sms spread over 8 GPCs (gpc_sizes)
  int max_cluster = 8;                // max_cluster_size (1: no thread-block clusters)
  bool wgmma() const { return timing.wgmma_latency > 0; }
  // The occupancy of `k` on this GPU. Throws std::invalid_argument (an OccupancyError for the
  // SM's limits) when the GPU cannot place it: its CTA does not fit an SM (warp slots,
  // registers, shared memory at its allocation granularity) or its cluster fits no GPC. The
  // generators' searches keep to what passes, so the GPU runs every kernel they return.
  Occupancy fit(const KernelLaunch& k) const;
  // The format the tensor cores run a product computed in `compute` in: `compute` itself when
  // they have a rate for it, TF32 for FP32, else FP16 (operands converted in the main loop).
  // Throws std::invalid_argument when none of these has a rate.
  std::string tensor_format(const std::string& compute) const;
  double tensor_macs_per_sm(const std::string& format) const;  // dense, per cycle
  // The registers a thread of a warp-specialized kernel asks for so that one CTA of `warps`
  // warps fits the SM: its warps counted in whole sub-core rounds, as the occupancy rules do.
  std::uint32_t one_cta_registers(std::uint32_t warps) const;
};

// `n` CTAs along one grid dimension (KernelLaunch::grid holds 32 bits a dimension). Throws
// std::invalid_argument, naming `what`, when they do not fit.
std::uint32_t grid_extent(std::uint64_t n, const char* what);

// Bytes per element of a tensor-core format as the instructions see it (TF32: 4; unknown: 2).
double tensor_format_bytes(const std::string& format);

// One launch a generator made, with the figures the GPU reports per kernel.
struct GpuKernel {
  KernelLaunch launch;
  double flops = 0;
  std::uint64_t min_bytes = 0;  // each operand read and each result written once
  std::string generator;        // "gemm.tma_wgmma", "gemv", "elementwise", ...
  // The generator's choices, reported per launch: a GEMM's tile_m, tile_n, tile_k, stages,
  // split_k and cluster; a GEMV's split_k; a product's epilogue_ops (activations it applies).
  std::map<std::string, double> choices;
};

// What a product's epilogue does to each element of its result before the store, as CUTLASS's
// epilogues and cuBLASLt's bias and GELU epilogues do: add a bias (one value per column of C, a
// linear layer's third input) and apply the element-wise operators the mapper fused into the
// product (gpu_mapper.h, kernels.fuse). With split-K the reduction kernel does it.
struct GemmEpilogue {
  std::uint64_t bias = 0;    // where the bias starts
  double bias_bytes = 0;     // per value; 0: no bias
  double fp32 = 0, sfu = 0;  // the fused operators' instructions per element (the bias add aside)
  double flops = 0;          // theirs (and the bias adds), counted with the product's kernel
  int ops = 0;               // operators fused
  double fp32_per_element() const { return fp32 + (bias_bytes > 0 ? 1 : 0); }
};

// Which tiles (a GEMM's K tiles, an attention's key/value tiles) go where in a program: tiles [0, stages) in the
// prologue, the body `iterations` times over `stages` tiles, the rest in the epilogue. Producer and consumers share it,
// so a run with any body count (the analytic fidelity's) stays consistent. Needs tiles >= s.
struct TileLayout {
  std::uint64_t stages, iterations, rest;
  TileLayout(std::uint64_t tiles, std::uint64_t s) : stages(s) {
    iterations = (tiles - s) / s;
    rest = tiles - s - iterations * s;
  }
  // Calls f(part, tile k as of the body's first iteration, stage) for every emitted tile.
  template <class F>
  void each(WarpProgram& w, F f) const {
    for (std::uint64_t k = 0; k < stages; ++k) f(w.prologue, k, k);
    if (iterations > 0)
      for (std::uint64_t j = 0; j < stages; ++j) f(w.body, stages + j, j);
    for (std::uint64_t r = 0; r < rest; ++r) {
      const std::uint64_t k = stages + iterations * stages + r;
      f(w.epilogue, k, k % stages);
    }
  }
};

// Instruction helpers for generators.
WarpInstruction warp_op(WarpOp op, std::uint8_t dst = kNoReg, std::initializer_list<std::uint8_t> src = {});
// A global access of 32 lanes, `width` bytes each, `lane_stride` apart from `base`.
WarpInstruction warp_global(WarpOp op, std::uint64_t base, int width, std::int32_t lane_stride, std::uint8_t reg);
// Lane addresses of an access that covers `bytes` bytes of a tile (from byte `first` of the
// tile on) of rows `row_bytes` long and `pitch` apart, 16 bytes a lane, into `pool`; returns
// the index to put in WarpInstruction::lane_addresses and the active mask (lanes past the
// tile's end are off).
std::pair<std::int32_t, std::uint32_t> tile_lanes(std::vector<std::uint64_t>& pool, std::uint64_t base,
                                                  std::uint64_t first, std::uint64_t tile_bytes,
                                                  std::uint64_t row_bytes, std::uint64_t pitch);
// The register an epilogue's bias lands in (no generator's accumulators reach it).
inline constexpr std::uint8_t kEpilogueBias = 250;
// A warp's loads of `bytes` bytes of bias from `bias` on, 16 bytes a lane, into kEpilogueBias;
// `cta` moves them with the CTA's tile, as WarpInstruction::cta_stride.
void append_bias_load(std::vector<WarpInstruction>& out, std::uint64_t bias, std::uint64_t bytes,
                      const std::array<std::int64_t, 4>& cta);
// A warp's epilogue math on `elements` results a lane, after its bias load: the FP32 (the bias
// add first) and SFU instructions, on accumulator registers from `acc` on (eight of them),
// ahead of the result's stores. `lanes` is their active mask (1: lane 0 holds the results, as a
// GEMV's row sum).
void append_epilogue_math(std::vector<WarpInstruction>& out, const GemmEpilogue& e, double elements, std::uint8_t acc,
                          std::uint32_t lanes = 0xffffffffu);

}  // namespace strata
