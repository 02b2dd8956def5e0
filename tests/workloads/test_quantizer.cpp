// The numerics emulator against independent references: the bit-level decoding of every code of
// the small float formats, the hardware double->float conversion, hand-worked MX / NVFP4 /
// integer blocks, closed-form SQNR of uniform data, and pinned GEMM error figures.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "workloads/formats/gemm_error.h"
#include "workloads/formats/quantizer.h"
#include "workloads/number_format_test_util.h"

using strata::fake_quantize;
using strata::find_number_format;
using strata::gemm_error;
using strata::GemmErrorOptions;
using strata::NumberFormat;
using strata::testing::fmt_of;
using strata::parse_quant_spec;
using strata::QuantizeOptions;
using strata::round_to_element;
using strata::Rounding;
using strata::sqnr_db;

namespace {

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

Eigen::MatrixXd row(const std::vector<double>& v) {
  Eigen::MatrixXd m(1, static_cast<Eigen::Index>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) m(0, static_cast<Eigen::Index>(i)) = v[i];
  return m;
}

std::vector<double> values(const Eigen::MatrixXd& m) { return {m.data(), m.data() + m.size()}; }

bool identical(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

// How an encoding uses its all-ones exponent field, written out independently of the library.
enum class Specials { Ieee, NanOnly, None };

// Every finite value of a sign/exponent/mantissa encoding, decoded bit by bit, with its code.
std::vector<std::pair<double, unsigned>> decode_all(int e, int m, Specials specials) {
  std::vector<std::pair<double, unsigned>> out;
  const unsigned all_e = (1u << e) - 1, all_m = (1u << m) - 1;
  const int bias = (1 << (e - 1)) - 1;
  for (unsigned code = 0; code < (1u << (1 + e + m)); ++code) {
    const unsigned sign = code >> (e + m), ef = (code >> m) & all_e, mf = code & all_m;
    if (specials == Specials::Ieee && ef == all_e) continue;
    if (specials == Specials::NanOnly && ef == all_e && mf == all_m) continue;
    const double mag = ef == 0 ? std::ldexp(mf, 1 - bias - m) : std::ldexp(1.0 + std::ldexp(mf, -m), int(ef) - bias);
    out.emplace_back(sign ? -mag : mag, code);
  }
  return out;
}

struct SmallFormat {
  const char* name;
  int e, m;
  Specials specials;
  size_t finite_codes;
};

const std::vector<SmallFormat>& small_formats() {
  static const std::vector<SmallFormat> f = {
      {"fp8_e4m3", 4, 3, Specials::NanOnly, 254}, {"fp8_e5m2", 5, 2, Specials::Ieee, 248},
      {"fp6_e3m2", 3, 2, Specials::None, 64},     {"fp6_e2m3", 2, 3, Specials::None, 64},
      {"fp4_e2m1", 2, 1, Specials::None, 16},     {"mxfp8_e4m3", 4, 3, Specials::NanOnly, 254},
      {"mxfp8_e5m2", 5, 2, Specials::Ieee, 248},  {"mxfp6_e3m2", 3, 2, Specials::None, 64},
      {"mxfp6_e2m3", 2, 3, Specials::None, 64},   {"mxfp4", 2, 1, Specials::None, 16},
      {"nvfp4", 2, 1, Specials::None, 16}};
  return f;
}

// N(0, 1) activations with three outlier columns and a few exact zeros, as LLM layers look.
Eigen::MatrixXd gaussian_with_outliers(int rows, int cols, std::uint64_t seed) {
  boost::random::mt19937_64 rng(seed);
  boost::random::normal_distribution<double> normal;
  Eigen::MatrixXd x(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) x(r, c) = normal(rng);
  for (int c : {3, 100, 200}) x.col(c) *= 20;
  x(0, 5) = x(7, 77) = 0;
  return x;
}

Eigen::MatrixXd uniform(int rows, int cols, double lo, double hi, std::uint64_t seed) {
  boost::random::mt19937_64 rng(seed);
  boost::random::uniform_real_distribution<double> u(lo, hi);
  Eigen::MatrixXd x(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) x(r, c) = u(rng);
  return x;
}

}  // namespace

TEST(RoundToElement, TiesGoToEvenInFp4) {
  const auto& f = fmt_of("fp4_e2m1");  // 0, 0.5, 1, 1.5, 2, 3, 4, 6
  EXPECT_EQ(round_to_element(2.5, f), 2);
  EXPECT_EQ(round_to_element(3.5, f), 4);
  EXPECT_EQ(round_to_element(5, f), 4);     // tie between 4 and 6
  EXPECT_EQ(round_to_element(0.25, f), 0);  // tie between 0 and 0.5 (subnormal)
  EXPECT_EQ(round_to_element(0.75, f), 1);  // tie between 0.5 and 1
  EXPECT_EQ(round_to_element(1.25, f), 1);
  EXPECT_EQ(round_to_element(1.75, f), 2);
  EXPECT_EQ(round_to_element(-2.5, f), -2);
  EXPECT_EQ(round_to_element(-5, f), -4);
  EXPECT_EQ(round_to_element(2.51, f), 3);
  EXPECT_EQ(round_to_element(5.01, f), 6);
  EXPECT_EQ(round_to_element(0.26, f), 0.5);
  EXPECT_EQ(round_to_element(0.24, f), 0);
}

TEST(RoundToElement, SaturatesAndPassesNaN) {
  const auto& e4m3 = fmt_of("fp8_e4m3");
  EXPECT_EQ(round_to_element(1000, e4m3), 448);
  EXPECT_EQ(round_to_element(-1e9, e4m3), -448);
  EXPECT_EQ(round_to_element(464, e4m3), 448);  // tie 448 / 480: 480 is the NaN code's slot
  EXPECT_EQ(round_to_element(470, e4m3), 448);
  EXPECT_EQ(round_to_element(std::numeric_limits<double>::infinity(), e4m3), 448);
  EXPECT_EQ(round_to_element(-std::numeric_limits<double>::infinity(), e4m3), -448);
  EXPECT_TRUE(std::isnan(round_to_element(nan(), e4m3)));
  EXPECT_TRUE(std::isnan(round_to_element(nan(), fmt_of("int8"))));
  EXPECT_EQ(round_to_element(61440, fmt_of("fp8_e5m2")), 57344);  // RNE would give 65536 (inf)
  EXPECT_EQ(round_to_element(65520, fmt_of("fp16")), 65504);      // IEEE would give inf
  EXPECT_EQ(round_to_element(1e300, fmt_of("bf16")), fmt_of("bf16").max_finite);
  EXPECT_EQ(round_to_element(29, fmt_of("fp6_e3m2")), 28);
  EXPECT_EQ(round_to_element(-7.9, fmt_of("fp6_e2m3")), -7.5);
}

TEST(RoundToElement, SubnormalsAndSignedZero) {
  const auto& e4m3 = fmt_of("fp8_e4m3");
  EXPECT_EQ(round_to_element(std::ldexp(1.0, -10), e4m3), 0);                    // tie 0 / 2^-9
  EXPECT_EQ(round_to_element(std::ldexp(3.0, -10), e4m3), std::ldexp(1.0, -8));  // tie 2^-9 / 2^-8
  EXPECT_EQ(round_to_element(std::ldexp(5.0, -10), e4m3), std::ldexp(2.0, -9));  // tie 2^-8 / 3·2^-9
  EXPECT_EQ(round_to_element(std::ldexp(7.0, -9), e4m3), std::ldexp(7.0, -9));   // largest subnormal
  EXPECT_EQ(round_to_element(std::ldexp(1.0, -30), fmt_of("fp8_e5m2")), 0);
  EXPECT_EQ(round_to_element(std::ldexp(3.0, -25), fmt_of("fp16")), std::ldexp(2.0, -24));
  EXPECT_TRUE(std::signbit(round_to_element(-1e-9, e4m3)));
  EXPECT_TRUE(std::signbit(round_to_element(-0.0, e4m3)));
  EXPECT_EQ(round_to_element(0.0, e4m3), 0);
}

TEST(RoundToElement, IntegersAreSymmetric) {
  const auto& i8 = fmt_of("int8");
  EXPECT_EQ(round_to_element(2.5, i8), 2);
  EXPECT_EQ(round_to_element(3.5, i8), 4);
  EXPECT_EQ(round_to_element(-2.5, i8), -2);
  EXPECT_EQ(round_to_element(126.6, i8), 127);
  EXPECT_EQ(round_to_element(200, i8), 127);
  EXPECT_EQ(round_to_element(-200, i8), -127);  // -128 is left unused
  EXPECT_EQ(round_to_element(7.4, fmt_of("int4")), 7);
  EXPECT_EQ(round_to_element(-1.6, fmt_of("int2")), -1);
  EXPECT_EQ(round_to_element(40000, fmt_of("int16")), 32767);
  // MXINT8 elements: 1.6 fixed point.
  EXPECT_EQ(round_to_element(1.99, fmt_of("mxint8")), 1.984375);
  EXPECT_EQ(round_to_element(0.5 + 1.0 / 128, fmt_of("mxint8")), 0.5);  // tie 32/64 / 33/64
  EXPECT_EQ(round_to_element(0.5 + 3.0 / 128, fmt_of("mxint8")), 34.0 / 64);
}

// Every code of FP8/FP6/FP4 (and the elements of their block formats), decoded bit by bit, is
// a fixed point of rounding; midpoints between neighbours go to the even code, anything past a
// midpoint goes to the far neighbour; the table's max and min subnormal match the decoding.
TEST(RoundToElement, EveryRepresentableValueRoundTrips) {
  for (const auto& s : small_formats()) {
    SCOPED_TRACE(s.name);
    const auto& f = fmt_of(s.name);
    auto all = decode_all(s.e, s.m, s.specials);
    EXPECT_EQ(all.size(), s.finite_codes);
    for (const auto& [v, code] : all) EXPECT_EQ(round_to_element(v, f), v) << "code " << code;

    std::vector<std::pair<double, unsigned>> pos;
    for (const auto& vc : all)
      if (vc.first > 0 || (vc.first == 0 && vc.second == 0)) pos.push_back(vc);
    std::sort(pos.begin(), pos.end());
    EXPECT_EQ(pos.size(), s.finite_codes / 2);  // 0 and the positive values, half of all codes
    EXPECT_EQ(pos.back().first, f.max_finite);
    EXPECT_EQ(pos[1].first, f.min_subnormal);
    for (size_t i = 0; i + 1 < pos.size(); ++i) {
      const auto [lo, lo_code] = pos[i];
      const double hi = pos[i + 1].first, mid = (lo + hi) / 2, nudge = (hi - lo) / 1024;
      const double even = lo_code % 2 == 0 ? lo : hi;
      EXPECT_EQ(round_to_element(mid, f), even) << mid;
      EXPECT_EQ(round_to_element(-mid, f), -even) << -mid;
      EXPECT_EQ(round_to_element(mid + nudge, f), hi) << mid;
      EXPECT_EQ(round_to_element(mid - nudge, f), lo) << mid;
    }
  }
}

// The same algorithm at FP32's widths against the machine's own double -> float conversion
// (IEEE round to nearest even), across normal and subnormal floats.
TEST(RoundToElement, Fp32MatchesHardwareConversion) {
  boost::random::mt19937_64 rng(11);
  boost::random::normal_distribution<double> normal;
  boost::random::uniform_int_distribution<int> exponent(-155, 120);
  const auto& fp32 = fmt_of("fp32");
  for (int i = 0; i < 20000; ++i) {
    const double x = std::ldexp(normal(rng), exponent(rng));
    ASSERT_EQ(round_to_element(x, fp32), static_cast<double>(static_cast<float>(x))) << x;
  }
}

TEST(RoundToElement, StochasticRoundingUsesTheDraw) {
  const auto& f = fmt_of("fp4_e2m1");
  // 2.25 lies a quarter of the way from 2 to 3: up iff u < 0.25.
  EXPECT_EQ(round_to_element(2.25, f, Rounding::Stochastic, 0.0), 3);
  EXPECT_EQ(round_to_element(2.25, f, Rounding::Stochastic, 0.2499), 3);
  EXPECT_EQ(round_to_element(2.25, f, Rounding::Stochastic, 0.25), 2);
  EXPECT_EQ(round_to_element(-2.25, f, Rounding::Stochastic, 0.1), -3);
  EXPECT_EQ(round_to_element(3, f, Rounding::Stochastic, 0.0), 3);  // representable: never moves
  EXPECT_EQ(round_to_element(5.9, f, Rounding::Stochastic, 0.0), 6);
  EXPECT_EQ(round_to_element(7, f, Rounding::Stochastic, 0.9), 6);  // saturates either way
}

// Stochastic rounding of 2.5 to E2M1 picks 2 or 3 with probability 1/2 each, so the mean of
// N = 200,000 roundings has standard deviation 0.5/sqrt(N) = 0.00112; 0.006 is 5.4 of those.
// The stream is seeded, so the exact count is pinned too (it is the same on every machine).
TEST(FakeQuantize, StochasticRoundingIsUnbiasedAndSeeded) {
  const auto q = parse_quant_spec("fp4_e2m1");
  const Eigen::MatrixXd x = Eigen::MatrixXd::Constant(1, 200000, 2.5);
  const QuantizeOptions opt{Rounding::Stochastic, 7};
  const Eigen::MatrixXd y = fake_quantize(x, q, opt);
  EXPECT_NEAR(y.mean(), 2.5, 0.006);
  EXPECT_EQ((y.array() == 3).count(), 100418);
  EXPECT_EQ((y.array() == 2).count() + (y.array() == 3).count(), 200000);
  EXPECT_TRUE(identical(y, fake_quantize(x, q, opt)));
  EXPECT_FALSE(identical(y, fake_quantize(x, q, QuantizeOptions{Rounding::Stochastic, 8})));

  // 2.25: up with probability 1/4, sd of the mean sqrt(3/16/N) = 0.00097.
  const Eigen::MatrixXd z = fake_quantize(Eigen::MatrixXd::Constant(1, 200000, 2.25), q, opt);
  EXPECT_NEAR(z.mean(), 2.25, 0.005);
  // Nearest-even, for contrast, is biased on ties.
  EXPECT_EQ(fake_quantize(x, q).mean(), 2.0);
}

TEST(FakeQuantize, StochasticRoundingWithBlockScales) {
  // An MXINT8 block with amax 1 has scale 1, spacing 2^-6; 1/256 is a quarter step.
  Eigen::MatrixXd x = Eigen::MatrixXd::Constant(2000, 32, 1.0 / 256);
  x.col(0).setOnes();
  const Eigen::MatrixXd y = fake_quantize(x, parse_quant_spec("mxint8"), {Rounding::Stochastic, 3});
  EXPECT_EQ(y.col(0).minCoeff(), 1);
  const double mean = y.rightCols(31).mean();  // 62,000 draws of 0 or 1/64, p = 1/4
  EXPECT_NEAR(mean, 1.0 / 256, 5 * std::sqrt(3.0 / 16 / 62000) / 64);
}

TEST(FakeQuantize, MxFp4BlocksFollowOcpMx) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(2, 64);
  for (int i = 0; i < 32; ++i) x(0, i) = i + 1;                       // amax 32: scale 2^(5 - 2) = 8
  x(0, 32) = 7, x(0, 33) = 5, x(0, 34) = 0.3, x(0, 35) = -6.5;        // amax 7: scale 2^(2 - 2) = 1
  x(1, 0) = std::ldexp(1.0, -140), x(1, 1) = std::ldexp(-1.0, -141);  // scale clamps at 2^-127
  const Eigen::MatrixXd y = fake_quantize(x, parse_quant_spec("mxfp4"));
  const std::vector<double> block0 = {0,  0,  4,  4,  4,  8,  8,  8,  8,  8,  12, 12, 12, 16, 16, 16,
                                      16, 16, 16, 16, 24, 24, 24, 24, 24, 24, 24, 32, 32, 32, 32, 32};
  EXPECT_EQ(values(y.block(0, 0, 1, 32)), block0);
  EXPECT_EQ(y(0, 32), 6);  // 7 saturates to the element max
  EXPECT_EQ(y(0, 33), 4);  // tie 4 / 6
  EXPECT_EQ(y(0, 34), 0.5);
  EXPECT_EQ(y(0, 35), -6);
  EXPECT_EQ(y(0, 36), 0);
  EXPECT_EQ(y(1, 0), 0);  // 2^-140 / 2^-127 = 2^-13 underflows the element
  EXPECT_EQ(y(1, 1), 0);
}

