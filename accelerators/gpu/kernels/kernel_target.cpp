#include "accelerators/gpu/kernels/kernel_target.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/number_format.h"
#include "sim/rounding.h"

namespace strata {

namespace {
constexpr int kDefaultGpcs = 8;            // GPCs when the target names none (gpu.gpcs's default)
constexpr double kTf32Bytes = 4;           // TF32 sits in 32-bit registers (19 bits used)
constexpr double kUnknownFormatBytes = 2;  // a format the table does not know: FP16's
constexpr int kEpilogueRegisters = 8;      // epilogue results rotate over these
constexpr double kCountSlack = 1e-9;       // per-element counts this close to a whole number are it
}  // namespace

std::string GpuKernelTarget::tensor_format(const std::string& compute) const {
  const auto has = [this](const std::string& f) {
    const auto it = timing.tensor_macs.find(f);
    return it != timing.tensor_macs.end() && it->second > 0;
  };
  if (has(compute)) return compute;
  if (compute == "fp32" && has("tf32")) return "tf32";
  if (has("fp16")) return "fp16";
  throw std::invalid_argument(fmt::format("the tensor core has no rate for {} nor for fp16", compute));
}

Occupancy GpuKernelTarget::fit(const KernelLaunch& k) const {
  // KernelLaunch::ctas() multiplies the dimensions in 64 bits.
  const double ctas = static_cast<double>(k.grid[0]) * k.grid[1] * k.grid[2];
  if (ctas > 0x1p62 || ctas < 1)
    throw std::invalid_argument(fmt::format("a grid of {}x{}x{} CTAs: 1 to 2^62 CTAs", k.grid[0], k.grid[1], k.grid[2]));
  const Occupancy o = occupancy(limits, k.threads_per_cta(), k.registers_per_thread, k.shared_bytes);
  active_clusters(gpcs.empty() ? gpc_sizes(sms, std::min(kDefaultGpcs, sms)) : gpcs, max_cluster, k.ctas(), k.cluster,
                  o.ctas_per_sm);
  return o;
}

std::uint32_t GpuKernelTarget::one_cta_registers(std::uint32_t warps) const {
  const auto sub_cores = static_cast<std::uint32_t>(limits.sub_cores);
  const std::uint32_t rounded = (warps + sub_cores - 1) / sub_cores * sub_cores;
  return std::min<std::uint32_t>(kMaxRegistersPerThread,
                                 limits.registers / (rounded * kWarpThreads) / kRegisterStep * kRegisterStep);
}

std::uint32_t grid_extent(std::uint64_t n, const char* what) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(
        fmt::format("{} {}: a grid holds at most {} CTAs a dimension", n, what, std::numeric_limits<std::uint32_t>::max()));
  return static_cast<std::uint32_t>(n);
}

double GpuKernelTarget::tensor_macs_per_sm(const std::string& format) const {
  const auto it = timing.tensor_macs.find(format);
  return it == timing.tensor_macs.end() ? 0 : it->second * timing.sub_cores;
}

double tensor_format_bytes(const std::string& format) {
  if (format == "tf32") return kTf32Bytes;
  const NumberFormat* nf = find_number_format(format);
  return nf ? nf->element_bits / 8.0 : kUnknownFormatBytes;
}

WarpInstruction warp_op(WarpOp op, std::uint8_t dst, std::initializer_list<std::uint8_t> src) {
  WarpInstruction in;
  in.op = op;
  in.dst[0] = dst;
  std::size_t i = 0;
  for (std::uint8_t r : src)
    if (i < in.src.size()) in.src[i++] = r;
  return in;
}

WarpInstruction warp_global(WarpOp op, std::uint64_t base, int width, std::int32_t lane_stride, std::uint8_t reg) {
  WarpInstruction in = op == WarpOp::Ldg ? warp_op(op, reg) : warp_op(op, kNoReg, {reg});
  if (op == WarpOp::CpAsync) in = warp_op(op);
  in.base = base;
  in.width = static_cast<std::uint8_t>(width);
  in.lane_stride = lane_stride;
  return in;
}

std::pair<std::int32_t, std::uint32_t> tile_lanes(std::vector<std::uint64_t>& pool, std::uint64_t base,
                                                  std::uint64_t first, std::uint64_t tile_bytes,
                                                  std::uint64_t row_bytes, std::uint64_t pitch) {
  const auto index = static_cast<std::int32_t>(pool.size() / kWarpThreads);
  std::uint32_t mask = 0;
  for (int lane = 0; lane < kWarpThreads; ++lane) {
    const std::uint64_t off = first + static_cast<std::uint64_t>(lane) * kLaneBytes;
    if (off < tile_bytes) mask |= 1u << lane;
    const std::uint64_t o = off < tile_bytes ? off : 0;
    pool.push_back(base + o / row_bytes * pitch + o % row_bytes);
  }
  return {index, mask};
}

void append_bias_load(std::vector<WarpInstruction>& out, std::uint64_t bias, std::uint64_t bytes,
                      const std::array<std::int64_t, 4>& cta) {
  for (std::uint64_t first = 0; first < bytes; first += kWarpBytes) {
    const std::uint64_t lanes =
        std::min<std::uint64_t>(kWarpThreads, ceil_div(bytes - first, std::uint64_t{kLaneBytes}));
    WarpInstruction ld = warp_global(WarpOp::Ldg, bias + first, kLaneBytes, kLaneBytes, kEpilogueBias);
    ld.active_mask = lanes >= kWarpThreads ? 0xffffffffu : (1u << lanes) - 1;
    ld.cta_stride = cta;
    out.push_back(ld);
  }
}

void append_epilogue_math(std::vector<WarpInstruction>& out, const GemmEpilogue& e, double elements, std::uint8_t acc,
                          std::uint32_t lanes) {
  const bool bias = e.bias_bytes > 0;
  const auto count = [elements](double per_element) {
    return static_cast<int>(std::ceil(elements * per_element - kCountSlack));
  };
  const int fp32 = count(e.fp32_per_element()), sfu = count(e.sfu);
  for (int i = 0; i < std::max(fp32, sfu); ++i) {
    const auto r = static_cast<std::uint8_t>(acc + i % kEpilogueRegisters);
    if (i < fp32) {
      WarpInstruction op =
          i == 0 && bias ? warp_op(WarpOp::Fp32, r, {r, kEpilogueBias}) : warp_op(WarpOp::Fp32, r, {r});
      op.active_mask = lanes;
      out.push_back(op);
    }
    if (i < sfu) {
      WarpInstruction op = warp_op(WarpOp::Sfu, r, {r});
      op.active_mask = lanes;
      out.push_back(op);
    }
  }
}

}  // namespace strata
