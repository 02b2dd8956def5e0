// Pareto-optimal points: those no other point dominates (at least as good in every objective
// and better in one).
#pragma once

#include <vector>

namespace strata {

// values[i][j]: point i's value of objective j; minimize[j] per objective. Returns the indices
// of the non-dominated points in increasing order; points with equal values all stay.
std::vector<int> pareto_front(const std::vector<std::vector<double>>& values, const std::vector<bool>& minimize);

}  // namespace strata
