#include "sim/app/sweep/pareto.h"

#include <cstddef>

using std::size_t;

namespace strata {

std::vector<int> pareto_front(const std::vector<std::vector<double>>& values, const std::vector<bool>& minimize) {
  auto better_or_equal = [&](double a, double b, size_t j) { return minimize[j] ? a <= b : a >= b; };
  std::vector<int> front;
  for (size_t i = 0; i < values.size(); ++i) {
    bool dominated = false;
    for (size_t k = 0; k < values.size() && !dominated; ++k) {
      if (k == i) continue;
      bool all = true, strictly = false;
      for (size_t j = 0; j < minimize.size() && all; ++j) {
        all = better_or_equal(values[k][j], values[i][j], j);
        strictly = strictly || values[k][j] != values[i][j];
      }
      dominated = all && strictly;
    }
    if (!dominated) front.push_back(static_cast<int>(i));
  }
  return front;
}

}  // namespace strata
