#include "accelerators/gpu/kernels/gemv_kernel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/control_bits.h"
#include "accelerators/gpu/kernels/streaming_kernel.h"

namespace strata {

namespace {
constexpr int kWarpsPerCta = 4;  // an SM with fewer warp slots gets CTAs of what it holds
constexpr std::uint8_t kWeights = 1, kActivations = 20, kAcc = 40, kConverted = 60, kShuffle = 80;
// Activation loads rotate over these registers, so unrolled loads do not wait on each other.
constexpr int kActivationRegisters = 16;
constexpr int kMaxUnroll = 4;  // weight loads in flight a warp
constexpr double kMinAccessBytes = 4;         // a lane's narrowest activation load (LDG.32)
constexpr std::uint32_t kGemvRegisters = 64;  // accumulators, unrolled loads and activations: full occupancy

// The narrowest of the 4, 8 and 16 B accesses (LDG/STG.32, .64, .128) that holds `bytes`.
int access_width(std::uint64_t bytes) { return bytes <= 4 ? 4 : bytes <= 8 ? 8 : kLaneBytes; }

// How a GEMV is cut: its loads in flight a warp (`unroll`) and K slices (`splits`).
struct GemvPlan {
  int m = 0;             // rows of the product (columns of x and y)
  double per_lane = 0;   // weights a lane loads an iteration
  double row_bytes = 0;  // of a weight row
  int unroll = kMaxUnroll;
  double chunk = 0;  // bytes of a row one iteration covers
  int splits = 1;
  double slice = 0;    // bytes of a row one warp covers
  double k_slice = 0;  // its K
  std::uint64_t iterations = 0;
  std::uint64_t x_row = 0;  // bytes of one row of x
  bool convert = false;     // the weights are converted to the activations' format
  double out_bytes(double c_bytes) const { return splits > 1 ? kPartialBytes : c_bytes; }  // a result's (FP32 partials)
};

// Unroll and split-K: kMaxUnroll loads in flight a warp, and warps to fill kWarpSlotsShare.
GemvPlan plan_gemv(const GemmProblem& p, const GpuKernelTarget& t) {
  GemvPlan g;
  g.m = static_cast<int>(p.m);
  g.per_lane = kLaneBytes / p.b_bytes;
  g.row_bytes = static_cast<double>(p.k) * p.b_bytes;
  while (g.unroll > 1 && g.row_bytes < static_cast<double>(kWarpBytes) * g.unroll) g.unroll /= 2;
  g.chunk = static_cast<double>(kWarpBytes) * g.unroll;
  const double want = static_cast<double>(t.sms) * t.limits.max_warps / kWarpSlotsShare;
  while (static_cast<double>(p.n) * g.splits < want && g.row_bytes / (g.splits * 2) >= g.chunk &&
         std::fmod(g.row_bytes, g.splits * 2 * g.chunk) == 0)
    g.splits *= 2;
  g.slice = g.row_bytes / g.splits;
  g.iterations = static_cast<std::uint64_t>(std::max(1.0, std::ceil(g.slice / g.chunk)));
  g.k_slice = static_cast<double>(p.k) / g.splits;
  g.x_row = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.k) * p.a_bytes));
  g.convert = std::abs(p.b_bytes - p.a_bytes) > kFormatTolerance;
  return g;
}

// A warp's weight loads and the activations its lanes need.
void gemv_loads(WarpProgram& w, const GemmProblem& p, const GemvPlan& g) {
  for (int u = 0; u < g.unroll; ++u) {
    WarpInstruction ld = warp_global(WarpOp::Ldg, p.b + static_cast<std::uint64_t>(u) * kWarpBytes, kLaneBytes,
                                     kLaneBytes, static_cast<std::uint8_t>(kWeights + u));
    ld.iteration_stride = static_cast<std::int64_t>(g.chunk);
    ld.warp_stride = static_cast<std::int64_t>(g.slice);
    w.body.push_back(ld);
  }
  // The activations a lane needs for its weights, from the L1 (every warp reads the same x).
  const double x_lane = g.per_lane * p.a_bytes;
  const int x_width = static_cast<int>(std::min(static_cast<double>(kLaneBytes), std::max(kMinAccessBytes, x_lane)));
  const int x_loads = static_cast<int>(std::ceil(x_lane / x_width));
  for (int col = 0; col < g.m; ++col)
    for (int u = 0; u < g.unroll; ++u)
      for (int i = 0; i < x_loads; ++i) {
        const auto lane_x = static_cast<std::int32_t>(std::ceil(x_lane));
        WarpInstruction ld = warp_global(
            WarpOp::Ldg,
            p.a + static_cast<std::uint64_t>(col) * g.x_row +
                static_cast<std::uint64_t>(u * kWarpThreads * lane_x + i * x_width),
            x_width, lane_x, static_cast<std::uint8_t>(kActivations + (col * g.unroll + u) % kActivationRegisters));
        ld.iteration_stride = static_cast<std::int64_t>(kWarpThreads) * lane_x * g.unroll;
        ld.warp_stride = static_cast<std::int64_t>(g.k_slice * p.a_bytes);
        ld.footprint = g.x_row;  // warp (row, slice) reads its slice of x
        w.body.push_back(ld);
      }
}

