// Cycles a banked scratchpad SRAM needs to move data: `banks` banks of `bank_width_bytes`
// each, `ports` independent access ports. A contiguous access of n bytes proceeds
// ⌈n / (banks·width)⌉ rows of banks per port; a strided access (one element every `stride`
// bytes) touches only the banks its addresses fall in, so conflicting elements serialise:
// with w = width, the addresses of one cycle spread over banks/gcd(stride/w, banks) banks
// when the stride is a multiple of the width (elements inside one bank word are served
// together). SystemC-free.
#pragma once

#include <cstdint>

namespace strata {

struct ScratchpadConfig {
  std::uint64_t capacity_bytes = 4ull << 20;
  std::int64_t banks = 32;
  std::int64_t bank_width_bytes = 32;
  std::int64_t ports = 2;
};

struct ScratchpadAccess {
  std::uint64_t cycles = 0;          // on one port
  std::uint64_t bank_accesses = 0;   // bank words read or written (energy events)
  std::uint64_t conflict_cycles = 0; // cycles beyond the conflict-free count
};

// `elements` elements of `element_bytes` each, one every `stride_bytes` bytes
// (stride = element_bytes: contiguous). Throws std::invalid_argument for bad sizes.
ScratchpadAccess scratchpad_access(const ScratchpadConfig& cfg, std::uint64_t elements, std::uint64_t element_bytes,
                                   std::uint64_t stride_bytes);
// Contiguous bytes.
ScratchpadAccess scratchpad_access(const ScratchpadConfig& cfg, std::uint64_t bytes);

}  // namespace strata
