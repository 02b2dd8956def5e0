#include "workloads/formats/gemm_error.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "workloads/formats/quantizer.h"

namespace strata {

namespace {

using Index = Eigen::Index;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A·B summed in a fixed order (four interleaved partial sums, then combined), so the bits do
// not depend on the host. Row-major A and column-major B keep both inner walks contiguous.
Eigen::MatrixXd product(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  const RowMajor ar = a;
  const Index k = a.cols();
  Eigen::MatrixXd c(a.rows(), b.cols());
  for (Index i = 0; i < a.rows(); ++i) {
    const double* x = ar.data() + i * k;
    for (Index j = 0; j < b.cols(); ++j) {
      const double* y = b.data() + j * k;
      double s[4] = {0, 0, 0, 0};
      Index p = 0;
      for (; p + 4 <= k; p += 4)
        for (int l = 0; l < 4; ++l) s[l] += x[p + l] * y[p + l];
      for (; p < k; ++p) s[0] += x[p] * y[p];
      c(i, j) = (s[0] + s[1]) + (s[2] + s[3]);
    }
  }
  return c;
}

// Σ (a - b)² in column-major order (b null: Σ a²); plain loops for the same reason as product().
double sum_squares(const Eigen::MatrixXd& a, const Eigen::MatrixXd* b = nullptr) {
  double s = 0;
  for (Index i = 0; i < a.size(); ++i) {
    const double d = a.data()[i] - (b ? b->data()[i] : 0.0);
    s += d * d;
  }
  return s;
}

void check_options(const NumberFormat& accumulate, const GemmErrorOptions& opt) {
  if (accumulate.kind != FormatKind::Float)
    throw std::invalid_argument(
        fmt::format("gemm_error: accumulate format {} is not a floating-point format", accumulate.name));
  if (opt.m < 1 || opt.n < 1 || opt.k < 1)
    throw std::invalid_argument(fmt::format("gemm_error: sizes m={} n={} k={} must be positive", opt.m, opt.n, opt.k));
  if (!(opt.outlier_fraction >= 0 && opt.outlier_fraction <= 1) || !(opt.outlier_scale >= 0))
    throw std::invalid_argument(fmt::format("gemm_error: outlier_fraction {} must be in [0, 1], outlier_scale {} >= 0",
                                            opt.outlier_fraction, opt.outlier_scale));
}

}  // namespace

GemmError gemm_error(const QuantSpec& a, const QuantSpec& b, const NumberFormat& accumulate,
                     const GemmErrorOptions& opt) {
  check_quant_spec(a);
  check_quant_spec(b);
  check_options(accumulate, opt);

  boost::random::mt19937_64 rng(opt.seed);
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  // Draw order is part of the result: A row by row, the outlier columns, then B row by row.
  Eigen::MatrixXd A(opt.m, opt.k), B(opt.k, opt.n);
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < A.cols(); ++j) A(i, j) = normal(rng);
  std::vector<int> columns(static_cast<size_t>(opt.k));
  std::iota(columns.begin(), columns.end(), 0);
  const auto outliers = static_cast<int>(std::lround(opt.outlier_fraction * opt.k));
  for (int i = 0; i < outliers; ++i) {  // the first `outliers` steps of a Fisher-Yates shuffle
    boost::random::uniform_int_distribution<int> pick(i, opt.k - 1);
    std::swap(columns[static_cast<size_t>(i)], columns[static_cast<size_t>(pick(rng))]);
    A.col(columns[static_cast<size_t>(i)]) *= opt.outlier_scale;
  }
  const double weight_std = 1.0 / std::sqrt(static_cast<double>(opt.k));
  for (Index i = 0; i < B.rows(); ++i)
    for (Index j = 0; j < B.cols(); ++j) B(i, j) = normal(rng) * weight_std;

  const Eigen::MatrixXd reference = product(A, B);
  const Eigen::MatrixXd bq = fake_quantize(B.transpose(), b).transpose();
  Eigen::MatrixXd c = product(fake_quantize(A, a), bq);
  c = c.unaryExpr([&](double v) { return round_to_element(v, accumulate); });

  const double noise = sum_squares(reference, &c), signal = sum_squares(reference);
  if (noise == 0) return {std::numeric_limits<double>::infinity(), 0.0};
  return {10 * std::log10(signal / noise), std::sqrt(noise / signal)};
}

}  // namespace strata
