// Component kind `scratchpad`: a software-managed, banked SRAM (an NPU core's local memory).
// It holds the tiles a mapper places in it (the mapper checks the footprint against its
// capacity) and charges the time and energy of every access: bank words read or written, bank
// conflicts of strided accesses (scratchpad_timing.h), and the CACTI-like SRAM figures of the
// technology table for its capacity, width and banks. Keys are documented in spec().
#pragma once

#include "models/scratchpad/scratchpad_timing.h"
#include "sim/component.h"

namespace strata {

inline constexpr const char* kScratchpadRole = "scratchpad";

class Scratchpad : public Component {
 public:
  static KindSpec spec();
  Scratchpad(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  std::uint64_t capacity() const { return layout_.capacity_bytes; }
  // Counts an access of contiguous bytes; returns its cycles on one port.
  std::uint64_t read(std::uint64_t bytes) { return bytes ? count(scratchpad_access(layout_, bytes), false) : 0; }
  std::uint64_t write(std::uint64_t bytes) { return bytes ? count(scratchpad_access(layout_, bytes), true) : 0; }
  // Records the bytes a tile occupies (with its double buffers), for the peak-occupancy figure.
  void occupy(std::uint64_t bytes);
  // Every port reading (or writing, the dearer) a word of every bank.
  double peak_dynamic_j_per_cycle() const override;

 private:
  std::uint64_t count(const ScratchpadAccess& a, bool write);
  ScratchpadConfig layout_;
  EnergyEvent* read_energy_;
  EnergyEvent* write_energy_;
  Counter& bytes_read_;
  Counter& bytes_written_;
  Scalar& peak_bytes_;
};

}  // namespace strata
