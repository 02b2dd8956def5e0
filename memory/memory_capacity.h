// What a memory holds, for refusing contents that do not fit: weights or a KV cache placed in
// a flash or DRAM too small for them would be read as fast as from one that holds them, and the
// result would say nothing true.
#pragma once

#include <cstdint>
#include <string>

#include "sim/input_error.h"

namespace strata {

class Component;

struct MemoryCapacity {
  std::uint64_t bytes = 0;  // 0: no bound (a model that answers any address: simple_memory)
  SourceLoc loc;            // the section whose keys set it (a DRAM's or a flash's organization)
  std::string key;          // its key path, e.g. "hardware.flash.organization"
};

// A memory whose organization bounds what it holds (dram, nand_flash).
class BoundedMemory {
 public:
  virtual ~BoundedMemory() = default;
  virtual MemoryCapacity capacity() const = 0;
};

// `memory`'s capacity when it is a BoundedMemory; no bound for other kinds.
MemoryCapacity memory_capacity(const Component& memory);

// Throws InputError at the capacity's key, one line, when `bytes` of `what` ("the weights of
// llama-2-7b") exceed it.
void require_capacity(const MemoryCapacity& capacity, double bytes, const std::string& what);

}  // namespace strata
