// Seeded generators of synthetic graphs with skewed degree distributions, for GNN workloads larger
// than the shipped datasets. Randomness comes from boost::random::mt19937_64 and boost::random
// distributions only, so a seed gives the same graph with any compiler and standard library.
//
// Bad parameters throw strata::InputError with an empty location and the parameter's name as the
// key ("gamma: must be greater than 2, got 1.5"); callers that read the parameters from a config
// may catch it and rethrow with the config's location.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/graph/csr_graph.h"

namespace strata {

// R-MAT (recursive matrix) graph, Chakrabarti, Zhan and Faloutsos, SDM 2004: 2^scale nodes and
// round(edge_factor * 2^scale) generated edges; each edge descends `scale` levels of the adjacency
// matrix, picking the top-left / top-right / bottom-left / bottom-right quadrant with probability
// a / b / c / d = 1 - a - b - c. Self loops and duplicate edges are dropped and, with
// `symmetrize`, each edge is stored both ways; so num_edges() <= 2 x generated edges (or <= the
// generated edges without `symmetrize`). Node 0 is the heaviest node (no relabeling; see
// relabel_randomly). Graph500 uses a = 0.57, b = c = 0.19. scale in [1, 31]; a, b, c >= 0 with
// a + b + c <= 1; edge_factor > 0.
CsrGraph rmat_graph(int scale, double edge_factor, double a, double b, double c, std::uint64_t seed,
                    bool symmetrize = true);

// Chung-Lu graph with a power-law expected-degree sequence (Chung and Lu, PNAS 2002; Chung, Lu
// and Vu 2003): node i has weight w_i proportional to (i + i0)^(-1/(gamma-1)), scaled so the
// weights average `avg_degree`, with the offset i0 >= 1 chosen so the largest weight is at most
// sqrt(sum w) (the structural cutoff, so no edge probability exceeds 1). Each pair {u, v}, u != v,
// is an undirected edge independently with probability w_u w_v / sum(w), sampled in
// O(n + edges) with geometric skips (Miller and Hagberg, WAW 2011). The expected degree of node i
// is w_i (1 - w_i / sum(w)), so the average degree is avg_degree to within ~3 i0 / n, and the
// fraction of nodes with degree >= k falls as k^-(gamma-1) between avg_degree and the cutoff.
// Stored symmetrized; node 0 has the largest weight. n in [2, 2^31]; 0 < avg_degree <= n - 1;
// gamma > 2.
CsrGraph power_law_graph(std::int64_t n, double avg_degree, double gamma, std::uint64_t seed);

// The weights power_law_graph uses (non-increasing, summing to n * avg_degree up to rounding).
std::vector<double> power_law_weights(std::int64_t n, double avg_degree, double gamma);

// The same graph with node ids permuted uniformly at random (Fisher-Yates with the seed), which
// spreads the generators' hubs over the id space as in real graphs. Keeps the name.
CsrGraph relabel_randomly(const CsrGraph& g, std::uint64_t seed);

}  // namespace strata
