// Role `host`: a companion processor a design hands what its own units cannot run, modelled in
// closed form (the PIM's host: PIM-GPT's ASIC, AttAcc's GPU). A part (sim/registry.h,
// kPartCategory): the design makes it from its `host` slot with `registry.make<CompanionHost>`
// and times each operator it gives the host. A host the run simulates instead (InstInfer's GPU or
// NPU) is a `package_device` component in a slot of its own.
#pragma once

namespace strata {

inline constexpr const char* kHostRole = "host";

// What the host's work costs beside its time.
struct HostCosts {
  double flop_j = 0;            // per FLOP of its arithmetic
  double memory_j_per_bit = 0;  // per bit it moves through its memory
  double link_j_per_bit = 0;    // per bit across its link to the device
  double area_mm2 = 0;          // counted in the design's area (0: not counted)
  double idle_w = 0;            // drawn while the run lasts, busy or not
};

class CompanionHost {
 public:
  static constexpr const char* kRole = kHostRole;
  virtual ~CompanionHost() = default;
  // Seconds for one operator of `flops` FLOPs that moves `memory_bytes` through the host's
  // memory, its launch included.
  virtual double operator_seconds(double flops, double memory_bytes) const = 0;
  // FLOP/s at its arithmetic peak (0: no arithmetic figure, memory-bound only).
  virtual double peak_flops() const = 0;
  // Bytes/s of its link to the device; 0: it sits on the device's DRAM bus, no link.
  virtual double link_bandwidth() const = 0;
  virtual const HostCosts& costs() const = 0;
};

}  // namespace strata
