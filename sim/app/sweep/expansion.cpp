#include "sim/app/sweep/expansion.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <unordered_set>

#include <fmt/format.h>

#include "sim/app/experiment.h"
#include "sim/app/sweep/sweep_progress.h"
#include "sim/config_loader.h"
#include "sim/memory_budget.h"
#include "sim/schema.h"
#include "sim/units.h"

namespace strata {
namespace {

// Uniform in [0, 1) from the top 53 bits: the same on every platform, unlike
// std::uniform_real_distribution.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::size_t pick(std::mt19937_64& rng, std::size_t n) {
  return std::min(n - 1, static_cast<std::size_t>(uniform(rng) * static_cast<double>(n)));
}

AxisValue draw(const Axis& a, double u) {
  double v = a.log ? a.lo * std::pow(a.hi / a.lo, u) : a.lo + (a.hi - a.lo) * u;
  std::string text;
  if (a.integer) {
    v = std::clamp(std::floor(v + 0.5), a.lo, a.hi);
    text = fmt::format("{}", static_cast<std::int64_t>(v));
  } else {
    text = fmt::format("{:.6g}", v);
    if (!a.unit.empty()) text += " " + a.unit;
  }
  return AxisValue{text, ConfigNode::scalar(text, a.loc)};
}

AxisValue choose(const Axis& a, double u) {
  if (a.range) return draw(a, u);
  return a.values[std::min(a.values.size() - 1, static_cast<std::size_t>(u * static_cast<double>(a.values.size())))];
}

// The number of combinations for_each_combination() visits.
double combination_count(const SweepSpec& s, std::vector<std::vector<int>>* grid_dims = nullptr) {
  if (s.method != "grid") return static_cast<double>(s.samples);
  // Dimensions: zip groups and single axes, in the order of their first axis.
  std::vector<std::vector<int>> dims;
  std::vector<bool> zipped(s.axes.size(), false);
  for (size_t i = 0; i < s.axes.size(); ++i) {
    if (zipped[i]) continue;
    std::vector<int> dim{static_cast<int>(i)};
    for (const auto& g : s.zips)
      if (std::find(g.begin(), g.end(), static_cast<int>(i)) != g.end()) dim = g;
    for (int a : dim) zipped[static_cast<size_t>(a)] = true;
    dims.push_back(dim);
  }
  double total = 1;
  for (const auto& d : dims) total *= static_cast<double>(s.axes[static_cast<size_t>(d.front())].values.size());
  if (grid_dims) *grid_dims = std::move(dims);
  return total;
}

// Calls `visit` with each combination, one value per axis, in the plan's order; one at a time,
// so a sweep of millions of points never holds them all.
void for_each_combination(const SweepSpec& s, const std::function<void(const std::vector<AxisValue>&)>& visit) {
  const size_t n_axes = s.axes.size();
  if (s.method == "grid") {
    std::vector<std::vector<int>> dims;
    combination_count(s, &dims);
    std::vector<size_t> idx(dims.size(), 0);
    std::vector<AxisValue> combo(n_axes);
    while (true) {
      for (size_t d = 0; d < dims.size(); ++d)
        for (int a : dims[d]) combo[static_cast<size_t>(a)] = s.axes[static_cast<size_t>(a)].values[idx[d]];
      visit(combo);
      size_t d = dims.size();
      while (d > 0) {
        --d;
        if (++idx[d] < s.axes[static_cast<size_t>(dims[d].front())].values.size()) break;
        idx[d] = 0;
        if (d == 0) return;
      }
      if (dims.empty()) return;
    }
  }
  std::mt19937_64 rng(s.seed);
  const size_t n = static_cast<size_t>(s.samples);
  if (s.method == "random") {
    for (size_t i = 0; i < n; ++i) {
      std::vector<AxisValue> combo;
      for (const Axis& a : s.axes)
        combo.push_back(a.range ? draw(a, uniform(rng)) : a.values[pick(rng, a.values.size())]);
      visit(combo);
    }
    return;
  }
  // Latin hypercube: each axis' [0, 1) cut into n strata, each used once, in a random order,
  // with a random position inside its stratum.
  std::vector<std::vector<double>> u(n_axes, std::vector<double>(n));
  for (size_t a = 0; a < n_axes; ++a) {
    std::vector<size_t> perm(n);
    for (size_t i = 0; i < n; ++i) perm[i] = i;
    for (size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[pick(rng, i)]);
    for (size_t i = 0; i < n; ++i) u[a][i] = (static_cast<double>(perm[i]) + uniform(rng)) / static_cast<double>(n);
  }
  for (size_t i = 0; i < n; ++i) {
    std::vector<AxisValue> combo;
    for (size_t a = 0; a < n_axes; ++a) combo.push_back(choose(s.axes[a], u[a][i]));
    visit(combo);
  }
}

// A scalar's value for an expression: a plain number, a quantity in SI units, true/false, or
// its text.
ExprValue scalar_value(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc() && ptr == end) return v;
  if (text == "true") return 1.0;
  if (text == "false") return 0.0;
  for (int f = 0; f <= static_cast<int>(UnitFamily::Temperature); ++f) {
    try {
      return parse_quantity(text, static_cast<UnitFamily>(f));
    } catch (const UnitError&) {
    }
  }
  return text;
}

// Files named in the point are written as absolute paths, so the point's file runs from its
// own directory.
void absolutize_files(ConfigNode& config, const ValidatedNode& v) {
  if (!config.is_map()) return;
  for (const auto& [name, value] : v.params.values()) {
    const bool is_file = value.spec->type == ParamType::Path || (value.spec->type == ParamType::String &&
                                                                 value.spec->name_or_file && names_a_file(value.text));
    ConfigNode* node = config.find(name);
    if (!is_file || !node || !node->is_scalar() || value.text.empty()) continue;
    ConfigNode replaced = ConfigNode::scalar(value.text, node->loc());
    replaced.set_key_loc(node->key_loc());
    *node = std::move(replaced);
  }
  for (const auto& [slot, child] : v.children)
    if (ConfigNode* c = config.find(slot)) absolutize_files(*c, child);
}

