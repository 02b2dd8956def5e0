#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "sim/stats.h"

using strata::StatsRegistry;

TEST(Stats, CounterScalarAverage) {
  StatsRegistry r;
  auto& c = r.counter("a.requests", "requests", "requests served");
  c.add();
  c.add(4);
  EXPECT_EQ(c.count(), 5u);
  auto& s = r.scalar("a.bandwidth", "GB/s", "bw");
  s.set(12.5);
  auto& avg = r.average("a.size", "B", "request size");
  for (double v : {2.0, 4.0, 9.0}) avg.sample(v);
  EXPECT_DOUBLE_EQ(avg.value(), 5.0);
  EXPECT_DOUBLE_EQ(avg.field("min"), 2.0);
  EXPECT_DOUBLE_EQ(avg.field("max"), 9.0);
  EXPECT_DOUBLE_EQ(r.at("a.bandwidth").value(), 12.5);
}

TEST(Stats, TimeAverageWeightsByTime) {
  StatsRegistry r;
  auto& q = r.time_average("q", "requests", "occupancy");
  q.set(0, 2);    // 2 for 1 s
  q.set(1, 4);    // 4 for 3 s
  q.finish(4);
  EXPECT_DOUBLE_EQ(q.value(), (2 * 1 + 4 * 3) / 4.0);
  EXPECT_DOUBLE_EQ(q.field("max"), 4);
}

TEST(Stats, DistributionExactPercentiles) {
  StatsRegistry r;
  auto& d = r.distribution("lat", "ns", "latency");
  for (int i = 1; i <= 100; ++i) d.sample(i);
  EXPECT_TRUE(d.exact());
  EXPECT_DOUBLE_EQ(d.mean(), 50.5);
  EXPECT_DOUBLE_EQ(d.percentile(50), 50);
  EXPECT_DOUBLE_EQ(d.percentile(99), 99);
  EXPECT_DOUBLE_EQ(d.percentile(100), 100);
  EXPECT_DOUBLE_EQ(d.percentile(0), 1);
  EXPECT_DOUBLE_EQ(d.min(), 1);
  EXPECT_DOUBLE_EQ(d.max(), 100);
  EXPECT_NEAR(d.stddev(), 28.866, 1e-3);
  EXPECT_DOUBLE_EQ(d.field("p99"), 99);
}

TEST(Stats, DistributionStaysBoundedAndAccurate) {
  StatsRegistry r;
  auto& d = r.distribution("lat", "ns", "latency");
  // 100,000 distinct values: the histogram takes over, percentiles stay within 0.4%.
  const int n = 100000;
  for (int i = 1; i <= n; ++i) d.sample(i * 0.37);
  EXPECT_FALSE(d.exact());
  EXPECT_NEAR(d.percentile(50), 0.37 * n / 2, 0.004 * 0.37 * n / 2);
  EXPECT_NEAR(d.percentile(99), 0.37 * n * 0.99, 0.004 * 0.37 * n * 0.99);
  EXPECT_NEAR(d.mean(), 0.37 * (n + 1) / 2.0, 1e-6);  // mean stays exact
  EXPECT_LT(r.to_json()["lat"]["histogram"].size(), 2000u);
}

TEST(Stats, TimeSeriesRatesAndDownsampling) {
  StatsRegistry r;
  auto& ts = r.time_series("bw", "GB/s", "bandwidth", 1e-6, 1e-9);
  ts.add(0.5e-6, 1000);   // window 0
  ts.add(1.5e-6, 3000);   // window 1
  ts.finish(2e-6);
  const auto v = ts.values();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_DOUBLE_EQ(v[0], 1000 / 1e-6 * 1e-9);
  EXPECT_DOUBLE_EQ(v[1], 3000 / 1e-6 * 1e-9);
  EXPECT_DOUBLE_EQ(ts.value(), 4000 / 2e-6 * 1e-9);
  // Far beyond kMaxWindows windows: the window doubles instead of growing the series.
  ts.add(5e-3, 10);
  EXPECT_LE(ts.values().size(), strata::TimeSeries::kMaxWindows);
  EXPECT_GE(ts.window_s(), 4e-6);
}

