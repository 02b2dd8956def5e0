// Component kind `chip_link`: one direction of a link between two devices of a package (a
// chip-to-chip SerDes lane group such as TPU ICI or NVLink, or a die-to-die chiplet link). It
// carries one transfer at a time at `bandwidth`; the first byte reaches the other side
// `latency` after it leaves (SerDes, wire and the receiving port). Energy per bit and area
// per GB/s come from the technology table's `links:` row named by `packaging`.
//
// The package's LinkNetwork (accelerators/package/link_network.h) reserves the link for its
// transfers (one at a time, bytes / bandwidth each) and reports each one here, in both
// fidelities.
//
// Statistics: `<link>.bytes`, `<link>.transfers`, `<link>.busy` (seconds carrying data), energy
// event `bit`, area part `phy`.
#pragma once

#include <cstdint>

#include "sim/component.h"

namespace strata {

inline constexpr const char* kChipLinkRole = "chip_link";

class ChipLink : public Component {
 public:
  static KindSpec spec();
  ChipLink(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  double bandwidth() const { return bandwidth_; }  // B/s, one direction
  double latency() const { return latency_; }      // s
  std::uint64_t bytes() const { return bytes_.count(); }
  // Counts one transfer of `bytes` that held the link for `seconds`.
  void carried(std::uint64_t bytes, double seconds);

 private:
  UnitCost row() const;
  double bandwidth_, latency_;
  Counter& bytes_;
  Counter& transfers_;
  Scalar& busy_;
  EnergyEvent& bit_energy_;
};

}  // namespace strata
