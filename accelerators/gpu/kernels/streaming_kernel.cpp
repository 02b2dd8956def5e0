#include "accelerators/gpu/kernels/streaming_kernel.h"

#include <algorithm>
#include <cmath>

#include "accelerators/gpu/control_bits.h"

namespace strata {

namespace {

constexpr int kThreads = 256;  // an SM with fewer warp slots gets CTAs of what it holds
constexpr std::uint8_t kData = 1, kResult = 40;

int lane_width(double bytes) {  // a power of two from 1 to 16
  int w = 1;
  while (w < 16 && w * 2 <= bytes + 1e-9) w *= 2;
  return w;
}

}  // namespace

GpuKernel make_streaming(const StreamingWork& w, const GpuKernelTarget& t) {
  GpuKernel out;
  out.generator = w.row > 0 ? "rowwise" : "elementwise";
  out.flops = w.flops;
  const double elements = std::max(1.0, w.elements);
  const auto per_element = [&](const StreamOperand& o) {
    return o.per_element > 0 ? o.per_element : static_cast<double>(o.bytes) / elements;
  };
  double widest = 0;
  for (const auto* list : {&w.reads, &w.writes})
    for (const StreamOperand& o : *list) widest = std::max(widest, per_element(o));
  widest = std::max(widest, 1.0 / 16);
  const double per_lane = 16.0 / std::min(widest, 16.0);  // elements a lane moves an iteration
  // As many CTAs as the SMs hold (a grid-stride loop), fewer for small tensors.
  const int cta_warps = std::clamp(t.limits.max_warps, 1, kThreads / 32);
  const int threads = 32 * cta_warps;
  const int per_sm = std::max(1, std::min(t.limits.max_warps / cta_warps, t.limits.max_ctas));
  const double needed = std::ceil(elements / (threads * per_lane));
  const auto ctas = static_cast<std::uint32_t>(std::max(1.0, std::min(needed, static_cast<double>(t.sms) * per_sm)));
  const double warps = static_cast<double>(ctas) * cta_warps;
  const auto iterations = static_cast<std::uint64_t>(std::max(1.0, std::ceil(elements / (warps * 32 * per_lane))));

  auto program = std::make_shared<WarpProgram>();
  WarpProgram& p = *program;
  p.iterations = iterations;
  std::uint64_t bytes = 0;
  const auto access = [&](WarpOp op, const StreamOperand& o, std::uint8_t reg) {
    const double lane_bytes = per_lane * per_element(o);
    const int width = lane_width(lane_bytes);
    WarpInstruction in = warp_global(op, o.base, width, width, reg);
    in.warp_stride = 32 * width;
    in.iteration_stride = static_cast<std::int64_t>(warps) * 32 * width;
    // A broadcast operand wraps; lanes past a tiny one stay off.
    if (static_cast<double>(o.bytes) + 0.5 < per_element(o) * elements) in.footprint = std::max<std::uint64_t>(o.bytes, 32);
    if (lane_bytes < 1) in.active_mask = 0xffffffffu >> static_cast<int>(32 - std::max(1.0, std::floor(32 * lane_bytes)));
    bytes += o.bytes;
    p.body.push_back(in);
  };
  std::uint8_t reg = kData;
  for (const StreamOperand& o : w.reads) access(WarpOp::Ldg, o, reg++);
  const bool packed = widest <= 2;  // 16-bit elements: packed pairs (HFMA2)
  const int fp32 = static_cast<int>(std::ceil(per_lane * w.fp32_per_element / (packed ? 2 : 1)));
  const int sfu = static_cast<int>(std::ceil(per_lane * w.sfu_per_element));
  std::uint8_t last = kData;
  for (int i = 0; i < std::max(1, fp32); ++i) {
    const auto src = static_cast<std::uint8_t>(i < reg - kData ? kData + i : last);
    p.body.push_back(warp_op(WarpOp::Fp32, static_cast<std::uint8_t>(kResult + i % 8), {src, last}));
    last = static_cast<std::uint8_t>(kResult + i % 8);
  }
  for (int i = 0; i < sfu; ++i) {
    p.body.push_back(warp_op(WarpOp::Sfu, static_cast<std::uint8_t>(kResult + 8 + i % 8), {last}));
    last = static_cast<std::uint8_t>(kResult + 8 + i % 8);
  }
  if (w.row > 0) {
    // Shuffle-and-add steps of the row reductions falling in one iteration.
    const double rows = 32 * per_lane / static_cast<double>(w.row);
    const int steps = static_cast<int>(std::ceil(5 * w.passes * std::max(rows, 1.0 / 1024)));
    for (int i = 0; i < steps; ++i) {
      p.body.push_back(warp_op(WarpOp::Int, static_cast<std::uint8_t>(kResult + 16), {last}));
      p.body.push_back(warp_op(WarpOp::Fp32, static_cast<std::uint8_t>(kResult + 17), {static_cast<std::uint8_t>(kResult + 16), last}));
      last = static_cast<std::uint8_t>(kResult + 17);
    }
  }
  for (const StreamOperand& o : w.writes) access(WarpOp::Stg, o, last);
  assign_control_bits(p, t.timing);

  KernelLaunch& k = out.launch;
  k.name = w.name;
  k.grid = {ctas, 1, 1};
  k.block = {static_cast<std::uint32_t>(threads), 1, 1};
  k.registers_per_thread = 32;
  k.program = program;
  k.expected_dram_bytes = bytes;
  out.min_bytes = bytes;
  return out;
}

GpuKernel make_split_k_reduction(const std::string& name, double elements, int splits, std::uint64_t workspace,
                                 std::uint64_t c, double c_bytes, const GpuKernelTarget& target,
                                 const GemmEpilogue& epilogue, double columns) {
  StreamingWork r;
  r.name = name + ".split_k_reduce";
  r.elements = elements;
  r.reads = {{workspace, static_cast<std::uint64_t>(elements * 4.0 * splits)}};
  if (epilogue.bias_bytes > 0)  // a broadcast: each value serves a column's every row
    r.reads.push_back(
        {epilogue.bias, static_cast<std::uint64_t>(std::ceil(columns * epilogue.bias_bytes)), epilogue.bias_bytes});
  r.writes = {{c, static_cast<std::uint64_t>(elements * c_bytes)}};
  r.fp32_per_element = splits + epilogue.fp32_per_element();
  r.sfu_per_element = epilogue.sfu;
  return make_streaming(r, target);
}

}  // namespace strata
