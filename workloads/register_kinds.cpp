#include "workloads/register_kinds.h"

#include "sim/registry.h"
#include "workloads/gemm_workload.h"
#include "workloads/gnn/gnn_workload.h"
#include "workloads/idle_workload.h"
#include "workloads/op_trace_workload.h"
#include "workloads/transformer/transformer_workload.h"

namespace strata {

void register_workload_kinds(Registry& registry) {
  registry.add_workload<TransformerWorkload>();
  registry.add_workload<MoeLayerWorkload>();
  registry.add_workload<GnnWorkload>();
  registry.add_workload<OpTraceWorkload>();
  registry.add_workload<GemmWorkload>();
  registry.add_workload<IdleWorkload>();
}

}  // namespace strata
