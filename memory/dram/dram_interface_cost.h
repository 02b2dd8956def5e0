// The technology table's `dram` section, owned here: per standard ("ddr4", "hbm2", ...) the
// energy per bit of an access including background at typical load, the interface (PHY + I/O)
// share of it, the PHY area of one channel, and (optional) the interface's standby power per bit
// of its peak rate. Package and memory figures: a derived node
// inherits them unscaled. Registered with the kinds by memory/register_kinds.cpp.
#pragma once

#include <string>

#include "sim/tech/tech_table.h"

namespace strata {

struct DramInterfaceCost {
  UnitCost access;  // energy_j per bit; area_mm2 and leakage_w: the PHY of one channel
  double io_j_per_bit = 0;
  // The interface's always-on power as energy per bit of its peak rate (J/bit = W per bit/s): its
  // clocks, DLLs and receivers run at the full data rate whether or not data moves.
  double phy_standby_j_per_bit = 0;
};

TechSectionSpec dram_cost_section();
// The row of `standard`, its PHY leaking like logic; InputError naming the table's `dram`
// section when it has no such row.
DramInterfaceCost dram_interface_cost(const TechTable& table, const std::string& standard);

}  // namespace strata
