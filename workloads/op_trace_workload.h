// Workload kind `op_trace`: an operator graph read from a JSON Lines trace (the format
// `strata trace export` writes, documented in opgraph/opgraph_jsonl.h and docs/workloads.md).
#pragma once

#include "workloads/graph_workload.h"

namespace strata {

class OpTraceWorkload : public GraphWorkload {
 public:
  static KindSpec spec();
  OpTraceWorkload(const ValidatedNode& cfg, SimContext& ctx);

 protected:
  OpGraph build() const override;
};

}  // namespace strata
