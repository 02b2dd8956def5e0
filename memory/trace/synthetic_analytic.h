// The analytic fidelity (sim/analytic.h) of the synthetic request patterns: a closed form of
// what a player issuing them (memory/trace_player.h) would see on a memory, from the memory's
// analytic figures (sim/ports.h: sustained bandwidth, the pattern's share of it, unloaded
// latency, queue capacity).
//
// With N requests of R bytes, B = sustained bandwidth x the pattern's share (a stream's or a
// stride's channel and bank-group spread; random requests' row-activation bound), L = the
// memory's unloaded read latency, Q = min(max_outstanding, the requests the memory's queues
// hold + 1) requests in flight:
//     end = max(N / player clock, N R / rate, N R / B, N L / Q) + L
// the issue rate, the offered load, the memory, or the outstanding window, whichever binds,
// plus the last request's latency. Every request reports one latency: Little's law, Q over the
// request rate, when the memory or the window binds; L plus its transfer when the player's
// issue rate or the offered load does. Reads and writes are counted from read_fraction (its
// expectation, exact at 0 and 1); bus turnarounds between them are not modelled.
#pragma once

#include <cstdint>

#include "memory/trace/synthetic_requests.h"
#include "sim/ports.h"

namespace strata {

struct SyntheticAnalytic {
  std::uint64_t reads = 0, writes = 0, bytes = 0;
  double latency_s = 0;    // of every request
  double outstanding = 0;  // requests in flight on average
  double end_s = 0;        // the last response
};

// Counts the requests on `memory` (AnalyticMemory::account_analytic) and returns the player's figures.
SyntheticAnalytic evaluate_synthetic(const SyntheticRequestsConfig& c, std::uint64_t max_outstanding,
                                     AnalyticMemory& memory);

}  // namespace strata
