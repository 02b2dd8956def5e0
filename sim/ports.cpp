#include "sim/ports.h"

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/schema.h"

namespace strata {

AnalyticMemory& analytic_memory(MemoryTarget& memory, const ValidatedNode& config) {
  if (auto* a = dynamic_cast<AnalyticMemory*>(&memory)) return *a;
  throw InputError(config.loc, config.path + ".kind",
                   fmt::format("memory kind '{}' has no analytic model; use sim.fidelity: cycle", config.spec->name));
}

}  // namespace strata
