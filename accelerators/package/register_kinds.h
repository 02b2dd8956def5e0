#pragma once

namespace strata {

class Registry;

// Registers the `package` component kind.
void register_package_kinds(Registry& r);

}  // namespace strata
