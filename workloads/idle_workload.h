// Workload kind `idle`: the hardware with nothing to run for `duration`, for what a device draws
// at rest (the idle power a card reports with no process on it): leakage, each device's clock
// tree at its idle clock (clocks.idle; a GPU's SMs gated), its memory's background and refresh,
// and its regulators' loss. Every device is told (Component::hold_idle) before the run starts.
//
//   duration   how long it rests (the power is steady, so a short span reads what seconds
//              would; the DRAM's refresh is simulated over it at cycle level)
#pragma once

#include <memory>

#include "sim/analytic.h"
#include "sim/schema.h"
#include "sim/sim_context.h"
#include "sim/workload.h"

namespace strata {

class IdleDriver;

class IdleWorkload : public Workload, public AnalyticModel {
 public:
  static KindSpec spec();
  IdleWorkload(const ValidatedNode& cfg, SimContext& ctx);
  ~IdleWorkload() override;
  void bind(Component& hardware) override;
  bool finished() const override;
  std::optional<double> progress() const override;
  double evaluate_analytic() override;

 private:
  const ValidatedNode& cfg_;
  SimContext& ctx_;
  double duration_s_ = 0;
  std::unique_ptr<IdleDriver> driver_;
};

}  // namespace strata
