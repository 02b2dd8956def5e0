#include "sim/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/text.h"

namespace strata {

std::uint64_t scaled_count(std::uint64_t n, double times) {
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * times));
}

namespace {
// `times` x each count, rounded so that the counts sum to their exact total rounded (a running
// total rounds, not each count: a fractional repeat of many single samples would otherwise
// round every one of them up or down). Zero counts are left out.
template <class Key>
std::vector<std::pair<Key, std::uint64_t>> repeat_counts(const std::vector<std::pair<Key, std::uint64_t>>& counts,
                                                         double times) {
  std::vector<std::pair<Key, std::uint64_t>> out;
  double exact = 0;
  std::uint64_t given = 0;
  for (const auto& [key, n] : counts) {
    exact += static_cast<double>(n) * times;
    const auto upto = static_cast<std::uint64_t>(std::llround(exact));
    if (upto > given) out.emplace_back(key, upto - given);
    given = std::max(given, upto);
  }
  return out;
}
}  // namespace

double Stat::field(const std::string& name) const {
  if (name == "value") return value();
  throw std::logic_error("stat has no field '" + name + "'");
}

nlohmann::json Counter::fields() const { return {{"value", count_}}; }

void Counter::repeat(const Stat& before, double times, double, double) {
  count_ += scaled_count(count_ - static_cast<const Counter&>(before).count_, times);
}
nlohmann::json Scalar::fields() const { return {{"value", value_}}; }

void Average::sample(double v) {
  if (count_ == 0) min_ = max_ = v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v;
  ++count_;
}

void Average::sample(double v, std::uint64_t n) {
  if (n == 0) return;
  if (count_ == 0) min_ = max_ = v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v * static_cast<double>(n);
  count_ += n;
}

void Average::repeat(const Stat& before, double times, double, double) {
  const auto& b = static_cast<const Average&>(before);
  sum_ += times * (sum_ - b.sum_);
  count_ += scaled_count(count_ - b.count_, times);
}

double Average::field(const std::string& name) const {
  if (name == "mean") return value();
  if (name == "count") return static_cast<double>(count_);
  if (name == "min") return min_;
  if (name == "max") return max_;
  return Stat::field(name);
}

nlohmann::json Average::fields() const {
  return {{"value", value()}, {"count", count_}, {"min", min_}, {"max", max_}};
}

void TimeAverage::close_at(double t) {
  if (t > last_t_) {
    integral_ += level_ * (t - last_t_);
    last_t_ = t;
  }
}

void TimeAverage::set(double t, double level) {
  close_at(reported(t));
  level_ = level;
  max_ = std::max(max_, level);
}

void TimeAverage::finish(double t_end) {
  close_at(reported(t_end));
  end_ = reported(t_end);
}

std::unique_ptr<Stat> TimeAverage::snapshot(double now_s) const {
  auto copy = std::make_unique<TimeAverage>(*this);
  copy->close_at(now_s);
  return copy;
}

void TimeAverage::repeat(const Stat& before, double times, double now_s, double span_s) {
  close_at(now_s);
  integral_ += times * (integral_ - static_cast<const TimeAverage&>(before).integral_);
  // The level holds from the end of the repeats on.
  last_t_ = now_s + span_s;
}

double TimeAverage::value() const { return end_ > 0 ? integral_ / end_ : level_; }

double TimeAverage::field(const std::string& name) const {
  if (name == "mean") return value();
  if (name == "max") return max_;
  return Stat::field(name);
}

nlohmann::json TimeAverage::fields() const { return {{"value", value()}, {"max", max_}}; }

// ---------------------------------------------------------------------------------------------

namespace {
constexpr std::int64_t kZeroBucket = std::numeric_limits<std::int64_t>::min();
constexpr int kSubBuckets = 128;
}  // namespace

std::int64_t Distribution::bucket_of(double v) {
  if (!(v > 0)) return kZeroBucket;
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m * 2^e, m in [0.5, 1)
  const int sub = std::min(kSubBuckets - 1, static_cast<int>((m - 0.5) * 2 * kSubBuckets));
  return static_cast<std::int64_t>(e) * kSubBuckets + sub;
}

