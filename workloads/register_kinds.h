#pragma once

namespace strata {

class Registry;

// Registers the workload kinds of this folder: transformer, moe_layer, gnn, op_trace.
void register_workload_kinds(Registry& registry);

}  // namespace strata
