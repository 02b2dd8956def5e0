// Numerics emulator: quantize -> dequantize on Eigen matrices, so that error figures (SQNR of
// a GEMM, say) can be computed for any format in number_format.h without the hardware.
//
// Values are held in double; every step a real implementation rounds (elements, scales) is
// rounded here to the format it would be stored in, so the error is the format's, not the
// emulator's. Conventions:
//  - Rounding to an element saturates to ±max_finite (also for formats that have infinities,
//    as in the OCP "SAT" conversion mode); NaN stays NaN; subnormals are kept.
//  - Rows are the reduction axis: blocks, groups and channels run along each row. For C = A·B
//    quantize A as is and B transposed.
//  - Int per tensor: symmetric, scale = amax / qmax rounded up to FP32. Int per channel /
//    group: the same per row / per group of the row, rounded up to FP16. Up, because a scale
//    rounded down would clip the largest element: by up to 2^-11 of it with FP16, which is 16
//    INT16 steps and made int16_pc worse than int16 per tensor. A scale above the scale
//    format's range saturates (and its elements clip).
//  - Float formats (no suffix) are a plain cast, without a scale.
//  - MX (OCP Microscaling Formats v1.0, section 6.3): per block of 32, shared E8M0 scale
//    X = 2^(floor(log2(amax)) - emax_elem), clamped to E8M0's 2^-127..2^127, elements
//    round(v / X) saturated; emax_elem = floor(log2(element max)), e.g. 2 for E2M1, 0 for INT8.
//  - NVFP4 (NVIDIA): FP32 tensor scale s = amax / (448 * 6); per block of 16 an E4M3 scale
//    b = round_e4m3(block_amax / (6 s)), to nearest as NVIDIA's reference does (so the block
//    max may clip by up to 1/16); elements round_e2m1(v / (b s)). A block scale that rounds to
//    zero flushes its block to zero.
//  - Stochastic rounding draws one uniform number per element in row-major order from a
//    boost::random::mt19937_64 seeded with `seed` (Boost, not std:: distributions, so that a
//    seed gives the same bits with every standard library). Scales always round to nearest.
#pragma once

#include <Eigen/Dense>
#include <cstdint>

#include "sim/number_format.h"

namespace strata {

enum class Rounding { NearestEven, Stochastic };

struct QuantizeOptions {
  Rounding rounding = Rounding::NearestEven;
  std::uint64_t seed = 0;
};

// Rounds one value to the element encoding of `f` (for a Block format, its element before
// scaling), saturating to ±max_finite; NaN stays NaN. Stochastic rounding goes up with
// probability equal to the distance from the value below in units of the spacing, decided by
// `u` in [0, 1): up iff u < that fraction.
double round_to_element(double x, const NumberFormat& f, Rounding r = Rounding::NearestEven, double u = 0.5);

// Quantize -> dequantize `x` as described above. Throws std::invalid_argument for an invalid
// spec (see check_quant_spec).
Eigen::MatrixXd fake_quantize(const Eigen::MatrixXd& x, const QuantSpec& q, const QuantizeOptions& opt = {});

// Signal-to-quantization-noise ratio 10·log10(|ref|² / |ref - approx|²) in dB; +inf when they
// are equal. Throws std::invalid_argument when the shapes differ.
double sqnr_db(const Eigen::MatrixXd& ref, const Eigen::MatrixXd& approx);

}  // namespace strata
