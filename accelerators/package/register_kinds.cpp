#include "accelerators/package/register_kinds.h"

#include "accelerators/package/package.h"
#include "sim/registry.h"

namespace strata {

void register_package_kinds(Registry& r) { r.add_component<Package>(); }

}  // namespace strata
