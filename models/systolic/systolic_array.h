// Component kind `systolic_array`: a rows × cols array of multiply-accumulate PEs with an
// output-, weight- or input-stationary dataflow. A tile costs one call and one wait: its cycle
// count comes from the closed forms of systolic_timing.h (fill, skew, drain, folds exact to the
// cycle), never from stepping PEs. Keys are documented in spec().
#pragma once

#include "models/matrix_engine.h"
#include "models/systolic/systolic_timing.h"

namespace strata {

class SystolicArray : public MatrixEngine {
 public:
  static KindSpec spec();
  SystolicArray(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  MatrixRun estimate(const MatrixWork& w) const override;
  std::int64_t align_m() const override;
  std::int64_t align_n() const override;
  std::int64_t align_k() const override;

 private:
  SystolicConfig array_;
};

}  // namespace strata
