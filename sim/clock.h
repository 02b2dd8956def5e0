// A clock domain: converts between cycles and SystemC time and rounds times to clock edges.
//
// Edges are at t_n = round(n * 1e15 / f) fs, computed exactly in 128-bit integers, so a 3 GHz
// clock does not drift by a third of a femtosecond per cycle and cycle_at(time_of(n)) == n for
// every n. Requires init_systemc() (1 fs resolution).
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

namespace strata {

class Clock {
 public:
  // `frequency_hz` is rounded to a whole number of hertz; must be in (0, 1e15].
  explicit Clock(double frequency_hz = 1e9);

  std::uint64_t frequency_hz() const { return freq_hz_; }
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
  bool operator==(const Clock& o) const { return freq_hz_ == o.freq_hz_; }

 private:
  std::uint64_t freq_hz_;
  // The period as a reduced fraction num / den femtoseconds (1.6 GHz: 625000 / 1, 1.2 GHz:
  // 2500000 / 3), so that conversions of times and cycles below the limits (hours of simulated
  // time) use 64-bit arithmetic; past them, the exact 128-bit definition.
  std::uint64_t period_num_ = 1, period_den_ = 1;
  std::uint64_t fast_cycles_ = 0;  // time_of(n) is 64-bit below this
  std::uint64_t fast_fs_ = 0;      // cycle_at(t) and cycles_in(t) are 64-bit below this
  std::uint64_t compute_cycle_at(const sc_core::sc_time& t) const;
  // The last conversion each way: many events of one timestamp ask for the same cycle (the
  // simulator is single-threaded). cycle_at(0) is 0 and time_of(0) is 0 for every clock.
  mutable std::uint64_t memo_fs_ = 0, memo_cycle_ = 0;
  mutable std::uint64_t memo_edge_cycle_ = 0, memo_edge_fs_ = 0;
};

}  // namespace strata
