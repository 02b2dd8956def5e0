#include "models/noc/router_cost.h"

namespace strata {

std::shared_ptr<const TechSection> RouterCost::scaled(const TechScaling& s) const {
  auto out = std::make_shared<RouterCost>(*this);
  out->router.energy_j *= s.logic_energy;
  out->router.area_mm2 *= s.logic_area;
  return out;
}

TechSectionSpec router_cost_section() {
  TechSectionSpec s;
  s.key = "router";
  s.required = true;
  s.read = [](const TechFileReader& r, const ConfigNode& n, const TechSection* inherited) {
    auto out = inherit_section<RouterCost>(inherited);
    r.check_keys(n, "router", {"energy", "area", "source"});
    r.read_q(n, "router", "energy", UnitFamily::EnergyPerBit, out->router.energy_j);
    r.read_q(n, "router", "area", UnitFamily::Area, out->router.area_mm2);
    r.read_source(n, "router", out->router.source);
    return std::shared_ptr<const TechSection>(std::move(out));
  };
  return s;
}

}  // namespace strata
