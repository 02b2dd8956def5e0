#include "sim/sweep/sweep_spec.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "sim/config_loader.h"
#include "sim/text.h"
#include "sim/units.h"

namespace strata {
namespace {

std::string join(const std::string& a, const std::string& b) { return a + "." + b; }

[[noreturn]] void fail(const ConfigNode& n, const std::string& key, const std::string& msg) {
  throw InputError(n.loc().line ? n.loc() : n.key_loc(), key, msg);
}

const std::string& scalar_text(const ConfigNode& n, const std::string& key) {
  if (!n.is_scalar()) fail(n, key, fmt::format("expected a value, got {}", n.type_name()));
  return n.value();
}

std::int64_t integer(const ConfigNode& n, const std::string& key, std::int64_t lo, std::int64_t hi) {
  const std::string_view t = trim(scalar_text(n, key));
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) fail(n, key, fmt::format("expected an integer, got \"{}\"", t));
  if (v < lo || v > hi) fail(n, key, fmt::format("{} is out of range [{}, {}]", v, lo, hi));
  return v;
}

// "0.8 GHz" -> 0.8 and "GHz"; "16" -> 16 and "".
std::pair<double, std::string> number_and_unit(const ConfigNode& n, const std::string& key) {
  const std::string text(trim(scalar_text(n, key)));
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || std::strchr("+-.eE", text[i]))) ++i;
  // An exponent letter directly before the unit ("5 E" is not a number) is the unit's.
  while (i > 0 && (text[i - 1] == 'e' || text[i - 1] == 'E')) --i;
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, v);
  if (i == 0 || ec != std::errc() || ptr != text.data() + i || !std::isfinite(v))
    fail(n, key, fmt::format("expected a number with an optional unit, got \"{}\"", text));
  return {v, std::string(trim(std::string_view(text).substr(i)))};
}

std::string format_number(double v, bool integer, const std::string& unit) {
  const std::string num = integer ? fmt::format("{}", static_cast<std::int64_t>(std::llround(v))) : fmt::format("{:.6g}", v);
  return unit.empty() ? num : num + " " + unit;
}

Axis parse_range(const ConfigNode& spec, const std::string& where) {
  Axis a;
  const ConfigNode* range = spec.find("range");
  if (!range->is_sequence() || range->items().size() != 2) fail(*range, where + ".range", "expected [low, high]");
  const auto [lo, lo_unit] = number_and_unit(range->items()[0], where + ".range");
  const auto [hi, hi_unit] = number_and_unit(range->items()[1], where + ".range");
  if (lo_unit != hi_unit)
    fail(*range, where + ".range", fmt::format("both bounds need the same unit (\"{}\" and \"{}\")", lo_unit, hi_unit));
  if (!(lo < hi)) fail(*range, where + ".range", "the low bound must be below the high bound");
  a.range = true;
  a.lo = lo;
  a.hi = hi;
  a.unit = lo_unit;
  a.integer = lo_unit.empty() && lo == std::floor(lo) && hi == std::floor(hi);
  if (const ConfigNode* s = spec.find("scale")) {
    const std::string& t = scalar_text(*s, where + ".scale");
    if (t != "linear" && t != "log") fail(*s, where + ".scale", fmt::format("\"{}\" is not one of linear, log", t));
    a.log = t == "log";
    if (a.log && lo <= 0) fail(*range, where + ".range", "a log scale needs a positive low bound");
  }
  const ConfigNode* steps = spec.find("steps");
  const ConfigNode* step = spec.find("step");
  if (steps && step) fail(*step, where, "give steps or step, not both");
  std::vector<double> values;
  if (steps) {
    const auto n = integer(*steps, where + ".steps", 2, 1000000);
    for (std::int64_t i = 0; i < n; ++i) {
      const double f = static_cast<double>(i) / static_cast<double>(n - 1);
      values.push_back(a.log ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f);
    }
  } else if (step) {
    if (a.log) fail(*step, where + ".step", "step goes with a linear scale; use steps for log");
    const auto [s, s_unit] = number_and_unit(*step, where + ".step");
    if (s_unit != a.unit) fail(*step, where + ".step", fmt::format("the step needs the bounds' unit \"{}\"", a.unit));
    if (!(s > 0)) fail(*step, where + ".step", "must be positive");
    if (a.integer && s != std::floor(s)) a.integer = false;
    const double n = std::floor((hi - lo) / s * (1 + 1e-12));
    if (n > 1e6) fail(*step, where + ".step", "gives more than a million values");
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
    for (const auto& [k, v] : spec.entries())
      if (k != "values" && k != "name" && k != "range" && k != "steps" && k != "step" && k != "scale")
        fail(v, join(where, k), "unknown key (expected values, name, range, steps, step, scale)");
    const ConfigNode* values = spec.find("values");
    const ConfigNode* range = spec.find("range");
    if (!!values == !!range) fail(spec, where, "an axis needs values or range (one of them)");
    if (values) {
      if (values->is_sequence()) {
        a = parse_axis(key, *values, where + ".values");
      } else if (values->is_map()) {
        for (const auto& [label, v] : values->entries()) a.values.push_back(AxisValue{label, v});
      } else {
        fail(*values, where + ".values", "expected a list or a mapping of labels to values");
      }
      for (const char* k : {"steps", "step", "scale"})
        if (const ConfigNode* n = spec.find(k)) fail(*n, join(where, k), "goes with range, not values");
    } else {
      a = parse_range(spec, where);
    }
    if (const ConfigNode* n = spec.find("name")) a.column = scalar_text(*n, where + ".name");
  } else {
    fail(spec, where, "expected a list of values or a mapping (values, range, ...)");
  }
  a.key = key;
  if (a.column.empty()) a.column = key;
  a.loc = spec.loc();
  if (a.values.empty() && !a.range) fail(spec, where, "has no values");
  return a;
}

