// What the GPU kernel generators (accelerators/gpu/kernels/) read of the GPU they generate for,
// as plain values so they run and are tested without SystemC, and the kernels they return.
// Every generator documents the library kernel it follows; its programs go through
// assign_control_bits, so they serve both the scoreboard and the control-bits SM.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"
#include "workloads/gpu/warp_program.h"

namespace strata {

struct GpuKernelTarget {
  int sms = 132;
  SmLimits limits;
  SmTiming timing;
  std::uint64_t l2_bytes = 50ull << 20;
  double l2_bytes_per_cycle = 4096;   // the L2's slices together
  double dram_bytes_per_cycle = 1800; // sustained, in SM cycles
  double clock_hz = 1.83e9;
  std::uint64_t launch_cycles = 0;    // kernel_launch
  bool wgmma() const { return timing.wgmma_latency > 0; }
  // The format the tensor cores run a product computed in `compute` in: `compute` itself when
  // they have a rate for it, TF32 for FP32, else FP16 (operands converted in the main loop).
  // Throws std::invalid_argument when none of these has a rate.
  std::string tensor_format(const std::string& compute) const;
  double tensor_macs_per_sm(const std::string& format) const;  // dense, per cycle
};

// Bytes per element of a tensor-core format as the instructions see it (TF32: 4; unknown: 2).
double tensor_format_bytes(const std::string& format);

// One launch a generator made, with the figures the GPU reports per kernel.
struct GpuKernel {
  KernelLaunch launch;
  double flops = 0;
  std::uint64_t min_bytes = 0;  // each operand read and each result written once
  std::string generator;        // "gemm.tma_wgmma", "gemv", "elementwise", ...
  // The generator's choices, reported per launch: a GEMM's tile_m, tile_n, tile_k, stages,
  // split_k and cluster; a GEMV's split_k.
  std::map<std::string, double> choices;
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

}  // namespace strata
