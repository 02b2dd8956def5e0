#include "workloads/moe/routing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>

namespace strata {
namespace {

using Rng = boost::random::mt19937_64;

// Independent streams derived from the one seed (SplitMix64 finalizer over seed + stream), so
// the popularity, the generated transition and the tokens do not shift when another changes.
enum class Stream : std::uint64_t { Popularity = 1, Transition = 2, Tokens = 3 };
Rng stream_rng(std::uint64_t seed, Stream s) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(s);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return Rng(z ^ (z >> 31));
}

double uniform01(Rng& rng) { return boost::random::uniform_01<double>()(rng); }

// Fisher-Yates shuffle with boost's uniform_int_distribution (std::shuffle's draws are not
// specified by the standard).
template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    const size_t j = boost::random::uniform_int_distribution<size_t>(0, i - 1)(rng);
    std::swap(v[i - 1], v[j]);
  }
}

[[noreturn]] void invalid(const std::string& message) { throw std::invalid_argument(message); }

bool finite(double x) { return std::isfinite(x); }

// Inclusion probabilities for drawing `k` distinct experts from popularity `p` (one excluded
// expert, or -1): pi_i = min(1, c * p_i) with c such that sum pi = k. If fewer than k experts
// (besides `exclude`) have p_i > 0, those all get 1 and the rest of k is spread evenly over
// the zero-probability ones.
void inclusion(const std::vector<double>& p, int k, int exclude, std::vector<double>& pi, std::vector<char>& capped) {
  const int n = static_cast<int>(p.size());
  pi.assign(n, 0.0);
  capped.assign(n, 0);
  double need = k;
  for (;;) {
    if (need <= 0) return;
    double sum = 0;
    int free_count = 0;
    for (int i = 0; i < n; ++i)
      if (i != exclude && !capped[i]) {
        sum += p[i];
        ++free_count;
      }
    if (sum <= 0) {
      // Only zero-probability experts left: spread what is still needed evenly over them.
      for (int i = 0; i < n; ++i)
        if (i != exclude && !capped[i]) pi[i] = need / free_count;
      return;
    }
    const double c = need / sum;
    bool newly = false;
    for (int i = 0; i < n; ++i)
      if (i != exclude && !capped[i] && c * p[i] >= 1.0) {
        capped[i] = 1;
        pi[i] = 1.0;
        need -= 1;
        newly = true;
      }
    if (!newly) {
      for (int i = 0; i < n; ++i)
        if (i != exclude && !capped[i]) pi[i] = c * p[i];
      return;
    }
  }
}

// Randomized systematic sampling (Madow's method over a random order): draws exactly `k`
// distinct experts with P(expert i chosen) == pi[i] (sum pi == k, every pi <= 1), appending them
// to `out` in the random order.
void systematic_sample(const std::vector<double>& pi, int k, Rng& rng, std::vector<std::int32_t>& order,
                       std::vector<std::int32_t>& out) {
  const int n = static_cast<int>(pi.size());
  order.resize(n);
  std::iota(order.begin(), order.end(), 0);
  shuffle(order, rng);
  const size_t start = out.size();
  const size_t want = start + static_cast<size_t>(k);
  double next = uniform01(rng);
  double acc = 0;
  int last_positive = -1;
  for (int j = 0; j < n && out.size() < want; ++j) {
    const std::int32_t e = order[j];
    if (pi[e] <= 0) continue;
    acc += pi[e];
    last_positive = j;
    if (acc > next) {
      out.push_back(e);
      next += 1.0;
    }
  }
  // Rounding in the running sum can leave the last threshold a hair above the total; the
  // expert it falls in is then the last positive one in the order not yet taken.
  for (int j = last_positive; out.size() < want && j >= 0; --j) {
    const std::int32_t e = order[j];
    if (pi[e] > 0 && std::find(out.begin() + static_cast<std::ptrdiff_t>(start), out.end(), e) == out.end())
      out.push_back(e);
  }
}

