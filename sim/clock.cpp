#include "sim/clock.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "sim/kernel.h"
#include "sim/units.h"

namespace strata {
namespace {
using u128 = unsigned __int128;
constexpr u128 kFs = kFemtosecondsPerSecond;

// The definition of the clock's edges: t_n = round(n * 1e15 / f) femtoseconds, in 128 bits.
u128 exact_edge_fs(u128 n, std::uint64_t freq_hz) { return (n * kFs + freq_hz / 2) / freq_hz; }
}  // namespace

Clock::Clock(double frequency_hz) {
  if (!(frequency_hz > 0) || frequency_hz > 1e15)
    throw std::invalid_argument("clock frequency must be in (0 Hz, 1 PHz]");
  freq_hz_ = static_cast<std::uint64_t>(std::llround(frequency_hz));
  if (freq_hz_ == 0) freq_hz_ = 1;
  const std::uint64_t g = std::gcd(kFemtosecondsPerSecond, freq_hz_);
  period_num_ = kFemtosecondsPerSecond / g;
  period_den_ = freq_hz_ / g;
  fast_cycles_ = (UINT64_MAX - period_den_ / 2) / period_num_;
  fast_fs_ = UINT64_MAX / period_den_;
}

sc_core::sc_time Clock::time_of(std::uint64_t cycle) const {
  if (cycle >= fast_cycles_)
    return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(exact_edge_fs(cycle, freq_hz_)));
  // round(n * num / den): the same integer as the exact definition, whose numerator and
  // denominator are these times gcd(1e15, f).
  if (period_den_ == 1) return sc_core::sc_time::from_value(cycle * period_num_);
  if (cycle != memo_edge_cycle_) {
    memo_edge_cycle_ = cycle;
    memo_edge_fs_ = (cycle * period_num_ + period_den_ / 2) / period_den_;
  }
  return sc_core::sc_time::from_value(memo_edge_fs_);
}

std::uint64_t Clock::cycle_at(const sc_core::sc_time& t) const {
  if (t.value() != memo_fs_) {
    memo_fs_ = t.value();
    memo_cycle_ = compute_cycle_at(t);
  }
  return memo_cycle_;
}

std::uint64_t Clock::compute_cycle_at(const sc_core::sc_time& t) const {
  // Largest n with time_of(n) <= t. Start from the floor estimate and correct for the rounding
  // in time_of, which can move an edge by at most half a femtosecond either way.
  if (t.value() < fast_fs_) {
    if (period_den_ == 1) return t.value() / period_num_;
    std::uint64_t n = t.value() * period_den_ / period_num_;
    while (time_of(n + 1) <= t) ++n;
    while (n > 0 && time_of(n) > t) --n;
    return n;
  }
  // Near the end of representable time: edges in 128 bits, so that none wraps around.
  u128 n = static_cast<u128>(t.value()) * freq_hz_ / kFs;
  while (exact_edge_fs(n + 1, freq_hz_) <= t.value()) ++n;
  while (n > 0 && exact_edge_fs(n, freq_hz_) > t.value()) --n;
  return static_cast<std::uint64_t>(n);
}

sc_core::sc_time Clock::next_edge(const sc_core::sc_time& t) const {
  const std::uint64_t n = cycle_at(t);
  const sc_core::sc_time edge = time_of(n);
  return edge == t ? edge : time_of(n + 1);
}

sc_core::sc_time Clock::edge_after(const sc_core::sc_time& t) const { return time_of(cycle_at(t) + 1); }

std::uint64_t Clock::cycles_in(const sc_core::sc_time& duration) const {
  // Smallest n with time_of(n) >= duration, so that time_of(n) maps back to exactly n.
  std::uint64_t n = cycle_at(duration);
  if (time_of(n) < duration) ++n;
  return n;
}

std::uint64_t Clock::cycles_in(double seconds) const {
  if (!(seconds > 0)) return 0;
  return cycles_in(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(seconds * 1e15))));
}

std::string Clock::to_string() const { return format_quantity(static_cast<double>(freq_hz_), UnitFamily::Frequency); }

}  // namespace strata