double Distribution::bucket_low(std::int64_t b) {
  if (b == kZeroBucket) return 0;
  const std::int64_t e = b >= 0 ? b / kSubBuckets : -((-b + kSubBuckets - 1) / kSubBuckets);
  const std::int64_t sub = b - e * kSubBuckets;
  return std::ldexp(0.5 + static_cast<double>(sub) / (2 * kSubBuckets), static_cast<int>(e));
}

double Distribution::bucket_high(std::int64_t b) {
  if (b == kZeroBucket) return 0;
  return bucket_low(b + 1);
}

Distribution::Moments Distribution::moments() const {
  if (!exact_) return {count_ ? mean_ : 0, m2_};
  Moments m;
  if (count_ == 0) return m;
  const auto values = values_.sorted();
  double sum = 0;
  for (const auto& [v, n] : values) sum += v * static_cast<double>(n);
  m.mean = sum / static_cast<double>(count_);
  for (const auto& [v, n] : values) m.m2 += (v - m.mean) * (v - m.mean) * static_cast<double>(n);
  return m;
}

void Distribution::fold_to_histogram() {
  const Moments m = moments();
  mean_ = m.mean;
  m2_ = m.m2;
  fold_into(values_, buckets_);
  values_.clear();
  exact_ = false;
}

void Distribution::fold_into(const CountTable<double>& values, CountTable<std::int64_t>& buckets) {
  values.for_each([&](double v, std::uint64_t n) { buckets.add(bucket_of(v), n); });
}

void Distribution::sample(double v) { sample(v, 1); }

void Distribution::sample(double v, std::uint64_t n) {
  if (n == 0) return;
  if (count_ == 0) min_ = max_ = v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  if (exact_) {
    count_ += n;
    values_.add(v, n);
    if (values_.size() > kExactLimit) fold_to_histogram();
    return;
  }
  add_group(v, 0, n);
  buckets_.add(bucket_of(v), n);
}

void Distribution::add_group(double mean, double m2, std::uint64_t n) {
  const double na = static_cast<double>(count_), nb = static_cast<double>(n), total = na + nb;
  const double delta = mean - mean_;
  mean_ += delta * nb / total;
  m2_ += m2 + delta * delta * na * nb / total;
  count_ += n;
}

void Distribution::merge(const Distribution& o) {
  if (o.count_ == 0) return;
  if (count_ == 0) min_ = o.min_, max_ = o.max_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  if (exact_ && o.exact_) {
    o.values_.for_each([&](double v, std::uint64_t n) { values_.add(v, n); });
    count_ += o.count_;
    if (values_.size() > kExactLimit) fold_to_histogram();
    return;
  }
  if (exact_) fold_to_histogram();
  const Moments m = o.moments();
  add_group(m.mean, m.m2, o.count_);
  if (o.exact_) fold_into(o.values_, buckets_);
  else o.buckets_.for_each([&](std::int64_t b, std::uint64_t n) { buckets_.add(b, n); });
}

void Distribution::repeat(const Stat& before, double times, double, double) {
  const auto& b = static_cast<const Distribution&>(before);
  const std::uint64_t n = count_ - b.count_;
  if (n == 0 || times <= 0) return;
  // The span's samples by value (or bucket): what is here now less what was there before. They
  // are all here already, so the table keeps its mode and size.
  if (exact_) {
    std::vector<std::pair<double, std::uint64_t>> added;
    values_.for_each([&](double v, std::uint64_t k) {
      const std::uint64_t was = b.values_.count_of(v);
      if (k > was) added.emplace_back(v, k - was);
    });
    for (const auto& [v, k] : repeat_counts(added, times)) {
      values_.add(v, k);
      count_ += k;
    }
    return;
  }
  // The span's own mean and squared deviations, from Chan et al.'s merge run backwards; `times`
  // copies of it have the same mean and `times` times its squared deviations.
  const Moments was = b.moments();
  const double nb = static_cast<double>(b.count_), nd = static_cast<double>(n), na = static_cast<double>(count_);
  const double mean_d = (na * mean_ - nb * was.mean) / nd;
  const double m2_d = std::max(0.0, m2_ - was.m2 - (mean_d - was.mean) * (mean_d - was.mean) * nb * nd / na);
  CountTable<std::int64_t> folded;
  if (b.exact_) fold_into(b.values_, folded);
  const CountTable<std::int64_t>& was_buckets = b.exact_ ? folded : b.buckets_;
  std::vector<std::pair<std::int64_t, std::uint64_t>> added;
  buckets_.for_each([&](std::int64_t bucket, std::uint64_t k) {
    const std::uint64_t w = was_buckets.count_of(bucket);
    if (k > w) added.emplace_back(bucket, k - w);
  });
  std::uint64_t repeated = 0;  // the buckets' own sum, so the count stays theirs
  for (const auto& [bucket, k] : repeat_counts(added, times)) {
    buckets_.add(bucket, k);
    repeated += k;
  }
  if (repeated > 0) add_group(mean_d, m2_d * static_cast<double>(repeated) / nd, repeated);
}

