// Role `nand_flash`: a NAND flash whose controller a design may run itself, scheduling its own
// operations (read-computes next to the pages, sliced page reads) on the flash's timeline
// instead of sending TLM requests: Cambricon-LLM's NPU chiplet (`flash`), InstInfer's drives
// (`csd_flash`). A kind plays it by implementing NandFlashDevice and declaring
// provides(kNandFlashRole) (nand_flash does); a slot that requires it refuses every other kind
// at its `kind:` key (file, line, exit 2), and the design gets the interface with
// Component::build_child<NandFlashDevice>(slot).
#pragma once

#include <cstdint>

#include "memory/flash/flash_timeline.h"
#include "memory/memory_capacity.h"

namespace strata {

class SimContext;

inline constexpr const char* kNandFlashRole = "nand_flash";

class NandFlashDevice : public BoundedMemory {
 public:
  static constexpr const char* kRole = kNandFlashRole;  // Component::build_child<NandFlashDevice>
  virtual ~NandFlashDevice() = default;
  // Makes the design the flash's controller: binds the TLM socket to an idle initiator the flash
  // keeps (SystemC needs every socket bound), as the design sends no requests; its timeline.
  virtual FlashTimeline& direct_controller(SimContext& ctx) = 0;
  // The channels', planes' and cores' calendars, where the controller books its operations.
  virtual FlashTimeline& timeline() = 0;
  // Counts the pages sensed and the channel bytes of operations booked on timeline() (their
  // energy and the flash's statistics; the design prices its own arithmetic).
  virtual void count_direct(std::uint64_t pages, std::uint64_t channel_bytes) = 0;
  // capacity() (BoundedMemory): its organization's bytes, at the organization's keys.
};

}  // namespace strata