TEST(FakeQuantize, MxInt8AndMxFp8Blocks) {
  const Eigen::MatrixXd y = fake_quantize(row({3, 0.01, 1.01, -2.2}), parse_quant_spec("mxint8"));
  EXPECT_EQ(values(y), (std::vector<double>{3, 0, 1, -70.0 / 32}));                        // scale 2: steps of 1/32
  EXPECT_EQ(fake_quantize(row({3.99, 1}), parse_quant_spec("mxint8"))(0, 0), 127.0 / 32);  // clips
  // MXFP8 E4M3, amax 300: scale 2^(8 - 8) = 1, elements are plain E4M3 below 448.
  const Eigen::MatrixXd z = fake_quantize(row({300, 17, 0.001}), parse_quant_spec("mxfp8"));
  EXPECT_EQ(values(z), (std::vector<double>{288, 16, std::ldexp(1.0, -9)}));  // 300 -> 288, 17 -> 16 (tie)
  // amax 500: the shared exponent puts it at 500/1 in [256, 512), past 448: it clips.
  EXPECT_EQ(fake_quantize(row({500}), parse_quant_spec("mxfp8"))(0, 0), 448);
}

TEST(FakeQuantize, NvFp4TwoLevelScales) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(1, 48);
  x(0, 0) = 2688, x(0, 1) = 1000;               // tensor scale 2688 / (448·6) = 1; block scale 448
  x(0, 16) = 108, x(0, 17) = 45, x(0, 18) = 1;  // block scale E4M3(108/6 = 18) = 18
  x(0, 32) = 102, x(0, 33) = 40;                // block scale 17 rounds to 16 (tie): 102 clips
  const Eigen::MatrixXd y = fake_quantize(x, parse_quant_spec("nvfp4"));
  EXPECT_EQ(y(0, 0), 2688);
  EXPECT_EQ(y(0, 1), 896);  // 1000/448 = 2.23 -> 2
  EXPECT_EQ(y(0, 16), 108);
  EXPECT_EQ(y(0, 17), 36);  // 2.5 -> 2
  EXPECT_EQ(y(0, 18), 0);
  EXPECT_EQ(y(0, 32), 96);  // 6.375 -> 6
  EXPECT_EQ(y(0, 33), 32);
  // Scaled by 2^-10 the tensor scale is 2^-10 and every figure scales with it.
  EXPECT_TRUE(identical(fake_quantize(x * std::ldexp(1.0, -10), parse_quant_spec("nvfp4")), y * std::ldexp(1.0, -10)));
}

