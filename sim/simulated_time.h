// The longest time a run can simulate, and the check a model makes before it schedules a time
// it computed (a request's end, the end of a wait).
#pragma once

namespace strata {

class Component;

// The longest simulated time, in seconds. SystemC keeps time as 64-bit femtoseconds
// (sim/kernel.h) and sc_time(seconds, SC_SEC) converts through a signed 64-bit integer, so
// 2^63 fs (9223.37 s) is the last time it represents; a later one silently becomes 2^63 fs, or
// wraps. Every time parameter (the schema's default range for the Time family) and every time a
// model computes is held to this round bound instead.
inline constexpr double kMaxSimulatedSeconds = 9223;

// Whether simulated time `seconds` can be reached (at most kMaxSimulatedSeconds, not NaN). When
// not, the run fails with one line naming `c`'s config node (SimContext::fail: the runner stops
// after its chunk and the CLI exits 2) instead of reporting a saturated time as "complete"; the
// caller then schedules nothing past it.
bool reachable_time(const Component& c, double seconds);

}  // namespace strata
