#include "sim/app/sweep/sweep_spec.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "sim/app/experiment.h"
#include "sim/config_loader.h"
#include "sim/config_values.h"
#include "sim/text.h"
#include "sim/units.h"

namespace strata {
namespace {

// "0.8 GHz" -> 0.8 and "GHz"; "16" -> 16 and "".
std::pair<double, std::string> number_and_unit(const ConfigNode& n, const std::string& key) {
  const std::string text(trim(config_text(n, key)));
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || std::strchr("+-.eE", text[i]))) ++i;
  // An exponent letter directly before the unit ("5 E" is not a number) is the unit's.
  while (i > 0 && (text[i - 1] == 'e' || text[i - 1] == 'E')) --i;
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, v);
  if (i == 0 || ec != std::errc() || ptr != text.data() + i || !std::isfinite(v))
    config_fail(n, key, fmt::format("expected a number with an optional unit, got \"{}\"", text));
  return {v, std::string(trim(std::string_view(text).substr(i)))};
}

std::string format_number(double v, bool integer, const std::string& unit) {
  const std::string num =
      integer ? fmt::format("{}", static_cast<std::int64_t>(std::llround(v))) : fmt::format("{:.6g}", v);
  return unit.empty() ? num : num + " " + unit;
}

Axis parse_range(const ConfigNode& spec, const std::string& where) {
  Axis a;
  const ConfigNode* range = spec.find("range");
  if (!range->is_sequence() || range->items().size() != 2)
    config_fail(*range, where + ".range", "expected [low, high]");
  const auto [lo, lo_unit] = number_and_unit(range->items()[0], where + ".range");
  const auto [hi, hi_unit] = number_and_unit(range->items()[1], where + ".range");
  if (lo_unit != hi_unit)
    config_fail(*range, where + ".range",
                fmt::format("both bounds need the same unit (\"{}\" and \"{}\")", lo_unit, hi_unit));
  if (!(lo < hi)) config_fail(*range, where + ".range", "the low bound must be below the high bound");
  a.range = true;
  a.lo = lo;
  a.hi = hi;
  a.unit = lo_unit;
  a.integer = lo_unit.empty() && lo == std::floor(lo) && hi == std::floor(hi);
  if (const ConfigNode* s = spec.find("scale")) {
    const std::string& t = config_text(*s, where + ".scale");
    if (t != "linear" && t != "log")
      config_fail(*s, where + ".scale", fmt::format("\"{}\" is not one of linear, log", t));
    a.log = t == "log";
    if (a.log && lo <= 0) config_fail(*range, where + ".range", "a log scale needs a positive low bound");
  }
  const ConfigNode* steps = spec.find("steps");
  const ConfigNode* step = spec.find("step");
  if (steps && step) config_fail(*step, where, "give steps or step, not both");
  std::vector<double> values;
  if (steps) {
    const auto n = config_integer(*steps, where + ".steps", 2, 1000000);
    for (std::int64_t i = 0; i < n; ++i) {
      const double f = static_cast<double>(i) / static_cast<double>(n - 1);
      values.push_back(a.log ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f);
    }
  } else if (step) {
    if (a.log) config_fail(*step, where + ".step", "step goes with a linear scale; use steps for log");
    const auto [s, s_unit] = number_and_unit(*step, where + ".step");
    if (s_unit != a.unit)
      config_fail(*step, where + ".step", fmt::format("the step needs the bounds' unit \"{}\"", a.unit));
    if (!(s > 0)) config_fail(*step, where + ".step", "must be positive");
    if (a.integer && s != std::floor(s)) a.integer = false;
    const double n = std::floor((hi - lo) / s * (1 + 1e-12));
    if (n > 1e6) config_fail(*step, where + ".step", "gives more than a million values");
    for (double i = 0; i <= n; ++i) values.push_back(lo + i * s);
  }
  std::set<std::string> seen;
  for (double v : values) {
    const std::string text = format_number(v, a.integer, a.unit);
    if (!seen.insert(text).second) continue;  // integer rounding of a log range
    a.values.push_back(AxisValue{text, ConfigNode::scalar(text, range->loc())});
  }
  return a;
}