TEST(FakeQuantize, IntegerScales) {
  // Per tensor, amax 127: scale 1, plain integer rounding.
  EXPECT_EQ(values(fake_quantize(row({127, 2.5, 3.5, -2.5, 0.4}), parse_quant_spec("int8"))),
            (std::vector<double>{127, 2, 4, -2, 0}));
  // Groups of 8: amax 3.5 -> scale 0.5; amax 7 -> scale 1.
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(1, 16);
  g(0, 0) = 3.5, g(0, 1) = 1.2, g(0, 2) = 1.25, g(0, 3) = 1.75, g(0, 4) = -3.5;
  g(0, 8) = 7, g(0, 9) = 2.5, g(0, 10) = -0.4;
  const Eigen::MatrixXd gy = fake_quantize(g, parse_quant_spec("int4_g8"));
  EXPECT_EQ(values(gy.leftCols(5)), (std::vector<double>{3.5, 1, 1, 2, -3.5}));
  EXPECT_EQ(values(gy.block(0, 8, 1, 3)), (std::vector<double>{7, 2, 0}));
  // The FP16 scale rounds up: 0.7/7 = 0.1 -> 1639·2^-14, so amax stays at code 7.
  EXPECT_EQ(fake_quantize(row({0.7, 0.1}), parse_quant_spec("int4_pc"))(0, 0), 7 * 1639 * std::ldexp(1.0, -14));
  // Per channel: each row its own scale; per tensor the small row drowns.
  Eigen::MatrixXd c(2, 2);
  c << 127, 1.5, 127.0 / 16, 3.0 / 32;
  // Column-major: c(0,0), c(1,0), c(0,1), c(1,1). Row 1 has scale 1/16.
  EXPECT_EQ(values(fake_quantize(c, parse_quant_spec("int8_pc"))), (std::vector<double>{127, 7.9375, 2, 0.125}));
  EXPECT_EQ(values(fake_quantize(c, parse_quant_spec("int8"))), (std::vector<double>{127, 8, 2, 0}));
}

