// Statistics: counters, averages, time averages, distributions (with percentiles), time series
// and scalars, registered under hierarchical names ("hardware.memory.requests") with a unit and
// a description, and dumped as nested JSON into stats.json.
//
// Every figure Strata reports (summary.json, plots) is read from here, never recomputed beside
// it. All containers are ordered so the dump is byte-identical for identical runs.
//
// Times given to statistics are simulated times (sc_time_stamp() in seconds); the registry
// reports them in reported time (sim/reported_time.h), which differs only under sim.reuse.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/count_table.h"
#include "sim/reported_time.h"

namespace strata {

// `n` counted `times` times (sim.reuse and sim.sample repeats; `times` may be fractional), to the
// nearest whole count.
std::uint64_t scaled_count(std::uint64_t n, double times);

class Stat {
 public:
  Stat(std::string unit, std::string description) : unit_(std::move(unit)), description_(std::move(description)) {}
  virtual ~Stat() = default;
  virtual const char* type() const = 0;
  // The headline value (a counter's count, a distribution's mean).
  virtual double value() const = 0;
  // A named field for summaries ("mean", "p99", "max", ...); "value" is always accepted.
  virtual double field(const std::string& name) const;
  // Type-specific fields, merged with type/unit/description by StatsRegistry.
  virtual nlohmann::json fields() const = 0;
  // sim.reuse (sim/reuse.h): a copy as the statistic stands at reported time `now_s` (time
  // integrals closed there), to measure what a span of the run adds.
  virtual std::unique_ptr<Stat> snapshot(double now_s) const = 0;
  // Adds `times` more of what the statistic gained since `before` (its snapshot at the start of
  // the measured span, which ends now, at reported time `now_s`): `times` repeats of the span
  // filling the `span_s` seconds after `now_s`. Extremes (min, max) stay: every repeat is a copy
  // of a span they saw. `times` may be fractional (sim.sample: a part of a span's work); counts
  // round to the nearest whole one.
  virtual void repeat(const Stat& before, double times, double now_s, double span_s) = 0;
  const std::string& unit() const { return unit_; }
  const std::string& description() const { return description_; }

 private:
  std::string unit_;
  std::string description_;
};

class Counter : public Stat {
 public:
  using Stat::Stat;
  void add(std::uint64_t n = 1) { count_ += n; }
  std::uint64_t count() const { return count_; }
  const char* type() const override { return "counter"; }
  double value() const override { return static_cast<double>(count_); }
  nlohmann::json fields() const override;
  std::unique_ptr<Stat> snapshot(double) const override { return std::make_unique<Counter>(*this); }
  void repeat(const Stat& before, double times, double now_s, double span_s) override;

 private:
  std::uint64_t count_ = 0;
};

// A value computed once, usually at the end of a run (achieved bandwidth, completion time).
class Scalar : public Stat {
 public:
  using Stat::Stat;
  void set(double v) { value_ = v; }
  const char* type() const override { return "scalar"; }
  double value() const override { return value_; }
  nlohmann::json fields() const override;
  // Set once from other statistics: nothing to repeat.
  std::unique_ptr<Stat> snapshot(double) const override { return std::make_unique<Scalar>(*this); }
  void repeat(const Stat&, double, double, double) override {}

 private:
  double value_ = 0;
};

// Mean of samples, with count, min and max.
class Average : public Stat {
 public:
  using Stat::Stat;
  void sample(double v);
  // `n` samples of `v` at once (the analytic fidelity counts messages in bulk).
  void sample(double v, std::uint64_t n);
  std::uint64_t count() const { return count_; }
  const char* type() const override { return "average"; }
  double value() const override { return count_ ? sum_ / static_cast<double>(count_) : 0; }
  double field(const std::string& name) const override;
  nlohmann::json fields() const override;
  std::unique_ptr<Stat> snapshot(double) const override { return std::make_unique<Average>(*this); }
  void repeat(const Stat& before, double times, double now_s, double span_s) override;

 private:
  std::uint64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

// Time-weighted average of a level (queue occupancy, requests in flight): set(t, level) at each
// change; finish(t_end) closes the last interval.
class TimeAverage : public Stat {
 public:
  // `time` maps the simulated times given to set() and finish() to reported time (none: the same).
  TimeAverage(std::string unit, std::string description, const ReportedTime* time = nullptr)
      : Stat(std::move(unit), std::move(description)), time_(time) {}
  void set(double t_s, double level);
  void finish(double t_end_s);
  const char* type() const override { return "time_average"; }
  double value() const override;
  double field(const std::string& name) const override;
  nlohmann::json fields() const override;
  std::unique_ptr<Stat> snapshot(double now_s) const override;
  void repeat(const Stat& before, double times, double now_s, double span_s) override;

