#include "sim/reuse.h"

#include <algorithm>
#include <stdexcept>

namespace strata {

SpanRepeater::Mark SpanRepeater::mark() const {
  Mark m;
  m.at = sc_core::sc_time_stamp();
  const double now = stats_.reported_time()(m.at.to_seconds());
  for (const auto& [name, stat] : stats_.all()) m.stats.emplace(name, stat->snapshot(now));
  for (const RepeatableTotals* o : owners_) m.totals.push_back(o->reuse_totals(m.at));
  return m;
}

void SpanRepeater::repeat(const Mark& since, double times, const std::function<void()>& carry) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (now < since.at) throw std::logic_error("span repeat: the mark is in the future");
  if (times <= 0) return;
  for (Listener* l : listeners_) l->before_repeat();
  ReportedTime& time = stats_.reported_time();
  // In reported time: a span may hold repeats of its own (a sampled kernel in a repeated layer).
  const sc_core::sc_time span = (time(now) - time(since.at)) * times;
  const double now_s = time(now.to_seconds());
  const double span_s = span.to_seconds();
  // A statistic registered within the span has no earlier state: it is left as it is.
  for (const auto& [name, stat] : stats_.all())
    if (auto it = since.stats.find(name); it != since.stats.end()) stat->repeat(*it->second, times, now_s, span_s);
  for (std::size_t i = 0; i < owners_.size() && i < since.totals.size(); ++i)
    owners_[i]->repeat_totals(since.totals[i], times, now);
  if (carry) carry();
  time.insert(now, span);
  for (Listener* l : listeners_) l->after_repeat();
}

void SpanRepeater::forget(Listener* l) {
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), l), listeners_.end());
}

}  // namespace strata
