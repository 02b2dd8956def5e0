#include "accelerators/chiplet/register_kinds.h"

#include "accelerators/chiplet/cambricon_llm.h"
#include "sim/registry.h"

namespace strata {

void register_chiplet_kinds(Registry& r) { r.add_component<CambriconLlm>(); }

}  // namespace strata
