// GEMV and skinny GEMM for decode: y[m, n] = x[m, k] · W[n, k]ᵀ with m (the batch of tokens)
// at most kGemvMaxRows, on the CUDA cores, as TensorRT-LLM's and FasterTransformer's batched
// (weight-only) GEMV kernels run it: each warp owns one row of W (or one K slice of it, split-K
// when the rows alone would leave SMs idle), its lanes stream 16 bytes of weights an iteration
// (four iterations unrolled, so four loads are in flight), convert quantized weights to the
// activations' format (per 8 weights about 4 integer and 4 FP32 instructions [assumption]),
// fuse multiply-adds with the m activation columns (packed pairs for 16-bit formats), and
// reduce across the warp with 5 shuffle-and-add steps per column at the end. Lane 0 writes the
// row's m results; with split-K they are FP32 partials that a reduction kernel adds.
#pragma once

#include <vector>

#include "accelerators/gpu/kernels/gemm_kernel.h"

namespace strata {

inline constexpr std::int64_t kGemvMaxRows = 8;

// Throws std::invalid_argument when m exceeds kGemvMaxRows or batch is not 1.
std::vector<GpuKernel> make_gemv(const GemmProblem& p, const GpuKernelTarget& target, std::uint64_t workspace);

}  // namespace strata
