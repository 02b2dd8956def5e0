// Component kind `vector_unit`: a SIMD unit of `lanes` lanes for element-wise work and
// reductions (adds, multiplies, compares on ALUs; exp and reciprocal on slower special-function
// units), running the OpGraph's non-matrix operators composed from those primitives
// (vector_timing.h). One event per tile. Keys are documented in spec().
#pragma once

#include <map>
#include <string>

#include "models/vector/vector_timing.h"
#include "sim/component.h"

namespace strata {

inline constexpr const char* kVectorUnitRole = "vector_unit";

class VectorUnit : public Component {
 public:
  static KindSpec spec();
  VectorUnit(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  const VectorConfig& vector() const { return vector_; }
  // Timing of an operator tile (kind as vector_operator() names it), without counting.
  VectorTiming estimate(const std::string& kind, std::int64_t rows, std::int64_t cols) const;
  // Runs it: counts element operations and their energy; the caller waits `cycles`.
  VectorTiming run(const std::string& kind, std::int64_t rows, std::int64_t cols);
  // Every lane on the operation that costs the most a cycle (its throughput x its energy).
  double peak_dynamic_j_per_cycle() const override;

 private:
  VectorConfig vector_;
  std::map<VectorOp, EnergyEvent*> energy_;
  Counter& tiles_;
  Counter& busy_cycles_;
};

}  // namespace strata
