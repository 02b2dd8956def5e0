#include "accelerators/pim/register_kinds.h"

#include "accelerators/pim/pim_system.h"
#include "sim/registry.h"

namespace strata {

void register_pim_kinds(Registry& r) { r.add_component<PimSystem>(); }

}  // namespace strata