void parse_slurm(const ConfigNode& n, SlurmOptions& s) {
  if (!n.is_map()) fail(n, "sweep.slurm", "expected a mapping");
  for (const auto& [k, v] : n.entries()) {
    const std::string key = "sweep.slurm." + k;
    if (k == "partition") s.partition = scalar_text(v, key);
    else if (k == "account") s.account = scalar_text(v, key);
    else if (k == "time") s.time = scalar_text(v, key);
    else if (k == "mem") s.mem = scalar_text(v, key);
    else if (k == "max_parallel") s.max_parallel = static_cast<int>(integer(v, key, 0, 1000000));
    else if (k == "points_per_task") s.points_per_task = static_cast<int>(integer(v, key, 0, 100000000));
    else if (k == "poll") {
      try {
        s.poll_s = parse_quantity(scalar_text(v, key), UnitFamily::Time);
      } catch (const UnitError& e) {
        fail(v, key, e.what());
      }
      if (!(s.poll_s > 0)) fail(v, key, "must be positive");
    } else if (k == "extra") {
      if (!v.is_sequence()) fail(v, key, "expected a list of sbatch options");
      for (const auto& item : v.items()) s.extra.push_back(scalar_text(item, key));
    } else {
      fail(v, key, "unknown key (expected partition, account, time, mem, extra, max_parallel, points_per_task, poll)");
    }
  }
}

}  // namespace

