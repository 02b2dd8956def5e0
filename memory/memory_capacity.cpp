#include "memory/memory_capacity.h"

#include <fmt/format.h>

#include "sim/component.h"

namespace strata {

MemoryCapacity memory_capacity(const Component& memory) {
  const auto* bounded = dynamic_cast<const BoundedMemory*>(&memory);
  return bounded ? bounded->capacity() : MemoryCapacity{};
}

void require_capacity(const MemoryCapacity& capacity, double bytes, const std::string& what) {
  if (capacity.bytes == 0 || bytes <= static_cast<double>(capacity.bytes)) return;
  throw InputError(capacity.loc, capacity.key,
                   fmt::format("holds {}, less than the {} of {}",
                               format_quantity(static_cast<double>(capacity.bytes), UnitFamily::Size, 4),
                               format_quantity(bytes, UnitFamily::Size, 4), what));
}

}  // namespace strata
