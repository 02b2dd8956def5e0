#include "sim/schema.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "sim/input_file.h"
#include "sim/number_format.h"
#include "sim/simulated_time.h"
#include "sim/text.h"

namespace fs = std::filesystem;

namespace strata {

// ---------------------------------------------------------------------------------------------
// ParamSpec builders

namespace {

ParamSpec make(std::string name, ParamType type, std::string description) {
  ParamSpec p;
  p.name = std::move(name);
  p.type = type;
  p.description = std::move(description);
  return p;
}

std::string hex128(XXH128_hash_t h) { return fmt::format("{:016x}{:016x}", h.high64, h.low64); }

// A rate's default lower bound (param::quantity): the least positive double, so that
// `value < min` refuses 0 and every negative value and passes every positive one; its min_text
// is "0 <unit>", and range_text() writes the bound as exclusive.
constexpr double kAboveZero = std::numeric_limits<double>::denorm_min();
bool above_zero(const ParamSpec& p) { return p.min && *p.min == kAboveZero; }

// Parses a bound or value written for a numeric param (Int, Float or Quantity).
double parse_numeric(const ParamSpec& p, std::string_view text) {
  if (p.type == ParamType::Quantity) return parse_quantity(text, p.family);
  const std::string_view s = trim(text);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) throw UnitError(fmt::format("\"{}\" is not a number", s));
  return v;
}

}  // namespace

namespace param {
ParamSpec boolean(std::string name, std::string d) { return make(std::move(name), ParamType::Bool, std::move(d)); }
ParamSpec integer(std::string name, std::string d) { return make(std::move(name), ParamType::Int, std::move(d)); }
ParamSpec real(std::string name, std::string d) { return make(std::move(name), ParamType::Float, std::move(d)); }
ParamSpec string(std::string name, std::string d) { return make(std::move(name), ParamType::String, std::move(d)); }
ParamSpec path(std::string name, std::string d) { return make(std::move(name), ParamType::Path, std::move(d)); }
ParamSpec list(std::string name, std::string d) { return make(std::move(name), ParamType::List, std::move(d)); }
ParamSpec format_rates(std::string name, std::string d) {
  return list(std::move(name), std::move(d)).of(ParamType::FormatRate);
}
ParamSpec choice(std::string name, std::vector<std::string> choices, std::string d) {
  ParamSpec p = make(std::move(name), ParamType::Enum, std::move(d));
  p.choices = std::move(choices);
  return p;
}
ParamSpec quantity(std::string name, UnitFamily family, std::string d) {
  ParamSpec p = make(std::move(name), ParamType::Quantity, std::move(d));
  p.family = family;
  // The family's default range, which every kind gets and .range() or .at_least() replace: a
  // rate (Frequency, Bandwidth) must be positive, since 0 or less would be read as infinitely
  // fast or run time backwards; any other quantity at least 0 (a negative duration, size or
  // energy means nothing); a time at most kMaxSimulatedSeconds, the longest a run can simulate.
  // A rate for which 0 means something says so with .at_least("0 ...") and its description.
  p.at_least(fmt::format("0 {}", base_unit(family)));
  if (family == UnitFamily::Frequency || family == UnitFamily::Bandwidth) p.min = kAboveZero;
  if (family == UnitFamily::Time) {
    p.max = kMaxSimulatedSeconds;
    p.max_text = fmt::format("{} s", kMaxSimulatedSeconds);
  }
  return p;
}
}  // namespace param

ParamSpec& ParamSpec::def(std::string text) {
  default_text = std::move(text);
  return *this;
}

ParamSpec& ParamSpec::range(const std::string& lo, const std::string& hi) {
  at_least(lo);
  max = parse_numeric(*this, hi);
  max_text = hi;
  return *this;
}

ParamSpec& ParamSpec::at_least(const std::string& lo) {
  min = parse_numeric(*this, lo);
  min_text = lo;
  return *this;
}

std::string range_text(const ParamSpec& p) {
  if (!p.min) return p.max ? fmt::format("at most {}", p.max_text) : "";
  if (!p.max) return fmt::format("{} {}", above_zero(p) ? "above" : "at least", p.min_text);
  return fmt::format("{}{}, {}]", above_zero(p) ? "(" : "[", p.min_text, p.max_text);
}

