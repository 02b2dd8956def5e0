// The roles of the GPU's parts: what fills the `gpu` kind's sm, tensor_core and l2 slots. A part
// is a registered kind of category "part" (sim/registry.h), SystemC-free: the GPU makes one
// from its slot and runs `sms` SM cores (sm_core.h) and one L2 (gpu_l2.h) with the figures it
// gives. A design swaps a part as it swaps an NPU's engine: `sm: {kind: my_sm, ...}` names a
// kind that provides the role; a kind that does not is refused with the file and line of its
// `kind:`. The default kinds (`sm`, `tensor_core`, `l2`: gpu_part_kinds.cpp) are what the
// presets write; naming them changes no config hash.
#pragma once

#include "accelerators/gpu/gpu_l2.h"
#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"

namespace strata {

inline constexpr const char* kSmRole = "sm";
inline constexpr const char* kTensorCoreRole = "tensor_core";
inline constexpr const char* kGpuL2Role = "gpu_l2";

// One streaming multiprocessor: what limits a CTA's residency, and how its sub-cores, pipes,
// shared memory and L1 time a warp's instructions (every SmTiming field but the tensor core's).
class SmPart {
 public:
  static constexpr const char* kRole = kSmRole;
  virtual ~SmPart() = default;
  virtual const SmLimits& limits() const = 0;
  virtual void time(SmTiming& t) const = 0;
};

// The tensor core of each sub-core: its MACs per cycle by format and its pipeline latencies
// (SmTiming's tensor fields).
class TensorCorePart {
 public:
  static constexpr const char* kRole = kTensorCoreRole;
  virtual ~TensorCorePart() = default;
  virtual void time(SmTiming& t) const = 0;
  // Dense MACs per cycle per sub-core at rate 1 (FP16): the width the lanes are sized by.
  virtual double base_macs_per_cycle() const = 0;
};

// The L2 and the crossbar to it.
class L2Part {
 public:
  static constexpr const char* kRole = kGpuL2Role;
  virtual ~L2Part() = default;
  virtual const L2Config& config() const = 0;
};

}  // namespace strata
