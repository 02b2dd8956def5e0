// The analytic fidelity (`sim.fidelity: analytic`): a design evaluates its workload with
// closed-form tile and roofline formulas instead of simulating it, for screening large sweeps
// at tens of milliseconds per point. The runner elaborates the hardware and binds the workload
// exactly as for a cycle-level run (the same parameters, areas and energy events), then, instead
// of running the SystemC kernel, asks the model for the end time and closes the accounting with
// it as a cycle-level run does: energy = the counted events + static power x that time.
//
// A model counts into the same statistics and energy events its blocks count into at cycle
// level, each block through its own method, so the energy rows stay with their components.
// SystemC-free, so a model can be written and tested without a kernel.
#pragma once

namespace strata {

class AnalyticModel {
 public:
  virtual ~AnalyticModel() = default;
  // Evaluates the bound workload: sets the design's own statistics, adds to every block the
  // events the cycle-level run would have counted, and returns the end time in seconds.
  virtual double evaluate_analytic() = 0;
};

}  // namespace strata
