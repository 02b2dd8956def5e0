// Prefill attention as FlashAttention-2 runs it (Dao, 2023; the flash-attn forward kernel for
// Ampere and later): O = softmax(Q·Kᵀ·scale)·V without writing the scores to global memory.
//
// A CTA of 4 warps takes a tile of Br = 128 queries of one head (32 rows a warp) and walks the
// key/value tiles of Bc keys (128 for head_dim <= 64, else 64, halved until shared memory holds
// them): cp.async brings the next K and V
// tiles into a second shared-memory buffer while the warps compute this one; each warp loads
// its K fragments (ldmatrix), runs S = Q·Kᵀ on m16n8k mma.sync, the online softmax on its rows
// (running max with two quad shuffles a row, exp2 on the special-function units, running sum,
// rescaling of the O accumulators), converts P to the tensor format and runs O += P·V with V's
// fragments; at the end it divides by the row sums and stores its rows of O. A causal mask
// skips the key tiles past the diagonal, so CTAs of later query tiles walk more tiles (their
// programs differ by trip count: KernelLaunch::cta_sets). Grouped-query heads read their KV
// head's K and V. K and V in a narrower format than the tensor cores' are converted after the
// fragment loads (about one integer and one FP32 instruction per two elements [assumption]).
//
// Layout (the kernel's): Q and O [batch, heads, q_len, head_dim], K and V [batch, kv_heads,
// kv_len, head_dim], each row contiguous.
//
// FlashAttention-3 (Shah et al., 2024), Hopper's variant: the same tiles of 128 queries and Bc
// keys, a producer warp loading Q once and K and V tiles by TMA into two mbarrier-guarded
// shared-memory stages, two consumer warp groups (64 query rows each) running Q·Kᵀ and P·V as
// wgmma with the online softmax between (FlashAttentionWriter::write_hopper says what is and
// is not modelled). FP8 attention and its block quantization are not modelled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accelerators/gpu/kernels/kernel_target.h"

namespace strata {

struct AttentionProblem {
  std::string name;
  std::int64_t batch = 1, heads = 1, kv_heads = 1, q_len = 1, kv_len = 1, head_dim = 64, v_dim = 64;
  bool causal = false;  // query i of the last q_len of kv_len sees keys up to kv_len - q_len + i
  std::string compute = "fp16";
  double q_bytes = 2, kv_bytes = 2, o_bytes = 2;  // storage bytes per element
  std::uint64_t q = 0, k = 0, v = 0, o = 0;
};

// Which kernel: FlashAttention-2's (any GPU with tensor cores) or FlashAttention-3's (Hopper:
// TMA and wgmma; heads of at most 256). Auto takes flash3 where it runs.
enum class AttentionKernel { Auto, Flash2, Flash3 };
const char* attention_kernel_name(AttentionKernel k);
// What `want` comes to on `target`; throws std::invalid_argument for flash3 where it cannot run.
AttentionKernel choose_attention_kernel(const AttentionProblem& p, const GpuKernelTarget& target, AttentionKernel want);

// Generator "attention.flash2" or "attention.flash3". Throws std::invalid_argument for heads
// that are not a multiple of kv_heads or head sizes that are not multiples of 16.
GpuKernel make_flash_attention(const AttentionProblem& p, const GpuKernelTarget& target,
                               AttentionKernel kind = AttentionKernel::Auto);

// Decode attention (one query a sequence) as FlashAttention-2's split-KV path runs it, the
// path PyTorch's SDPA flash backend and flash_attn_with_kvcache take (flash_api.cpp): a KV
// head's group of query heads folded into the rows of one problem (seqlenq_ngroups_swapped);
// tiles of 64 query rows (4 warps of 16, padded: the tensor cores run the whole tile) and Bc
// keys (256 for heads up to 64, 128 up to 128, else 64); the keys cut into num_splits_heuristic's
// splits (one once the CTAs fill 0.8 of two an SM, else the fewest splits whose last wave is
// within 0.85 of the best fill), each walked by one CTA with FlashAttention-2's main loop, writing FP32 partial
// outputs and log-sum-exps into `workspace`; then "<name>.combine" weighting the partials
// into O. With one split, FlashAttention-2's forward kernel writes O itself. Generator
// "attention.split_kv" (choices block_q, block_kv, splits). Throws std::invalid_argument where
// FlashAttention-2 does not run (make_flash_attention's conditions, heads over 256).
struct SplitKvDecode {
  std::vector<GpuKernel> kernels;
  std::uint64_t workspace_bytes = 0;  // the partials and log-sum-exps
};
SplitKvDecode make_split_kv_decode(const AttentionProblem& p, const GpuKernelTarget& target, std::uint64_t workspace);

}  // namespace strata