ParamSpec& ParamSpec::of(ParamType item) {
  item_type = item;
  return *this;
}

ParamSpec& ParamSpec::of_choices(std::vector<std::string> c) {
  item_type = ParamType::Enum;
  choices = std::move(c);
  return *this;
}

ParamSpec& ParamSpec::hash_only_when_changed() {
  hashed_only_when_changed = true;
  return *this;
}

ParamSpec& ParamSpec::no_effect_on_results() {
  affects_results = false;
  return *this;
}

ParamSpec& ParamSpec::inherit() {
  inherited = true;
  return *this;
}

ParamSpec& ParamSpec::or_file() {
  name_or_file = true;
  return *this;
}

bool names_a_file(std::string_view text) {
  auto ends = [&](std::string_view tail) {
    return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
  };
  return text.find('/') != std::string_view::npos || ends(".yaml") || ends(".yml");
}

std::string ParamSpec::type_label() const {
  switch (type) {
    case ParamType::Bool: return "bool";
    case ParamType::Int: return "int";
    case ParamType::Float: return "float";
    case ParamType::String: return "string";
    case ParamType::Path: return "path";
    case ParamType::List:
      if (item_type == ParamType::String) return "list";
      if (item_type == ParamType::Enum) {
        ParamSpec item = *this;
        item.type = ParamType::Enum;
        return "list of " + item.type_label();
      }
      if (item_type == ParamType::FormatRate) return "list of format=rate";
      return item_type == ParamType::Int ? "list of int" : "list of float";
    case ParamType::Quantity: return family_name(family);
    case ParamType::FormatRate: return "format=rate";
    case ParamType::Enum: {
      std::string s = "enum{";
      for (size_t i = 0; i < choices.size(); ++i) s += (i ? "|" : "") + choices[i];
      return s + "}";
    }
  }
  return "?";
}

KindSpec& KindSpec::add(ParamSpec p) {
  params.push_back(std::move(p));
  return *this;
}
KindSpec& KindSpec::slot(SlotSpec s) {
  slots.push_back(std::move(s));
  return *this;
}
KindSpec& KindSpec::provides(std::string role) {
  roles.push_back(std::move(role));
  return *this;
}
KindSpec& KindSpec::with_clock() {
  clocked = true;
  return add(param::quantity("clock", UnitFamily::Frequency,
                             "clock of this component; inherited from the enclosing component when absent")
                 .def("1 GHz")
                 .range("1 kHz", "100 GHz")
                 .inherit());
}

const ParamSpec* KindSpec::find_param(const std::string& n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}
const SlotSpec* KindSpec::find_slot(const std::string& n) const {
  for (const auto& s : slots)
    if (s.name == n) return &s;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Params

const ParamValue& Params::get(const std::string& name, ParamType type) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("parameter not declared or not set: " + name);
  if (it->second.spec->type != type) throw std::logic_error("parameter read with the wrong type: " + name);
  return it->second;
}
bool Params::flag(const std::string& n) const { return get(n, ParamType::Bool).boolean; }
std::int64_t Params::integer(const std::string& n) const { return get(n, ParamType::Int).integer; }
double Params::real(const std::string& n) const { return get(n, ParamType::Float).number; }
double Params::quantity(const std::string& n) const { return get(n, ParamType::Quantity).number; }
const std::string& Params::path(const std::string& n) const { return get(n, ParamType::Path).text; }
const std::vector<std::string>& Params::list(const std::string& n) const { return get(n, ParamType::List).items; }
const std::map<std::string, double>& Params::format_rates(const std::string& n) const {
  const ParamValue& v = get(n, ParamType::List);
  if (v.spec->item_type != ParamType::FormatRate)
    throw std::logic_error("parameter '" + n + "' is not a list of format=rate");
  return v.format_rates;
}
const std::vector<std::int64_t>& Params::integers(const std::string& n) const {
  const ParamValue& v = get(n, ParamType::List);
  if (v.spec->item_type != ParamType::Int) throw std::logic_error("parameter '" + n + "' is not a list of int");
  return v.item_integers;
}
const std::vector<double>& Params::reals(const std::string& n) const {
  const ParamValue& v = get(n, ParamType::List);
  if (v.spec->item_type != ParamType::Int && v.spec->item_type != ParamType::Float)
    throw std::logic_error("parameter '" + n + "' is not a list of numbers");
  return v.item_numbers;
}
const ParamValue& Params::value(const std::string& n) const {
  auto it = values_.find(n);
  if (it == values_.end()) throw std::logic_error("undeclared parameter '" + n + "'");
  return it->second;
}
const std::string& Params::string(const std::string& n) const {
  auto it = values_.find(n);
  if (it == values_.end()) throw std::logic_error("parameter not declared or not set: " + n);
  if (it->second.spec->type != ParamType::String && it->second.spec->type != ParamType::Enum)
    throw std::logic_error("parameter read with the wrong type: " + n);
  return it->second.text;
}
const SourceLoc& Params::where(const std::string& n) const {
  auto it = values_.find(n);
  if (it == values_.end()) throw std::logic_error("parameter not declared or not set: " + n);
  return it->second.loc;
}

