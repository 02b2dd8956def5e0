// rtl/'s registrations: the reference models an rtl-check file names (`model.kind`) and the
// `strata rtl-check` subcommand (rtl/rtl_check.h).
#pragma once

namespace strata {

class Registry;

void register_rtl_kinds(Registry& registry);

}  // namespace strata
