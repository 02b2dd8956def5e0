// Registers the NPU kinds: the npu design and the SCALE-Sim topology workload.
#pragma once

namespace strata {

class Registry;
void register_npu_kinds(Registry& registry);

}  // namespace strata
