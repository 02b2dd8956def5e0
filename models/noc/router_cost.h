// The technology table's `router` section, owned by the NoC: one router traversal of one bit
// (buffers, crossbar, arbitration) and a router's area. Routers are logic: a derived node
// scales them by its logic energy and area factors. Registered with the kinds by
// models/register_kinds.cpp; every table has one.
#pragma once

#include "sim/tech/tech_table.h"

namespace strata {

struct RouterCost : TechSection {
  UnitCost router;  // energy_j per bit per traversal, area_mm2 per router
  std::shared_ptr<const TechSection> scaled(const TechScaling& s) const override;
};

TechSectionSpec router_cost_section();
// The router with its leakage as logic.
inline UnitCost router_cost(const TechTable& table) {
  return table.with_leakage(table.section<RouterCost>("router").router);
}

}  // namespace strata
