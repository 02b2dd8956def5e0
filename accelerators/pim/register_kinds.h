// Registers the PIM kinds: the pim design (a PIM DRAM and its host).
#pragma once

namespace strata {

class Registry;
void register_pim_kinds(Registry& registry);

}  // namespace strata
