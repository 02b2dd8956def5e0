#include "accelerators/gpu/kernels/kernel_target.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/number_format.h"

namespace strata {

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

double GpuKernelTarget::tensor_macs_per_sm(const std::string& format) const {
  const auto it = timing.tensor_macs.find(format);
  return it == timing.tensor_macs.end() ? 0 : it->second * timing.sub_cores;
}

double tensor_format_bytes(const std::string& format) {
  if (format == "tf32") return 4;
  const NumberFormat* nf = find_number_format(format);
  return nf ? nf->element_bits / 8.0 : 2.0;
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
  const auto index = static_cast<std::int32_t>(pool.size() / 32);
  std::uint32_t mask = 0;
  for (int lane = 0; lane < 32; ++lane) {
    const std::uint64_t off = first + static_cast<std::uint64_t>(lane) * 16;
    if (off < tile_bytes) mask |= 1u << lane;
    const std::uint64_t o = off < tile_bytes ? off : 0;
    pool.push_back(base + o / row_bytes * pitch + o % row_bytes);
  }
  return {index, mask};
}

}  // namespace strata
