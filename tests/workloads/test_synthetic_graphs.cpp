// R-MAT and Chung-Lu power-law generators: seed determinism (including golden fingerprints, which
// pin the output across platforms and library versions), size, degree skew and degree exponent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "sim/input_error.h"
#include "test_util.h"
#include "workloads/graph/csr_graph.h"
#include "workloads/graph/synthetic_graphs.h"

using strata::CsrGraph;
using strata::testing::error_of;

namespace {

// FNV-1a over the CSR arrays: equal graphs give equal fingerprints.
std::uint64_t fingerprint(const CsrGraph& g) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  mix(g.row_ptr(), sizeof(std::int64_t) * static_cast<size_t>(g.num_nodes() + 1));
  mix(g.col_idx(), sizeof(std::int32_t) * static_cast<size_t>(g.num_edges()));
  return h;
}

// Maximum-likelihood estimate of a power-law exponent from the degrees >= k_min (the discrete
// approximation of Clauset, Shalizi and Newman, SIAM Review 2009, eq. 3.7).
double tail_exponent(const CsrGraph& g, std::int64_t k_min, std::int64_t* tail_nodes) {
  double sum = 0;
  std::int64_t count = 0;
  for (std::int64_t v = 0; v < g.num_nodes(); ++v) {
    const std::int64_t d = g.degree(v);
    if (d < k_min) continue;
    sum += std::log(static_cast<double>(d) / (static_cast<double>(k_min) - 0.5));
    ++count;
  }
  *tail_nodes = count;
  return 1 + static_cast<double>(count) / sum;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// R-MAT

TEST(Rmat, SameSeedSameGraphOtherSeedOtherGraph) {
  const CsrGraph a = strata::rmat_graph(10, 8, 0.57, 0.19, 0.19, 42);
  const CsrGraph b = strata::rmat_graph(10, 8, 0.57, 0.19, 0.19, 42);
  const CsrGraph c = strata::rmat_graph(10, 8, 0.57, 0.19, 0.19, 43);
  EXPECT_TRUE(a.same_structure(b));
  EXPECT_FALSE(a.same_structure(c));
  EXPECT_EQ(a.name(), "rmat_s10_ef8");
}

TEST(Rmat, GoldenFingerprint) {
  // Pinned output: a change here means a seed no longer reproduces earlier results (a changed
  // generator, or a boost::random whose streams differ). Update only on purpose.
  const CsrGraph g = strata::rmat_graph(8, 4, 0.57, 0.19, 0.19, 1);
  EXPECT_EQ(g.num_edges(), 1488);
  EXPECT_EQ(fingerprint(g), 18223548425544204926ull);
}

TEST(Rmat, RequestedSize) {
  // Uniform quadrants (a = b = c = d = 1/4) pick each of the 2^24 cells with equal probability, so
  // 16,384 edges give only a handful of duplicates and self loops: the stored directed edges are
  // the requested number to within 0.5%.
  const CsrGraph uniform = strata::rmat_graph(12, 4, 0.25, 0.25, 0.25, 5, /*symmetrize=*/false);
  EXPECT_EQ(uniform.num_nodes(), 4096);
  EXPECT_LE(uniform.num_edges(), 16384);
  EXPECT_GE(uniform.num_edges(), 16384 * 995 / 1000);
  EXPECT_EQ(uniform.self_loops(), 0);

  // Skewed: duplicates are common, but the stored edges lie between the distinct generated edges
  // and twice that.
  const CsrGraph directed = strata::rmat_graph(12, 16, 0.57, 0.19, 0.19, 5, false);
  const CsrGraph sym = strata::rmat_graph(12, 16, 0.57, 0.19, 0.19, 5, true);
  EXPECT_EQ(sym.num_nodes(), 4096);
  EXPECT_LE(directed.num_edges(), 16 * 4096);
  EXPECT_GE(directed.num_edges(), 16 * 4096 * 3 / 4);
  EXPECT_GE(sym.num_edges(), directed.num_edges());
  EXPECT_LE(sym.num_edges(), 2 * directed.num_edges());
  EXPECT_TRUE(sym.is_symmetric());
  EXPECT_EQ(sym.self_loops(), 0);
}

TEST(Rmat, SkewedDegrees) {
  const CsrGraph g = strata::rmat_graph(12, 16, 0.57, 0.19, 0.19, 9);
  // Heavy tail: the largest degree is tens of times the mean (about 56x for this seed), where an
  // Erdos-Renyi graph of the same size would stay below 2x.
  EXPECT_GT(static_cast<double>(g.max_degree()), 20 * g.average_degree());
  const CsrGraph flat = strata::rmat_graph(12, 16, 0.25, 0.25, 0.25, 9);
  EXPECT_LT(static_cast<double>(flat.max_degree()), 2 * flat.average_degree());
  // Many low-degree nodes: the median degree is below the mean.
  std::vector<std::int64_t> degrees;
  for (std::int64_t v = 0; v < g.num_nodes(); ++v) degrees.push_back(g.degree(v));
  std::nth_element(degrees.begin(), degrees.begin() + static_cast<std::ptrdiff_t>(degrees.size() / 2), degrees.end());
  EXPECT_LT(static_cast<double>(degrees[degrees.size() / 2]), g.average_degree() / 2);
}

TEST(Rmat, RejectsBadParameters) {
  EXPECT_EQ(error_of([] { strata::rmat_graph(0, 16, 0.57, 0.19, 0.19, 1); }), "<input>: error: scale: must be in [1, 31], got 0");
  EXPECT_EQ(error_of([] { strata::rmat_graph(10, 0, 0.57, 0.19, 0.19, 1); }), "<input>: error: edge_factor: must be positive, got 0");
  EXPECT_EQ(error_of([] { strata::rmat_graph(10, 16, -0.1, 0.19, 0.19, 1); }),
            "<input>: error: a: must be a probability in [0, 1], got -0.1");
  EXPECT_NE(error_of([] { strata::rmat_graph(10, 16, 0.6, 0.3, 0.3, 1); }).find("a + b + c must be at most 1"),
            std::string::npos);
}

TEST(Rmat, LargestScaleIsCheckedAgainstTheMemoryBudget) {
  strata::testing::ScopedEnv limit("STRATA_MEMORY_LIMIT", "1 GiB");
  EXPECT_EQ(error_of([] { strata::rmat_graph(31, 1, 0.57, 0.19, 0.19, 1); }),
            "<input>: error: scale: an R-MAT graph of 2^31 nodes and 2147483648 edges needs 64 GiB of memory, more "
            "than the 1 GiB this process may use (physical memory and ulimit; STRATA_MEMORY_LIMIT overrides)");
}

// ---------------------------------------------------------------------------------------------
// Chung-Lu power law

TEST(PowerLaw, SameSeedSameGraph) {
  const CsrGraph a = strata::power_law_graph(3000, 8, 2.5, 11);
  EXPECT_TRUE(a.same_structure(strata::power_law_graph(3000, 8, 2.5, 11)));
  EXPECT_FALSE(a.same_structure(strata::power_law_graph(3000, 8, 2.5, 12)));
  EXPECT_TRUE(a.is_symmetric());
  EXPECT_EQ(a.self_loops(), 0);
}

TEST(PowerLaw, GoldenFingerprint) {
  const CsrGraph g = strata::power_law_graph(1000, 6, 2.5, 3);
  EXPECT_EQ(g.num_edges(), 6070);
  EXPECT_EQ(fingerprint(g), 312486891752031257ull);
}

TEST(PowerLaw, WeightsFollowTheRequestedLaw) {
  const std::int64_t n = 20000;
  const double d = 10, gamma = 2.5;
  const std::vector<double> w = strata::power_law_weights(n, d, gamma);
  double sum = 0;
  for (const double x : w) sum += x;
  EXPECT_NEAR(sum / static_cast<double>(n), d, 1e-9);
  EXPECT_TRUE(std::is_sorted(w.rbegin(), w.rend()));
  EXPECT_LE(w.front(), std::sqrt(sum) * (1 + 1e-6));  // the structural cutoff
  EXPECT_GE(w.front(), std::sqrt(sum) * 0.99);        // ... reached, not undershot
  // w_i ~ (i + i0)^(-1/(gamma-1)): the log-log slope between ranks far from the head is -1/(gamma-1).
  const double slope = std::log(w[10000] / w[1000]) / std::log(10000.0 / 1000.0);
  EXPECT_NEAR(slope, -1 / (gamma - 1), 0.02);
}

TEST(PowerLaw, AverageDegreeWithinTwoPercent) {
  // Expected average degree: avg_degree (1 - sum w^2 / (n sum w)), about 0.2% below the target
  // for these sizes; allow 2% for the sampling noise of ~1e5 edges.
  for (const double gamma : {2.2, 2.5, 3.0}) {
    for (const double d : {4.0, 16.0}) {
      const CsrGraph g = strata::power_law_graph(20000, d, gamma, 1);
      EXPECT_NEAR(g.average_degree(), d, 0.02 * d) << "gamma " << gamma << " avg " << d;
      EXPECT_GT(static_cast<double>(g.max_degree()), 10 * d);
    }
  }
}

TEST(PowerLaw, DegreeTailFollowsTheExponent) {
  // The maximum-likelihood exponent of the degrees >= 2 x avg_degree (so Poisson noise around the
  // weights is small) must be within 0.25 of gamma. The estimate runs high by ~0.1 because the
  // cutoff at sqrt(n avg_degree) truncates the tail; a tail one exponent off (gamma +- 1) fails.
  for (const double gamma : {2.5, 3.0}) {
    const CsrGraph g = strata::power_law_graph(20000, 10, gamma, 7);
    std::int64_t tail = 0;
    const double estimate = tail_exponent(g, 20, &tail);
    EXPECT_GT(tail, 500);  // enough nodes for the estimate to mean something
    EXPECT_NEAR(estimate, gamma, 0.25) << "gamma " << gamma;
  }
}

TEST(PowerLaw, RejectsBadParameters) {
  EXPECT_EQ(error_of([] { strata::power_law_graph(1, 1, 2.5, 1); }), "<input>: error: n: must be in [2, 2147483648], got 1");
  EXPECT_EQ(error_of([] { strata::power_law_graph(100, 0, 2.5, 1); }), "<input>: error: avg_degree: must be in (0, n - 1 = 99], got 0");
  EXPECT_EQ(error_of([] { strata::power_law_graph(100, 200, 2.5, 1); }),
            "<input>: error: avg_degree: must be in (0, n - 1 = 99], got 200");
  EXPECT_EQ(error_of([] { strata::power_law_graph(100, 5, 2.0, 1); }), "<input>: error: gamma: must be greater than 2, got 2");
}

TEST(PowerLaw, LargestGraphIsCheckedAgainstTheMemoryBudget) {
  strata::testing::ScopedEnv limit("STRATA_MEMORY_LIMIT", "1 GiB");
  EXPECT_NE(error_of([] { strata::power_law_graph(std::int64_t{1} << 31, 8, 2.5, 1); })
                .find("nodes: a power-law graph of 2147483648 nodes and about 8589934592 edges needs"),
            std::string::npos);
}

TEST(PowerLaw, DenseGraphStillValid) {
  // avg_degree close to n - 1: the cutoff cannot be met, probabilities clamp at 1.
  const CsrGraph g = strata::power_law_graph(50, 40, 2.5, 1);
  EXPECT_EQ(g.num_nodes(), 50);
  EXPECT_LE(g.max_degree(), 49);
  EXPECT_GT(g.average_degree(), 30);
  EXPECT_TRUE(g.is_symmetric());
}

// ---------------------------------------------------------------------------------------------
// Relabeling

TEST(Relabel, PermutesIdsKeepingTheDegreeSequence) {
  const CsrGraph g = strata::rmat_graph(9, 8, 0.57, 0.19, 0.19, 2);
  const CsrGraph r = strata::relabel_randomly(g, 5);
  EXPECT_EQ(r.num_nodes(), g.num_nodes());
  EXPECT_EQ(r.num_edges(), g.num_edges());
  EXPECT_EQ(r.max_degree(), g.max_degree());
  EXPECT_TRUE(r.is_symmetric());
  EXPECT_FALSE(r.same_structure(g));
  EXPECT_TRUE(r.same_structure(strata::relabel_randomly(g, 5)));
  std::vector<std::int64_t> dg, dr;
  for (std::int64_t v = 0; v < g.num_nodes(); ++v) {
    dg.push_back(g.degree(v));
    dr.push_back(r.degree(v));
  }
  EXPECT_NE(dg, dr);  // the hub moved away from node 0
  std::sort(dg.begin(), dg.end());
  std::sort(dr.begin(), dr.end());
  EXPECT_EQ(dg, dr);
  // A directed graph stays directed and keeps its self loop.
  const CsrGraph dir("d", {0, 2, 3, 3}, {1, 2, 1});
  const CsrGraph rd = strata::relabel_randomly(dir, 1);
  EXPECT_EQ(rd.num_edges(), 3);
  EXPECT_EQ(rd.self_loops(), 1);
  EXPECT_FALSE(rd.is_symmetric());
}