TEST(FakeQuantize, FloatFormatsAreACast) {
  const Eigen::MatrixXd y =
      fake_quantize(row({1 + std::ldexp(1.0, -8), 1 + std::ldexp(3.0, -8), 1e-40}), parse_quant_spec("bf16"));
  // Ties to even at 1 + 2^-8; 1e-40 is 1.09 of BF16's smallest subnormal 2^-133.
  EXPECT_EQ(values(y), (std::vector<double>{1, 1 + std::ldexp(1.0, -6), std::ldexp(1.0, -133)}));
}

TEST(FakeQuantize, NaNPassesAndZerosStay) {
  const Eigen::MatrixXd y = fake_quantize(row({nan(), 127, 1.4}), parse_quant_spec("int8"));
  EXPECT_TRUE(std::isnan(y(0, 0)));
  EXPECT_EQ(y(0, 1), 127);  // the NaN did not enter amax
  EXPECT_EQ(y(0, 2), 1);
  for (const auto& f : strata::number_formats()) {
    const Eigen::MatrixXd z = fake_quantize(Eigen::MatrixXd::Zero(3, 40), strata::QuantSpec{&f});
    EXPECT_TRUE((z.array() == 0).all()) << f.name;
    const Eigen::MatrixXd w = fake_quantize(row({nan(), 1}), strata::QuantSpec{&f});
    EXPECT_TRUE(std::isnan(w(0, 0))) << f.name;
    EXPECT_NEAR(w(0, 1), 1, 1e-6) << f.name;  // within the scale's own rounding
  }
}