ConfigNode point_config(const SweepSpec& s, const std::vector<AxisValue>& combo, const std::string& fidelity) {
  ConfigNode config = s.experiment;
  config.set("name", ConfigNode::scalar(s.name, SourceLoc{s.file}));
  for (size_t a = 0; a < s.axes.size(); ++a) {
    const ConfigNode& v = combo[a].value;
    set_config_path(config, s.axes[a].key, resolve_extends(v, v.loc().file.empty() ? s.file : v.loc().file),
                    s.axes[a].loc);
  }
  if (!fidelity.empty())
    set_config_path(config, "sim.fidelity", ConfigNode::scalar(fidelity, SourceLoc{s.file}), SourceLoc{s.file});
  return config;
}

bool allowed(const SweepSpec& s, const std::vector<AxisValue>& combo, const ConfigNode& config) {
  for (const Expression& c : s.constraints) {
    const double keep = c.eval([&](const std::string& name) -> std::optional<ExprValue> {
      for (size_t a = 0; a < s.axes.size(); ++a)
        if (s.axes[a].column == name) return scalar_value(combo[a].label);
      const ConfigNode* n = find_config_path(config, name);
      if (n && n->is_scalar()) return scalar_value(n->value());
      return std::nullopt;
    });
    if (keep == 0) return false;
  }
  return true;
}

// `with_yaml`: also the point's file text (the YAML emitter is about half of a point's cost, and
// a dry run does not need it).
SweepPoint resolve_point(const SweepSpec& s, ConfigNode config, std::vector<std::string> labels,
                         const Registry& registry, bool with_yaml = true) {
  ConfigNode file_form = with_yaml ? config : ConfigNode();
  const ResolvedExperiment r = resolve_experiment_config(std::move(config), s.file, registry);
  SweepPoint p;
  p.labels = std::move(labels);
  p.hash = r.hash;
  p.fidelity = r.root.child("sim").params.has("fidelity") ? r.root.child("sim").params.string("fidelity") : "cycle";
  if (!with_yaml) return p;
  absolutize_files(file_form, r.root);
  std::string header = fmt::format("# A point of the sweep {} ({})\n", s.name, s.file);
  for (size_t a = 0; a < s.axes.size(); ++a) header += fmt::format("#   {} = {}\n", s.axes[a].column, p.labels[a]);
  p.yaml = header + fmt::format("# config hash {}\n", p.hash) + file_form.to_yaml();
  return p;
}

}  // namespace

Expansion expand_sweep(const SweepSpec& spec, const Registry& registry, const std::string& fidelity,
                       const ExpandOptions& options) {
  const double total = combination_count(spec);
  if (total > kMaxSweepPoints)
    throw InputError(SourceLoc{spec.file}, "sweep.axes",
                     fmt::format("the grid has {:.3g} points (limit 10 million)", total));
  // What the expansion keeps a point by (labels, hash, the duplicate check) and, for lhs, the
  // sample matrix: refused before the work when it cannot fit.
  const double per_point = 400.0 + 64.0 * static_cast<double>(spec.axes.size()) +
                           (spec.method == "lhs" ? 16.0 * static_cast<double>(spec.axes.size()) : 0.0);
  require_memory(total * per_point, fmt::format("a sweep of {:.0f} points", total), SourceLoc{spec.file}, "sweep");
  SweepProgress progress(options.progress, "expanding " + spec.name, static_cast<int>(total));
  Expansion e;
  std::unordered_set<std::string> seen;
  int visited = 0;
  for_each_combination(spec, [&](const std::vector<AxisValue>& combo) {
    if (options.interrupt && options.interrupt->load()) throw Interrupted();
    progress.count(++visited);
    ConfigNode config = point_config(spec, combo, fidelity);
    if (!allowed(spec, combo, config)) {
      ++e.dropped;
      return;
    }
    std::vector<std::string> labels;
    for (const AxisValue& v : combo) labels.push_back(v.label);
    SweepPoint p = resolve_point(spec, std::move(config), std::move(labels), registry, bool(options.sink));
    if (!seen.insert(p.hash).second) {
      ++e.duplicates;
      return;
    }
    p.index = static_cast<int>(e.points.size());
    // Written out now (or not at all, for a dry run); only the compact entry stays in memory.
    if (options.sink) options.sink(p);
    std::string().swap(p.yaml);
    e.points.push_back(std::move(p));
  });
  progress.finish();
  if (e.points.empty())
    throw InputError(SourceLoc{spec.file}, "sweep.constraints",
                     fmt::format("no point is left ({} dropped by the constraints)", e.dropped));
  return e;
}

SweepPoint refidelity(const SweepSpec& spec, const SweepPoint& point, const Registry& registry,
                      const std::string& fidelity) {
  // The labels give back the axis values: grid values by label, drawn values by their text.
  std::vector<AxisValue> combo;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const Axis& axis = spec.axes[a];
    AxisValue v{point.labels[a], ConfigNode::scalar(point.labels[a], axis.loc)};
    for (const AxisValue& known : axis.values)
      if (known.label == point.labels[a]) v = known;
    combo.push_back(v);
  }
  SweepPoint p = resolve_point(spec, point_config(spec, combo, fidelity), point.labels, registry);
  p.index = point.index;
  return p;
}

}  // namespace strata
