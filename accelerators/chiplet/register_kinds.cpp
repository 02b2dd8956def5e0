#include "accelerators/chiplet/register_kinds.h"

#include "accelerators/chiplet/cambricon_llm.h"
#include "accelerators/chiplet/instinfer.h"
#include "sim/registry.h"

namespace strata {

void register_chiplet_kinds(Registry& r) {
  r.add_component<CambriconLlm>();
  r.add_component<InstInfer>();
}

}  // namespace strata