Axis parse_axis(const std::string& key, const ConfigNode& spec, const std::string& where) {
  Axis a;
  if (spec.is_sequence()) {
    for (const auto& item : spec.items()) {
      const std::string label = item.is_scalar() ? item.value() : [&] {
        std::string y = item.to_yaml();
        while (!y.empty() && y.back() == '\n') y.pop_back();
        return y;
      }();
      a.values.push_back(AxisValue{label, item});
    }
  } else if (spec.is_map()) {
    config_only_keys(spec, where, {"values", "name", "range", "steps", "step", "scale"});
    const ConfigNode* values = spec.find("values");
    const ConfigNode* range = spec.find("range");
    if (!!values == !!range) config_fail(spec, where, "an axis needs values or range (one of them)");
    if (values) {
      if (values->is_sequence()) {
        a = parse_axis(key, *values, where + ".values");
      } else if (values->is_map()) {
        for (const auto& [label, v] : values->entries()) a.values.push_back(AxisValue{label, v});
      } else {
        config_fail(*values, where + ".values", "expected a list or a mapping of labels to values");
      }
      for (const char* k : {"steps", "step", "scale"})
        if (const ConfigNode* n = spec.find(k)) config_fail(*n, where + "." + k, "goes with range, not values");
    } else {
      a = parse_range(spec, where);
    }
    if (const ConfigNode* n = spec.find("name")) a.column = config_text(*n, where + ".name");
  } else {
    config_fail(spec, where, "expected a list of values or a mapping (values, range, ...)");
  }
  a.key = key;
  if (a.column.empty()) a.column = key;
  a.loc = spec.loc();
  if (a.values.empty() && !a.range) config_fail(spec, where, "has no values");
  return a;
}

void parse_slurm(const ConfigNode& n, SlurmOptions& s) {
  if (!n.is_map()) config_fail(n, "sweep.slurm", "expected a mapping");
  for (const auto& [k, v] : n.entries()) {
    const std::string key = "sweep.slurm." + k;
    if (k == "partition") s.partition = config_text(v, key);
    else if (k == "account") s.account = config_text(v, key);
    else if (k == "time") s.time = config_text(v, key);
    else if (k == "mem") s.mem = config_text(v, key);
    else if (k == "max_parallel") s.max_parallel = static_cast<int>(config_integer(v, key, 0, 1000000));
    else if (k == "points_per_task") s.points_per_task = static_cast<int>(config_integer(v, key, 0, 100000000));
    else if (k == "poll") {
      try {
        s.poll_s = parse_quantity(config_text(v, key), UnitFamily::Time);
      } catch (const UnitError& e) {
        config_fail(v, key, e.what());
      }
      if (!(s.poll_s > 0)) config_fail(v, key, "must be positive");
    } else if (k == "extra") {
      if (!v.is_sequence()) config_fail(v, key, "expected a list of sbatch options");
      for (const auto& item : v.items()) s.extra.push_back(config_text(item, key));
    } else {
      config_fail(v, key,
                  "unknown key (expected partition, account, time, mem, extra, max_parallel, points_per_task, poll)");
    }
  }
}

// Columns every sweep's results have, and the figures every run's summary.json has: an axis or
// an output by one of these names would be hidden by, or hide, the measured value.
const std::set<std::string>& reserved_columns() {
  static const std::set<std::string> names = {
      "point",    "fidelity",    "status",      "hash",         "path",
      "error",    "wall_time_s", "experiment",  "config_hash",  "simulated_time_s",
      "energy_j", "area_mm2",    "avg_power_w", "peak_power_w", "latency_s"};
  return names;
}

// A value's label is a cell of results.csv and a line of the plan: one line of text.
void check_label(const std::string& label, const SourceLoc& loc, const std::string& key) {
  if (const auto c = first_control_char(label))
    throw InputError(
        loc, key,
        fmt::format("the label \"{}\" holds a control character (byte 0x{:02X}); labels are one line of text",
                    printable(label, 60), static_cast<unsigned char>(label[*c])));
}

void check_column_name(const std::string& name, const SourceLoc& loc, const std::string& key) {
  check_label(name, loc, key);
  if (name.empty()) throw InputError(loc, key, "an empty column name");
  if (reserved_columns().count(name))
    throw InputError(loc, key, fmt::format("'{}' is a column of every sweep's results; choose another name", name));
}

}  // namespace

