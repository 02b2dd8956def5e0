// The technology table's `links` section, owned here: die-to-die and off-package links by
// packaging ("ucie_standard", "serdes", ...), energy per bit (energy_j) and area per GB/s of
// link bandwidth (area_mm2, 0 where unpublished). Package figures: a derived node inherits
// them unscaled. Registered with the kinds by models/register_kinds.cpp.
#pragma once

#include <string>

#include "sim/tech/tech_table.h"

namespace strata {

TechSectionSpec link_cost_section();
// The row of `packaging`; InputError naming the table's `links` section when it has none.
inline const UnitCost& link_cost(const TechTable& table, const std::string& packaging) {
  return table.row<UnitCost>("links", packaging);
}

}  // namespace strata
