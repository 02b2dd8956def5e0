#include "memory/dram/dram_interface_cost.h"

namespace strata {

using DramCosts = TechRows<DramInterfaceCost>;

TechSectionSpec dram_cost_section() {
  TechSectionSpec s;
  s.key = "dram";
  s.read = [](const TechFileReader& r, const ConfigNode& node, const TechSection* inherited) {
    auto out = inherit_section<DramCosts>(inherited);
    r.read_rows(node, "dram", {"energy", "io_energy", "phy_area", "phy_standby", "source"},
                [&](const std::string& name, const ConfigNode& row, const std::string& path) {
                  DramInterfaceCost d;  // a standard's row is given whole
                  r.read_q(row, path, "energy", UnitFamily::EnergyPerBit, d.access.energy_j, true);
                  r.read_q(row, path, "io_energy", UnitFamily::EnergyPerBit, d.io_j_per_bit, true);
                  r.read_q(row, path, "phy_area", UnitFamily::Area, d.access.area_mm2, true);
                  if (const ConfigNode* v = row.find("phy_standby"))  // optional: 0, no standby counted
                    d.phy_standby_j_per_bit = r.quantity(*v, path + ".phy_standby", UnitFamily::EnergyPerBit);
                  r.read_source(row, path, d.access.source);
                  out->rows[name] = d;
                });
    return std::shared_ptr<const TechSection>(std::move(out));
  };
  return s;
}

DramInterfaceCost dram_interface_cost(const TechTable& table, const std::string& standard) {
  DramInterfaceCost d = table.row<DramInterfaceCost>("dram", standard);
  d.access = table.with_leakage(d.access);
  return d;
}

}  // namespace strata
