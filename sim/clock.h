// A clock domain: converts between cycles and SystemC time and rounds times to clock edges.
//
// Edges are at t_n = round(n * 1e15 / f) fs, computed exactly in 128-bit integers, so a 3 GHz
// clock does not drift by a third of a femtosecond per cycle and cycle_at(time_of(n)) == n for
// every n. Requires init_systemc() (1 fs resolution).
//
// A clock may change frequency as it runs (DVFS, retime()): cycles stay numbered on, edges before
// the change keep their times, and edges after it are spaced by the new period from the change's
// edge. A clock that never changes pays one comparison for this.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

namespace strata {

class Clock {
 public:
  // `frequency_hz` is rounded to a whole number of hertz; must be in (0, 1e15].
  explicit Clock(double frequency_hz = 1e9);

  // The frequency now (since the last retime()).
  std::uint64_t frequency_hz() const { return rate_.freq_hz; }
  // From cycle `at` on, the clock runs at `frequency_hz` (same limits as the constructor). `at`
  // must not precede the last change; changing at the last change's own cycle replaces it.
  void retime(std::uint64_t at, double frequency_hz);
  // Seconds to the edge of `cycle` in double precision, unrounded: cycle / f for a clock that
  // never changed (closed-form estimates that count in cycles).
  double seconds_of(std::uint64_t cycle) const;
  // The first cycle whose edge is at or after `seconds` (to a microcycle's rounding):
  // ceil(seconds * f) for a clock that never changed.
  std::uint64_t cycle_at_or_after(double seconds) const;
  // Calls f(frequency_hz, cycles) for each stretch of one frequency over cycles [0, end), in order.
  void for_each_rate(std::uint64_t end, const std::function<void(std::uint64_t hz, std::uint64_t cycles)>& f) const;
  // The cycle the current frequency starts at (0 before any retime()).
  std::uint64_t retimed_at() const { return epoch_cycle_; }
  // Nominal period (edge spacing may differ from it by at most 1 fs because of rounding).
  sc_core::sc_time period() const { return time_of(1); }

  // Time of the rising edge that starts cycle n (cycle 0 starts at t = 0).
  sc_core::sc_time time_of(std::uint64_t cycle) const;
  // The cycle in progress at time t (edges belong to the cycle they start).
  std::uint64_t cycle_at(const sc_core::sc_time& t) const;
  // The first edge at or after t.
  sc_core::sc_time next_edge(const sc_core::sc_time& t) const;
  // The first edge strictly after t (used to move on by at least one cycle).
  sc_core::sc_time edge_after(const sc_core::sc_time& t) const;
  // Whole cycles needed to cover a duration, rounded up.
  std::uint64_t cycles_in(const sc_core::sc_time& duration) const;
  std::uint64_t cycles_in(double seconds) const;

  std::string to_string() const;
  bool operator==(const Clock& o) const { return rate_.freq_hz == o.rate_.freq_hz; }

 private:
  // One frequency, its edges counted from 0 at 0 fs.
  struct Rate {
    explicit Rate(double frequency_hz);
    std::uint64_t freq_hz;
    // The period as a reduced fraction num / den femtoseconds (1.6 GHz: 625000 / 1, 1.2 GHz:
    // 2500000 / 3), so that conversions of times and cycles below the limits (hours of simulated
    // time) use 64-bit arithmetic; past them, the exact 128-bit definition.
    std::uint64_t period_num = 1, period_den = 1;
    std::uint64_t fast_cycles = 0;  // edge_fs(n) is 64-bit below this
    std::uint64_t fast_fs = 0;      // cycle_at(fs) is 64-bit below this
    std::uint64_t edge_fs(std::uint64_t cycle) const;
    std::uint64_t cycle_at(std::uint64_t fs) const;
  };
  // A frequency the clock ran at before its last change, from cycle `cycle` (time `fs`) on.
  struct Segment {
    std::uint64_t cycle, fs;
    Rate rate;
  };
  Rate rate_;
  std::uint64_t epoch_cycle_ = 0, epoch_fs_ = 0;  // where rate_ starts
  std::vector<Segment> past_;                     // earlier frequencies, in order
  std::uint64_t compute_time_of(std::uint64_t cycle) const;
  std::uint64_t compute_cycle_at(const sc_core::sc_time& t) const;
  // The last conversion each way: many events of one timestamp ask for the same cycle (the
  // simulator is single-threaded). cycle_at(0) is 0 and time_of(0) is 0 for every clock.
  mutable std::uint64_t memo_fs_ = 0, memo_cycle_ = 0;
  mutable std::uint64_t memo_edge_cycle_ = 0, memo_edge_fs_ = 0;
};

}  // namespace strata