double Distribution::stddev() const { return count_ > 1 ? std::sqrt(moments().m2 / static_cast<double>(count_)) : 0; }

double Distribution::percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  if (exact_) {
    for (const auto& [value, n] : values_.sorted()) {
      seen += n;
      if (seen >= rank) return value;
    }
    return max_;
  }
  for (const auto& [b, n] : buckets_.sorted()) {
    seen += n;
    if (seen >= rank) return std::clamp(0.5 * (bucket_low(b) + bucket_high(b)), min_, max_);
  }
  return max_;
}

double Distribution::field(const std::string& name) const {
  if (name == "mean") return mean();
  if (name == "count") return static_cast<double>(count_);
  if (name == "min") return min_;
  if (name == "max") return max_;
  if (name == "stddev") return stddev();
  if (name.size() > 1 && name[0] == 'p') {
    try {
      return percentile(std::stod(name.substr(1)));
    } catch (const std::invalid_argument&) {
    }
  }
  return Stat::field(name);
}

nlohmann::json Distribution::fields() const {
  nlohmann::json j = {{"value", mean()}, {"count", count_}, {"min", min_}, {"max", max_}, {"stddev", stddev()},
                      {"p50", percentile(50)}, {"p90", percentile(90)}, {"p99", percentile(99)},
                      {"p999", percentile(99.9)}, {"exact", exact_}};
  // The histogram itself, for plots: [lower, upper, count] rows.
  nlohmann::json hist = nlohmann::json::array();
  if (exact_) {
    for (const auto& [value, n] : values_.sorted()) hist.push_back({value, value, n});
  } else {
    for (const auto& [b, n] : buckets_.sorted()) hist.push_back({bucket_low(b), bucket_high(b), n});
  }
  j["histogram"] = std::move(hist);
  return j;
}

// ---------------------------------------------------------------------------------------------

TimeSeries::TimeSeries(std::string unit, std::string description, double window_s, double rate_scale,
                       const ReportedTime* time)
    : Stat(std::move(unit), std::move(description)), time_(time), window_(window_s), rate_scale_(rate_scale) {
  if (!(window_s > 0)) throw std::logic_error("time series window must be positive");
}

void TimeSeries::add(double t, double amount) { add_reported(reported(t), amount); }

void TimeSeries::add_spread(double t0, double t1, double amount) {
  spread_reported(reported(t0), reported(t1), amount);
}

void TimeSeries::finish(double t_end_s) { end_ = reported(t_end_s); }

void TimeSeries::repeat(const Stat& before, double times, double now_s, double span_s) {
  spread_reported(now_s, now_s + span_s, times * (total() - static_cast<const TimeSeries&>(before).total()));
}

double TimeSeries::total() const {
  double sum = 0;
  for (double s : sums_) sum += s;
  return sum;
}

void TimeSeries::add_reported(double t, double amount) {
  auto index = static_cast<size_t>(std::max(0.0, t) / window_);
  while (index >= kMaxWindows) {
    std::vector<double> merged((sums_.size() + 1) / 2, 0.0);
    for (size_t i = 0; i < sums_.size(); ++i) merged[i / 2] += sums_[i];
    sums_ = std::move(merged);
    window_ *= 2;
    index = static_cast<size_t>(std::max(0.0, t) / window_);
  }
  if (index >= sums_.size()) sums_.resize(index + 1, 0.0);
  sums_[index] += amount;
}

