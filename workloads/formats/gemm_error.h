// The error a choice of formats puts on one GEMM, C = A·B, measured against a double-precision
// reference: the figure of merit design-space sweeps trade against bits per element.
//
// A (m×k) stands for activations: N(0, 1), except a few whole columns (input channels) scaled by
// `outlier_scale`, the systematic outlier features LLMs show (Dettmers et al., "LLM.int8()",
// 2022), which is what separates per-tensor from finer-grained scales. B (k×n) stands for
// weights: N(0, 1/k), so C has unit-order entries. Both operands go through fake_quantize
// (B transposed, so that its scales run along the reduction axis too); the product of the
// quantized operands is formed in double and each entry rounded once to `accumulate`, which
// models an accumulator of that precision with an exact (or much wider) internal sum.
//
// Bit-identical for a seed on any machine: Boost.Random draws, and the products are summed in a
// fixed order by plain loops rather than Eigen's GEMM, whose blocking depends on the host's
// cache sizes and SIMD width.
#pragma once

#include <cstdint>

#include "sim/number_format.h"

namespace strata {

struct GemmErrorOptions {
  int m = 256, n = 256, k = 256;
  std::uint64_t seed = 1;
  double outlier_fraction = 0.01;  // fraction of activation channels (columns of A) that are outliers
  double outlier_scale = 20;       // their magnitude relative to the rest (LLM.int8-style outlier channels)
};

struct GemmError {
  double sqnr_db;             // 10·log10(|C|² / |C - Cq|²); +inf when exact
  double relative_frobenius;  // |C - Cq|_F / |C|_F
};

// Throws std::invalid_argument for an invalid spec, an `accumulate` that is not a Float
// format, non-positive sizes, or an outlier fraction outside [0, 1] or negative outlier scale.
// round(outlier_fraction · k) columns, chosen at random, are outliers.
GemmError gemm_error(const QuantSpec& a, const QuantSpec& b, const NumberFormat& accumulate,
                     const GemmErrorOptions& opt = {});

}  // namespace strata