 private:
  double reported(double t_s) const { return time_ ? (*time_)(t_s) : t_s; }
  void close_at(double t);  // reported time
  const ReportedTime* time_;
  double last_t_ = 0, level_ = 0, integral_ = 0, max_ = 0, end_ = 0;
};

// Samples with exact mean/stddev/min/max and percentiles. Values are kept exactly (value ->
// count) while there are at most kExactLimit distinct values, which covers latencies quantised
// to clock cycles; beyond that they fold into a log-linear histogram with 128 buckets per
// octave (relative error below 0.4%), so memory stays bounded for any run length. While exact,
// the mean and deviation are computed from the table when read, in value order, so they do not
// depend on the order the samples came in; afterwards Welford's running update carries them.
class Distribution : public Stat {
 public:
  static constexpr size_t kExactLimit = 4096;
  using Stat::Stat;
  void sample(double v);
  // `n` samples of `v` at once (an analytic figure that holds for every request of a run).
  void sample(double v, std::uint64_t n);
  // Adds every sample of `other` (a total over parts, gathered at the end of a run): the same
  // figures as sampling them here while both stay exact.
  void merge(const Distribution& other);
  std::uint64_t count() const { return count_; }
  double mean() const { return moments().mean; }
  double stddev() const;
  double min() const { return min_; }
  double max() const { return max_; }
  // p in [0, 100]: the smallest sample value with at least p% of samples at or below it.
  double percentile(double p) const;
  bool exact() const { return exact_; }
  const char* type() const override { return "distribution"; }
  double value() const override { return mean(); }
  double field(const std::string& name) const override;
  nlohmann::json fields() const override;
  std::unique_ptr<Stat> snapshot(double) const override { return std::make_unique<Distribution>(*this); }
  void repeat(const Stat& before, double times, double now_s, double span_s) override;

 private:
  static std::int64_t bucket_of(double v);
  static double bucket_low(std::int64_t b);
  static double bucket_high(std::int64_t b);
  // Adds exact values' counts to the histogram buckets they fall in.
  static void fold_into(const CountTable<double>& values, CountTable<std::int64_t>& buckets);
  struct Moments {
    double mean = 0, m2 = 0;  // m2: sum of squared deviations from the mean
  };
  Moments moments() const;
  void fold_to_histogram();
  // Histogram mode: adds a group of `n` samples with its own mean and squared deviations to the
  // running ones (Chan et al.'s merge).
  void add_group(double mean, double m2, std::uint64_t n);
  std::uint64_t count_ = 0;
  double mean_ = 0, m2_ = 0, min_ = 0, max_ = 0;
  bool exact_ = true;
  // Counted in flat hash tables while sampling; sorted when read.
  CountTable<double> values_;         // exact mode
  CountTable<std::int64_t> buckets_;  // histogram mode
};

// An amount accumulated into fixed time windows (bytes per window -> bandwidth over time).
// When the run outgrows kMaxWindows windows, neighbours merge and the window doubles, so
// memory is bounded and the series always spans the whole run.
class TimeSeries : public Stat {
 public:
  static constexpr size_t kMaxWindows = 1024;
  // rate_scale: each window is reported as amount / window_seconds * rate_scale (e.g. 1e-9 for
  // bytes -> GB/s); 0 reports the plain amount per window. `time` maps the simulated times given
  // to add(), add_spread() and finish() to reported time (none: the same).
  TimeSeries(std::string unit, std::string description, double window_s, double rate_scale,
             const ReportedTime* time = nullptr);
  void add(double t_s, double amount);
  // `amount` spread evenly over [t0_s, t1_s) (a figure known only as a total over an interval,
  // as the analytic fidelity knows it).
  void add_spread(double t0_s, double t1_s, double amount);
  void finish(double t_end_s);
  double window_s() const { return window_; }
  std::vector<double> values() const;
  const char* type() const override { return "time_series"; }
  double value() const override;
  nlohmann::json fields() const override;
  std::unique_ptr<Stat> snapshot(double) const override { return std::make_unique<TimeSeries>(*this); }
  // The repeats' amount spreads evenly over their span: windows there hold the measured span's
  // average, not its shape.
  void repeat(const Stat& before, double times, double now_s, double span_s) override;

 private:
  double reported(double t_s) const { return time_ ? (*time_)(t_s) : t_s; }
  void add_reported(double t, double amount);
  void spread_reported(double t0, double t1, double amount);
  double total() const;
  const ReportedTime* time_;
  double window_, rate_scale_, end_ = 0;
  std::vector<double> sums_;
};

class StatsRegistry {
 public:
  // Registration returns a reference that stays valid for the registry's life. Registering a
  // name twice, or a name that would nest inside another stat, is a programming error.
  Counter& counter(const std::string& name, std::string unit, std::string description);
  Scalar& scalar(const std::string& name, std::string unit, std::string description);
  Average& average(const std::string& name, std::string unit, std::string description);
  TimeAverage& time_average(const std::string& name, std::string unit, std::string description);
  Distribution& distribution(const std::string& name, std::string unit, std::string description);
  TimeSeries& time_series(const std::string& name, std::string unit, std::string description, double window_s,
                          double rate_scale);

  const Stat* find(const std::string& name) const;
  const Stat& at(const std::string& name) const;
  const std::map<std::string, std::unique_ptr<Stat>>& all() const { return stats_; }
  // Simulated to reported time, for every time-based statistic registered here.
  ReportedTime& reported_time() { return time_; }
  const ReportedTime& reported_time() const { return time_; }
  // Nested by name components: {"hardware": {"requests": {"type": "counter", ...}}}.
  nlohmann::json to_json() const;

 private:
  template <class T, class... Args>
  T& add(const std::string& name, Args&&... args);
  std::map<std::string, std::unique_ptr<Stat>> stats_;
  ReportedTime time_;
};

}  // namespace strata
