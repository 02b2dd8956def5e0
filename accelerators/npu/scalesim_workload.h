// Workload kind `scalesim_topology`: a SCALE-Sim topology CSV (convolution or GEMM form) as an
// operator graph of GEMMs, one per layer, in the im2col form SCALE-Sim itself uses: a
// convolution is ofmap pixels (M) × filters (N) × filter window (K = height·width·channels),
// with INT8 operands (SCALE-Sim's words are one byte). Layers run one after another.
#pragma once

#include "workloads/graph_workload.h"

namespace strata {

class ScaleSimTopologyWorkload : public GraphWorkload {
 public:
  static KindSpec spec();
  ScaleSimTopologyWorkload(const ValidatedNode& cfg, SimContext& ctx);

 protected:
  OpGraph build() const override;
};

}  // namespace strata