// Bulk samples (the analytic fidelity's counts) give what as many single samples give.
TEST(Stats, BulkSamplesEqualRepeatedSamples) {
  StatsRegistry r;
  auto& one = r.distribution("one", "ns", "");
  auto& bulk = r.distribution("bulk", "ns", "");
  auto& avg_one = r.average("avg_one", "", "");
  auto& avg_bulk = r.average("avg_bulk", "", "");
  for (double v : {3.0, 7.0}) {
    for (int i = 0; i < 5; ++i) {
      one.sample(v);
      avg_one.sample(v);
    }
    bulk.sample(v, 5);
    avg_bulk.sample(v, 5);
  }
  bulk.sample(1.0, 0);  // nothing
  EXPECT_EQ(bulk.count(), one.count());
  EXPECT_DOUBLE_EQ(bulk.mean(), one.mean());
  EXPECT_NEAR(bulk.stddev(), one.stddev(), 1e-12);
  EXPECT_EQ(bulk.percentile(50), one.percentile(50));
  EXPECT_EQ(bulk.min(), 3.0);
  EXPECT_EQ(avg_bulk.count(), avg_one.count());
  EXPECT_DOUBLE_EQ(avg_bulk.value(), avg_one.value());
}

// An amount known only over an interval lands in each window by its overlap.
TEST(Stats, TimeSeriesSpreadsAnAmountOverAnInterval) {
  StatsRegistry r;
  auto& ts = r.time_series("bw", "B", "bytes", 1e-6, 0);
  ts.add_spread(0.5e-6, 2.5e-6, 800);
  ts.finish(3e-6);
  const auto v = ts.values();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_DOUBLE_EQ(v[0], 200);
  EXPECT_DOUBLE_EQ(v[1], 400);
  EXPECT_DOUBLE_EQ(v[2], 200);
  // Past kMaxWindows windows it merges first, so the whole amount stays in the series.
  ts.add_spread(0, 10e-3, 1000);
  double total = 0;
  for (double x : ts.values()) total += x;
  EXPECT_NEAR(total, 1800, 1e-9);
  EXPECT_LE(ts.values().size(), strata::TimeSeries::kMaxWindows);
}

TEST(Stats, NestedJsonAndNameClashes) {
  StatsRegistry r;
  r.counter("hardware.memory.reads", "requests", "reads").add(3);
  r.counter("hardware.memory.writes", "requests", "writes");
  const auto j = r.to_json();
  EXPECT_EQ(j["hardware"]["memory"]["reads"]["value"], 3);
  EXPECT_EQ(j["hardware"]["memory"]["reads"]["unit"], "requests");
  EXPECT_EQ(j["hardware"]["memory"]["reads"]["type"], "counter");
  EXPECT_THROW(r.counter("hardware.memory.reads", "", ""), std::logic_error);
  EXPECT_THROW(r.counter("hardware.memory", "", ""), std::logic_error);
  EXPECT_THROW(r.counter("hardware.memory.reads.x", "", ""), std::logic_error);
}

TEST(Stats, DumpIsDeterministic) {
  auto fill = [](StatsRegistry& r) {
    r.counter("z.c", "", "").add(1);
    r.distribution("a.d", "ns", "").sample(3.25);
    r.scalar("m.s", "", "").set(0.1);
  };
  StatsRegistry a, b;
  fill(a);
  fill(b);
  EXPECT_EQ(a.to_json().dump(), b.to_json().dump());
}

