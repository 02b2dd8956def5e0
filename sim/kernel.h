// Process-wide SystemC setup that every Strata program (the CLI, each test binary) performs
// once, before any sc_time or module exists.
#pragma once

#include <cstdint>

#include <systemc>

namespace strata {

// Femtoseconds per second; SystemC's time resolution in Strata is 1 fs so that clock periods
// such as 1/3 GHz are represented to within 1 fs and cycle<->time conversion is exact integer
// arithmetic (see Clock).
inline constexpr std::uint64_t kFemtosecondsPerSecond = 1'000'000'000'000'000ULL;

// The same double as t.to_seconds() (SystemC multiplies the value by the resolution in fs, 1,
// then by 1e-15), inline: to_seconds() goes through the simulation context, and it is on every
// request's path (statistics sample times and latencies in seconds).
inline double to_seconds(const sc_core::sc_time& t) { return static_cast<double>(t.value()) * 1.0 * 1e-15; }

// Sets the time resolution to 1 fs, silences the SystemC banner and routes SystemC's own
// reports so that an error inside the kernel becomes a C++ exception, not an abort. Idempotent.
void init_systemc();

}  // namespace strata
