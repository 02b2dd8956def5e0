// MoE routing: generators (skew, persistence, layer affinity), capacity, expert placement and
// the JSON Lines routing-trace reader/writer.
//
// Statistical checks use fixed seeds (so they are deterministic) and tolerances of 5 binomial
// (or sample) standard deviations, stated at each check: a correct generator passes them with
// any seed except with probability below 1e-5 per check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "test_util.h"
#include "workloads/moe/expert_placement.h"
#include "workloads/moe/routing.h"
#include "workloads/moe/routing_trace.h"

namespace strata {
namespace {

using strata::testing::TempDir;

double binomial_sd(double n, double p) { return std::sqrt(n * p * (1 - p)); }

RoutingGeneratorConfig config(std::int32_t experts, std::int32_t k, std::int32_t layers = 1) {
  RoutingGeneratorConfig c;
  c.num_experts = experts;
  c.top_k = k;
  c.num_layers = layers;
  return c;
}

void expect_well_formed(const std::vector<LayerRouting>& layers, const RoutingGeneratorConfig& c, std::int64_t tokens) {
  ASSERT_EQ(layers.size(), static_cast<size_t>(c.num_layers));
  for (size_t l = 0; l < layers.size(); ++l) {
    EXPECT_EQ(layers[l].layer, static_cast<std::int32_t>(l));
    EXPECT_EQ(layers[l].num_experts, c.num_experts);
    ASSERT_EQ(layers[l].tokens.size(), static_cast<size_t>(tokens));
    for (const TokenRoute& t : layers[l].tokens) {
      ASSERT_EQ(t.experts.size(), static_cast<size_t>(c.top_k));
      ASSERT_EQ(t.gates.size(), static_cast<size_t>(c.top_k));
      const std::set<std::int32_t> distinct(t.experts.begin(), t.experts.end());
      EXPECT_EQ(distinct.size(), t.experts.size());
      for (std::int32_t e : t.experts) {
        EXPECT_GE(e, 0);
        EXPECT_LT(e, c.num_experts);
      }
      double sum = 0;
      for (size_t i = 0; i < t.gates.size(); ++i) {
        EXPECT_GT(t.gates[i], 0.0f);
        if (i > 0) {
          EXPECT_GE(t.gates[i - 1], t.gates[i]);  // decreasing: experts[0] is the top expert
        }
        sum += t.gates[i];
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);  // k floats of ~1e-7 relative rounding each
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Generator

TEST(MoeRouting, KDistinctExpertsAndGatesSumToOne) {
  std::vector<RoutingGeneratorConfig> configs;
  configs.push_back(config(8, 2, 3));
  configs.push_back(config(1, 1, 2));
  configs.push_back(config(4, 4, 2));  // every expert on every token
  auto zipf = config(16, 4, 3);
  zipf.popularity = Popularity::Zipf;
  zipf.hot_ratio = 3.5;
  configs.push_back(zipf);
  auto dirichlet = config(32, 8, 3);
  dirichlet.popularity = Popularity::Dirichlet;
  dirichlet.hot_ratio = 4;  // = E / k: some layers cap the hottest expert at every token
  configs.push_back(dirichlet);
  auto mixed = config(8, 3, 4);
  mixed.popularity = Popularity::Zipf;
  mixed.hot_ratio = 2;
  mixed.token_persistence = 0.4;
  mixed.layer_affinity = 0.6;
  configs.push_back(mixed);
  auto top1 = config(64, 1, 3);
  top1.popularity = Popularity::Dirichlet;
  top1.dirichlet_alpha = 0.01;  // nearly one-hot layers
  top1.layer_affinity = 1;
  configs.push_back(top1);
  for (const auto& c : configs) {
    SCOPED_TRACE(::testing::Message() << "E=" << c.num_experts << " k=" << c.top_k << " " << to_string(c.popularity));
    expect_well_formed(generate_routing(c, 300), c, 300);
  }
  EXPECT_TRUE(generate_routing(config(8, 2, 2), 0)[1].tokens.empty());
}

// Each expert's load is Binomial(N, k/E) for uniform popularity; checked within 5 sd.
TEST(MoeRouting, UniformLoadIsFlat) {
  const auto c = config(16, 2, 2);
  const std::int64_t n = 20000;
  const auto layers = generate_routing(c, n);
  const double mean = n * 2.0 / 16, sd = binomial_sd(n, 2.0 / 16);  // 2500, 46.8
  for (const auto& layer : layers)
    for (std::int64_t load : layer.expert_load()) EXPECT_NEAR(static_cast<double>(load), mean, 5 * sd);
  const RoutingStats s = measure_routing(layers);
  EXPECT_LT(s.hot_ratio, 1 + 5 * sd / mean);
  EXPECT_LT(s.cv, 5 * sd / mean);
  EXPECT_DOUBLE_EQ(s.experts_per_token, 2.0);
}

TEST(MoeRouting, ZipfExponentSolvesHotRatio) {
  for (int e : {2, 8, 64, 256})
    for (double hot : {1.0, 1.5, 0.5 * e + 0.5, 0.99 * e}) {
      const double s = zipf_exponent(e, hot);
      double h = 0;
      for (int r = 1; r <= e; ++r) h += std::pow(r, -s);
      EXPECT_NEAR(e / h, hot, 1e-9 * hot) << "E=" << e << " hot=" << hot;
    }
  EXPECT_EQ(zipf_exponent(8, 1.0), 0.0);
  EXPECT_THROW(zipf_exponent(8, 8.0), std::invalid_argument);
  EXPECT_THROW(zipf_exponent(8, 0.5), std::invalid_argument);
}

// Zipf: expert i's load is Binomial(N, k p_i); the hottest expert sees hot_ratio times the
// uniform load, and a different expert is hottest in different layers.
TEST(MoeRouting, ZipfLoadFollowsPopularity) {
  auto c = config(16, 2, 8);
  c.popularity = Popularity::Zipf;
  c.hot_ratio = 4;
  const std::int64_t n = 20000;
  const auto pop = layer_popularity(c);
  const auto layers = generate_routing(c, n);
  std::set<std::int32_t> hottest;
  for (size_t l = 0; l < layers.size(); ++l) {
    const auto& p = pop[l];
    EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-12);
    const auto hot = std::max_element(p.begin(), p.end());
    EXPECT_NEAR(*hot * 16, 4.0, 1e-9);
    hottest.insert(static_cast<std::int32_t>(hot - p.begin()));
    const auto load = layers[l].expert_load();
    for (int e = 0; e < 16; ++e)
      EXPECT_NEAR(static_cast<double>(load[e]), n * 2 * p[e], 5 * binomial_sd(n, 2 * p[e])) << "layer " << l << " expert " << e;
  }
  EXPECT_GT(hottest.size(), 1u);  // all 8 layers alike would have probability 16^-7
  // Hottest load / uniform load: sd of one layer's ratio is binomial_sd(N, 0.5) / 2500 = 0.028; the
  // second-hottest expert (p = 0.14) is ~60 sd below, so the max of the loads is the hot expert's.
  EXPECT_NEAR(measure_routing(layers).hot_ratio, 4.0, 5 * binomial_sd(n, 0.5) / 2500);
}

TEST(MoeRouting, InclusionProbabilities) {
  const auto pi = inclusion_probabilities({0.6, 0.2, 0.1, 0.1}, 2);  // 2 * 0.6 > 1: capped at 1
  ASSERT_EQ(pi.size(), 4u);
  EXPECT_DOUBLE_EQ(pi[0], 1.0);
  EXPECT_DOUBLE_EQ(pi[1], 0.5);
  EXPECT_DOUBLE_EQ(pi[2], 0.25);
  EXPECT_DOUBLE_EQ(pi[3], 0.25);
  const auto uncapped = inclusion_probabilities({0.4, 0.3, 0.2, 0.1}, 2);
  EXPECT_DOUBLE_EQ(uncapped[0], 0.8);
  EXPECT_DOUBLE_EQ(uncapped[3], 0.2);
  const auto zeros = inclusion_probabilities({1.0, 0.0, 0.0}, 2);  // the zero ones share the rest
  EXPECT_DOUBLE_EQ(zeros[0], 1.0);
  EXPECT_DOUBLE_EQ(zeros[1], 0.5);
  EXPECT_DOUBLE_EQ(zeros[2], 0.5);
  EXPECT_THROW(inclusion_probabilities({0.5, 0.5}, 3), std::invalid_argument);
}

// E[max p] * E of a symmetric Dirichlet: exact for alpha = 1 (max of uniform spacings: H_E) and
// for E = 2, alpha = 1/2 (arcsine law: 1 + 2/pi); the solver inverts it.
TEST(MoeRouting, DirichletHotRatioQuadrature) {
  for (int e : {2, 8, 64, 256}) {
    double h = 0;
    for (int i = 1; i <= e; ++i) h += 1.0 / i;
    EXPECT_NEAR(dirichlet_hot_ratio(e, 1.0), h, 1e-9) << e;
  }
  EXPECT_NEAR(dirichlet_hot_ratio(2, 0.5), 1 + 2 / M_PI, 1e-9);
  for (double hot : {1.2, 2.0, 4.0, 12.0}) {
    const double alpha = dirichlet_alpha_for(16, hot);
    EXPECT_NEAR(dirichlet_hot_ratio(16, alpha), hot, 1e-6 * hot) << hot;
  }
  EXPECT_LT(dirichlet_hot_ratio(16, 10.0), dirichlet_hot_ratio(16, 1.0));  // more concentration, less skew
  // Beyond the bisection range: the asymptotes, within 1% of the distance to the end.
  EXPECT_NEAR(dirichlet_hot_ratio(16, dirichlet_alpha_for(16, 1.01)) - 1, 0.01, 1e-4);
  EXPECT_NEAR(16 - dirichlet_hot_ratio(16, dirichlet_alpha_for(16, 15.9999)), 1e-4, 1e-6);
  EXPECT_THROW(dirichlet_alpha_for(16, 16.0), std::invalid_argument);
  EXPECT_THROW(dirichlet_hot_ratio(16, 0.0), std::invalid_argument);
}

// The drawn popularities have mean max p * E == hot_ratio: a z-test with the sample sd over
// 4000 layers (sd ~1.1, so the standard error is ~0.02).
TEST(MoeRouting, DirichletPopularityMatchesHotRatio) {
  auto c = config(16, 2, 4000);
  c.popularity = Popularity::Dirichlet;
  c.hot_ratio = 4;
  const auto pop = layer_popularity(c);
  double sum = 0, sum2 = 0;
  std::set<size_t> hottest;
  for (const auto& p : pop) {
    EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-12);
    const auto hot = std::max_element(p.begin(), p.end());
    hottest.insert(static_cast<size_t>(hot - p.begin()));
    const double r = *hot * 16;
    sum += r;
    sum2 += r * r;
  }
  const double n = static_cast<double>(pop.size()), mean = sum / n, se = std::sqrt((sum2 / n - mean * mean) / n);
  EXPECT_LT(se, 0.05);
  EXPECT_NEAR(mean, 4.0, 5 * se);
  EXPECT_EQ(hottest.size(), 16u);

  // dirichlet_alpha given directly: alpha = 1 has E[max p] * E = H_16 = 3.3807.
  c.hot_ratio = 1;
  c.dirichlet_alpha = 1;
  const auto flat = layer_popularity(c);
  sum = sum2 = 0;
  for (const auto& p : flat) {
    const double r = *std::max_element(p.begin(), p.end()) * 16;
    sum += r;
    sum2 += r * r;
  }
  const double mean1 = sum / n, se1 = std::sqrt((sum2 / n - mean1 * mean1) / n);
  EXPECT_NEAR(mean1, dirichlet_hot_ratio(16, 1.0), 5 * se1);
}

// End to end: in every layer the load of the expert that is hottest by popularity is
// Binomial(N, pi_hot); the sum over layers is checked within 5 sd. The measured hot ratio (the
// max of the loads, averaged over layers) then lands near the asked 4: within 5 standard errors
// of the popularity draw (per-layer sd <= 1.2 over 200 layers: 0.42) plus the upward bias of a
// max over noisy loads (at most 1.8 sd of one load, 0.19 here).
TEST(MoeRouting, DirichletEndToEnd) {
  auto c = config(16, 2, 200);
  c.popularity = Popularity::Dirichlet;
  c.hot_ratio = 4;
  const std::int64_t n = 1000;
  const auto pop = layer_popularity(c);
  const auto layers = generate_routing(c, n);
  double diff = 0, var = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    const auto pi = inclusion_probabilities(pop[l], 2);
    const size_t hot = static_cast<size_t>(std::max_element(pop[l].begin(), pop[l].end()) - pop[l].begin());
    diff += static_cast<double>(layers[l].expert_load()[hot]) - n * pi[hot];
    var += n * pi[hot] * (1 - pi[hot]);
  }
  EXPECT_LT(std::abs(diff), 5 * std::sqrt(var));
  EXPECT_NEAR(measure_routing(layers).hot_ratio, 4.0, 0.42 + 0.19);
}

// Reuse events are Bernoulli(q) per consecutive pair; a fresh draw repeats the set by chance
// with probability 1 / C(64, 2) = 1/2016.
TEST(MoeRouting, TokenPersistence) {
  auto c = config(64, 2, 2);
  const std::int64_t n = 20000;
  const double chance = 1.0 / 2016, pairs = 2.0 * (n - 1);
  for (double q : {0.0, 0.3, 0.9}) {
    c.token_persistence = q;
    const auto layers = generate_routing(c, n);
    const double expect = q + (1 - q) * chance;
    EXPECT_NEAR(measure_routing(layers).persistence, expect, 5 * std::sqrt(expect * (1 - expect) / pairs)) << q;
  }
  c.token_persistence = 1;
  const auto all = generate_routing(c, 100);
  EXPECT_DOUBLE_EQ(measure_routing(all).persistence, 1.0);
  for (const auto& t : all[0].tokens) EXPECT_EQ(t.experts, all[0].tokens[0].experts);
  EXPECT_NE(all[0].tokens[1].gates, all[0].tokens[0].gates);  // fresh gates on the reused set
}

// layer_affinity 1: the top expert at layer l+1 follows row (top expert at layer l) of the
// matrix. Each frequency is checked within 5 binomial sd of its row count; zeros exactly.
TEST(MoeRouting, LayerAffinityFollowsTransitionMatrix) {
  auto c = config(4, 2, 3);
  c.layer_affinity = 1;
  c.transition.resize(4, 4);
  c.transition << 0.7, 0.1, 0.1, 0.1,  //
      0.0, 0.5, 0.5, 0.0,              //
      0.25, 0.25, 0.25, 0.25,          //
      0.05, 0.05, 0.1, 0.8;
  const std::int64_t n = 20000;
  const auto layers = generate_routing(c, n);
  expect_well_formed(layers, c, n);
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(4, 4);
  for (size_t l = 1; l < layers.size(); ++l)
    for (std::int64_t t = 0; t < n; ++t) counts(layers[l - 1].tokens[t].experts[0], layers[l].tokens[t].experts[0]) += 1;
  for (int r = 0; r < 4; ++r) {
    const double row = counts.row(r).sum();
    ASSERT_GT(row, 1000);
    for (int col = 0; col < 4; ++col) {
      const double p = c.transition(r, col);
      if (p == 0) {
        EXPECT_EQ(counts(r, col), 0) << r << "," << col;
      } else {
        EXPECT_NEAR(counts(r, col) / row, p, 5 * std::sqrt(p * (1 - p) / row)) << r << "," << col;
      }
    }
  }
  EXPECT_TRUE(affinity_transition(c).isApprox(c.transition, 1e-12));
}

// Generated matrix: one preferred successor per expert (a permutation) with affinity_peak.
// With layer_affinity a, the top expert follows it with probability a * peak + (1 - a) / E (the
// top expert of a fresh uniform draw is uniform); measured within 5 binomial sd.
TEST(MoeRouting, GeneratedTransitionAndMixedAffinity) {
  auto c = config(8, 2, 3);
  c.layer_affinity = 0.5;
  c.affinity_peak = 0.8;
  const Eigen::MatrixXd t = affinity_transition(c);
  std::set<Eigen::Index> successors;
  for (int r = 0; r < 8; ++r) {
    EXPECT_NEAR(t.row(r).sum(), 1.0, 1e-12);
    Eigen::Index best;
    EXPECT_DOUBLE_EQ(t.row(r).maxCoeff(&best), 0.8);
    successors.insert(best);
    for (int col = 0; col < 8; ++col) {
      if (col != best) {
        EXPECT_DOUBLE_EQ(t(r, col), 0.2 / 7);
      }
    }
  }
  EXPECT_EQ(successors.size(), 8u);
  const std::int64_t n = 20000;
  const auto layers = generate_routing(c, n);
  double follow = 0;
  for (size_t l = 1; l < layers.size(); ++l)
    for (std::int64_t tok = 0; tok < n; ++tok) {
      Eigen::Index best;
      t.row(layers[l - 1].tokens[tok].experts[0]).maxCoeff(&best);
      follow += layers[l].tokens[tok].experts[0] == best;
    }
  const double moves = 2.0 * n, expect = 0.5 * 0.8 + 0.5 / 8;
  const double tol = 5 * std::sqrt(expect * (1 - expect) / moves);
  EXPECT_NEAR(follow / moves, expect, tol);
  EXPECT_NEAR(measure_routing(layers).layer_affinity, expect, tol);
}

TEST(MoeRouting, SeedDeterminismAndPrefix) {
  auto c = config(16, 3, 3);
  c.popularity = Popularity::Dirichlet;
  c.hot_ratio = 2.5;
  c.token_persistence = 0.3;
  c.layer_affinity = 0.5;
  c.seed = 42;
  const auto a = generate_routing(c, 120), b = generate_routing(c, 120), prefix = generate_routing(c, 50);
  bool prefix_same = true;
  for (size_t l = 0; l < a.size(); ++l)
    for (size_t t = 0; t < a[l].tokens.size(); ++t) {
      ASSERT_EQ(a[l].tokens[t].experts, b[l].tokens[t].experts);
      ASSERT_EQ(a[l].tokens[t].gates, b[l].tokens[t].gates);  // bitwise
      if (t < 50)
        prefix_same = prefix_same && a[l].tokens[t].experts == prefix[l].tokens[t].experts &&
                      a[l].tokens[t].gates == prefix[l].tokens[t].gates;
    }
  EXPECT_TRUE(prefix_same);
  c.seed = 43;
  const auto other = generate_routing(c, 120);
  int differ = 0;
  for (size_t l = 0; l < a.size(); ++l)
    for (size_t t = 0; t < a[l].tokens.size(); ++t) differ += a[l].tokens[t].experts != other[l].tokens[t].experts;
  EXPECT_GT(differ, 200);  // of 360 routes
  const auto popularity43 = layer_popularity(c);
  c.seed = 42;
  EXPECT_NE(layer_popularity(c), popularity43);
}

// Pins the streams: boost::random's engine and distributions are specified, so these values
// are the same with any compiler and standard library. A change here changes every result.
TEST(MoeRouting, GoldenRouting) {
  auto c = config(8, 2, 2);
  c.popularity = Popularity::Zipf;
  c.hot_ratio = 2;
  c.seed = 7;
  const auto layers = generate_routing(c, 4);
  std::vector<std::vector<std::int32_t>> got;
  for (const auto& l : layers)
    for (const auto& t : l.tokens) got.push_back(t.experts);
  const std::vector<std::vector<std::int32_t>> want = {{4, 1}, {3, 7}, {2, 5}, {1, 6},   // layer 0
                                                        {7, 1}, {1, 5}, {4, 0}, {6, 7}};  // layer 1
  EXPECT_EQ(got, want);
}

TEST(MoeRouting, InvalidConfigurations) {
  struct Case {
    std::function<void(RoutingGeneratorConfig&)> edit;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](auto& c) { c.num_experts = 0; }, "num_experts"},
      {[](auto& c) { c.top_k = 0; }, "top_k"},
      {[](auto& c) { c.top_k = 9; }, "top_k"},
      {[](auto& c) { c.num_layers = 0; }, "num_layers"},
      {[](auto& c) { c.hot_ratio = 2; }, "hot_ratio"},  // uniform popularity
      {[](auto& c) { c.popularity = Popularity::Zipf, c.hot_ratio = 0.5; }, "hot_ratio"},
      {[](auto& c) { c.popularity = Popularity::Zipf, c.hot_ratio = 4.5; }, "hot_ratio"},  // > E / k
      {[](auto& c) { c.popularity = Popularity::Zipf, c.top_k = 1, c.hot_ratio = 8; }, "hot_ratio"},
      {[](auto& c) { c.popularity = Popularity::Zipf, c.hot_ratio = NAN; }, "hot_ratio"},
      {[](auto& c) { c.dirichlet_alpha = 1; }, "dirichlet_alpha"},  // not dirichlet
      {[](auto& c) { c.popularity = Popularity::Dirichlet, c.dirichlet_alpha = -1; }, "dirichlet_alpha"},
      {[](auto& c) { c.popularity = Popularity::Dirichlet, c.dirichlet_alpha = 1, c.hot_ratio = 2; }, "give either"},
      {[](auto& c) { c.token_persistence = 1.5; }, "token_persistence"},
      {[](auto& c) { c.layer_affinity = -0.1; }, "layer_affinity"},
      {[](auto& c) { c.affinity_peak = 2; }, "affinity_peak"},
      {[](auto& c) { c.transition = Eigen::MatrixXd::Identity(8, 8); }, "transition"},  // affinity 0
      {[](auto& c) { c.layer_affinity = 1, c.transition = Eigen::MatrixXd::Identity(4, 4); }, "transition"},
      {[](auto& c) { c.layer_affinity = 1, c.transition = Eigen::MatrixXd::Constant(8, 8, 0.2); }, "transition row 0"},
      {[](auto& c) {
         c.layer_affinity = 1, c.transition = Eigen::MatrixXd::Identity(8, 8);
         c.transition(2, 2) = 2, c.transition(2, 3) = -1;
       },
       "transition[2][3]"},
  };
  for (const auto& k : cases) {
    auto c = config(8, 2, 2);
    k.edit(c);
    try {
      generate_routing(c, 10);
      ADD_FAILURE() << "no error for " << k.field;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(k.field, 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(generate_routing(config(8, 2), -1), std::invalid_argument);
}

TEST(MoeRouting, MeasureHandCase) {
  std::vector<LayerRouting> layers(2);
  layers[0].num_experts = layers[1].num_experts = 4;
  layers[1].layer = 1;
  for (const auto& e : std::vector<std::vector<std::int32_t>>{{0, 1}, {0, 1}, {1, 0}, {2, 3}})
    layers[0].tokens.push_back({e, {0.5f, 0.5f}});
  for (int t = 0; t < 4; ++t) layers[1].tokens.push_back({{3}, {1.0f}});
  EXPECT_EQ(layers[0].expert_load(), (std::vector<std::int64_t>{3, 3, 1, 1}));
  const RoutingStats s = measure_routing(layers);
  EXPECT_EQ(s.layers, 2);
  EXPECT_EQ(s.tokens, 4);
  EXPECT_EQ(s.assignments, 12);
  EXPECT_DOUBLE_EQ(s.experts_per_token, 1.5);
  EXPECT_DOUBLE_EQ(s.hot_ratio, (1.5 + 4.0) / 2);  // loads 3,3,1,1 (mean 2) and 0,0,0,4 (mean 1)
  EXPECT_DOUBLE_EQ(s.max_hot_ratio, 4.0);
  EXPECT_DOUBLE_EQ(s.cv, (0.5 + std::sqrt(3.0)) / 2);
  EXPECT_DOUBLE_EQ(s.persistence, 5.0 / 6);  // {0,1} {0,1} {1,0} {2,3}: 2 of 3; layer 1: 3 of 3
  EXPECT_DOUBLE_EQ(s.layer_affinity, 1.0);   // every top expert goes to 3
  EXPECT_EQ(measure_routing({}).hot_ratio, 0.0);
}

TEST(MoeRouting, EnumNames) {
  for (auto p : {Popularity::Uniform, Popularity::Zipf, Popularity::Dirichlet})
    EXPECT_EQ(parse_popularity(to_string(p)), p);
  EXPECT_FALSE(parse_popularity("Zipf"));
  for (auto p : {PlacementPolicy::RoundRobin, PlacementPolicy::Contiguous, PlacementPolicy::LoadBalanced})
    EXPECT_EQ(parse_placement_policy(to_string(p)), p);
  EXPECT_FALSE(parse_placement_policy("greedy"));
}

// ---------------------------------------------------------------------------------------------
// Capacity

LayerRouting hand_layer() {
  LayerRouting l;
  l.num_experts = 4;
  for (const auto& e : std::vector<std::vector<std::int32_t>>{{0, 1}, {0, 2}, {0, 3}, {0, 1}, {1, 0}, {2, 3}})
    l.tokens.push_back({e, {0.75f, 0.25f}});
  return l;  // loads 5, 3, 2, 2; 12 assignments
}

TEST(MoeCapacity, ClosedFormCapacity) {
  EXPECT_EQ(expert_capacity(1.0, 12, 4), 3);
  EXPECT_EQ(expert_capacity(1.25, 12, 4), 4);  // 3.75
  EXPECT_EQ(expert_capacity(0.5, 12, 4), 2);   // 1.5
  EXPECT_EQ(expert_capacity(1.2, 200, 8), 30);  // 1.2 * 200 / 8 is 30.000000000000004 in doubles
  EXPECT_EQ(expert_capacity(1.1, 200, 8), 28);  // 27.5
  EXPECT_EQ(expert_capacity(2.0, 0, 8), 0);
  EXPECT_THROW(expert_capacity(0.0, 12, 4), std::invalid_argument);
  EXPECT_THROW(expert_capacity(NAN, 12, 4), std::invalid_argument);
}

TEST(MoeCapacity, DropsInTokenOrder) {
  LayerRouting l = hand_layer();
  // Capacity 3: expert 0's 4th and 5th assignments (tokens 3 and 4) go.
  EXPECT_EQ(apply_capacity(l, 1.0), 2);
  EXPECT_EQ(l.tokens[3].experts, std::vector<std::int32_t>{1});
  EXPECT_EQ(l.tokens[3].gates, std::vector<float>{0.25f});  // the survivor keeps its gate
  EXPECT_EQ(l.tokens[4].experts, std::vector<std::int32_t>{1});
  EXPECT_EQ(l.tokens[4].gates, std::vector<float>{0.75f});
  EXPECT_EQ(l.tokens[2].experts, (std::vector<std::int32_t>{0, 3}));
  EXPECT_EQ(l.expert_load(), (std::vector<std::int64_t>{3, 3, 2, 2}));

  // Capacity 2: expert 0 drops 3 (tokens 2, 3, 4), expert 1 drops 1 (token 4).
  LayerRouting m = hand_layer();
  EXPECT_EQ(apply_capacity(m, 0.5), 4);
  EXPECT_TRUE(m.tokens[4].experts.empty());
  EXPECT_TRUE(m.tokens[4].gates.empty());
  EXPECT_EQ(m.expert_load(), (std::vector<std::int64_t>{2, 2, 2, 2}));

  LayerRouting n = hand_layer();
  EXPECT_EQ(apply_capacity(n, 2.0), 0);
  EXPECT_THROW(apply_capacity(n, -1.0), std::invalid_argument);
}

// On a skewed routing the count is sum over experts of max(0, load - capacity).
TEST(MoeCapacity, MatchesClosedFormOnGeneratedRouting) {
  auto c = config(16, 2, 2);
  c.popularity = Popularity::Zipf;
  c.hot_ratio = 3;
  auto layers = generate_routing(c, 5000);
  for (auto& l : layers) {
    const auto load = l.expert_load();
    const std::int64_t cap = expert_capacity(1.25, 10000, 16);
    ASSERT_EQ(cap, 782);  // ceil(781.25)
    std::int64_t expect = 0;
    for (std::int64_t x : load) expect += std::max<std::int64_t>(0, x - cap);
    ASSERT_GT(expect, 0);
    EXPECT_EQ(apply_capacity(l, 1.25), expect);
    for (std::int64_t x : l.expert_load()) EXPECT_LE(x, cap);
  }
}

// ---------------------------------------------------------------------------------------------
// Placement

TEST(MoePlacement, RoundRobinAndContiguous) {
  using V = std::vector<std::int32_t>;
  EXPECT_EQ(place_experts(10, 4, PlacementPolicy::RoundRobin), (V{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(place_experts(10, 4, PlacementPolicy::Contiguous), (V{0, 0, 0, 1, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(place_experts(8, 2, PlacementPolicy::Contiguous), (V{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(place_experts(2, 4, PlacementPolicy::Contiguous), (V{0, 1}));
  EXPECT_EQ(place_experts(2, 4, PlacementPolicy::RoundRobin), (V{0, 1}));
  EXPECT_EQ(place_experts(3, 1, PlacementPolicy::RoundRobin), (V{0, 0, 0}));
}

TEST(MoePlacement, LoadBalancedGreedy) {
  using V = std::vector<std::int32_t>;
  // Decreasing load: 10 -> d0, 9 -> d1, 8 -> d1 (9 < 10), 1 -> d0, 1 -> d0; d0 is then full
  // (ceil(6/2) = 3 experts), so the last 1 goes to d1.
  const V p = place_experts(6, 2, PlacementPolicy::LoadBalanced, {10, 9, 8, 1, 1, 1});
  EXPECT_EQ(p, (V{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(device_load(p, 2, {10, 9, 8, 1, 1, 1}), (std::vector<std::int64_t>{12, 18}));
  // Ties: equal loads in expert order, on the lowest-index least-loaded device.
  EXPECT_EQ(place_experts(4, 2, PlacementPolicy::LoadBalanced, {5, 5, 5, 5}), (V{0, 1, 0, 1}));
  EXPECT_EQ(place_experts(4, 2, PlacementPolicy::LoadBalanced, {1, 1, 1, 100}), (V{1, 1, 0, 0}));
  // Count cap: one hot expert does not leave its device holding only itself.
  EXPECT_EQ(place_experts(4, 2, PlacementPolicy::LoadBalanced, {100, 1, 1, 1}), (V{0, 1, 1, 0}));
  // Better balance than round robin on a skewed load.
  const std::vector<std::int64_t> load = {50, 40, 30, 20, 10, 5, 3, 2};
  const auto lb = device_load(place_experts(8, 4, PlacementPolicy::LoadBalanced, load), 4, load);
  const auto rr = device_load(place_experts(8, 4, PlacementPolicy::RoundRobin), 4, load);
  EXPECT_EQ(lb, (std::vector<std::int64_t>{52, 43, 35, 30}));
  EXPECT_LT(*std::max_element(lb.begin(), lb.end()), *std::max_element(rr.begin(), rr.end()));
}

TEST(MoePlacement, InvalidArguments) {
  EXPECT_THROW(place_experts(0, 2, PlacementPolicy::RoundRobin), std::invalid_argument);
  EXPECT_THROW(place_experts(4, 0, PlacementPolicy::RoundRobin), std::invalid_argument);
  EXPECT_THROW(place_experts(4, 2, PlacementPolicy::LoadBalanced), std::invalid_argument);
  EXPECT_THROW(place_experts(4, 2, PlacementPolicy::LoadBalanced, {1, 2, 3}), std::invalid_argument);
  EXPECT_THROW(place_experts(4, 2, PlacementPolicy::Contiguous, {1, 2, 3, -4}), std::invalid_argument);
  EXPECT_THROW(device_load({0, 2}, 2, {1, 1}), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Routing traces

void expect_same(const std::vector<LayerRouting>& a, const std::vector<LayerRouting>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t l = 0; l < a.size(); ++l) {
    EXPECT_EQ(a[l].layer, b[l].layer);
    EXPECT_EQ(a[l].num_experts, b[l].num_experts);
    ASSERT_EQ(a[l].tokens.size(), b[l].tokens.size());
    for (size_t t = 0; t < a[l].tokens.size(); ++t) {
      EXPECT_EQ(a[l].tokens[t].experts, b[l].tokens[t].experts) << l << "," << t;
      EXPECT_EQ(a[l].tokens[t].gates, b[l].tokens[t].gates) << l << "," << t;  // bitwise
    }
  }
}

TEST(MoeRoutingTrace, RoundTrip) {
  TempDir dir;
  auto c = config(8, 2, 3);
  c.popularity = Popularity::Zipf;
  c.hot_ratio = 3;
  auto layers = generate_routing(c, 200);
  write_routing_trace(layers, dir.file("full.jsonl"));
  expect_same(read_routing_trace(dir.file("full.jsonl"), 8, 2), layers);
  EXPECT_EQ(strata::testing::read_file(dir.file("full.jsonl")).rfind("# strata moe routing trace: 3 layers, 200 tokens, 8 experts\n", 0), 0u);

  // After capacity drops tokens hold 0, 1 or 2 experts: top_k 0 reads them back.
  EXPECT_GT(apply_capacity(layers[1], 0.3), 0);
  ASSERT_TRUE(std::any_of(layers[1].tokens.begin(), layers[1].tokens.end(), [](const auto& t) { return t.experts.empty(); }));
  write_routing_trace(layers, dir.file("dropped.jsonl"));
  expect_same(read_routing_trace(dir.file("dropped.jsonl"), 8, 0), layers);
  EXPECT_THROW(read_routing_trace(dir.file("dropped.jsonl"), 8, 2), InputError);
}

TEST(MoeRoutingTrace, CommentsOrderExtraKeysAndCrlf) {
  TempDir dir;
  const std::string path = dir.write("t.jsonl",
                                     "# a routing trace\n"
                                     "\n"
                                     "{\"layer\": 1, \"token_idx\": 0, \"experts\": [2], \"gating_probs\": [1]}\r\n"
                                     "   # indented comment\n"
                                     "{\"token_idx\": 1, \"layer\": 0, \"experts\": [3], \"gating_probs\": [0.5], \"step\": 9}\n"
                                     "{\"layer\": 0, \"token_idx\": 0, \"experts\": [0], \"gating_probs\": [1e-05]}\n"
                                     "{\"layer\": 1, \"token_idx\": 1, \"experts\": [1], \"gating_probs\": [0.25]}\n");
  const auto layers = read_routing_trace(path, 4, 1);
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[1].layer, 1);
  EXPECT_EQ(layers[0].num_experts, 4);
  ASSERT_EQ(layers[0].tokens.size(), 2u);
  EXPECT_EQ(layers[0].tokens[0].experts, std::vector<std::int32_t>{0});
  EXPECT_EQ(layers[0].tokens[0].gates, std::vector<float>{1e-05f});
  EXPECT_EQ(layers[0].tokens[1].experts, std::vector<std::int32_t>{3});
  EXPECT_EQ(layers[1].tokens[0].experts, std::vector<std::int32_t>{2});
  EXPECT_EQ(layers[1].tokens[1].gates, std::vector<float>{0.25f});
  EXPECT_THROW(read_routing_trace(path, 0, 0), std::invalid_argument);
  EXPECT_THROW(read_routing_trace(path, 4, 5), std::invalid_argument);
}

struct BadTrace {
  const char* name;
  std::string content;  // lines after the valid first line (line 1)
  int line;             // expected line of the error (0: the whole file)
  std::string needle;
  std::int32_t top_k = 2;
};

class MoeRoutingTraceBad : public ::testing::TestWithParam<BadTrace> {};

const std::string kLine1 = "{\"layer\": 0, \"token_idx\": 0, \"experts\": [0, 1], \"gating_probs\": [0.6, 0.4]}\n";

TEST_P(MoeRoutingTraceBad, ErrorNamesFileLineAndCause) {
  const BadTrace& b = GetParam();
  TempDir dir;
  const std::string path = dir.write("bad.jsonl", b.content);
  try {
    read_routing_trace(path, 8, b.top_k);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.loc().file, path);
    EXPECT_EQ(e.loc().line, b.line) << what;
    const std::string where = b.line > 0 ? path + ":" + std::to_string(b.line) : path + ": error";
    EXPECT_EQ(what.rfind(where, 0), 0u) << what;
    EXPECT_NE(what.find(b.needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

std::string rec(const std::string& layer, const std::string& token, const std::string& experts, const std::string& gates) {
  return "{\"layer\": " + layer + ", \"token_idx\": " + token + ", \"experts\": " + experts + ", \"gating_probs\": " + gates +
         "}\n";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MoeRoutingTraceBad,
    ::testing::Values(
        BadTrace{"NotJson", kLine1 + "# c\n{\"layer\": 0,\n", 3, "not valid JSON"},
        // nlohmann reports a number beyond a double as out_of_range, not as a parse error (fuzzer).
        BadTrace{"NumberOverflow", kLine1 + rec("0", "1e999", "[0, 1]", "[0.5, 0.5]"), 2,
                 "not valid JSON: number overflow parsing '1e999'"},
        BadTrace{"NotObject", kLine1 + "[0, 1]\n", 2, "expected a JSON object, got array"},
        BadTrace{"MissingKey", kLine1 + "{\"layer\": 0, \"token_idx\": 1, \"experts\": [0, 1]}\n", 2,
                 "missing key \"gating_probs\""},
        BadTrace{"MistypedLayer", kLine1 + rec("\"0\"", "1", "[0, 1]", "[0.5, 0.5]"), 2, "layer: expected an integer layer"},
        BadTrace{"FloatToken", kLine1 + rec("0", "1.0", "[0, 1]", "[0.5, 0.5]"), 2, "token_idx: expected an integer token_idx"},
        BadTrace{"NegativeLayer", kLine1 + rec("-1", "1", "[0, 1]", "[0.5, 0.5]"), 2, "layer must not be negative"},
        BadTrace{"NegativeToken", kLine1 + rec("0", "-3", "[0, 1]", "[0.5, 0.5]"), 2, "token_idx must not be negative"},
        BadTrace{"HugeLayer", kLine1 + rec("3000000000", "1", "[0, 1]", "[0.5, 0.5]"), 2, "layer 3000000000 is too large"},
        BadTrace{"ExpertsNotArray", kLine1 + rec("0", "1", "3", "[0.5, 0.5]"), 2, "experts: expected an array"},
        BadTrace{"ExpertNotInteger", kLine1 + rec("0", "1", "[1.5, 2]", "[0.5, 0.5]"), 2, "expected an integer expert id"},
        BadTrace{"ExpertOutOfRange", kLine1 + rec("0", "1", "[8, 1]", "[0.5, 0.5]"), 2, "expert 8 is out of range 0..7"},
        BadTrace{"NegativeExpert", kLine1 + rec("0", "1", "[-1, 1]", "[0.5, 0.5]"), 2, "expert -1 is out of range 0..7"},
        BadTrace{"DuplicateExperts", kLine1 + rec("0", "1", "[3, 3]", "[0.5, 0.5]"), 2, "expert 3 is listed twice"},
        BadTrace{"WrongK", kLine1 + rec("0", "1", "[3]", "[1]"), 2, "expected 2 experts (top_k), got 1"},
        BadTrace{"TooManyExpertsAnyK", kLine1 + rec("0", "1", "[0,1,2,3,4,5,6,7,0]", "[0,0,0,0,0,0,0,0,0]"), 2,
                 "9 experts given, more than num_experts (8)", 0},
        BadTrace{"GatesLength", kLine1 + rec("0", "1", "[0, 1]", "[1.0]"), 2, "gating_probs: 1 gating_probs for 2 experts"},
        BadTrace{"GatesNotArray", kLine1 + rec("0", "1", "[0, 1]", "{}"), 2, "gating_probs: expected an array"},
        BadTrace{"GateNotNumber", kLine1 + rec("0", "1", "[0, 1]", "[\"a\", 0.5]"), 2, "expected a number, got \"a\""},
        BadTrace{"GateOutOfRange", kLine1 + rec("0", "1", "[0, 1]", "[1.5, -0.5]"), 2, "gating probability 1.5 is outside [0, 1]"},
        BadTrace{"GatesSumAboveOne", kLine1 + rec("0", "1", "[0, 1]", "[0.9, 0.9]"), 2, "sum to 1.8, more than 1"},
        BadTrace{"DuplicateToken", kLine1 + "\n" + kLine1, 3, "layer 0 token 0 is given twice (first on line 1)"},
        BadTrace{"TokenGap", kLine1 + rec("0", "2", "[0, 1]", "[0.5, 0.5]"), 2, "layer 0 has token 2 but no token 1"},
        BadTrace{"ShortLayer",
                 kLine1 + rec("0", "1", "[0, 1]", "[0.5, 0.5]") + rec("1", "0", "[0, 1]", "[0.5, 0.5]"), 2,
                 "layer 1 stops at token 0 but layer 0 has token 1 here"},
        BadTrace{"LayerGap", kLine1 + rec("2", "0", "[0, 1]", "[0.5, 0.5]"), 2,
                 "layer 2 is given but layer 1 has no routing lines"},
        BadTrace{"Empty", "# only a comment\n\n", 0, "routing trace holds no routing lines"}),
    [](const ::testing::TestParamInfo<BadTrace>& info) { return std::string(info.param.name); });

TEST(MoeRoutingTrace, MissingFileAndUnwritablePath) {
  TempDir dir;
  try {
    read_routing_trace(dir.file("absent.jsonl"), 8, 2);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.jsonl: error: cannot open routing trace"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_routing_trace(generate_routing(config(8, 2), 3), dir.file("no/such/dir/t.jsonl")), InputError);
}

// The column points at the offending key.
TEST(MoeRoutingTrace, ColumnOfKey) {
  TempDir dir;
  const std::string path = dir.write("c.jsonl", rec("0", "0", "[0, 9]", "[0.5, 0.5]"));
  try {
    read_routing_trace(path, 8, 2);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.loc().column, 30);  // {"layer": 0, "token_idx": 0, "experts" ...
    EXPECT_EQ(e.key(), "experts");
  }
}

}  // namespace
}  // namespace strata
