// Part kind `roofline_host` (role `host`, companion_host.h): a host whose operators take the
// longer of their FLOPs at its peak and their bytes at its memory bandwidth, after a fixed
// launch cost. Keys are documented in roofline_host.cpp.
#pragma once

#include <memory>

#include "models/host/companion_host.h"
#include "sim/schema.h"

namespace strata {

KindSpec roofline_host_spec();
std::unique_ptr<CompanionHost> make_roofline_host(const ValidatedNode& node);

}  // namespace strata
