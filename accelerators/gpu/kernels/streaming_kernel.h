// Memory-streaming kernels: element-wise operations, normalisations, softmax, reductions,
// gathers and copies, the way PyTorch's vectorized element-wise kernels and fused RMSNorm /
// softmax kernels run them. A grid of 256-thread CTAs, as many as fill the SMs (a grid-stride
// loop), each lane moving 16 bytes of the widest operand an iteration, its other operands at
// the same element rate; the FP32 and special-function instructions per element follow the
// operator. Operands smaller than the elements they serve (a norm's weight vector, a bias) are
// re-read from where they wrap (WarpInstruction::footprint), so they stay in the caches.
// Row-wise kernels (norms, softmax) add a warp-shuffle reduction per row: 5 steps of a shuffle
// and an add, each pass over a row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accelerators/gpu/kernels/kernel_target.h"

namespace strata {

struct StreamOperand {
  std::uint64_t base = 0;
  std::uint64_t bytes = 0;
  // Bytes per element served; 0: bytes / elements. An operand whose bytes are fewer than this
  // times the elements is re-read (a broadcast weight vector).
  double per_element = 0;
};

struct StreamingWork {
  std::string name;
  double elements = 0;  // of the output (or of the widest operand)
  std::vector<StreamOperand> reads, writes;
  double fp32_per_element = 1;  // FP32 instructions per element (a packed pair counts one per element)
  double sfu_per_element = 0;   // exp, rsqrt, ...
  double flops = 0;             // what the operator counts (op_flops)
  std::int64_t row = 0;         // row-wise: the row length (0: element-wise)
  int passes = 1;               // row-wise: passes over a row (softmax: max, sum, scale)
};

GpuKernel make_streaming(const StreamingWork& w, const GpuKernelTarget& target);

// Parallel split-K's second kernel: `splits` FP32 partials of each of `elements` outputs from
// `workspace` in, one FP32 add per partial, the product's epilogue (its bias: one value for each
// of `columns`), the outputs (`c_bytes` each) to `c` out. Named `<name>.split_k_reduce`.
GpuKernel make_split_k_reduction(const std::string& name, double elements, int splits, std::uint64_t workspace,
                                 std::uint64_t c, double c_bytes, const GpuKernelTarget& target,
                                 const GemmEpilogue& epilogue = {}, double columns = 0);

}  // namespace strata
