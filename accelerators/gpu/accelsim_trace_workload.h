// Workload kind `accelsim_trace`: runs an Accel-Sim NVBit trace (its kernelslist.g, key `path`)
// on the `gpu` kind. The trace is read when the workload is built, so a bad file fails before
// elaboration; every kernel is launched at time 0 in the list's order (the GPU runs them one
// after another) and memcpys are skipped. summary.json gets `kernels` and `latency_s`, when
// the last kernel completed. See docs/gpu-traces.md.
#pragma once

#include <memory>

#include "accelerators/gpu/accelsim_trace.h"
#include "sim/schema.h"
#include "sim/sim_context.h"
#include "sim/workload.h"

namespace strata {

class AccelSimTraceDriver;

class AccelSimTraceWorkload : public Workload {
 public:
  static KindSpec spec();
  AccelSimTraceWorkload(const ValidatedNode& cfg, SimContext& ctx);
  ~AccelSimTraceWorkload() override;
  void bind(Component& hardware) override;
  bool finished() const override;
  std::optional<double> progress() const override;

 private:
  const ValidatedNode& cfg_;
  SimContext& ctx_;
  AccelSimTrace trace_;
  std::unique_ptr<AccelSimTraceDriver> driver_;
};

}  // namespace strata
