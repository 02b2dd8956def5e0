// sim.reuse: identical work simulated once. A model that knows a span of its run repeats (an NPU
// running the identical layers of a transformer) marks the span's start and, at its end, asks
// for `times` repeats: every statistic and every component's own totals gain `times` copies of
// what the span added, and reported time gains `times` spans (sim/reported_time.h), as if the
// repeats had run right after the span. The kernel never simulates them.
//
// What it cannot carry over is state: the repeats are copies of the measured span, which began
// in the state its predecessor left (open DRAM rows, queue contents, the refresh phase), and
// what follows the repeats starts from the state the measured span ended in. docs/performance.md
// says how far results move.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "sim/stats.h"

namespace strata {

// Totals kept outside the statistics that a repeat must carry too (every Component is one:
// sim/component.h says what they are).
class RepeatableTotals {
 public:
  virtual ~RepeatableTotals() = default;
  virtual std::vector<double> reuse_totals(const sc_core::sc_time& now) const = 0;
  virtual void repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time& now) = 0;
};

class SpanRepeater {
 public:
  // The state of every statistic and component total at the start of a span.
  struct Mark {
    sc_core::sc_time at;
    std::map<std::string, std::unique_ptr<Stat>> stats;
    std::vector<std::vector<double>> totals;  // per tracked owner, in the order they were tracked
  };
  // Something that keeps running figures of its own across a repeat (the power monitor's last
  // sample of dynamic energy).
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void before_repeat() = 0;
    virtual void after_repeat() = 0;
  };

  explicit SpanRepeater(StatsRegistry& stats) : stats_(stats) {}
  // `owner`'s totals are carried by every later repeat (a component, as it is made).
  void track(RepeatableTotals* owner) { owners_.push_back(owner); }
  // Marks now (sc_time_stamp()) as the start of a span.
  Mark mark() const;
  // The span from `since` to now repeats `times` more times.
  // `times` may be fractional: sim.sample counts a measured part of a kernel for the rest of it.
  // `carry` adds what the caller keeps outside statistics and tracked totals (a GPU's reused
  // SM counts): it runs within the repeat, so that listeners see it as the repeat's.
  void repeat(const Mark& since, double times, const std::function<void()>& carry = {});
  void listen(Listener* l) { listeners_.push_back(l); }
  void forget(Listener* l);

 private:
  StatsRegistry& stats_;
  std::vector<RepeatableTotals*> owners_;
  std::vector<Listener*> listeners_;
};

}  // namespace strata
