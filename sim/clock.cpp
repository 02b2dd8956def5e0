#include "sim/clock.h"

#include <algorithm>
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

Clock::Rate::Rate(double frequency_hz) {
  if (!(frequency_hz > 0) || frequency_hz > 1e15)
    throw std::invalid_argument("clock frequency must be in (0 Hz, 1 PHz]");
  freq_hz = static_cast<std::uint64_t>(std::llround(frequency_hz));
  if (freq_hz == 0) freq_hz = 1;
  const std::uint64_t g = std::gcd(kFemtosecondsPerSecond, freq_hz);
  period_num = kFemtosecondsPerSecond / g;
  period_den = freq_hz / g;
  fast_cycles = (UINT64_MAX - period_den / 2) / period_num;
  fast_fs = UINT64_MAX / period_den;
}

std::uint64_t Clock::Rate::edge_fs(std::uint64_t cycle) const {
  if (cycle >= fast_cycles) return static_cast<std::uint64_t>(exact_edge_fs(cycle, freq_hz));
  // round(n * num / den): the same integer as the exact definition, whose numerator and
  // denominator are these times gcd(1e15, f).
  if (period_den == 1) return cycle * period_num;
  return (cycle * period_num + period_den / 2) / period_den;
}

std::uint64_t Clock::Rate::cycle_at(std::uint64_t fs) const {
  // Largest n with edge_fs(n) <= fs. Start from the floor estimate and correct for the rounding
  // in edge_fs, which can move an edge by at most half a femtosecond either way.
  if (fs < fast_fs) {
    if (period_den == 1) return fs / period_num;
    std::uint64_t n = fs * period_den / period_num;
    while (edge_fs(n + 1) <= fs) ++n;
    while (n > 0 && edge_fs(n) > fs) --n;
    return n;
  }
  // Near the end of representable time: edges in 128 bits, so that none wraps around.
  u128 n = static_cast<u128>(fs) * freq_hz / kFs;
  while (exact_edge_fs(n + 1, freq_hz) <= fs) ++n;
  while (n > 0 && exact_edge_fs(n, freq_hz) > fs) --n;
  return static_cast<std::uint64_t>(n);
}

Clock::Clock(double frequency_hz) : rate_(frequency_hz) {}

void Clock::retime(std::uint64_t at, double frequency_hz) {
  if (at < epoch_cycle_) throw std::invalid_argument("a clock changes frequency only after its last change");
  Rate next(frequency_hz);
  const std::uint64_t fs = compute_time_of(at);
  if (at > epoch_cycle_) past_.push_back(Segment{epoch_cycle_, epoch_fs_, rate_});
  rate_ = next;
  epoch_cycle_ = at;
  epoch_fs_ = fs;
  memo_fs_ = memo_cycle_ = memo_edge_cycle_ = memo_edge_fs_ = 0;  // both pairs hold at 0
}

double Clock::seconds_of(std::uint64_t cycle) const {
  if (cycle >= epoch_cycle_)
    return static_cast<double>(epoch_fs_) / 1e15 +
           static_cast<double>(cycle - epoch_cycle_) / static_cast<double>(rate_.freq_hz);
  return static_cast<double>(compute_time_of(cycle)) / 1e15;
}

std::uint64_t Clock::cycle_at_or_after(double seconds) const {
  const double epoch_s = static_cast<double>(epoch_fs_) / 1e15;
  if (epoch_cycle_ == 0 || seconds >= epoch_s)
    return epoch_cycle_ + static_cast<std::uint64_t>(std::max(
                              0.0, std::ceil((seconds - epoch_s) * static_cast<double>(rate_.freq_hz) - 1e-6)));
  const std::uint64_t n =
      cycle_at(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(seconds * 1e15))));
  return time_of(n).to_seconds() < seconds ? n + 1 : n;
}

void Clock::for_each_rate(std::uint64_t end,
                          const std::function<void(std::uint64_t hz, std::uint64_t cycles)>& f) const {
  for (std::size_t i = 0; i < past_.size(); ++i) {
    const std::uint64_t next = i + 1 < past_.size() ? past_[i + 1].cycle : epoch_cycle_;
    if (end <= past_[i].cycle) return;
    f(past_[i].rate.freq_hz, std::min(end, next) - past_[i].cycle);
  }
  if (end > epoch_cycle_) f(rate_.freq_hz, end - epoch_cycle_);
}

std::uint64_t Clock::compute_time_of(std::uint64_t cycle) const {
  if (cycle >= epoch_cycle_) return epoch_fs_ + rate_.edge_fs(cycle - epoch_cycle_);
  const auto s = std::prev(std::upper_bound(past_.begin(), past_.end(), cycle,
                                            [](std::uint64_t c, const Segment& g) { return c < g.cycle; }));
  return s->fs + s->rate.edge_fs(cycle - s->cycle);
}

sc_core::sc_time Clock::time_of(std::uint64_t cycle) const {
  if (cycle != memo_edge_cycle_) {
    memo_edge_cycle_ = cycle;
    memo_edge_fs_ = compute_time_of(cycle);
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
  const std::uint64_t fs = t.value();
  if (fs >= epoch_fs_) return epoch_cycle_ + rate_.cycle_at(fs - epoch_fs_);
  const auto s = std::prev(
      std::upper_bound(past_.begin(), past_.end(), fs, [](std::uint64_t f, const Segment& g) { return f < g.fs; }));
  return s->cycle + s->rate.cycle_at(fs - s->fs);
}

sc_core::sc_time Clock::next_edge(const sc_core::sc_time& t) const {
  const std::uint64_t n = cycle_at(t);
  const sc_core::sc_time edge = time_of(n);
  return edge == t ? edge : time_of(n + 1);
}

sc_core::sc_time Clock::edge_after(const sc_core::sc_time& t) const { return time_of(cycle_at(t) + 1); }

std::uint64_t Clock::cycles_in(const sc_core::sc_time& duration) const {
  // Smallest n with edge_fs(n) >= duration at the current frequency, so that it maps back to n.
  const std::uint64_t fs = duration.value();
  std::uint64_t n = rate_.cycle_at(fs);
  if (rate_.edge_fs(n) < fs) ++n;
  return n;
}

std::uint64_t Clock::cycles_in(double seconds) const {
  if (!(seconds > 0)) return 0;
  return cycles_in(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(seconds * 1e15))));
}

std::string Clock::to_string() const {
  return format_quantity(static_cast<double>(rate_.freq_hz), UnitFamily::Frequency);
}

}  // namespace strata