SweepSpec load_sweep(const std::string& path, const std::vector<std::string>& overrides) {
  SweepSpec s;
  s.file = path;
  s.experiment = load_config(path);
  if (!s.experiment.is_map()) fail(s.experiment, "", "a sweep file must hold a mapping (an experiment with a sweep: section)");
  const ConfigNode* found = s.experiment.find("sweep");
  if (!found) throw InputError(SourceLoc{path}, "sweep", "missing: a sweep file needs a sweep: section with axes");
  const ConfigNode sweep = *found;
  s.experiment.erase("sweep");
  for (const auto& o : overrides) apply_override(s.experiment, o);
  if (!sweep.is_map()) fail(sweep, "sweep", "expected a mapping (axes, method, objectives, ...)");
  const ConfigNode* name = s.experiment.find("name");
  s.name = name && name->is_scalar() ? name->value() : std::filesystem::path(path).stem().string();

  const ConfigNode* samples = nullptr;
  for (const auto& [k, v] : sweep.entries()) {
    const std::string key = "sweep." + k;
    if (k == "method") {
      s.method = scalar_text(v, key);
      if (s.method != "grid" && s.method != "random" && s.method != "lhs")
        fail(v, key, fmt::format("\"{}\" is not one of grid, random, lhs", s.method));
    } else if (k == "samples") {
      samples = &v;
      s.samples = static_cast<int>(integer(v, key, 1, 10000000));
    } else if (k == "seed") {
      s.seed = static_cast<std::uint64_t>(integer(v, key, 0, INT64_MAX));
    } else if (k == "axes") {
      if (!v.is_map() || v.entries().empty()) fail(v, key, "expected a mapping of config keys to values");
      for (const auto& [axis_key, axis] : v.entries()) s.axes.push_back(parse_axis(axis_key, axis, key + "." + axis_key));
    } else if (k == "zip" || k == "constraints" || k == "objectives" || k == "outputs" || k == "two_stage" || k == "slurm") {
      // read below, once the axes are known
    } else if (k == "executor") {
      s.executor = scalar_text(v, key);
      if (s.executor != "local" && s.executor != "slurm") fail(v, key, fmt::format("\"{}\" is not one of local, slurm", s.executor));
    } else if (k == "jobs") {
      s.jobs = static_cast<int>(integer(v, key, 0, 4096));
    } else if (k == "retries") {
      s.retries = static_cast<int>(integer(v, key, 0, 100));
    } else if (k == "timeout") {
      try {
        s.timeout_s = parse_quantity(scalar_text(v, key), UnitFamily::Time);
      } catch (const UnitError& e) {
        fail(v, key, e.what());
      }
      if (s.timeout_s < 0) fail(v, key, "must not be negative");
    } else {
      fail(v, key,
           "unknown key (expected method, samples, seed, axes, zip, constraints, objectives, outputs, two_stage, "
           "executor, jobs, timeout, retries, slurm)");
    }
  }
  if (s.axes.empty()) fail(sweep, "sweep.axes", "missing: name at least one axis");
  std::set<std::string> columns;
  for (const Axis& a : s.axes)
    if (!columns.insert(a.column).second) throw InputError(a.loc, "sweep.axes", fmt::format("two axes are named '{}'", a.column));
  if (s.method == "grid") {
    if (samples) fail(*samples, "sweep.samples", "goes with method: random or lhs");
    for (const Axis& a : s.axes)
      if (a.values.empty())
        throw InputError(a.loc, "sweep.axes." + a.key, "a grid needs steps or step for a range");
  } else if (!samples) {
    fail(sweep, "sweep.samples", fmt::format("missing: method {} needs samples", s.method));
  }

  auto axis_index = [&](const ConfigNode& n, const std::string& key) {
    const std::string& name = scalar_text(n, key);
    for (size_t i = 0; i < s.axes.size(); ++i)
      if (s.axes[i].key == name || s.axes[i].column == name) return static_cast<int>(i);
    fail(n, key, fmt::format("'{}' is not an axis", name));
  };
  if (const ConfigNode* zip = sweep.find("zip")) {
    if (s.method != "grid") fail(*zip, "sweep.zip", "goes with method: grid");
    if (!zip->is_sequence()) fail(*zip, "sweep.zip", "expected a list of lists of axes");
    std::set<int> used;
    for (const auto& group : zip->items()) {
      if (!group.is_sequence() || group.items().size() < 2) fail(group, "sweep.zip", "each group lists two or more axes");
      std::vector<int> g;
      for (const auto& item : group.items()) {
        const int i = axis_index(item, "sweep.zip");
        if (!used.insert(i).second) fail(item, "sweep.zip", fmt::format("axis '{}' is zipped twice", s.axes[i].column));
        if (s.axes[i].values.size() != s.axes[g.empty() ? i : g.front()].values.size())
          fail(item, "sweep.zip",
               fmt::format("zipped axes need as many values each ('{}' has {}, '{}' has {})", s.axes[g.front()].column,
                           s.axes[g.front()].values.size(), s.axes[i].column, s.axes[i].values.size()));
        g.push_back(i);
      }
      s.zips.push_back(g);
    }
  }
  if (const ConfigNode* c = sweep.find("constraints")) {
    if (!c->is_sequence()) fail(*c, "sweep.constraints", "expected a list of expressions");
    for (const auto& item : c->items()) s.constraints.emplace_back(scalar_text(item, "sweep.constraints"), item.loc(), "sweep.constraints");
  }
  if (const ConfigNode* o = sweep.find("outputs")) {
    if (!o->is_map()) fail(*o, "sweep.outputs", "expected a mapping of names to expressions");
    for (const auto& [k, v] : o->entries())
      s.outputs.push_back(NamedExpression{k, Expression(scalar_text(v, "sweep.outputs." + k), v.loc(), "sweep.outputs." + k)});
  }
  if (const ConfigNode* o = sweep.find("objectives")) {
    if (!o->is_map()) fail(*o, "sweep.objectives", "expected a mapping such as {latency_s: min, energy_j: min}");
    for (const auto& [k, v] : o->entries()) {
      const std::string& sense = scalar_text(v, "sweep.objectives." + k);
      if (sense != "min" && sense != "max") fail(v, "sweep.objectives." + k, fmt::format("\"{}\" is not one of min, max", sense));
      s.objectives.push_back(Objective{k, sense == "min"});
    }
  }
  if (const ConfigNode* t = sweep.find("two_stage")) {
    if (!t->is_map()) fail(*t, "sweep.two_stage", "expected a mapping ({top_k: 10} or {front: true})");
    for (const auto& [k, v] : t->entries()) {
      if (k == "top_k") s.top_k = static_cast<int>(integer(v, "sweep.two_stage.top_k", 1, 100000000));
      else if (k == "front") {
        const std::string& b = scalar_text(v, "sweep.two_stage.front");
        if (b != "true" && b != "false") fail(v, "sweep.two_stage.front", "expected true or false");
        s.front = b == "true";
      } else fail(v, "sweep.two_stage." + k, "unknown key (expected top_k, front)");
    }
    if (!s.two_stage()) fail(*t, "sweep.two_stage", "give top_k or front: true");
    if (s.objectives.empty()) fail(*t, "sweep.two_stage", "ranks by the objectives: add sweep.objectives");
  }
  if (const ConfigNode* n = sweep.find("slurm")) parse_slurm(*n, s.slurm);
  return s;
}

}  // namespace strata
