// What the chiplet designs report per token of a decode step.
#pragma once

#include "sim/sim_context.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

// The tokens the step produces (batch x q_len of its attention; 1 without one), after reporting
// summary.json's energy_per_token_j as the run's energy over them.
inline double report_per_token(const OpGraph& g, SimContext& ctx) {
  double tokens = 1;
  for (const Operator& op : g.ops())
    if (op.kind == OpKind::Attention) {
      tokens = static_cast<double>(op.dim("batch") * op.dim("q_len"));
      break;
    }
  ctx.report("energy_per_token_j", "totals.energy", "value", 1 / tokens);
  return tokens;
}

}  // namespace strata
