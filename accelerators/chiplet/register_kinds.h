// Registers the chiplet and flash designs (accelerators/chiplet/) with the registry.
#pragma once

namespace strata {

class Registry;
void register_chiplet_kinds(Registry& r);

}  // namespace strata