void TimeSeries::spread_reported(double t0, double t1, double amount) {
  t0 = std::max(0.0, t0);
  if (!(t1 > t0)) {
    add_reported(t0, amount);
    return;
  }
  // Grow (and merge) the windows to cover the interval first, so at most kMaxWindows are touched.
  add_reported(std::nextafter(t1, t0), 0.0);
  for (auto i = static_cast<size_t>(t0 / window_); static_cast<double>(i) * window_ < t1; ++i) {
    const double lo = std::max(t0, static_cast<double>(i) * window_);
    const double hi = std::min(t1, static_cast<double>(i + 1) * window_);
    if (hi <= lo) continue;
    if (i >= sums_.size()) sums_.resize(i + 1, 0.0);
    sums_[i] += amount * (hi - lo) / (t1 - t0);
  }
}

std::vector<double> TimeSeries::values() const {
  // Cover the run up to its end; the last window may be partial and is scaled by its length.
  size_t n = sums_.size();
  if (end_ > 0) n = std::max(n, static_cast<size_t>(std::ceil(end_ / window_ - 1e-9)));
  std::vector<double> out(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const double sum = i < sums_.size() ? sums_[i] : 0.0;
    if (rate_scale_ == 0) {
      out[i] = sum;
      continue;
    }
    double length = window_;
    if (end_ > 0 && i + 1 == n) length = std::min(window_, end_ - static_cast<double>(i) * window_);
    out[i] = length > 0 ? sum / length * rate_scale_ : 0.0;
  }
  return out;
}

double TimeSeries::value() const {
  if (rate_scale_ == 0) return total();
  return end_ > 0 ? total() / end_ * rate_scale_ : 0;
}

nlohmann::json TimeSeries::fields() const { return {{"value", value()}, {"window_s", window_}, {"values", values()}}; }

// ---------------------------------------------------------------------------------------------

template <class T, class... Args>
T& StatsRegistry::add(const std::string& name, Args&&... args) {
  if (name.empty() || stats_.count(name)) throw std::logic_error("statistic registered twice: " + name);
  // A stat is a leaf of the nested JSON: no other stat may live beneath it or above it.
  auto next = stats_.lower_bound(name);
  if (next != stats_.end() && next->first.rfind(name + ".", 0) == 0)
    throw std::logic_error("statistic " + name + " would contain " + next->first);
  for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
    if (stats_.count(name.substr(0, dot))) throw std::logic_error("statistic " + name + " nests in a statistic");
  auto stat = std::make_unique<T>(std::forward<Args>(args)...);
  T& ref = *stat;
  stats_.emplace(name, std::move(stat));
  return ref;
}

Counter& StatsRegistry::counter(const std::string& n, std::string u, std::string d) { return add<Counter>(n, std::move(u), std::move(d)); }
Scalar& StatsRegistry::scalar(const std::string& n, std::string u, std::string d) { return add<Scalar>(n, std::move(u), std::move(d)); }
Average& StatsRegistry::average(const std::string& n, std::string u, std::string d) { return add<Average>(n, std::move(u), std::move(d)); }
TimeAverage& StatsRegistry::time_average(const std::string& n, std::string u, std::string d) {
  return add<TimeAverage>(n, std::move(u), std::move(d), &time_);
}
Distribution& StatsRegistry::distribution(const std::string& n, std::string u, std::string d) {
  return add<Distribution>(n, std::move(u), std::move(d));
}
TimeSeries& StatsRegistry::time_series(const std::string& n, std::string u, std::string d, double window_s, double rate_scale) {
  return add<TimeSeries>(n, std::move(u), std::move(d), window_s, rate_scale, &time_);
}

const Stat* StatsRegistry::find(const std::string& name) const {
  auto it = stats_.find(name);
  return it == stats_.end() ? nullptr : it->second.get();
}

const Stat& StatsRegistry::at(const std::string& name) const {
  const Stat* s = find(name);
  if (!s) throw std::logic_error("no statistic named " + name);
  return *s;
}

nlohmann::json StatsRegistry::to_json() const {
  nlohmann::json root = nlohmann::json::object();
  for (const auto& [name, stat] : stats_) {
    nlohmann::json* node = &root;
    for (const auto& part : split(name, '.')) node = &(*node)[part];
    nlohmann::json leaf = {{"type", stat->type()}, {"unit", stat->unit()}, {"description", stat->description()}};
    leaf.update(stat->fields());
    *node = std::move(leaf);
  }
  return root;
}

}  // namespace strata
