#include "accelerators/gpu/kernels/streaming_kernel.h"

#include <algorithm>
#include <cmath>

#include "accelerators/gpu/control_bits.h"

namespace strata {

namespace {

constexpr int kThreads = 256;  // an SM with fewer warp slots gets CTAs of what it holds
constexpr std::uint8_t kData = 1, kResult = 40;
constexpr int kResultRegisters = 8;  // results rotate over these, so consecutive instructions do not wait on each other
constexpr std::uint32_t kStreamingRegisters = 32;  // few live values a thread: full occupancy
constexpr double kMinRowShare = 1.0 / 1024;        // the least share of a row reduction an iteration counts
constexpr std::uint64_t kMinFootprint = 32;        // a broadcast operand's wrap: at least one 32 B sector

int lane_width(double bytes) {  // a power of two from 1 to kLaneBytes
  int w = 1;
  while (w < kLaneBytes && w * 2 <= bytes + kPow2Slack) w *= 2;
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
  widest = std::max(widest, 1.0 / kLaneBytes);
  const double per_lane =
      kLaneBytes / std::min(widest, static_cast<double>(kLaneBytes));  // elements a lane moves an iteration
  // As many CTAs as the SMs hold (a grid-stride loop), fewer for small tensors.
  const int cta_warps = std::clamp(t.limits.max_warps, 1, kThreads / kWarpThreads);
  const int threads = kWarpThreads * cta_warps;
  const int per_sm = std::max(1, std::min(t.limits.max_warps / cta_warps, t.limits.max_ctas));
  const double needed = std::ceil(elements / (threads * per_lane));
  const auto ctas = static_cast<std::uint32_t>(std::max(1.0, std::min(needed, static_cast<double>(t.sms) * per_sm)));
  const double warps = static_cast<double>(ctas) * cta_warps;
  const auto iterations =
      static_cast<std::uint64_t>(std::max(1.0, std::ceil(elements / (warps * kWarpThreads * per_lane))));

  auto program = std::make_shared<WarpProgram>();
  WarpProgram& p = *program;
  p.iterations = iterations;
  std::uint64_t bytes = 0;
  const auto access = [&](WarpOp op, const StreamOperand& o, std::uint8_t reg) {
    const double lane_bytes = per_lane * per_element(o);
    const int width = lane_width(lane_bytes);
    WarpInstruction in = warp_global(op, o.base, width, width, reg);
    in.warp_stride = kWarpThreads * width;
    in.iteration_stride = static_cast<std::int64_t>(warps) * kWarpThreads * width;
    // A broadcast operand (shorter than the elements, by more than rounding) wraps; lanes past a
    // tiny one stay off.
    if (static_cast<double>(o.bytes) + 0.5 < per_element(o) * elements)
      in.footprint = std::max<std::uint64_t>(o.bytes, kMinFootprint);
    if (lane_bytes < 1)
      in.active_mask =
          0xffffffffu >> static_cast<int>(kWarpThreads - std::max(1.0, std::floor(kWarpThreads * lane_bytes)));
    bytes += o.bytes;
    p.body.push_back(in);
  };
  std::uint8_t reg = kData;
  for (const StreamOperand& o : w.reads) access(WarpOp::Ldg, o, reg++);
  const bool packed = widest <= kPackedBytes;
  const int fp32 = static_cast<int>(std::ceil(per_lane * w.fp32_per_element / (packed ? 2 : 1)));
  const int sfu = static_cast<int>(std::ceil(per_lane * w.sfu_per_element));
  std::uint8_t last = kData;
  for (int i = 0; i < std::max(1, fp32); ++i) {
    const auto src = static_cast<std::uint8_t>(i < reg - kData ? kData + i : last);
    p.body.push_back(warp_op(WarpOp::Fp32, static_cast<std::uint8_t>(kResult + i % kResultRegisters), {src, last}));
    last = static_cast<std::uint8_t>(kResult + i % kResultRegisters);
  }
  const int sfu_results = kResult + kResultRegisters;  // the SFU's, after the FMAs'
  for (int i = 0; i < sfu; ++i) {
    p.body.push_back(warp_op(WarpOp::Sfu, static_cast<std::uint8_t>(sfu_results + i % kResultRegisters), {last}));
    last = static_cast<std::uint8_t>(sfu_results + i % kResultRegisters);
  }
  if (w.row > 0) {
    // Shuffle-and-add steps of the row reductions falling in one iteration.
    const double rows = kWarpThreads * per_lane / static_cast<double>(w.row);
    const int steps = static_cast<int>(std::ceil(kWarpReduceSteps * w.passes * std::max(rows, kMinRowShare)));
    const auto shuffled = static_cast<std::uint8_t>(sfu_results + kResultRegisters);
    const auto sum = static_cast<std::uint8_t>(shuffled + 1);
    for (int i = 0; i < steps; ++i) {
      p.body.push_back(warp_op(WarpOp::Int, shuffled, {last}));
      p.body.push_back(warp_op(WarpOp::Fp32, sum, {shuffled, last}));
      last = sum;
    }
  }
  for (const StreamOperand& o : w.writes) access(WarpOp::Stg, o, last);
  assign_control_bits(p, t.timing);

  KernelLaunch& k = out.launch;
  k.name = w.name;
  k.grid = {ctas, 1, 1};
  k.block = {static_cast<std::uint32_t>(threads), 1, 1};
  k.registers_per_thread = kStreamingRegisters;
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
  r.reads = {{workspace, static_cast<std::uint64_t>(elements * kPartialBytes * splits)}};
  if (epilogue.bias_bytes > 0)  // a broadcast: each value serves a column's every row
    r.reads.push_back(
        {epilogue.bias, static_cast<std::uint64_t>(std::ceil(columns * epilogue.bias_bytes)), epilogue.bias_bytes});
  r.writes = {{c, static_cast<std::uint64_t>(elements * c_bytes)}};
  r.fp32_per_element = splits + epilogue.fp32_per_element();
  r.sfu_per_element = epilogue.sfu;
  return make_streaming(r, target);
}

}  // namespace strata
