// Every kind Strata ships, registered into one registry, with the subcommands and `run`
// importers the folders add (sim/cli_extension.h). accelerators/ and rtl/ sit at the top of the
// dependency order (sim < models < memory < workloads < accelerators; models < rtl), so this is
// where the registrations of all folders meet, in its own library (strata_builtin); the
// `strata` executable and the tests that need real kinds call it.
#pragma once

namespace strata {
class Registry;
void register_builtin_kinds(Registry& registry);
}  // namespace strata
