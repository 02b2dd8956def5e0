// Mixture-of-experts routing: which experts each token goes to, layer by layer.
//
// A generator draws routings with the features that matter to an MoE accelerator: skewed expert
// popularity (Zipf or Dirichlet, set by the hot ratio a user asks for), decode-time temporal
// locality (a token reusing the previous token's experts) and layer-to-layer affinity (a token's
// top expert at one layer predicting its top expert at the next). Expert capacity (GShard /
// Switch) drops the assignments that overflow an expert. Routings also come from trace files
// (routing_trace.h); both are measured the same way (measure_routing).
//
// Every random draw comes from boost::random::mt19937_64 and boost::random distributions, whose
// output is specified, so a seed gives bit-identical routings with any standard library.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

namespace strata {

// One token's routing at one layer: distinct experts, in decreasing gate order (experts[0] is
// the top expert), and their gate weights. A generated token has top_k experts whose gates sum
// to 1; apply_capacity may remove some (the survivors keep their gates).
struct TokenRoute {
  std::vector<std::int32_t> experts;
  std::vector<float> gates;
};

struct LayerRouting {
  std::int32_t layer = 0;
  std::int32_t num_experts = 0;
  std::vector<TokenRoute> tokens;  // index = token_idx
  // Tokens routed to each expert (size num_experts).
  std::vector<std::int64_t> expert_load() const;
  // Sum over tokens of the number of experts: the (token, expert) assignments.
  std::int64_t assignments() const;
};

enum class Popularity { Uniform, Zipf, Dirichlet };

// "uniform", "zipf", "dirichlet"; parse returns nullopt for anything else.
const char* to_string(Popularity p);
std::optional<Popularity> parse_popularity(std::string_view name);

struct RoutingGeneratorConfig {
  std::int32_t num_experts = 8, top_k = 2, num_layers = 1;
  Popularity popularity = Popularity::Uniform;
  // Skew as the user asks for it: expected load of the hottest expert over the uniform load
  // (1 = uniform), in [1, num_experts / top_k] (an expert cannot see more than every token), and
  // below num_experts when top_k is 1. Must stay 1 for Uniform.
  //  - Zipf: p_i ∝ rank_i^-s with s solved so that p_max * E == hot_ratio (zipf_exponent).
  //  - Dirichlet: each layer's popularity is a draw from a symmetric Dirichlet(alpha); alpha is
  //    solved so that E[max p] * E == hot_ratio (dirichlet_alpha_for), unless dirichlet_alpha
  //    is given (> 0), which is then used as is and hot_ratio must stay 1.
  // Popularity ranks are a seeded permutation per layer, so the hottest expert differs by layer
  // (Dirichlet draws are exchangeable already).
  //
  // Sampling: a token's k experts are drawn so that expert i is chosen with probability exactly
  // k * p_i (randomized systematic sampling), so the expected load of expert i is
  // tokens * k * p_i and the measured hot ratio is p_max * E for any k. Where k * p_i would exceed
  // 1 (only possible for a Dirichlet draw), expert i takes every token and the excess is spread
  // over the others in proportion to p, so such a layer's hot ratio is num_experts / top_k.
  double hot_ratio = 1.0;
  double dirichlet_alpha = 0;  // 0: derive from hot_ratio
  // Probability that a token reuses the previous token's expert set in the same layer (decode
  // temporal locality); the reused set keeps its top expert and gets fresh gates.
  double token_persistence = 0;
  // Layer-to-layer affinity: probability that a token's top expert at layer l+1 is drawn from
  // row e of `transition` (e = its top expert at layer l) instead of from the popularity; its
  // other k-1 experts then come from the popularity without that expert. `transition` is E×E,
  // non-negative, rows summing to 1 (within 1e-6); empty means a generated one where each expert
  // has one preferred successor (a seeded permutation) with weight `affinity_peak` and the rest
  // spread evenly (affinity_transition). Persistence is tried first: a reused set ignores
  // affinity.
  double layer_affinity = 0;
  Eigen::MatrixXd transition;
  double affinity_peak = 0.8;
  std::uint64_t seed = 1;
};

// Throws std::invalid_argument, naming the field first ("hot_ratio must ..."), for a
// configuration generate_routing would refuse.
void validate(const RoutingGeneratorConfig& cfg);

// Routes `tokens` tokens through every layer; k distinct experts per token, gates from a
// softmax over seeded standard-normal logits of the chosen experts. Tokens are drawn in order
// (token 0 through every layer, then token 1, ...) from streams that do not depend on `tokens`,
// so the routing of N tokens is a prefix of the routing of more. Costs O(num_experts) random
// draws per token and layer (the random order of the systematic sampling). Throws
// std::invalid_argument for an invalid configuration or negative `tokens`.
std::vector<LayerRouting> generate_routing(const RoutingGeneratorConfig& cfg, std::int64_t tokens);

// The per-layer expert popularity generate_routing draws from (num_layers vectors of
// num_experts probabilities summing to 1).
std::vector<std::vector<double>> layer_popularity(const RoutingGeneratorConfig& cfg);
// P(expert i among a token's top_k) under the generator's sampling: min(1, c * p_i) with c
// such that they sum to top_k (experts with no popularity share what is left if fewer than
// top_k have any). The expected load of expert i over N tokens is N times this.
std::vector<double> inclusion_probabilities(const std::vector<double>& popularity, std::int32_t top_k);
// The E×E transition matrix the layer affinity uses: cfg.transition (rows renormalized) or the
// generated one.
Eigen::MatrixXd affinity_transition(const RoutingGeneratorConfig& cfg);

// Zipf exponent s with E / H(E, s) == hot_ratio, H(E, s) = sum_{r=1..E} r^-s
// (1 <= hot_ratio < E).
double zipf_exponent(std::int32_t num_experts, double hot_ratio);
// E[max p] * E for p ~ symmetric Dirichlet(alpha) over E experts, by quadrature
// (= E[max of E Gamma(alpha) variates] / alpha).
double dirichlet_hot_ratio(std::int32_t num_experts, double alpha);
// The alpha with dirichlet_hot_ratio(E, alpha) == hot_ratio (1 < hot_ratio < E), by bisection
// over alpha in [1e-6, 1e4] and the ratio's asymptotes beyond (within 1% of its distance to 1
// or to E there).
double dirichlet_alpha_for(std::int32_t num_experts, double hot_ratio);

// Expert capacity (GShard/Switch): ceil(capacity_factor * assignments / num_experts), where
// assignments is tokens * top_k for an undropped routing. A product within 1e-9 (relative) of an
// integer counts as that integer, so 1.2 * 200 / 8 gives 30, not 31.
std::int64_t expert_capacity(double capacity_factor, std::int64_t assignments, std::int32_t num_experts);
// Applies expert_capacity to `layer`: walking tokens in order (and a token's experts in gate
// order), an assignment to an expert already at capacity is removed from the token (the
// remaining gates are kept as they are: the dropped share goes through the residual path).
// Returns the number of dropped (token, expert) assignments. capacity_factor must be > 0.
std::int64_t apply_capacity(LayerRouting& layer, double capacity_factor);

struct RoutingStats {
  std::int32_t layers = 0;
  std::int64_t tokens = 0;          // tokens per layer (the largest layer)
  std::int64_t assignments = 0;     // (token, expert) pairs over all layers
  double experts_per_token = 0;     // assignments / (tokens over all layers)
  // Per layer: load of the hottest expert over the mean load (assignments / E); mean over the
  // layers that have any assignment, and the worst layer.
  double hot_ratio = 0;
  double max_hot_ratio = 0;
  // Per layer: coefficient of variation of the expert load (population standard deviation over
  // the mean); mean over the layers that have any assignment.
  double cv = 0;
  // Fraction of consecutive token pairs (t-1, t) in a layer routed to the same expert set,
  // over all layers.
  double persistence = 0;
  // Fraction of (token, layer l > 0) whose top expert is the most frequent successor, over the
  // whole routing, of its top expert at layer l-1 (1/E for independent uniform layers).
  double layer_affinity = 0;
};
RoutingStats measure_routing(const std::vector<LayerRouting>& layers);

}  // namespace strata
