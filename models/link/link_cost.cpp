#include "models/link/link_cost.h"

namespace strata {

TechSectionSpec link_cost_section() {
  using LinkCosts = TechRows<UnitCost>;
  TechSectionSpec s;
  s.key = "links";
  s.read = [](const TechFileReader& r, const ConfigNode& node, const TechSection* inherited) {
    auto out = inherit_section<LinkCosts>(inherited);
    r.read_rows(node, "links", {"energy", "source"},
                [&](const std::string& name, const ConfigNode& row, const std::string& path) {
                  UnitCost c;
                  r.read_q(row, path, "energy", UnitFamily::EnergyPerBit, c.energy_j, true);
                  r.read_source(row, path, c.source);
                  out->rows[name] = c;
                });
    return std::shared_ptr<const TechSection>(std::move(out));
  };
  return s;
}

}  // namespace strata
