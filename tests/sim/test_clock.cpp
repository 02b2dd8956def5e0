#include <gtest/gtest.h>

#include "sim/clock.h"

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_PS;
using strata::Clock;

TEST(Clock, PeriodAndConversions) {
  const Clock c(1.6e9);
  EXPECT_EQ(c.frequency_hz(), 1600000000u);
  EXPECT_EQ(c.period(), sc_time(625, SC_PS));
  EXPECT_EQ(c.time_of(8), sc_time(5, SC_NS));
  EXPECT_EQ(c.cycle_at(sc_time(5, SC_NS)), 8u);
  EXPECT_EQ(c.cycle_at(sc_time(5624, SC_PS)), 8u);   // inside cycle 8
  EXPECT_EQ(c.cycle_at(sc_time(5625, SC_PS)), 9u);   // the edge belongs to the cycle it starts
  EXPECT_EQ(c.cycles_in(sc_time(27.5, SC_NS)), 44u);  // DDR4-3200 tRCD + CL
  EXPECT_EQ(c.cycles_in(sc_time(27.6, SC_NS)), 45u);  // rounds up
  EXPECT_EQ(c.cycles_in(27.5e-9), 44u);
  EXPECT_EQ(c.to_string(), "1.6 GHz");
}

TEST(Clock, EdgeAlignment) {
  const Clock c(1e9);
  EXPECT_EQ(c.next_edge(sc_time(3, SC_NS)), sc_time(3, SC_NS));
  EXPECT_EQ(c.next_edge(sc_time(3001, SC_PS)), sc_time(4, SC_NS));
  EXPECT_EQ(c.edge_after(sc_time(3, SC_NS)), sc_time(4, SC_NS));
  EXPECT_EQ(c.next_edge(sc_core::SC_ZERO_TIME), sc_core::SC_ZERO_TIME);
}

TEST(Clock, NonIntegerPeriodDoesNotDrift) {
  // 3 GHz: 333,333.33 fs per cycle. After a billion cycles the edge must be exactly 1/3 s away
  // (to the femtosecond), not a billion rounding errors off.
  const Clock c(3e9);
  EXPECT_EQ(c.time_of(3'000'000'000ULL), sc_time(1, sc_core::SC_SEC));
  EXPECT_EQ(c.time_of(1'000'000'000ULL).value(), 333'333'333'333'333ULL);
  for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 1000ULL, 123456789ULL, 999999999999ULL}) {
    EXPECT_EQ(c.cycle_at(c.time_of(n)), n);
    EXPECT_EQ(c.cycles_in(c.time_of(n)), n);
    EXPECT_EQ(c.next_edge(c.time_of(n)), c.time_of(n));
    EXPECT_EQ(c.edge_after(c.time_of(n)), c.time_of(n + 1));
  }
}

TEST(Clock, RejectsImpossibleFrequencies) {
  EXPECT_THROW(Clock(0), std::invalid_argument);
  EXPECT_THROW(Clock(-1e9), std::invalid_argument);
  EXPECT_THROW(Clock(2e15), std::invalid_argument);
}

// A whole-femtosecond period (1.6 GHz: 625,000 fs) takes the 64-bit path; it must agree with
// the exact 128-bit definition (t_n = round(n * 1e15 / f)) everywhere, past the 64-bit
// overflow of n * period too.
TEST(Clock, WholePeriodsAgreeWithTheExactDefinition) {
  const Clock c(1.6e9);
  const auto exact_time = [](std::uint64_t n) {
    const unsigned __int128 fs = (static_cast<unsigned __int128>(n) * 1'000'000'000'000'000ULL + 800'000'000) / 1'600'000'000;
    return fs;
  };
  const std::uint64_t overflow = UINT64_MAX / 625'000;
  for (std::uint64_t n : std::initializer_list<std::uint64_t>{0, 1, 7, 123456789, overflow - 1, overflow, overflow + 5}) {
    if (exact_time(n) > UINT64_MAX) continue;
    EXPECT_EQ(c.time_of(n).value(), static_cast<std::uint64_t>(exact_time(n))) << n;
    EXPECT_EQ(c.cycle_at(c.time_of(n)), n);
    EXPECT_EQ(c.cycles_in(c.time_of(n)), n);
    if (n > 0) {
      EXPECT_EQ(c.cycle_at(sc_time::from_value(c.time_of(n).value() - 1)), n - 1);
      EXPECT_EQ(c.cycles_in(sc_time::from_value(c.time_of(n).value() - 1)), n);
    }
  }
}