// Quantized data is its own quantization: the scales come back the same because amax comes
// back on the same code. (Not claimed for int16 with FP16 scales, whose 11-bit scale is
// coarser than the 16-bit elements.)
TEST(FakeQuantize, Idempotent) {
  const Eigen::MatrixXd x = gaussian_with_outliers(16, 256, 5);
  std::vector<std::string> specs;
  for (const auto& f : strata::number_formats()) specs.push_back(f.name);
  for (const char* s : {"int8_pc", "int4_pc", "int2_pc", "int8_g32", "int4_g128", "int4_g8", "int2_g16"})
    specs.push_back(s);
  for (const auto& s : specs) {
    const auto q = parse_quant_spec(s);
    const Eigen::MatrixXd once = fake_quantize(x, q);
    EXPECT_TRUE(identical(fake_quantize(once, q), once)) << s;
    if (std::string(s) != "fp64")
      EXPECT_FALSE(identical(once, x)) << s;  // and it did quantize (FP64 holds every double)
  }
}

TEST(FakeQuantize, InvalidSpecThrows) {
  EXPECT_THROW(fake_quantize(Eigen::MatrixXd::Ones(2, 2), strata::QuantSpec{}), std::invalid_argument);
  EXPECT_THROW(
      fake_quantize(Eigen::MatrixXd::Ones(2, 2), strata::QuantSpec{&fmt_of("fp8_e4m3"), strata::Granularity::Channel}),
      std::invalid_argument);
}

