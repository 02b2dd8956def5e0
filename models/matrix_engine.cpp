#include "models/matrix_engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {

ParamSpec rates_param(const std::string& default_text) {
  return param::format_rates("rates",
                             "MACs per PE per cycle of each number format relative to the base format, as format=rate "
                             "(INT4 at 2 packs two products per PE; FP16 at 0.5 takes two cycles per MAC); formats not "
                             "listed cannot run on this unit")
      .def(default_text);
}

MatrixEngine::MatrixEngine(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, double base_lanes)
    : Component(name, cfg, ctx),
      base_lanes_(base_lanes),
      rates_(params().format_rates("rates")),
      tiles_(counter("tiles", "tiles", "tiles run")),
      folds_(counter("folds", "folds", "passes of the unit's fixed mapping (array folds, cube block products)")),
      macs_(counter("macs", "MACs", "useful multiply-accumulates")),
      busy_cycles_(counter("busy_cycles", "cycles", "cycles the unit spent on tiles")),
      utilization_(scalar("utilization", "fraction",
                          "useful MACs over the MACs the unit could do at its base rate in the elapsed time")) {
  const TechTable& t = tech();
  for (const auto& [format, r] : rates_) {
    if (!t.has_mac(format))
      throw InputError(params().where("rates"), config().path + ".rates",
                       fmt::format("technology table {} has no MAC row for format '{}'", t.name(), format));
    const UnitCost mac = t.mac(format);
    mac_energy_[format] = &energy_event("mac_" + format, mac.energy_j,
                                        fmt::format("{} multiply-accumulates ({})", format, t.mac_recipe(format)));
    lane_mm2_ = std::max(lane_mm2_, mac.area_mm2 * std::max(1.0, r));
    lane_leakage_w_ = std::max(lane_leakage_w_, mac.leakage_w * std::max(1.0, r));
  }
}

double MatrixEngine::rate(const std::string& format) const {
  auto it = rates_.find(format);
  if (it != rates_.end()) return it->second;
  std::string known;
  for (const auto& [f, r] : rates_) known += (known.empty() ? "" : ", ") + f;
  throw InputError(params().where("rates"), config().path + ".rates",
                   fmt::format("this unit has no rate for format '{}' (it runs: {}); add {}=<rate>", format, known,
                               format));
}

double MatrixEngine::peak_dynamic_j_per_cycle() const {
  double j = 0;
  for (const auto& [format, e] : mac_energy_) j = std::max(j, peak_macs_per_cycle(format) * e->joules_per_event());
  return j;
}

MatrixRun MatrixEngine::run(const MatrixWork& w) {
  const MatrixRun r = estimate(w);
  tiles_.add();
  folds_.add(r.folds);
  macs_.add(r.macs);
  busy_cycles_.add(r.cycles);
  mac_energy_.at(w.format)->add(r.macs);
  return r;
}

void MatrixEngine::finalize(const sc_core::sc_time& end) {
  const double peak = base_lanes_ * static_cast<double>(clock().cycles_in(reported_s(end)));
  utilization_.set(peak > 0 ? static_cast<double>(macs_.count()) / peak : 0);
}

}  // namespace strata
