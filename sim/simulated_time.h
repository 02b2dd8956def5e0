// The longest time a run can simulate (a model checks a time it computed against it with
// reachable_time, sim/component.h).
#pragma once

namespace strata {

// The longest simulated time, in seconds. SystemC keeps time as 64-bit femtoseconds
// (sim/kernel.h) and sc_time(seconds, SC_SEC) converts through a signed 64-bit integer, so
// 2^63 fs (9223.37 s) is the last time it represents; a later one silently becomes 2^63 fs, or
// wraps. Every time parameter (the schema's default range for the Time family) and every time a
// model computes is held to this round bound instead.
inline constexpr double kMaxSimulatedSeconds = 9223;

}  // namespace strata
