#include "memory/memory_capacity.h"

#include <fmt/format.h>

#include "memory/dram/dram.h"
#include "memory/flash/nand_flash.h"

namespace strata {

MemoryCapacity memory_capacity(const Component& memory) {
  if (const auto* d = dynamic_cast<const Dram*>(&memory)) return d->capacity();
  if (const auto* f = dynamic_cast<const NandFlash*>(&memory)) return f->capacity();
  return {};
}

void require_capacity(const MemoryCapacity& capacity, double bytes, const std::string& what) {
  if (capacity.bytes == 0 || bytes <= static_cast<double>(capacity.bytes)) return;
  throw InputError(capacity.loc, capacity.key,
                   fmt::format("holds {}, less than the {} of {}",
                               format_quantity(static_cast<double>(capacity.bytes), UnitFamily::Size, 4),
                               format_quantity(bytes, UnitFamily::Size, 4), what));
}

}  // namespace strata
