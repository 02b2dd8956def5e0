// Component kind `systolic_array`: a rows × cols array of multiply-accumulate PEs with an
// output-, weight- or input-stationary dataflow. A tile costs one call and one wait: its cycle
// count comes from the closed forms of systolic_timing.h (fill, skew, drain, folds exact to the
// cycle), never from stepping PEs. Keys are documented in spec().
#pragma once

#include <map>

#include "models/matrix_engine.h"
#include "models/systolic/systolic_timing.h"

namespace strata {

class SystolicArray : public Component, public MatrixEngine {
 public:
  static KindSpec spec();
  SystolicArray(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  MatrixRun estimate(const MatrixWork& w) const override;
  MatrixRun run(const MatrixWork& w) override;
  std::int64_t align_m() const override;
  std::int64_t align_n() const override;
  std::int64_t align_k() const override;
  double peak_macs_per_cycle(const std::string& format) const override;
  double rate(const std::string& format) const override;
  Component& component() override { return *this; }
  const SystolicConfig& array() const { return array_; }
  void finalize(const sc_core::sc_time& end) override;

 private:
  SystolicConfig array_;
  std::map<std::string, double> rates_;
  std::map<std::string, EnergyEvent*> mac_energy_;
  Counter& tiles_;
  Counter& folds_;
  Counter& macs_;
  Counter& busy_cycles_;
  Scalar& utilization_;
};

}  // namespace strata
