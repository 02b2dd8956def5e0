// Grouped GEMM for mixture-of-experts layers: C_g[m_g, n] = A_g[m_g, k] · B_g[n, k]ᵀ for every
// group (expert) g with m_g rows, in one launch whose CTAs each compute one tile of one group's
// product, as CUTLASS's grouped GEMM (`GemmGrouped` and its problem visitor) and vLLM's
// `fused_moe` kernel run the experts: groups without rows launch nothing, a group of few rows
// loads only them (its tiles' A boxes have min(tile_m, m_g) rows), and each expert's weights
// stream through once per tile row of its group.
//
// Layout: the groups' rows are consecutive in A and C (the dispatch gather's order), the
// groups' weights [n, k] consecutive in B. One configuration serves every group (the tile search
// on the mean group's rows), without split-K or clusters (a cluster's CTAs would straddle
// groups). The grid is the n tiles times every group's m tiles, walked in the configuration's
// swizzle; each CTA runs its group's programs (KernelLaunch::cta_sets).
#pragma once

#include <cstdint>
#include <vector>

#include "accelerators/gpu/kernels/gemm_kernel.h"

namespace strata {

// The search's choice for the grouped product: choose_gemm on the mean group's rows, with
// split-K and clusters fixed to 1 whatever `fixed` asks. `p.m` is ignored.
GemmChoice choose_grouped_gemm(const GemmProblem& p, const std::vector<std::int64_t>& group_rows,
                               const GpuKernelTarget& target, const GemmConstraints& fixed = {});

// Throws std::invalid_argument when no group has rows, or as make_gemm does.
GpuKernel make_grouped_gemm(const GemmProblem& p, const std::vector<std::int64_t>& group_rows,
                            const GemmConfig& config, const GpuKernelTarget& target);

}  // namespace strata
