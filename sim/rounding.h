// Ceilings and floors shared by the timing models, mappers and number formats.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace strata {

// ⌈a / b⌉ for a >= 0, b > 0, in the width and signedness of the arguments.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
// a rounded up to a multiple of b.
constexpr std::uint64_t round_up(std::uint64_t a, std::uint64_t b) { return ceil_div(a, b) * b; }

// x rounded to the nearest integer when it is one up to floating-point noise (K / rate with
// rate = 1.5, cycles / 0.1, ...), so that ceil and floor do not step past an exact result.
inline double snap(double x) {
  const double r = std::round(x);
  return std::abs(x - r) <= 1e-9 * std::max(1.0, std::abs(x)) ? r : x;
}
inline std::uint64_t ceil_snap(double x) { return static_cast<std::uint64_t>(std::ceil(snap(x))); }
inline std::uint64_t floor_snap(double x) { return static_cast<std::uint64_t>(std::floor(snap(x))); }

}  // namespace strata
