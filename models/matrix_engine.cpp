#include "models/matrix_engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {

ParamSpec rates_param(const std::string& default_text) {
  return param::list("rates",
                     "MACs per PE per cycle of each number format relative to the base format, as format=rate "
                     "(INT4 at 2 packs two products per PE; FP16 at 0.5 takes two cycles per MAC); formats not "
                     "listed cannot run on this unit")
      .def(default_text);
}

std::map<std::string, double> parse_rates(const Params& params, const std::string& path) {
  std::map<std::string, double> rates;
  const ParamValue& v = params.value("rates");
  for (size_t i = 0; i < v.items.size(); ++i) {
    const std::string& item = v.items[i];
    const SourceLoc& loc = i < v.item_locs.size() ? v.item_locs[i] : v.loc;
    const std::string key = fmt::format("{}.rates[{}]", path, i);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(loc, key, fmt::format("'{}' is not format=rate (e.g. int8=1)", item));
    double r = 0;
    try {
      size_t used = 0;
      r = std::stod(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw InputError(loc, key, fmt::format("rate '{}' is not a number", item.substr(eq + 1)));
    }
    if (!(r > 0) || r > 64) throw InputError(loc, key, fmt::format("rate {} is outside (0, 64]", r));
    rates[item.substr(0, eq)] = r;
  }
  return rates;
}

double rate_of(const std::map<std::string, double>& rates, const std::string& format, const Params& params,
               const std::string& path) {
  auto it = rates.find(format);
  if (it != rates.end()) return it->second;
  std::string known;
  for (const auto& [f, r] : rates) known += (known.empty() ? "" : ", ") + f;
  throw InputError(params.where("rates"), path + ".rates",
                   fmt::format("this unit has no rate for format '{}' (it runs: {}); add {}=<rate>", format, known,
                               format));
}

MacLanes declare_mac_lanes(Component& unit, const std::map<std::string, double>& rates) {
  const TechTable& t = unit.tech();
  MacLanes lanes;
  for (const auto& [format, r] : rates) {
    if (!t.has_mac(format))
      throw InputError(unit.params().where("rates"), unit.config().path + ".rates",
                       fmt::format("technology table {} has no MAC row for format '{}'", t.name(), format));
    const UnitCost mac = t.mac(format);
    lanes.energy[format] = &unit.energy_event("mac_" + format, mac.energy_j,
                                              fmt::format("{} multiply-accumulates ({})", format, t.mac_recipe(format)));
    lanes.lane_mm2 = std::max(lanes.lane_mm2, mac.area_mm2 * std::max(1.0, r));
    lanes.lane_leakage_w = std::max(lanes.lane_leakage_w, mac.leakage_w * std::max(1.0, r));
  }
  return lanes;
}

}  // namespace strata