// Index drawn from the cumulative weights `cum` (last entry = total).
std::int32_t draw_cumulative(const std::vector<double>& cum, Rng& rng) {
  const double u = uniform01(rng) * cum.back();
  const auto it = std::upper_bound(cum.begin(), cum.end(), u);
  return static_cast<std::int32_t>(std::min<std::ptrdiff_t>(it - cum.begin(), static_cast<std::ptrdiff_t>(cum.size()) - 1));
}

// Softmax over standard-normal logits, sorted in decreasing order.
void draw_gates(int k, Rng& rng, std::vector<float>& gates) {
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  double logits[64];
  std::vector<double> big;
  double* l = logits;
  if (k > 64) {
    big.resize(k);
    l = big.data();
  }
  double mx = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < k; ++i) {
    l[i] = normal(rng);
    mx = std::max(mx, l[i]);
  }
  double sum = 0;
  for (int i = 0; i < k; ++i) {
    l[i] = std::exp(l[i] - mx);
    sum += l[i];
  }
  std::sort(l, l + k, std::greater<double>());
  gates.resize(k);
  for (int i = 0; i < k; ++i) gates[i] = static_cast<float>(l[i] / sum);
}

double harmonic(int n, double s) {
  double h = 0;
  for (int r = n; r >= 1; --r) h += std::pow(static_cast<double>(r), -s);  // small terms first
  return h;
}

Eigen::MatrixXd transition_of(const RoutingGeneratorConfig& cfg);

