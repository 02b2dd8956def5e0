#include "workloads/graph/synthetic_graphs.h"

#include <algorithm>
#include <cmath>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/memory_budget.h"

namespace strata {
namespace {

using Edge = std::pair<std::int32_t, std::int32_t>;

[[noreturn]] void bad(const std::string& key, const std::string& message) { throw InputError(SourceLoc{}, key, message); }

// Sum over i = 0..n-1 of (i + x)^(-alpha), by Euler-Maclaurin (integral + end corrections); used
// only to choose the offset i0, whose exact value does not matter.
double approx_power_sum(double n, double x, double alpha) {
  const auto f = [alpha](double t) { return std::pow(t, -alpha); };
  const double integral = (std::pow(x + n, 1 - alpha) - std::pow(x, 1 - alpha)) / (1 - alpha);
  return integral + (f(x) - f(x + n)) / 2;
}

}  // namespace

CsrGraph rmat_graph(int scale, double edge_factor, double a, double b, double c, std::uint64_t seed, bool symmetrize) {
  if (scale < 1 || scale > 31) bad("scale", fmt::format("must be in [1, 31], got {}", scale));
  if (!(edge_factor > 0) || !std::isfinite(edge_factor)) bad("edge_factor", fmt::format("must be positive, got {}", edge_factor));
  for (const auto& [key, p] : {std::pair<const char*, double>{"a", a}, {"b", b}, {"c", c}})
    if (!(p >= 0 && p <= 1)) bad(key, fmt::format("must be a probability in [0, 1], got {}", p));
  if (a + b + c > 1 + 1e-12) bad("c", fmt::format("a + b + c must be at most 1 (d = 1 - a - b - c), got {}", a + b + c));
  const std::int64_t n = std::int64_t{1} << scale;
  const double m_real = std::round(edge_factor * static_cast<double>(n));
  if (m_real > 4e9) bad("edge_factor", fmt::format("{} x 2^{} edges are more than 4e9", edge_factor, scale));
  const auto m = static_cast<std::int64_t>(m_real);
  // The generated edge list (8 bytes an edge), then the CSR arrays.
  require_memory(8 * m_real + 16 * static_cast<double>(n) + 4 * m_real * (symmetrize ? 2 : 1),
                 fmt::format("an R-MAT graph of 2^{} nodes and {} edges", scale, m), SourceLoc{}, "scale");

  boost::random::mt19937_64 rng(seed);
  boost::random::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double ab = a + b, abc = a + b + c;
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(m));
  for (std::int64_t e = 0; e < m; ++e) {
    std::uint32_t u = 0, v = 0;
    for (int level = scale - 1; level >= 0; --level) {
      const double r = uniform(rng);
      const std::uint32_t bit = std::uint32_t{1} << level;
      if (r < a) {
        // top-left: neither bit
      } else if (r < ab) {
        v |= bit;
      } else if (r < abc) {
        u |= bit;
      } else {
        u |= bit;
        v |= bit;
      }
    }
    edges.emplace_back(static_cast<std::int32_t>(u), static_cast<std::int32_t>(v));
  }
  return CsrGraph::from_edges(fmt::format("rmat_s{}_ef{}", scale, edge_factor), n, std::move(edges), symmetrize);
}