// sim.reuse: repeating a span `times` times through snapshot()/repeat() gives what sampling the
// span `times` more times gives, for every additive figure; later samples move by the repeats'
// span through the registry's reported time.
namespace {

struct Recorder {
  StatsRegistry r;
  strata::Counter& c = r.counter("c", "n", "");
  strata::Average& a = r.average("a", "x", "");
  strata::Distribution& exact = r.distribution("exact", "x", "");
  strata::Distribution& wide = r.distribution("wide", "x", "");
  strata::TimeAverage& level = r.time_average("level", "x", "");
  strata::TimeSeries& series = r.time_series("series", "x", "", 1.0, 1.0);
  // One unit of work at time t (seconds) with value v.
  void work(double t, double v) {
    c.add(2);
    a.sample(v);
    exact.sample(std::round(v));
    wide.sample(v * 1e3);
    level.set(t, v);
    series.add(t, v);
  }
};

// A span of work in [t0, t0 + 10): 10 samples.
void span(Recorder& r, double t0, int salt) {
  for (int i = 0; i < 10; ++i) r.work(t0 + i, 3 + (i * 7 + salt) % 11);
}

}  // namespace

TEST(Stats, RepeatEqualsSimulatingTheSpanAgain) {
  Recorder full, reused;
  // Prefix [0, 10), measured span [10, 20), three repeats [20, 50), suffix [50, 60).
  for (int i = 0; i < 5000; ++i) full.wide.sample(i);  // past the exact limit: a histogram
  for (int i = 0; i < 5000; ++i) reused.wide.sample(i);
  span(full, 0, 1);
  span(reused, 0, 1);
  std::map<std::string, std::unique_ptr<strata::Stat>> before;
  for (const auto& [name, stat] : reused.r.all()) before.emplace(name, stat->snapshot(10));
  span(full, 10, 2);
  span(reused, 10, 2);
  for (double t0 : {20.0, 30.0, 40.0}) span(full, t0, 2);
  for (const auto& [name, stat] : reused.r.all()) stat->repeat(*before.at(name), 3, 20, 30);
  reused.r.reported_time().insert(sc_core::sc_time(20, sc_core::SC_SEC), sc_core::sc_time(30, sc_core::SC_SEC));
  span(full, 50, 3);
  span(reused, 20, 3);  // simulated time: reported 50
  full.level.finish(60);
  reused.level.finish(30);
  full.series.finish(60);
  reused.series.finish(30);

  EXPECT_EQ(reused.c.count(), full.c.count());
  EXPECT_EQ(reused.a.count(), full.a.count());
  EXPECT_DOUBLE_EQ(reused.a.value(), full.a.value());
  for (const char* field : {"count", "mean", "stddev", "min", "max", "p50", "p90", "p99"}) {
    EXPECT_DOUBLE_EQ(reused.exact.field(field), full.exact.field(field)) << field;
    EXPECT_NEAR(reused.wide.field(field), full.wide.field(field), 1e-9 * std::abs(full.wide.field(field)) + 1e-6)
        << field;
  }
  EXPECT_TRUE(reused.exact.exact());
  EXPECT_FALSE(reused.wide.exact());
  EXPECT_DOUBLE_EQ(reused.level.value(), full.level.value());
  EXPECT_NEAR(reused.series.value(), full.series.value(), 1e-12);
  ASSERT_EQ(reused.series.values().size(), 60u);
  // The repeats' windows hold their average; the suffix lands after them.
  EXPECT_DOUBLE_EQ(reused.series.values()[55], full.series.values()[55]);
}

