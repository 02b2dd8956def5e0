#include "memory/trace/synthetic_analytic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata {

SyntheticAnalytic evaluate_synthetic(const SyntheticRequestsConfig& c, std::uint64_t max_outstanding,
                                     AnalyticMemory& memory) {
  SyntheticAnalytic a;
  const auto n = static_cast<double>(c.count);
  const double bytes = static_cast<double>(c.request_bytes);
  a.writes = static_cast<std::uint64_t>(std::llround(n * (1 - c.read_fraction)));
  a.reads = c.count - a.writes;
  a.bytes = c.count * c.request_bytes;

  // The pattern as the memory sees it: one request per row.
  AnalyticTransfer t;
  t.address = c.base;
  t.row_bytes = c.request_bytes;
  t.stride = c.pattern == SyntheticPattern::Strided ? c.stride : c.request_bytes;
  t.random = c.pattern == SyntheticPattern::Random;
  t.request_align = std::numeric_limits<std::uint64_t>::max();  // a request is a row
  t.rows = c.count;
  const double bandwidth = memory.sustained_bandwidth() * memory.bandwidth_share(t);
  const double latency = memory.unloaded_latency(false);
  const double in_flight =
      static_cast<double>(std::min<std::uint64_t>(max_outstanding, memory.queue_requests(c.request_bytes) + 1));

  const double issue = c.clock_hz > 0 ? n / c.clock_hz : 0;
  const double offered = c.rate > 0 ? n * bytes / c.rate : 0;
  const double served = n * bytes / bandwidth;
  const double window = n * latency / in_flight;
  const double body = std::max({issue, offered, served, window});
  a.end_s = body + latency;
  const bool saturated = served >= std::max(issue, offered) || window >= std::max(issue, offered);
  a.latency_s = saturated && body > 0 ? std::max(latency, in_flight * body / n) : latency + bytes / bandwidth;
  a.outstanding = a.end_s > 0 ? a.latency_s * n / a.end_s : 0;

  for (const bool write : {false, true}) {
    const std::uint64_t rows = write ? a.writes : a.reads;
    if (rows == 0) continue;
    AnalyticTransfer part = t;
    part.rows = rows;
    part.requests = rows;
    part.write = write;
    part.start_s = 0;
    part.end_s = a.end_s;
    memory.account_analytic(part);
  }
  return a;
}

}  // namespace strata