// Uniform data on [-1, 1] through a symmetric INTn grid with 2^n - 1 levels: step 2/(2·qmax),
// noise step²/12, signal 1/3, so SQNR = 10·log10(4·qmax²): 48.10 dB for INT8, 22.92 dB for INT4.
// (The familiar 6.02·n + 1.76 dB is for a full-scale sine over 2^n levels, not this case.)
// With 65,536 samples the power estimates each have relative sd sqrt(0.8/65536) = 0.0035, i.e.
// 0.015 dB; the tolerance 0.1 dB is about 5 of the combined sd.
TEST(Sqnr, IntegerGridOnUniformDataMatchesClosedForm) {
  const Eigen::MatrixXd x = uniform(256, 256, -1, 1, 21);
  const double int8 = sqnr_db(x, fake_quantize(x, parse_quant_spec("int8")));
  const double int4 = sqnr_db(x, fake_quantize(x, parse_quant_spec("int4")));
  EXPECT_NEAR(int8, 10 * std::log10(4.0 * 127 * 127), 0.1);
  EXPECT_NEAR(int4, 10 * std::log10(4.0 * 7 * 7), 0.1);
  EXPECT_NEAR(int8, 48.105713158, 1e-6);  // and pinned for this seed
  EXPECT_NEAR(int4, 22.955091505, 1e-6);
}

