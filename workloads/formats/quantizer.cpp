#include "workloads/formats/quantizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace strata {

namespace {

using Index = Eigen::Index;

// `q` (>= 0, in units of the spacing) rounded to an integer.
double round_units(double q, Rounding r, double u) {
  const double below = std::floor(q);
  const double fraction = q - below;  // exact: below 2^53 q has bits after the point, above none
  if (r == Rounding::Stochastic) return u < fraction ? below + 1 : below;
  if (fraction != 0.5) return fraction < 0.5 ? below : below + 1;
  return std::fmod(below, 2.0) == 0 ? below : below + 1;
}

int floor_log2(double a) {  // a > 0 and finite
  int e = 0;
  std::frexp(a, &e);  // a = m·2^e with m in [0.5, 1)
  return e - 1;
}

const NumberFormat& format_named(const char* name) { return *find_number_format(name); }

// A positive scale rounded up to `f`, so that amax / scale never exceeds the element maximum.
// Stochastic rounding with u = 0 goes up whenever the value is not representable: a ceiling.
double scale_up(double s, const NumberFormat& f) { return round_to_element(s, f, Rounding::Stochastic, 0.0); }

// Supplies the `u` of round_to_element: one draw per element when rounding stochastically.
class Rounder {
 public:
  explicit Rounder(const QuantizeOptions& opt) : mode_(opt.rounding) {
    if (mode_ == Rounding::Stochastic) rng_.emplace(opt.seed);
  }
  double operator()(double v, const NumberFormat& f) {
    const double u = rng_ ? uniform_(*rng_) : 0.5;
    return round_to_element(v, f, mode_, u);
  }

 private:
  Rounding mode_;
  std::optional<boost::random::mt19937_64> rng_;
  boost::random::uniform_01<double> uniform_;
};

double abs_max(const Eigen::MatrixXd& x, Index row, Index begin, Index end) {
  double m = 0;
  for (Index c = begin; c < end; ++c) m = std::max(m, std::fabs(x(row, c)));  // NaN is skipped
  return m;
}

// The elements x(row, begin..end) quantized as round(v / d) · d; d == 0 flushes them to zero.
void quantize_span(const Eigen::MatrixXd& x, Eigen::MatrixXd& y, Index row, Index begin, Index end, double d,
                   const NumberFormat& element, Rounder& round) {
  for (Index c = begin; c < end; ++c) {
    const double v = x(row, c);
    const double q = round(d == 0 ? 0.0 : v / d, element);
    y(row, c) = std::isnan(v) ? v : q * d;
  }
}

// Spans of `span` elements along each row, each with the scale scale_of(amax of the span).
template <class ScaleOf>
void quantize_spans(const Eigen::MatrixXd& x, Eigen::MatrixXd& y, Index span, const NumberFormat& element,
                    Rounder& round, ScaleOf scale_of) {
  for (Index r = 0; r < x.rows(); ++r)
    for (Index b = 0; b < x.cols(); b += span) {
      const Index e = std::min(x.cols(), b + span);
      quantize_span(x, y, r, b, e, scale_of(abs_max(x, r, b, e)), element, round);
    }
}

// OCP MX v1.0: the E8M0 scale is the power of two that puts amax in the element's top binade.
double mx_scale(double amax, const NumberFormat& f) {
  if (amax == 0 || !std::isfinite(amax)) return amax == 0 ? 1.0 : std::ldexp(1.0, 127);
  const int shared = floor_log2(amax) - floor_log2(f.max_finite);
  return std::ldexp(1.0, std::clamp(shared, -127, 127));
}

}  // namespace

double round_to_element(double x, const NumberFormat& f, Rounding r, double u) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::copysign(f.max_finite, x);
  const double a = std::fabs(x);
  if (a == 0) return x;
  double spacing = f.min_subnormal;  // integer elements: a uniform grid
  if (f.kind == FormatKind::Float || (f.kind == FormatKind::Block && !f.int_elements)) {
    const int min_exponent = 1 - f.bias;  // below it the spacing stays that of the subnormals
    spacing = std::ldexp(1.0, std::max(floor_log2(a), min_exponent) - f.mantissa_bits);
  }
  const double m = std::min(round_units(a / spacing, r, u) * spacing, f.max_finite);
  return std::copysign(m, x);
}

Eigen::MatrixXd fake_quantize(const Eigen::MatrixXd& x, const QuantSpec& q, const QuantizeOptions& opt) {
  check_quant_spec(q);
  const NumberFormat& f = *q.format;
  Eigen::MatrixXd y(x.rows(), x.cols());
  Rounder round(opt);
  const Index cols = std::max<Index>(x.cols(), 1);
  const auto tensor_amax = [&] {
    double m = 0;
    for (Index r = 0; r < x.rows(); ++r) m = std::max(m, abs_max(x, r, 0, x.cols()));
    return m;
  };

  switch (f.kind) {
    case FormatKind::Float:
      quantize_spans(x, y, cols, f, round, [](double) { return 1.0; });
      break;
    case FormatKind::Int: {
      if (q.granularity == Granularity::Tensor) {
        const double s = scale_up(tensor_amax() / f.max_finite, format_named("fp32"));
        quantize_spans(x, y, cols, f, round, [s](double) { return s; });
        break;
      }
      const Index span = q.granularity == Granularity::Channel ? cols : q.group;
      const NumberFormat& fp16 = format_named("fp16");
      quantize_spans(x, y, span, f, round, [&](double amax) { return scale_up(amax / f.max_finite, fp16); });
      break;
    }
    case FormatKind::Block: {
      if (f.scale_format == "e8m0") {
        quantize_spans(x, y, f.block_size, f, round, [&](double amax) { return mx_scale(amax, f); });
        break;
      }
      // NVFP4: the FP32 tensor scale maps amax onto the top of the E4M3 block-scale range.
      const NumberFormat& e4m3 = format_named("fp8_e4m3");
      const double s = round_to_element(tensor_amax() / (e4m3.max_finite * f.max_finite), format_named("fp32"));
      quantize_spans(x, y, f.block_size, f, round,
                     [&](double amax) { return s == 0 ? 0.0 : round_to_element(amax / (f.max_finite * s), e4m3) * s; });
      break;
    }
  }
  return y;
}

double sqnr_db(const Eigen::MatrixXd& ref, const Eigen::MatrixXd& approx) {
  if (ref.rows() != approx.rows() || ref.cols() != approx.cols())
    throw std::invalid_argument(
        fmt::format("sqnr_db: shapes {}x{} and {}x{} differ", ref.rows(), ref.cols(), approx.rows(), approx.cols()));
  // Plain loops, not Eigen's SIMD reductions, so that the sum order is the same on any host.
  double signal = 0, noise = 0;
  for (Index i = 0; i < ref.size(); ++i) {
    const double r = ref.data()[i], d = r - approx.data()[i];
    signal += r * r;
    noise += d * d;
  }
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10 * std::log10(signal / noise);
}

}  // namespace strata