// sim.sample: a span counted a fractional number of times. Counts round to whole ones and a
// distribution's count stays the sum of its values' (or buckets') counts.
TEST(Stats, FractionalRepeatScalesTheSpanAndRoundsCounts) {
  Recorder r;
  for (int i = 0; i < 5000; ++i) r.wide.sample(i);  // a histogram
  span(r, 0, 1);
  std::map<std::string, std::unique_ptr<strata::Stat>> before;
  for (const auto& [name, stat] : r.r.all()) before.emplace(name, stat->snapshot(10));
  span(r, 10, 2);
  const auto sum = [](const strata::TimeSeries& t) {
    double total = 0;
    for (double v : t.values()) total += v;
    return total;
  };
  const double series_span = sum(r.series) - sum(static_cast<const strata::TimeSeries&>(*before.at("series")));
  const double series_before = sum(r.series);
  for (const auto& [name, stat] : r.r.all()) stat->repeat(*before.at(name), 1.5, 20, 15);
  EXPECT_EQ(r.c.count(), 40u + 30u);  // 2 a sample
  EXPECT_EQ(r.a.count(), 20u + 15u);
  EXPECT_DOUBLE_EQ(r.wide.field("count"), 5020 + 15);
  EXPECT_DOUBLE_EQ(r.wide.field("p100"), r.wide.field("max"));
  EXPECT_NEAR(r.exact.field("count"), 20 + 15, 3);  // each value's count rounds on its own
  EXPECT_DOUBLE_EQ(r.exact.field("p100"), r.exact.field("max"));
  EXPECT_NEAR(sum(r.series), series_before + 1.5 * series_span, 1e-9);
  EXPECT_EQ(strata::scaled_count(7, 0.5), 4u);
  EXPECT_EQ(strata::scaled_count(10, 1.0), 10u);
}

TEST(Stats, ReportedTimeInsertsSpansAtTheirInstants) {
  strata::ReportedTime t;
  EXPECT_DOUBLE_EQ(t(5.0), 5.0);
  t.insert(sc_core::sc_time(2, sc_core::SC_SEC), sc_core::sc_time(10, sc_core::SC_SEC));
  t.insert(sc_core::sc_time(4, sc_core::SC_SEC), sc_core::sc_time(1, sc_core::SC_SEC));
  EXPECT_DOUBLE_EQ(t(1.0), 1.0);
  EXPECT_DOUBLE_EQ(t(2.0), 12.0);
  EXPECT_DOUBLE_EQ(t(3.0), 13.0);
  EXPECT_DOUBLE_EQ(t(4.0), 15.0);
  EXPECT_EQ(t(sc_core::sc_time(3, sc_core::SC_SEC)), sc_core::sc_time(13, sc_core::SC_SEC));
  EXPECT_EQ(t.inserted(), sc_core::sc_time(11, sc_core::SC_SEC));
  EXPECT_THROW(t.insert(sc_core::sc_time(3, sc_core::SC_SEC), sc_core::SC_ZERO_TIME), std::logic_error);
}

TEST(Stats, MergedDistributionsEqualOneSampledWithBoth) {
  StatsRegistry r;
  auto& a = r.distribution("a", "ns", "");
  auto& b = r.distribution("b", "ns", "");
  auto& both = r.distribution("both", "ns", "");
  for (int i = 0; i < 300; ++i) {
    a.sample(i % 17);
    both.sample(i % 17);
    b.sample(100 + i % 5);
    both.sample(100 + i % 5);
  }
  a.merge(b);
  for (const char* f : {"count", "mean", "stddev", "min", "max", "p50", "p99"})
    EXPECT_DOUBLE_EQ(a.field(f), both.field(f)) << f;
  // Past the exact limit the histogram and moments still agree.
  auto& wide = r.distribution("wide", "ns", "");
  auto& wide_all = r.distribution("wide_all", "ns", "");
  for (int i = 0; i < 6000; ++i) wide_all.sample(i * 0.5);
  for (int i = 0; i < 3000; ++i) wide.sample(i * 0.5);
  auto& rest = r.distribution("rest", "ns", "");
  for (int i = 3000; i < 6000; ++i) rest.sample(i * 0.5);
  wide.merge(rest);
  EXPECT_FALSE(wide.exact());
  EXPECT_EQ(wide.count(), wide_all.count());
  EXPECT_NEAR(wide.mean(), wide_all.mean(), 1e-9);
  EXPECT_NEAR(wide.stddev(), wide_all.stddev(), 1e-9);
  EXPECT_DOUBLE_EQ(wide.percentile(90), wide_all.percentile(90));
}
