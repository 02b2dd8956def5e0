// The GPU's default parts, registered as kinds of category "part" (gpu_parts.h gives their
// roles): `sm`, `tensor_core` and `l2`, whose keys and defaults are the H100 SXM's unless a
// preset says otherwise (configs/presets/gpu/). Every key is documented where it is declared.
#pragma once

namespace strata {

class Registry;
void register_gpu_parts(Registry& r);

}  // namespace strata