SweepSpec load_sweep(const std::string& path, const std::vector<std::string>& overrides) {
  SweepSpec s;
  s.file = path;
  s.experiment = load_config(path);
  if (!s.experiment.is_map())
    config_fail(s.experiment, "", "a sweep file must hold a mapping (an experiment with a sweep: section)");
  const ConfigNode* found = s.experiment.find("sweep");
  if (!found) throw InputError(SourceLoc{path}, "sweep", "missing: a sweep file needs a sweep: section with axes");
  ConfigNode sweep = *found;
  s.experiment.erase("sweep");
  // `sweep.<key>=...` overrides the sweep section itself (a smoke run's constraints, a method).
  const std::string own = "sweep.";
  for (const auto& o : overrides) {
    if (o.compare(0, own.size(), own) == 0) apply_override(sweep, o.substr(own.size()));
    else apply_override(s.experiment, o);
  }
  if (!sweep.is_map()) config_fail(sweep, "sweep", "expected a mapping (axes, method, objectives, ...)");
  const ConfigNode* name = s.experiment.find("name");
  s.name = name && name->is_scalar() ? name->value() : std::filesystem::path(path).stem().string();
  check_result_name(s.name, name ? name->loc() : SourceLoc{path}, "name");

  const ConfigNode* samples = nullptr;
  for (const auto& [k, v] : sweep.entries()) {
    const std::string key = "sweep." + k;
    if (k == "method") {
      s.method = config_text(v, key);
      if (s.method != "grid" && s.method != "random" && s.method != "lhs")
        config_fail(v, key, fmt::format("\"{}\" is not one of grid, random, lhs", s.method));
    } else if (k == "samples") {
      samples = &v;
      s.samples = static_cast<int>(config_integer(v, key, 1, 10000000));
    } else if (k == "seed") {
      s.seed = static_cast<std::uint64_t>(config_integer(v, key, 0, INT64_MAX));
    } else if (k == "axes") {
      if (!v.is_map() || v.entries().empty()) config_fail(v, key, "expected a mapping of config keys to values");
      for (const auto& [axis_key, axis] : v.entries())
        s.axes.push_back(parse_axis(axis_key, axis, key + "." + axis_key));
    } else if (k == "zip" || k == "constraints" || k == "objectives" || k == "outputs" || k == "two_stage" ||
               k == "slurm") {
      // read below, once the axes are known
    } else if (k == "executor") {
      s.executor = config_text(v, key);
      if (s.executor != "local" && s.executor != "slurm")
        config_fail(v, key, fmt::format("\"{}\" is not one of local, slurm", s.executor));
    } else if (k == "jobs") {
      s.jobs = static_cast<int>(config_integer(v, key, 0, 4096));
    } else if (k == "retries") {
      s.retries = static_cast<int>(config_integer(v, key, 0, 100));
    } else if (k == "timeout") {
      try {
        s.timeout_s = parse_quantity(config_text(v, key), UnitFamily::Time);
      } catch (const UnitError& e) {
        config_fail(v, key, e.what());
      }
      if (s.timeout_s < 0) config_fail(v, key, "must not be negative");
    } else {
      config_fail(
          v, key,
          "unknown key (expected method, samples, seed, axes, zip, constraints, objectives, outputs, two_stage, "
          "executor, jobs, timeout, retries, slurm)");
    }
  }
  if (s.axes.empty()) config_fail(sweep, "sweep.axes", "missing: name at least one axis");
  std::set<std::string> columns;
  for (const Axis& a : s.axes) {
    check_column_name(a.column, a.loc, "sweep.axes." + a.key);
    if (!columns.insert(a.column).second)
      throw InputError(a.loc, "sweep.axes", fmt::format("two axes are named '{}'", a.column));
    for (const AxisValue& v : a.values) check_label(v.label, v.value.loc(), "sweep.axes." + a.key);
  }
  if (s.method == "grid") {
    if (samples) config_fail(*samples, "sweep.samples", "goes with method: random or lhs");
    for (const Axis& a : s.axes)
      if (a.values.empty()) throw InputError(a.loc, "sweep.axes." + a.key, "a grid needs steps or step for a range");
  } else if (!samples) {
    config_fail(sweep, "sweep.samples", fmt::format("missing: method {} needs samples", s.method));
  }

  auto axis_index = [&](const ConfigNode& n, const std::string& key) {
    const std::string& name = config_text(n, key);
    for (size_t i = 0; i < s.axes.size(); ++i)
      if (s.axes[i].key == name || s.axes[i].column == name) return static_cast<int>(i);
    config_fail(n, key, fmt::format("'{}' is not an axis", name));
  };
  if (const ConfigNode* zip = sweep.find("zip")) {
    if (s.method != "grid") config_fail(*zip, "sweep.zip", "goes with method: grid");
    if (!zip->is_sequence()) config_fail(*zip, "sweep.zip", "expected a list of lists of axes");
    std::set<int> used;
    for (const auto& group : zip->items()) {
      if (!group.is_sequence() || group.items().size() < 2)
        config_fail(group, "sweep.zip", "each group lists two or more axes");
      std::vector<int> g;
      for (const auto& item : group.items()) {
        const int i = axis_index(item, "sweep.zip");
        if (!used.insert(i).second)
          config_fail(item, "sweep.zip", fmt::format("axis '{}' is zipped twice", s.axes[i].column));
        if (s.axes[i].values.size() != s.axes[g.empty() ? i : g.front()].values.size())
          config_fail(
              item, "sweep.zip",
              fmt::format("zipped axes need as many values each ('{}' has {}, '{}' has {})", s.axes[g.front()].column,
                          s.axes[g.front()].values.size(), s.axes[i].column, s.axes[i].values.size()));
        g.push_back(i);
      }
      s.zips.push_back(g);
    }
  }
  if (const ConfigNode* c = sweep.find("constraints")) {
    if (!c->is_sequence()) config_fail(*c, "sweep.constraints", "expected a list of expressions");
    for (const auto& item : c->items())
      s.constraints.emplace_back(config_text(item, "sweep.constraints"), item.loc(), "sweep.constraints");
  }
  if (const ConfigNode* o = sweep.find("outputs")) {
    if (!o->is_map()) config_fail(*o, "sweep.outputs", "expected a mapping of names to expressions");
    for (const auto& [k, v] : o->entries()) {
      check_column_name(k, v.key_loc(), "sweep.outputs." + k);
      if (columns.count(k)) config_fail(v, "sweep.outputs." + k, fmt::format("an axis is named '{}' too", k));
      s.outputs.push_back(
          NamedExpression{k, Expression(config_text(v, "sweep.outputs." + k), v.loc(), "sweep.outputs." + k)});
    }
  }
  if (const ConfigNode* o = sweep.find("objectives")) {
    if (!o->is_map()) config_fail(*o, "sweep.objectives", "expected a mapping such as {latency_s: min, energy_j: min}");
    for (const auto& [k, v] : o->entries()) {
      const std::string& sense = config_text(v, "sweep.objectives." + k);
      if (sense != "min" && sense != "max")
        config_fail(v, "sweep.objectives." + k, fmt::format("\"{}\" is not one of min, max", sense));
      s.objectives.push_back(Objective{k, sense == "min"});
    }
  }
  if (const ConfigNode* t = sweep.find("two_stage")) {
    if (!t->is_map()) config_fail(*t, "sweep.two_stage", "expected a mapping ({top_k: 10} or {front: true})");
    for (const auto& [k, v] : t->entries()) {
      if (k == "top_k") s.top_k = static_cast<int>(config_integer(v, "sweep.two_stage.top_k", 1, 100000000));
      else if (k == "front") {
        const std::string& b = config_text(v, "sweep.two_stage.front");
        if (b != "true" && b != "false") config_fail(v, "sweep.two_stage.front", "expected true or false");
        s.front = b == "true";
      } else config_fail(v, "sweep.two_stage." + k, "unknown key (expected top_k, front)");
    }
    if (!s.two_stage()) config_fail(*t, "sweep.two_stage", "give top_k or front: true");
    if (s.objectives.empty()) config_fail(*t, "sweep.two_stage", "ranks by the objectives: add sweep.objectives");
  }
  if (const ConfigNode* n = sweep.find("slurm")) parse_slurm(*n, s.slurm);
  return s;
}

}  // namespace strata