// Uniform data on [1, 2) sits in one binade, where a float with m mantissa bits has constant
// spacing 2^-m: noise 4^-m/12 against signal 7/3, SQNR = 10·log10(28·4^m): 56.62 dB for BF16
// (m = 7), 32.53 dB for E4M3 (m = 3). Same statistics and tolerance as above.
TEST(Sqnr, FloatInOneBinadeMatchesClosedForm) {
  const Eigen::MatrixXd x = uniform(256, 256, 1, 2, 22);
  EXPECT_NEAR(sqnr_db(x, fake_quantize(x, parse_quant_spec("bf16"))), 10 * std::log10(28.0 * (1 << 14)), 0.1);
  EXPECT_NEAR(sqnr_db(x, fake_quantize(x, parse_quant_spec("fp8_e4m3"))), 10 * std::log10(28.0 * (1 << 6)), 0.1);
  EXPECT_EQ(sqnr_db(x, x), std::numeric_limits<double>::infinity());
  EXPECT_THROW(sqnr_db(x, x.leftCols(3)), std::invalid_argument);
}

// Pinned figures for the default 256×256×256 GEMM (seed 1, 1 % outlier channels at 20×), FP32
// accumulation. The order is the expected one: more bits, finer scales, better.
TEST(GemmError, PinnedSqnrAndOrdering) {
  const auto& fp32 = fmt_of("fp32");
  const auto sqnr = [&](const char* spec) {
    const auto q = parse_quant_spec(spec);
    return gemm_error(q, q, fp32).sqnr_db;
  };
  const double f32 = sqnr("fp32"), bf16 = sqnr("bf16"), e4m3 = sqnr("fp8_e4m3"), mxfp4 = sqnr("mxfp4");
  const double int8 = sqnr("int8"), int8_pc = sqnr("int8_pc");
  EXPECT_NEAR(f32, 147.353301796, 1e-6);
  EXPECT_NEAR(bf16, 52.671312348, 1e-6);
  EXPECT_NEAR(e4m3, 28.463536343, 1e-6);
  EXPECT_NEAR(mxfp4, 13.374569514, 1e-6);
  EXPECT_NEAR(int8, 24.536687011, 1e-6);
  EXPECT_NEAR(int8_pc, 30.747940844, 1e-6);
  EXPECT_GT(f32, bf16);
  EXPECT_GT(bf16, e4m3);
  EXPECT_GT(e4m3, mxfp4);
  EXPECT_GT(int8_pc, int8 + 5);  // per-row scales keep the outlier channels from setting every step
}

