// Reported time: simulated time with the spans sim.reuse left out put back in (sim/reuse.h).
// With reuse a measured span of work runs once in the kernel and the results count it again for
// each identical repeat, as if the repeats had run right after it. Every statistic, timeline
// event and result reads in reported time; without reuse it is the simulated time itself.
#pragma once

#include <vector>

#include <systemc>

namespace strata {

class ReportedTime {
 public:
  // The reported time of simulated instant `t`: later than `t` by every span inserted at or
  // before it.
  double operator()(double t_s) const { return cuts_.empty() ? t_s : t_s + shift_before(t_s); }
  sc_core::sc_time operator()(const sc_core::sc_time& t) const;
  // `span` of reported time follows simulated instant `at` (later than every earlier insertion).
  void insert(const sc_core::sc_time& at, const sc_core::sc_time& span);
  // All the time inserted so far.
  sc_core::sc_time inserted() const { return cuts_.empty() ? sc_core::SC_ZERO_TIME : cuts_.back().total; }

 private:
  struct Cut {
    sc_core::sc_time at, total;  // the instant, and the time inserted up to and including it
    double at_s = 0, total_s = 0;
  };
  double shift_before(double t_s) const;
  std::vector<Cut> cuts_;
};

}  // namespace strata
