#include "accelerators/gpu/warp_program_target.h"

#include <fmt/format.h>

#include "sim/component.h"
#include "sim/input_error.h"

namespace strata {

WarpProgramTarget& warp_program_target(Component& hardware, const ValidatedNode& cfg, const char* workload) {
  auto* target = dynamic_cast<WarpProgramTarget*>(&hardware);
  if (!target)
    throw InputError(
        cfg.loc, "workload.kind",
        fmt::format("{} needs a gpu; hardware kind '{}' is not one", workload, hardware.config().spec->name));
  return *target;
}

}  // namespace strata