std::vector<double> power_law_weights(std::int64_t n, double avg_degree, double gamma) {
  if (n < 2 || n > CsrGraph::kMaxNodes) bad("n", fmt::format("must be in [2, {}], got {}", CsrGraph::kMaxNodes, n));
  if (!(avg_degree > 0) || avg_degree > static_cast<double>(n - 1))
    bad("avg_degree", fmt::format("must be in (0, n - 1 = {}], got {}", n - 1, avg_degree));
  if (!(gamma > 2) || !std::isfinite(gamma)) bad("gamma", fmt::format("must be greater than 2, got {}", gamma));
  const double alpha = 1 / (gamma - 1);  // in (0, 1)
  const double nd = static_cast<double>(n);
  const double total = nd * avg_degree, cutoff = std::sqrt(total);
  // Largest weight for offset x, scaled so the weights sum to `total`; falls as x grows.
  const auto top = [&](double x) { return total * std::pow(x, -alpha) / approx_power_sum(nd, x, alpha); };
  double i0 = 1;
  if (top(1) > cutoff) {
    double lo = 1, hi = 2;
    while (top(hi) > cutoff && hi < 1e18) hi *= 2;
    for (int iter = 0; iter < 100 && hi - lo > 1e-9 * hi; ++iter) {
      const double mid = (lo + hi) / 2;
      (top(mid) > cutoff ? lo : hi) = mid;
    }
    i0 = hi;
  }
  std::vector<double> w(static_cast<size_t>(n));
  double sum = 0;
  for (size_t i = 0; i < w.size(); ++i) sum += (w[i] = std::pow(static_cast<double>(i) + i0, -alpha));
  const double scale = total / sum;
  for (double& x : w) x *= scale;
  return w;
}

CsrGraph power_law_graph(std::int64_t n, double avg_degree, double gamma, std::uint64_t seed) {
  // Weights (8 bytes a node), the edge list (8 bytes an edge), then the CSR arrays.
  const double nodes = static_cast<double>(n), expected_edges = nodes * avg_degree / 2;
  require_memory(24 * nodes + 16 * expected_edges,
                 fmt::format("a power-law graph of {} nodes and about {:.0f} edges", n, expected_edges), SourceLoc{}, "nodes");
  const std::vector<double> w = power_law_weights(n, avg_degree, gamma);
  double total = 0;
  for (const double x : w) total += x;
  boost::random::mt19937_64 rng(seed);
  boost::random::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(static_cast<double>(n) * avg_degree / 2 * 1.05) + 16);
  // Miller-Hagberg: for each u, walk v > u in decreasing-weight order, skipping a geometric number
  // of candidates under the current (upper-bound) probability p, then accepting with q / p.
  for (std::int64_t u = 0; u + 1 < n; ++u) {
    std::int64_t v = u + 1;
    const double wu = w[static_cast<size_t>(u)];
    double p = std::min(wu * w[static_cast<size_t>(v)] / total, 1.0);
    while (v < n && p > 0) {
      if (p < 1) {
        const double r = 1.0 - uniform(rng);  // in (0, 1]
        const double skip = std::floor(std::log(r) / std::log1p(-p));
        if (skip >= static_cast<double>(n - v)) break;
        v += static_cast<std::int64_t>(skip);
      }
      const double q = std::min(wu * w[static_cast<size_t>(v)] / total, 1.0);
      if (uniform(rng) < q / p) edges.emplace_back(static_cast<std::int32_t>(u), static_cast<std::int32_t>(v));
      p = q;
      ++v;
    }
  }
  return CsrGraph::from_edges(fmt::format("chunglu_n{}_d{}_g{}", n, avg_degree, gamma), n, std::move(edges), true);
}

CsrGraph relabel_randomly(const CsrGraph& g, std::uint64_t seed) {
  const std::int64_t n = g.num_nodes();
  std::vector<std::int32_t> perm(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = static_cast<std::int32_t>(i);
  boost::random::mt19937_64 rng(seed);
  for (std::int64_t i = n - 1; i > 0; --i) {
    boost::random::uniform_int_distribution<std::int64_t> pick(0, i);
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(pick(rng))]);
  }
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(g.num_edges()));
  for (std::int64_t u = 0; u < n; ++u)
    for (const std::int32_t v : g.neighbors(u)) edges.emplace_back(perm[static_cast<size_t>(u)], perm[static_cast<size_t>(v)]);
  return CsrGraph::from_edges(g.name(), n, std::move(edges), false, /*keep_self_loops=*/true);
}

}  // namespace strata