TEST(GemmError, OutliersHurtPerTensorIntegers) {
  const auto q = parse_quant_spec("int8");
  GemmErrorOptions calm;
  calm.outlier_fraction = 0;
  const auto with = gemm_error(q, q, fmt_of("fp32"));
  const auto without = gemm_error(q, q, fmt_of("fp32"), calm);
  EXPECT_NEAR(without.sqnr_db, 36.702202547, 1e-6);
  EXPECT_GT(without.sqnr_db, with.sqnr_db + 10);
  EXPECT_NEAR(with.sqnr_db, -20 * std::log10(with.relative_frobenius), 1e-9);
}

TEST(GemmError, AccumulatorPrecisionAndDeterminism) {
  const auto fp32 = parse_quant_spec("fp32");
  GemmErrorOptions small;
  small.m = small.n = 64;
  const auto acc_bf16 = gemm_error(fp32, fp32, fmt_of("bf16"), small);
  const auto acc_fp32 = gemm_error(fp32, fp32, fmt_of("fp32"), small);
  EXPECT_NEAR(acc_bf16.sqnr_db, 55.876789682, 1e-6);  // the output rounding alone
  EXPECT_GT(acc_fp32.sqnr_db, acc_bf16.sqnr_db + 80);

  const auto a = gemm_error(parse_quant_spec("nvfp4"), parse_quant_spec("int4_g32"), fmt_of("fp16"), small);
  const auto b = gemm_error(parse_quant_spec("nvfp4"), parse_quant_spec("int4_g32"), fmt_of("fp16"), small);
  EXPECT_EQ(a.sqnr_db, b.sqnr_db);
  EXPECT_EQ(a.relative_frobenius, b.relative_frobenius);
  small.seed = 2;
  EXPECT_NE(gemm_error(parse_quant_spec("nvfp4"), parse_quant_spec("int4_g32"), fmt_of("fp16"), small).sqnr_db,
            a.sqnr_db);
}

TEST(GemmError, RejectsBadOptions) {
  const auto q = parse_quant_spec("int8");
  EXPECT_THROW(gemm_error(q, q, fmt_of("mxfp4")), std::invalid_argument);
  EXPECT_THROW(gemm_error(q, q, fmt_of("int16")), std::invalid_argument);
  GemmErrorOptions bad;
  bad.k = 0;
  EXPECT_THROW(gemm_error(q, q, fmt_of("fp32"), bad), std::invalid_argument);
  bad = GemmErrorOptions{};
  bad.outlier_fraction = 1.5;
  EXPECT_THROW(gemm_error(q, q, fmt_of("fp32"), bad), std::invalid_argument);
  EXPECT_THROW(gemm_error(strata::QuantSpec{}, q, fmt_of("fp32")), std::invalid_argument);
}