const ValidatedNode& ValidatedNode::child(const std::string& slot) const {
  auto it = children.find(slot);
  if (it == children.end()) throw std::logic_error(fmt::format("{}: no child '{}'", path, slot));
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Validation

namespace {

std::string join_path(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// A file named in a config, relative to the file that wrote it (so presets can ship their data
// next to them), as an absolute path.
std::string resolve_file(const ConfigNode& node, const std::string& key, const std::string& s) {
  fs::path p(s);
  if (p.is_relative() && node.loc().line > 0) p = fs::path(node.loc().file).parent_path() / p;
  p = fs::absolute(p).lexically_normal();
  // error_code overload: the throwing one raises filesystem_error (not InputError) for a name too
  // long for the OS (ENAMETOOLONG), found by tests/fuzz (regressions/experiment/).
  std::error_code ec;
  if (!fs::exists(p, ec)) throw InputError(node.loc(), key, fmt::format("no such file \"{}\"", s));
  if (!fs::is_regular_file(p, ec)) throw InputError(node.loc(), key, fmt::format("\"{}\" is not a regular file", s));
  return p.string();
}

ParamValue parse_value(const ParamSpec& spec, const ConfigNode& node, const std::string& key) {
  ParamValue v;
  v.spec = &spec;
  v.loc = node.loc();
  if (spec.type == ParamType::List) {
    if (node.is_sequence()) {
      for (const auto& item : node.items()) {
        if (!item.is_scalar()) throw InputError(item.loc(), key, fmt::format("list items must be scalars, got {}", item.type_name()));
        v.items.push_back(item.value());
        v.item_locs.push_back(item.loc());
      }
    } else if (node.is_scalar()) {
      // Defaults are comma-separated text; a user's plain scalar is a list of one.
      const bool is_default = node.loc().line == 0;
      for (const auto& part : is_default ? split(node.value(), ',') : std::vector<std::string>{node.value()}) {
        if (is_default && trim(part).empty()) continue;
        v.items.emplace_back(trim(part));
        v.item_locs.push_back(node.loc());
      }
    } else {
      throw InputError(node.loc(), key, fmt::format("expected a list, got {}", node.type_name()));
    }
    if (spec.item_type != ParamType::String) {
      ParamSpec item = spec;
      item.type = spec.item_type;
      for (size_t i = 0; i < v.items.size(); ++i) {
        const ParamValue iv =
            parse_value(item, ConfigNode::scalar(v.items[i], v.item_locs[i]), fmt::format("{}[{}]", key, i));
        v.item_integers.push_back(iv.integer);
        v.item_numbers.push_back(iv.number);
        if (spec.item_type == ParamType::FormatRate && !v.format_rates.emplace(iv.text, iv.number).second)
          throw InputError(v.item_locs[i], fmt::format("{}[{}]", key, i),
                           fmt::format("format '{}' is given twice", iv.text));
      }
    }
    return v;
  }
  if (!node.is_scalar())
    throw InputError(node.loc(), key, fmt::format("expected {}, got {}", spec.type_label(), node.type_name()));
  const std::string& s = node.value();
  switch (spec.type) {
    case ParamType::Bool: {
      const std::string l = lower(s);
      if (l == "true") v.boolean = true;
      else if (l == "false") v.boolean = false;
      else throw InputError(node.loc(), key, fmt::format("expected true or false, got \"{}\"", s));
      v.number = v.boolean ? 1 : 0;
      break;
    }
    case ParamType::Int: {
      const std::string_view t = trim(s);
      auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v.integer);
      if (ec == std::errc::result_out_of_range)
        throw InputError(node.loc(), key, fmt::format("integer \"{}\" does not fit in 64 bits", s));
      if (ec != std::errc() || ptr != t.data() + t.size())
        throw InputError(node.loc(), key, fmt::format("expected an integer, got \"{}\"", s));
      v.number = static_cast<double>(v.integer);
      break;
    }
    case ParamType::Float:
    case ParamType::Quantity:
      try {
        v.number = parse_numeric(spec, s);
      } catch (const UnitError& e) {
        throw InputError(node.loc(), key, e.what());
      }
      if (!std::isfinite(v.number)) throw InputError(node.loc(), key, "not a finite number");
      break;
    case ParamType::String:
      v.text = spec.name_or_file && names_a_file(s) ? resolve_file(node, key, s) : s;
      break;
    case ParamType::Enum: {
      for (const auto& c : spec.choices)
        if (c == s) v.text = s;
      if (v.text.empty()) {
        std::string msg = fmt::format("\"{}\" is not one of {}", s, spec.type_label().substr(4));
        if (auto best = closest_match(s, spec.choices)) msg += fmt::format(" (did you mean \"{}\"?)", *best);
        throw InputError(node.loc(), key, msg);
      }
      break;
    }
    case ParamType::List: break;  // handled above
    case ParamType::FormatRate: {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError(node.loc(), key, fmt::format("'{}' is not format=rate (e.g. int8=1)", s));
      const std::string name(trim(std::string_view(s).substr(0, eq)));
      const NumberFormat* f = find_number_format(name);
      if (!f) {
        std::string msg = fmt::format("unknown number format '{}'", name);
        if (auto best = closest_match(lower(name), number_format_names()))
          msg += fmt::format(" (did you mean '{}'?)", *best);
        throw InputError(node.loc(), key, msg);
      }
      const std::string_view rate = trim(std::string_view(s).substr(eq + 1));
      try {
        v.number = parse_numeric(param::real("rate", ""), rate);
      } catch (const UnitError&) {
        throw InputError(node.loc(), key, fmt::format("rate '{}' is not a number", rate));
      }
      if (!(v.number > 0) || v.number > 64)
        throw InputError(node.loc(), key, fmt::format("rate {} is outside (0, 64]", v.number));
      v.text = f->name;
      break;
    }
    case ParamType::Path: {
      // An empty default means "no file" for optional paths (.def("")).
      if (trim(s).empty() && node.loc().line == 0) break;
      if (trim(s).empty()) throw InputError(node.loc(), key, "empty file name");
      v.text = resolve_file(node, key, s);
      break;
    }
  }
  if (spec.min && v.number < *spec.min) {
    throw InputError(node.loc(), key,
                     spec.max           ? fmt::format("{} is out of range {}", s, range_text(spec))
                     : above_zero(spec) ? fmt::format("{} is not positive", s)
                                        : fmt::format("{} is below the minimum {}", s, spec.min_text));
  }
  if (spec.max && v.number > *spec.max) {
    // The Time family's default bound is not a modelling choice: say why.
    const bool clock_limit =
        spec.type == ParamType::Quantity && spec.family == UnitFamily::Time && *spec.max == kMaxSimulatedSeconds;
    throw InputError(node.loc(), key,
                     fmt::format("{} is out of range {}{}", s, range_text(spec),
                                 clock_limit ? ": longer than SystemC's 64-bit femtosecond clock can simulate" : ""));
  }
  return v;
}

[[noreturn]] void unknown_key(const KindSpec& spec, const std::string& key, const ConfigNode& value,
                              const std::string& key_path, bool allows_kind) {
  std::vector<std::string> known;
  for (const auto& p : spec.params) known.push_back(p.name);
  for (const auto& s : spec.slots) known.push_back(s.name);
  if (allows_kind) known.push_back("kind");
  std::string msg = spec.category == "section" ? fmt::format("unknown key '{}'", key)
                                               : fmt::format("unknown key '{}' for kind {}", key, spec.name);
  if (auto best = closest_match(key, known)) msg += fmt::format(" (did you mean '{}'?)", *best);
  throw InputError(value.key_loc(), key_path, msg);
}

const KindSpec& lookup_kind(const ConfigNode& node, const SlotSpec& slot, const std::string& path,
                            const KindCatalog& kinds) {
  const ConfigNode* kind = node.find("kind");
  const std::vector<std::string> names = kinds.names(slot.category);
  std::string options;
  for (const auto& n : names) options += (options.empty() ? "" : ", ") + n;
  if (!kind && !slot.default_kind.empty()) return *kinds.find(slot.category, slot.default_kind);
  if (!kind)
    throw InputError(node.key_loc(), path, fmt::format("missing required key 'kind' (one of: {})", options));
  if (!kind->is_scalar()) throw InputError(kind->loc(), join_path(path, "kind"), "expected a kind name");
  const KindSpec* spec = kinds.find(slot.category, kind->value());
  if (!spec) {
    std::string msg = fmt::format("unknown {} kind '{}'", slot.category, kind->value());
    if (auto best = closest_match(kind->value(), names)) msg += fmt::format(" (did you mean '{}'?)", *best);
    else msg += fmt::format(" (known: {})", options);
    throw InputError(kind->loc(), join_path(path, "kind"), msg);
  }
  if (!slot.role.empty()) {
    bool ok = false;
    for (const auto& r : spec->roles) ok = ok || r == slot.role;
    if (!ok)
      throw InputError(kind->loc(), join_path(path, "kind"),
                       fmt::format("kind '{}' cannot be used here: this slot needs a {}", spec->name, slot.role));
  }
  return *spec;
}

}  // namespace

ValidatedNode validate(ConfigNode& node, const KindSpec& spec, const std::string& path, const KindCatalog& kinds,
                       const Inherited& inherited) {
  const bool has_kind_key = spec.category != "section";
  if (node.is_null()) node = ConfigNode::map(node.loc());
  if (!node.is_map()) throw InputError(node.loc(), path, fmt::format("expected a mapping, got {}", node.type_name()));

  ValidatedNode out;
  out.path = path;
  out.spec = &spec;
  out.loc = node.key_loc();

  for (auto& [key, value] : node.entries()) {
    const std::string key_path = join_path(path, key);
    if (has_kind_key && key == "kind") continue;
    if (const ParamSpec* p = spec.find_param(key)) {
      ParamValue v = parse_value(*p, value, key_path);
      if (p->type == ParamType::Path || p->name_or_file) value = ConfigNode::scalar(v.text, value.loc());
      out.params.set(key, std::move(v));
      continue;
    }
    if (spec.find_slot(key)) continue;  // validated below, in declaration order
    unknown_key(spec, key, value, key_path, has_kind_key);
  }

  // Defaults, inherited values and missing required keys.
  for (const auto& p : spec.params) {
    if (out.params.has(p.name)) continue;
    std::string text;
    if (auto it = inherited.find(p.name); p.inherited && it != inherited.end()) text = it->second;
    else if (p.default_text) text = *p.default_text;
    else
      throw InputError(node.key_loc(), path.empty() ? p.name : path,
                       fmt::format("missing required key '{}' ({})", p.name, p.description));
    ConfigNode def = ConfigNode::scalar(text, SourceLoc{"<default of " + join_path(path, p.name) + ">"});
    ParamValue v = parse_value(p, def, join_path(path, p.name));
    if (p.type == ParamType::List) {
      std::vector<ConfigNode> items;
      for (const auto& item : v.items) items.push_back(ConfigNode::scalar(item, def.loc()));
      def = ConfigNode::sequence(std::move(items), def.loc());
    }
    out.params.set(p.name, std::move(v));
    node.set(p.name, std::move(def));
  }

  Inherited passed_down = inherited;
  for (const auto& p : spec.params)
    if (p.inherited) passed_down[p.name] = node.find(p.name)->value();
  for (const auto& slot : spec.slots) {
    const std::string key_path = join_path(path, slot.name);
    ConfigNode* child = node.find(slot.name);
    if (!child) {
      if (slot.required) {
        throw InputError(node.key_loc(), path.empty() ? slot.name : path,
                         fmt::format("missing required key '{}' ({})", slot.name, slot.description));
      }
      if (!slot.fixed && slot.default_kind.empty()) continue;
      child = &node.set(slot.name, ConfigNode::map(SourceLoc{"<default of " + key_path + ">"}));
    }
    if (child->is_null() && !slot.default_kind.empty()) *child = ConfigNode::map(child->loc());
    if (slot.fixed) {
      out.children.emplace(slot.name, validate(*child, *slot.fixed, key_path, kinds, passed_down));
    } else {
      if (!child->is_map())
        throw InputError(child->loc(), key_path, fmt::format("expected a mapping with a 'kind', got {}", child->type_name()));
      const KindSpec& kind = lookup_kind(*child, slot, key_path, kinds);
      ValidatedNode v = validate(*child, kind, key_path, kinds, passed_down);
      v.default_kind = kind.name == slot.default_kind;
      out.children.emplace(slot.name, std::move(v));
    }
  }
  return out;
}

namespace {

// One parameter's value in the canonical form.
nlohmann::json canonical_value(const ParamValue& v) {
  switch (v.spec->type) {
    case ParamType::Bool: return v.boolean;
    case ParamType::Int: return v.integer;
    case ParamType::Float:
    case ParamType::Quantity:
      // 12 significant digits: "0.05 us" and "50 ns" differ in the last bit of a double.
      return std::stod(fmt::format("{:.12g}", v.number));
    case ParamType::String:
      // A table named by file is hashed by content, as paths are.
      return v.spec->name_or_file && names_a_file(v.text) ? "xxh3:" + file_hash(v.text) : v.text;
    case ParamType::Enum: return v.text;
    case ParamType::Path: return v.text.empty() ? "" : "xxh3:" + file_hash(v.text);
    case ParamType::List:
    case ParamType::FormatRate:
      if (v.spec->item_type == ParamType::Int) return v.item_integers;
      if (v.spec->item_type == ParamType::Float) {
        nlohmann::json a = nlohmann::json::array();
        for (double x : v.item_numbers) a.push_back(std::stod(fmt::format("{:.12g}", x)));
        return a;
      }
      return v.items;
  }
  return nullptr;
}

bool is_default(const ParamValue& v) {
  const ParamSpec& p = *v.spec;
  if (!p.default_text) return false;
  const ConfigNode def = ConfigNode::scalar(*p.default_text, SourceLoc{"<default>"});
  return canonical_value(parse_value(p, def, p.name)) == canonical_value(v);
}

}  // namespace

nlohmann::json ValidatedNode::canonical() const {
  nlohmann::json j = nlohmann::json::object();
  if (spec->category != "section" && !default_kind) j["kind"] = spec->name;
  for (const auto& [name, v] : params.values()) {
    if (!v.spec->affects_results) continue;
    if (v.spec->hashed_only_when_changed && is_default(v)) continue;
    j[name] = canonical_value(v);
  }
  for (const auto& [name, child] : children) {
    nlohmann::json c = child.canonical();
    // A section added to a kind after results exist (every key hashed only when changed), left
    // at its defaults, renames no result folder either.
    const bool late = child.spec->category == "section" && !child.spec->params.empty() &&
                      std::all_of(child.spec->params.begin(), child.spec->params.end(),
                                  [](const ParamSpec& p) { return p.hashed_only_when_changed; });
    if (late && c.empty()) continue;
    j[name] = std::move(c);
  }
  return j;
}

std::string config_hash(const ValidatedNode& root) { return text_hash(root.canonical().dump()); }

std::string text_hash(std::string_view text) { return hex128(XXH3_128bits(text.data(), text.size())); }

std::string file_hash(const std::string& path) {
  // A sweep hashes the same files for each of its points: the hash is kept per file identity
  // (device, inode, size, modification time), so a file that changes is hashed again.
  struct stat st {};
  const bool known = ::stat(path.c_str(), &st) == 0;
  using Key = std::tuple<dev_t, ino_t, off_t, std::int64_t, std::int64_t>;
  static std::mutex mutex;
  static std::map<Key, std::string> hashes;
  const Key key{st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
  if (known) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = hashes.find(key); it != hashes.end()) return it->second;
  }
  std::ifstream in;
  open_input_file(in, path, "file");
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  const std::unique_ptr<char[]> buf(new char[1 << 16]);
  while (in) {
    in.read(buf.get(), 1 << 16);
    XXH3_128bits_update(state, buf.get(), static_cast<size_t>(in.gcount()));
  }
  const XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  std::string hex = hex128(h);
  if (known) {
    const std::lock_guard<std::mutex> lock(mutex);
    hashes.emplace(key, hex);
  }
  return hex;
}

}  // namespace strata