std::vector<std::vector<double>> popularity_of(const RoutingGeneratorConfig& cfg) {
  const int n = cfg.num_experts;
  std::vector<std::vector<double>> out(cfg.num_layers, std::vector<double>(n, 1.0 / n));
  Rng rng = stream_rng(cfg.seed, Stream::Popularity);
  if (cfg.popularity == Popularity::Zipf && cfg.hot_ratio > 1.0) {
    const double s = zipf_exponent(n, cfg.hot_ratio);
    const double h = harmonic(n, s);
    std::vector<std::int32_t> perm(n);
    for (auto& p : out) {
      std::iota(perm.begin(), perm.end(), 0);
      shuffle(perm, rng);
      for (int r = 0; r < n; ++r) p[perm[r]] = std::pow(static_cast<double>(r + 1), -s) / h;
    }
  } else if (cfg.popularity == Popularity::Dirichlet && (cfg.dirichlet_alpha > 0 || cfg.hot_ratio > 1.0)) {
    const double alpha = cfg.dirichlet_alpha > 0 ? cfg.dirichlet_alpha : dirichlet_alpha_for(n, cfg.hot_ratio);
    // Gamma variates in log space: for alpha < 1, G = G' * U^(1/alpha) with G' ~ Gamma(alpha + 1)
    // (Marsaglia & Tsang), since G itself underflows to 0 for half the draws at alpha = 0.001.
    boost::random::gamma_distribution<double> gamma(alpha < 1 ? alpha + 1 : alpha, 1.0);
    for (auto& p : out) {
      double mx = -std::numeric_limits<double>::infinity();
      for (double& x : p) {
        x = std::log(gamma(rng));
        if (alpha < 1) x += std::log(1.0 - uniform01(rng)) / alpha;
        mx = std::max(mx, x);
      }
      if (!finite(mx)) {
        std::fill(p.begin(), p.end(), 1.0 / n);  // no usable draw: no preference
        continue;
      }
      double sum = 0;
      for (double& x : p) sum += (x = std::exp(x - mx));
      for (double& x : p) x /= sum;
    }
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> LayerRouting::expert_load() const {
  std::vector<std::int64_t> load(static_cast<size_t>(std::max(num_experts, 0)), 0);
  for (const TokenRoute& t : tokens)
    for (std::int32_t e : t.experts) ++load.at(static_cast<size_t>(e));
  return load;
}

std::int64_t LayerRouting::assignments() const {
  std::int64_t n = 0;
  for (const TokenRoute& t : tokens) n += static_cast<std::int64_t>(t.experts.size());
  return n;
}

const char* to_string(Popularity p) {
  switch (p) {
    case Popularity::Uniform: return "uniform";
    case Popularity::Zipf: return "zipf";
    case Popularity::Dirichlet: return "dirichlet";
  }
  return "?";
}

std::optional<Popularity> parse_popularity(std::string_view name) {
  if (name == "uniform") return Popularity::Uniform;
  if (name == "zipf") return Popularity::Zipf;
  if (name == "dirichlet") return Popularity::Dirichlet;
  return std::nullopt;
}

void validate(const RoutingGeneratorConfig& cfg) {
  const int n = cfg.num_experts, k = cfg.top_k;
  if (n < 1) invalid(fmt::format("num_experts must be at least 1, got {}", n));
  if (k < 1 || k > n) invalid(fmt::format("top_k must be between 1 and num_experts ({}), got {}", n, k));
  if (cfg.num_layers < 1) invalid(fmt::format("num_layers must be at least 1, got {}", cfg.num_layers));
  const double h = cfg.hot_ratio, max_hot = static_cast<double>(n) / k;
  if (!finite(h) || h < 1.0 || h > max_hot)
    invalid(fmt::format("hot_ratio must be between 1 and num_experts / top_k = {}, got {}", max_hot, h));
  if (cfg.popularity == Popularity::Uniform && h != 1.0)
    invalid(fmt::format("hot_ratio must be 1 with uniform popularity (use zipf or dirichlet for skew), got {}", h));
  if (k == 1 && h >= n && n > 1)
    invalid(fmt::format("hot_ratio must be below num_experts ({}) with top_k 1, got {}", n, h));
  if (!finite(cfg.dirichlet_alpha) || cfg.dirichlet_alpha < 0)
    invalid(fmt::format("dirichlet_alpha must be positive (or 0: derived from hot_ratio), got {}", cfg.dirichlet_alpha));
  if (cfg.dirichlet_alpha > 0 && cfg.popularity != Popularity::Dirichlet)
    invalid("dirichlet_alpha applies only to dirichlet popularity");
  if (cfg.dirichlet_alpha > 0 && h != 1.0) invalid("give either hot_ratio or dirichlet_alpha, not both");
  const auto probability = [](const char* name, double v) {
    if (!finite(v) || v < 0 || v > 1) invalid(fmt::format("{} must be between 0 and 1, got {}", name, v));
  };
  probability("token_persistence", cfg.token_persistence);
  probability("layer_affinity", cfg.layer_affinity);
  probability("affinity_peak", cfg.affinity_peak);
  if (cfg.transition.size() > 0) {
    if (cfg.layer_affinity == 0) invalid("transition is given but layer_affinity is 0, so it would not be used");
    if (cfg.transition.rows() != n || cfg.transition.cols() != n)
      invalid(fmt::format("transition must be {0}x{0} (num_experts), got {1}x{2}", n, cfg.transition.rows(),
                          cfg.transition.cols()));
    for (int r = 0; r < n; ++r) {
      double sum = 0;
      for (int c = 0; c < n; ++c) {
        const double v = cfg.transition(r, c);
        if (!finite(v) || v < 0)
          invalid(fmt::format("transition[{}][{}] must be a non-negative probability, got {}", r, c, v));
        sum += v;
      }
      if (std::abs(sum - 1.0) > 1e-6) invalid(fmt::format("transition row {} must sum to 1, sums to {}", r, sum));
    }
  }
}

double zipf_exponent(std::int32_t num_experts, double hot_ratio) {
  const double n = num_experts;
  if (num_experts < 1 || !finite(hot_ratio) || hot_ratio < 1.0 || (num_experts > 1 && hot_ratio >= n))
    invalid(fmt::format("zipf hot_ratio must be in [1, {}), got {}", n, hot_ratio));
  if (hot_ratio == 1.0 || num_experts == 1) return 0.0;
  // E / H(E, s) rises from 1 (s = 0) towards E (s -> inf); bracket, then bisect.
  double lo = 0, hi = 1;
  while (n / harmonic(num_experts, hi) < hot_ratio) {
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (n / harmonic(num_experts, mid) < hot_ratio ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double dirichlet_hot_ratio(std::int32_t num_experts, double alpha) {
  if (num_experts < 1 || !finite(alpha) || alpha <= 0)
    invalid(fmt::format("dirichlet hot ratio needs num_experts >= 1 and alpha > 0, got {} and {}", num_experts, alpha));
  if (num_experts == 1) return 1.0;
  // p = G / sum(G), G_i ~ Gamma(alpha) iid, and p is independent of sum(G), so
  // E[max p] * E = E[max G] / alpha. With m = alpha (the mean) and F the Gamma CDF,
  //   E[max G] = m + int_m^inf (1 - F^E) dx - int_0^m F^E dx,
  // both integrals taken in units of the standard deviation sqrt(alpha) around the mean.
  // Beyond mean + 40 sd + 60 the tail is below e^-60 of the mean for any alpha.
  namespace pol = boost::math::policies;
  using Quiet = pol::policy<pol::overflow_error<pol::ignore_error>, pol::evaluation_error<pol::ignore_error>>;
  const double e = num_experts, sd = std::sqrt(alpha), t_max = 40.0 + 60.0 / sd;
  const auto upper = [&](double t) {
    if (!(t < t_max)) return 0.0;
    const double q = boost::math::gamma_q(alpha, alpha + sd * t, Quiet());
    if (!(q > 0)) return 0.0;
    return q >= 1 ? 1.0 : -std::expm1(e * std::log1p(-q));  // 1 - (1 - q)^E without cancellation
  };
  const auto lower = [&](double t) {
    const double x = alpha - sd * t;
    if (!(x > 0)) return 0.0;
    const double p = boost::math::gamma_p(alpha, x, Quiet());
    return p > 0 && p <= 1 ? std::exp(e * std::log(p)) : 0.0;
  };
  boost::math::quadrature::exp_sinh<double> up;
  boost::math::quadrature::tanh_sinh<double> down;
  const double above = up.integrate(upper, 0.0, std::numeric_limits<double>::infinity(), 1e-12);
  const double below = down.integrate(lower, 0.0, sd, 1e-12);
  return 1.0 + sd * (above - below) / alpha;
}

double dirichlet_alpha_for(std::int32_t num_experts, double hot_ratio) {
  if (num_experts < 2 || !finite(hot_ratio) || hot_ratio <= 1.0 || hot_ratio >= num_experts)
    invalid(fmt::format("dirichlet hot_ratio must be in (1, {}), got {}", num_experts, hot_ratio));
  // dirichlet_hot_ratio falls with alpha; bisect on log(alpha) over [1e-6, 1e4]. Beyond, the
  // asymptotes: E - ratio ∝ alpha as alpha -> 0 and ratio - 1 ∝ 1/sqrt(alpha) as alpha -> inf
  // (the Gamma variates become normal); both are within 1% of the exact ratio's distance to its
  // end there, and spare the quadrature at extreme alpha, where it is slow.
  constexpr double kLo = 1e-6, kHi = 1e4;
  const double n = num_experts;
  const double at_lo = dirichlet_hot_ratio(num_experts, kLo);
  if (hot_ratio >= at_lo) return kLo * (n - hot_ratio) / (n - at_lo);
  const double at_hi = dirichlet_hot_ratio(num_experts, kHi);
  if (hot_ratio <= at_hi) return kHi * std::pow((at_hi - 1.0) / (hot_ratio - 1.0), 2);
  double lo = std::log(kLo), hi = std::log(kHi);
  while (hi - lo > 1e-9) {
    const double mid = 0.5 * (lo + hi);
    (dirichlet_hot_ratio(num_experts, std::exp(mid)) > hot_ratio ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

std::vector<double> inclusion_probabilities(const std::vector<double>& popularity, std::int32_t top_k) {
  if (top_k < 0 || static_cast<size_t>(top_k) > popularity.size())
    invalid(fmt::format("top_k must be between 0 and the number of experts ({}), got {}", popularity.size(), top_k));
  for (double p : popularity)
    if (!finite(p) || p < 0) invalid(fmt::format("popularity must be non-negative, got {}", p));
  std::vector<double> pi;
  std::vector<char> capped;
  inclusion(popularity, top_k, -1, pi, capped);
  return pi;
}

std::vector<std::vector<double>> layer_popularity(const RoutingGeneratorConfig& cfg) {
  validate(cfg);
  return popularity_of(cfg);
}

Eigen::MatrixXd affinity_transition(const RoutingGeneratorConfig& cfg) {
  validate(cfg);
  return transition_of(cfg);
}

namespace {
Eigen::MatrixXd transition_of(const RoutingGeneratorConfig& cfg) {
  const int n = cfg.num_experts;
  if (cfg.transition.size() > 0) {
    Eigen::MatrixXd t = cfg.transition;
    for (int r = 0; r < n; ++r) t.row(r) /= t.row(r).sum();
    return t;
  }
  Eigen::MatrixXd t(n, n);
  if (n == 1) {
    t(0, 0) = 1.0;
    return t;
  }
  Rng rng = stream_rng(cfg.seed, Stream::Transition);
  std::vector<std::int32_t> successor(n);
  std::iota(successor.begin(), successor.end(), 0);
  shuffle(successor, rng);
  const double rest = (1.0 - cfg.affinity_peak) / (n - 1);
  t.setConstant(rest);
  for (int r = 0; r < n; ++r) t(r, successor[r]) = cfg.affinity_peak;
  return t;
}
}  // namespace

std::vector<LayerRouting> generate_routing(const RoutingGeneratorConfig& cfg, std::int64_t tokens) {
  validate(cfg);
  if (tokens < 0) invalid(fmt::format("tokens must be non-negative, got {}", tokens));
  const int n = cfg.num_experts, k = cfg.top_k, layers = cfg.num_layers;
  const auto popularity = popularity_of(cfg);

  // Per layer: inclusion probabilities for the whole set.
  std::vector<std::vector<double>> pi(layers);
  std::vector<double> scratch_pi;
  std::vector<char> capped;
  for (int l = 0; l < layers; ++l) inclusion(popularity[l], k, -1, pi[l], capped);

  const bool affinity = cfg.layer_affinity > 0 && layers > 1;
  std::vector<std::vector<double>> cum;  // cumulative rows of the transition matrix
  if (affinity) {
    const Eigen::MatrixXd t = transition_of(cfg);
    cum.assign(n, std::vector<double>(n));
    for (int r = 0; r < n; ++r) {
      double acc = 0;
      for (int c = 0; c < n; ++c) cum[r][c] = (acc += t(r, c));
    }
  }

  std::vector<LayerRouting> out(layers);
  for (int l = 0; l < layers; ++l) {
    out[l].layer = l;
    out[l].num_experts = n;
    out[l].tokens.resize(static_cast<size_t>(tokens));
  }
  Rng rng = stream_rng(cfg.seed, Stream::Tokens);
  std::vector<std::int32_t> order;
  for (std::int64_t t = 0; t < tokens; ++t) {
    for (int l = 0; l < layers; ++l) {
      TokenRoute& r = out[l].tokens[t];
      r.experts.reserve(k);
      if (t > 0 && cfg.token_persistence > 0 && uniform01(rng) < cfg.token_persistence) {
        r.experts = out[l].tokens[t - 1].experts;
      } else if (l > 0 && affinity && uniform01(rng) < cfg.layer_affinity) {
        const std::int32_t top = draw_cumulative(cum[out[l - 1].tokens[t].experts[0]], rng);
        r.experts.push_back(top);
        if (k > 1) {
          inclusion(popularity[l], k - 1, top, scratch_pi, capped);
          systematic_sample(scratch_pi, k - 1, rng, order, r.experts);
        }
      } else {
        systematic_sample(pi[l], k, rng, order, r.experts);
      }
      draw_gates(k, rng, r.gates);
    }
  }
  return out;
}

std::int64_t expert_capacity(double capacity_factor, std::int64_t assignments, std::int32_t num_experts) {
  if (!finite(capacity_factor) || capacity_factor <= 0)
    invalid(fmt::format("capacity_factor must be positive, got {}", capacity_factor));
  if (num_experts < 1) invalid(fmt::format("num_experts must be at least 1, got {}", num_experts));
  if (assignments < 0) invalid(fmt::format("assignments must be non-negative, got {}", assignments));
  const double x = capacity_factor * static_cast<double>(assignments) / num_experts;
  const double nearest = std::round(x);
  if (std::abs(x - nearest) <= 1e-9 * std::max(1.0, x)) return static_cast<std::int64_t>(nearest);
  return static_cast<std::int64_t>(std::ceil(x));
}

std::int64_t apply_capacity(LayerRouting& layer, double capacity_factor) {
  const std::int64_t capacity = expert_capacity(capacity_factor, layer.assignments(), layer.num_experts);
  std::vector<std::int64_t> load(static_cast<size_t>(layer.num_experts), 0);
  std::int64_t dropped = 0;
  for (TokenRoute& t : layer.tokens) {
    size_t kept = 0;
    for (size_t i = 0; i < t.experts.size(); ++i) {
      std::int64_t& l = load.at(static_cast<size_t>(t.experts[i]));
      if (l >= capacity) {
        ++dropped;
        continue;
      }
      ++l;
      t.experts[kept] = t.experts[i];
      if (i < t.gates.size()) t.gates[kept] = t.gates[i];
      ++kept;
    }
    t.experts.resize(kept);
    t.gates.resize(std::min(t.gates.size(), kept));
  }
  return dropped;
}

RoutingStats measure_routing(const std::vector<LayerRouting>& layers) {
  RoutingStats s;
  s.layers = static_cast<std::int32_t>(layers.size());
  std::int64_t token_layers = 0, pairs = 0, same = 0, counted_layers = 0;
  double hot_sum = 0, cv_sum = 0;
  std::vector<std::int32_t> a, b;
  for (const LayerRouting& layer : layers) {
    s.tokens = std::max<std::int64_t>(s.tokens, static_cast<std::int64_t>(layer.tokens.size()));
    token_layers += static_cast<std::int64_t>(layer.tokens.size());
    const auto load = layer.expert_load();
    const std::int64_t total = std::accumulate(load.begin(), load.end(), std::int64_t{0});
    s.assignments += total;
    if (total > 0) {
      const double mean = static_cast<double>(total) / static_cast<double>(load.size());
      const double hot = static_cast<double>(*std::max_element(load.begin(), load.end())) / mean;
      double var = 0;
      for (std::int64_t x : load) var += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
      var /= static_cast<double>(load.size());
      hot_sum += hot;
      s.max_hot_ratio = std::max(s.max_hot_ratio, hot);
      cv_sum += std::sqrt(var) / mean;
      ++counted_layers;
    }
    for (size_t t = 1; t < layer.tokens.size(); ++t) {
      a = layer.tokens[t - 1].experts;
      b = layer.tokens[t].experts;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      ++pairs;
      if (a == b) ++same;
    }
  }
  if (token_layers > 0) s.experts_per_token = static_cast<double>(s.assignments) / static_cast<double>(token_layers);
  if (counted_layers > 0) {
    s.hot_ratio = hot_sum / static_cast<double>(counted_layers);
    s.cv = cv_sum / static_cast<double>(counted_layers);
  }
  if (pairs > 0) s.persistence = static_cast<double>(same) / static_cast<double>(pairs);

  // Layer affinity: (previous top, top) pairs, sorted, counted per previous top.
  std::vector<std::pair<std::int32_t, std::int32_t>> moves;
  for (size_t l = 1; l < layers.size(); ++l) {
    const size_t n = std::min(layers[l].tokens.size(), layers[l - 1].tokens.size());
    for (size_t t = 0; t < n; ++t) {
      const auto& prev = layers[l - 1].tokens[t].experts;
      const auto& cur = layers[l].tokens[t].experts;
      if (!prev.empty() && !cur.empty()) moves.emplace_back(prev[0], cur[0]);
    }
  }
  std::sort(moves.begin(), moves.end());
  std::int64_t best_total = 0;
  for (size_t i = 0; i < moves.size();) {
    std::int64_t best = 0;
    size_t j = i;
    while (j < moves.size() && moves[j].first == moves[i].first) {
      size_t m = j;
      while (m < moves.size() && moves[m] == moves[j]) ++m;
      best = std::max<std::int64_t>(best, static_cast<std::int64_t>(m - j));
      j = m;
    }
    best_total += best;
    i = j;
  }
  if (!moves.empty()) s.layer_affinity = static_cast<double>(best_total) / static_cast<double>(moves.size());
  return s;
}

}  // namespace strata
