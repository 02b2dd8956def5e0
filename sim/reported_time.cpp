#include "sim/reported_time.h"

#include <stdexcept>

namespace strata {

double ReportedTime::shift_before(double t_s) const {
  for (auto it = cuts_.rbegin(); it != cuts_.rend(); ++it)
    if (it->at_s <= t_s) return it->total_s;
  return 0;
}

sc_core::sc_time ReportedTime::operator()(const sc_core::sc_time& t) const {
  for (auto it = cuts_.rbegin(); it != cuts_.rend(); ++it)
    if (it->at <= t) return t + it->total;
  return t;
}

void ReportedTime::insert(const sc_core::sc_time& at, const sc_core::sc_time& span) {
  if (!cuts_.empty() && at < cuts_.back().at) throw std::logic_error("reported time: spans inserted out of order");
  Cut c;
  c.at = at;
  c.total = inserted() + span;
  c.at_s = at.to_seconds();
  c.total_s = c.total.to_seconds();
  cuts_.push_back(c);
}

}  // namespace strata
