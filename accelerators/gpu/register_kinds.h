// Registers the GPU's component and workload kinds (accelerators/gpu/).
#pragma once

namespace strata {

class Registry;
void register_gpu_kinds(Registry& registry);

}  // namespace strata
