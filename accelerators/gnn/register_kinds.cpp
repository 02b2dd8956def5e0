#include "accelerators/gnn/register_kinds.h"

#include "accelerators/gnn/gnn_accelerator.h"
#include "sim/registry.h"

namespace strata {

void register_gnn_kinds(Registry& r) { r.add_component<GnnAccelerator>(); }

}  // namespace strata
