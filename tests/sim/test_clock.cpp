#include <gtest/gtest.h>

#include <numeric>
#include <random>

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

// Periods are kept as reduced fractions (1.6 GHz: 625000 / 1 fs; 1.2 GHz: 2500000 / 3) for
// 64-bit conversions; they must agree with the exact 128-bit definition, t_n = round(n * 1e15 /
// f), everywhere, across the limit where the 64-bit path hands over too.
TEST(Clock, FastConversionsAgreeWithTheExactDefinition) {
  std::mt19937_64 rng(5);
  for (double f : {1.6e9, 1.2e9, 3e9, 1.866e9, 933e6, 2.4e9, 1e15, 7.0}) {
    SCOPED_TRACE(f);
    const Clock c(f);
    __extension__ typedef unsigned __int128 u128;
    const auto freq = static_cast<u128>(c.frequency_hz());
    const auto exact = [&](std::uint64_t n) {
      return (static_cast<u128>(n) * 1'000'000'000'000'000ULL + freq / 2) / freq;
    };
    std::vector<std::uint64_t> cycles = {0, 1, 2, 3, 7, 1000, 123456789};
    for (int i = 0; i < 2000; ++i) cycles.push_back(rng() % 100'000'000'000ULL);
    // Around the limits of the 64-bit paths: n * num past 64 bits (time_of), t * den past 64
    // bits (cycle_at), with num / den the reduced period.
    const std::uint64_t num = 1'000'000'000'000'000ULL / std::gcd(1'000'000'000'000'000ULL, c.frequency_hz());
    const std::uint64_t den = c.frequency_hz() / std::gcd(1'000'000'000'000'000ULL, c.frequency_hz());
    for (std::uint64_t limit : {UINT64_MAX / num, static_cast<std::uint64_t>(UINT64_MAX / den / (1e15 / f))})
      for (std::uint64_t d = 0; d < 4; ++d) cycles.push_back(limit + 2 - d);
    for (std::uint64_t n : cycles) {
      if (n == UINT64_MAX || exact(n + 1) > UINT64_MAX) continue;
      ASSERT_EQ(c.time_of(n).value(), static_cast<std::uint64_t>(exact(n))) << n;
      const sc_time edge = c.time_of(n);
      ASSERT_EQ(c.cycle_at(edge), n);
      ASSERT_EQ(c.cycles_in(edge), n);
      if (edge.value() > 0) {
        const sc_time before = sc_time::from_value(edge.value() - 1);
        ASSERT_EQ(c.cycle_at(before), n - 1) << n;
        ASSERT_EQ(c.cycles_in(before), c.time_of(n - 1) == before ? n - 1 : n) << n;  // 1 fs apart at 1 PHz
      }
    }
  }
}

// DVFS: a clock that changes frequency keeps its cycle numbering and its past edges; edges after
// the change are spaced by the new period from the change's edge, and converting either way
// agrees on both sides of every change.
TEST(Clock, RetimeKeepsPastEdgesAndSpacesLaterOnesByTheNewPeriod) {
  Clock c(2e9);  // 500 ps
  const sc_time at_100 = c.time_of(100);
  EXPECT_EQ(at_100, sc_time(50, sc_core::SC_NS));
  c.retime(100, 1e9);  // 1 ns from cycle 100
  EXPECT_EQ(c.frequency_hz(), 1'000'000'000u);
  EXPECT_EQ(c.retimed_at(), 100u);
  EXPECT_EQ(c.time_of(50), sc_time(25, sc_core::SC_NS));
  EXPECT_EQ(c.time_of(100), at_100);
  EXPECT_EQ(c.time_of(110), sc_time(60, sc_core::SC_NS));
  c.retime(200, 1.5e9);
  EXPECT_EQ(c.time_of(200), sc_time(150, sc_core::SC_NS));
  EXPECT_EQ(c.time_of(203), sc_time(152, sc_core::SC_NS));
  for (std::uint64_t n : {0u, 1u, 99u, 100u, 101u, 150u, 199u, 200u, 201u, 5000u}) {
    ASSERT_EQ(c.cycle_at(c.time_of(n)), n) << n;
    // Between two edges: the earlier one's cycle.
    ASSERT_EQ(c.cycle_at(c.time_of(n + 1) - sc_time::from_value(1)), n) << n;
  }
  EXPECT_EQ(c.next_edge(sc_time(100.5, sc_core::SC_NS)), c.time_of(151));  // cycle 150 at 100 ns
  EXPECT_EQ(c.cycles_in(sc_time(2, sc_core::SC_NS)), 3u);                  // at 1.5 GHz now
  // The same cycle changed twice: the later frequency holds from it.
  c.retime(200, 1e9);
  EXPECT_EQ(c.time_of(203), sc_time(153, sc_core::SC_NS));
  EXPECT_THROW(c.retime(150, 1e9), std::invalid_argument);
}