// The multiply-adds (after the weights' conversion), and the warp-wide sums.
void gemv_math(WarpProgram& w, const GemmProblem& p, const GemvPlan& g) {
  const bool packed = p.a_bytes <= kPackedBytes;
  for (int u = 0; u < g.unroll; ++u) {
    auto weights = static_cast<std::uint8_t>(kWeights + u);
    if (g.convert) {
      for (int i = 0; i < static_cast<int>(std::ceil(g.per_lane / 2)); ++i) {
        w.body.push_back(warp_op(WarpOp::Int, static_cast<std::uint8_t>(kConverted + u), {weights}));
        w.body.push_back(warp_op(WarpOp::Fp32, static_cast<std::uint8_t>(kConverted + u), {static_cast<std::uint8_t>(kConverted + u)}));
      }
      weights = static_cast<std::uint8_t>(kConverted + u);
    }
    const int fmas = static_cast<int>(std::ceil(g.per_lane / (packed ? 2 : 1)));
    for (int col = 0; col < g.m; ++col)
      for (int i = 0; i < fmas; ++i) {
        const auto acc = static_cast<std::uint8_t>(kAcc + col);
        w.body.push_back(warp_op(
            WarpOp::Fp32, acc,
            {acc, weights, static_cast<std::uint8_t>(kActivations + (col * g.unroll + u) % kActivationRegisters)}));
      }
  }
  for (int col = 0; col < g.m; ++col)
    for (int s = 0; s < kWarpReduceSteps; ++s) {
      const auto acc = static_cast<std::uint8_t>(kAcc + col);
      w.epilogue.push_back(warp_op(WarpOp::Int, kShuffle, {acc}));
      w.epilogue.push_back(warp_op(WarpOp::Fp32, acc, {acc, kShuffle}));
    }
}

void gemv_store(WarpProgram& w, const GemmProblem& p, const GemvPlan& g, std::uint64_t workspace) {
  // Lane 0 writes the row's m results (FP32 partials with split-K), after the epilogue (with
  // split-K the reduction kernel runs it): the row's bias value and the fused operators.
  const bool split = g.splits > 1;
  if (!split) {
    if (p.epilogue.bias_bytes > 0) {  // one value a row, lane 0's
      const auto bias_bytes = static_cast<std::uint64_t>(std::ceil(p.epilogue.bias_bytes));
      WarpInstruction ld =
          warp_global(WarpOp::Ldg, p.epilogue.bias, access_width(bias_bytes), kLaneBytes, kEpilogueBias);
      ld.active_mask = 1;
      ld.warp_stride = static_cast<std::int64_t>(bias_bytes);
      w.epilogue.push_back(ld);
    }
    append_epilogue_math(w.epilogue, p.epilogue, g.m, kAcc, 1);
  }
  const double out_bytes = g.out_bytes(p.c_bytes);
  const auto per_row = static_cast<std::uint64_t>(std::ceil(g.m * out_bytes));
  for (std::uint64_t first = 0; first < per_row; first += kLaneBytes) {
    const std::uint64_t width = std::min<std::uint64_t>(kLaneBytes, per_row - first);
    WarpInstruction st = warp_global(WarpOp::Stg, (split ? workspace : p.c) + first, access_width(width), 0,
                                     static_cast<std::uint8_t>(kAcc));
    st.active_mask = 1;
    st.warp_stride = static_cast<std::int64_t>(per_row);
    w.epilogue.push_back(st);
  }
}

std::shared_ptr<WarpProgram> gemv_program(const GemmProblem& p, const GemvPlan& g, const GpuKernelTarget& t,
                                          std::uint64_t workspace) {
  auto program = std::make_shared<WarpProgram>();
  WarpProgram& w = *program;
  w.iterations = g.iterations;
  gemv_loads(w, p, g);
  gemv_math(w, p, g);
  gemv_store(w, p, g, workspace);
  assign_control_bits(w, t.timing);
  return program;
}

}  // namespace

std::vector<GpuKernel> make_gemv(const GemmProblem& p, const GpuKernelTarget& t, std::uint64_t workspace) {
  if (p.m > kGemvMaxRows || p.batch != 1)
    throw std::invalid_argument(fmt::format("{}: a GEMV takes at most {} rows and one batch", p.name, kGemvMaxRows));
  const GemvPlan g = plan_gemv(p, t);
  GpuKernel out;
  out.generator = "gemv";
  const auto per_cta = static_cast<std::uint64_t>(std::clamp(t.limits.max_warps, 1, kWarpsPerCta));
  out.choices = {{"split_k", g.splits}};
  KernelLaunch& k = out.launch;
  k.name = p.name;
  const auto warps = static_cast<std::uint64_t>(p.n) * static_cast<std::uint64_t>(g.splits);
  k.grid = {grid_extent((warps + per_cta - 1) / per_cta, "CTAs"), 1, 1};
  k.block = {static_cast<std::uint32_t>(kWarpThreads * per_cta), 1, 1};
  k.registers_per_thread = kGemvRegisters;
  k.program = gemv_program(p, g, t, workspace);
  const double weights = static_cast<double>(p.n) * g.row_bytes;
  const double x = static_cast<double>(g.m) * static_cast<double>(g.x_row);
  const double y = static_cast<double>(p.n) * g.m * g.out_bytes(p.c_bytes) * g.splits;
  const double bias = static_cast<double>(p.n) * p.epilogue.bias_bytes;
  k.expected_dram_bytes = static_cast<std::uint64_t>(weights + x + y + bias);
  out.min_bytes = static_cast<std::uint64_t>(weights + x + bias + static_cast<double>(p.n) * g.m * p.c_bytes);
  out.flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) + p.epilogue.flops;
  if (p.epilogue.ops > 0) out.choices["epilogue_ops"] = p.epilogue.ops;
  std::vector<GpuKernel> kernels{std::move(out)};
  if (g.splits > 1)
    kernels.push_back(make_split_k_reduction(p.name, static_cast<double>(p.n) * g.m, g.splits, workspace, p.c,
                                             p.c_bytes, t, p.epilogue, static_cast<double>(p.n)));
  return kernels;
}

}  // namespace strata
