// The `gpu` kind's own keys and slots and their checks, so the component (gpu.h) holds only what
// runs. Its parts' keys (sm, tensor_core, l2) are their kinds' (gpu_part_kinds.cpp).
#pragma once

#include "sim/schema.h"

namespace strata {

inline constexpr const char* kGpuRole = "gpu";

KindSpec gpu_spec();
// The checks across keys the schema's ranges cannot make; throws InputError.
void check_gpu_config(const ValidatedNode& cfg);
// `sim.sample`, the option the GPU adds to the experiment's sim section (register_kinds.cpp).
ParamSpec sample_option();

}  // namespace strata
