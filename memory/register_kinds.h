#pragma once

namespace strata {
class Registry;
// Registers every kind defined in memory/.
void register_memory_kinds(Registry& registry);
}  // namespace strata
