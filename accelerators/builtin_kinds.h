// Every kind Strata ships, registered into one registry. accelerators/ sits at the top of the
// dependency order (sim < models < memory < accelerators), so this is where the registrations
// of all folders meet; the `strata` executable and the tests that need real kinds call it.
#pragma once

namespace strata {
class Registry;
void register_builtin_kinds(Registry& registry);
}  // namespace strata
