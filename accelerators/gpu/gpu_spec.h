// The `gpu` kind's keys (its own and those of its sm, tensor_core and l2 sections), their
// checks, and how they become the SM model's and the L2's figures: one place for the schema, so
// the component (gpu.h) holds only what runs.
#pragma once

#include "accelerators/gpu/gpu_l2.h"
#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"
#include "sim/schema.h"

namespace strata {

inline constexpr const char* kGpuRole = "gpu";

KindSpec gpu_spec();
// The checks across keys the schema's ranges cannot make; throws InputError.
void check_gpu_config(const ValidatedNode& cfg);
SmLimits read_limits(const Params& sm);
SmTiming read_timing(const Params& sm, const Params& tensor_core);
L2Config read_l2(const Params& l2);
// `sim.sample`, the option the GPU adds to the experiment's sim section (register_kinds.cpp).
ParamSpec sample_option();

}  // namespace strata
