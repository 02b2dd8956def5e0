// Parameter schemas: what keys a component kind (or a fixed config section) accepts, with type,
// unit, default, allowed range and a one-line description; and validation of a config tree
// against them before anything is elaborated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config_node.h"
#include "sim/units.h"

namespace strata {

// FormatRate is a list item only: "format=rate", a number format of sim/number_format.h (aliases
// read as their canonical name) and a positive number.
enum class ParamType { Bool, Int, Float, String, Enum, Path, Quantity, List, FormatRate };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::String;
  UnitFamily family = UnitFamily::Time;  // Quantity only
  std::string description;
  std::optional<std::string> default_text;  // in config syntax; nullopt means required
  std::optional<double> min, max;           // in base units (Int, Float, Quantity)
  std::string min_text, max_text;           // as written, for messages and `strata list`
  std::vector<std::string> choices;         // Enum, and List of Enum
  ParamType item_type = ParamType::String;  // List: the type of each item; range and choices apply per item
  bool affects_results = true;              // false: left out of the config hash
  // Left out of the config hash while its value equals the default: a parameter added to a
  // kind after results exist renames no result folder until someone sets it.
  bool hashed_only_when_changed = false;
  bool inherited = false;    // when absent, takes the value of the nearest enclosing node that has it
  bool name_or_file = false;  // String: a name, or a file (contains '/' or ends in .yaml) resolved like a Path

  ParamSpec& def(std::string text);
  ParamSpec& range(const std::string& lo, const std::string& hi);
  ParamSpec& at_least(const std::string& lo);
  ParamSpec& no_effect_on_results();
  ParamSpec& hash_only_when_changed();
  ParamSpec& inherit();
  ParamSpec& or_file();
  ParamSpec& of(ParamType item);                            // List items: Int, Float or String
  ParamSpec& of_choices(std::vector<std::string> choices);  // List items: one of `choices`
  std::string type_label() const;  // "int", "time", "enum{a|b}", ...
  bool required() const { return !default_text.has_value(); }
};

// A parameter's allowed range as text, for error messages and `strata list`: "[lo, hi]",
// "(lo, hi]" (a rate's default lower bound: above 0), "at least lo", "above lo", "at most hi";
// empty for a parameter without bounds.
std::string range_text(const ParamSpec& p);

// Builders, one per type: param::time("latency", "access latency").def("50 ns").
namespace param {
ParamSpec boolean(std::string name, std::string description);
ParamSpec integer(std::string name, std::string description);
ParamSpec real(std::string name, std::string description);
ParamSpec string(std::string name, std::string description);
ParamSpec choice(std::string name, std::vector<std::string> choices, std::string description);
ParamSpec path(std::string name, std::string description);
ParamSpec quantity(std::string name, UnitFamily family, std::string description);
// A list of scalars, written as a YAML sequence (or one scalar for a list of one); its default
// is comma-separated text, "" for an empty list. Items are strings unless typed with .of() or
// .of_choices(); each typed item is checked like a parameter of its own, with key "name[i]".
ParamSpec list(std::string name, std::string description);
// A rate per number format, written as a list of format=rate items ([int8=1, int4=2, fp16=0.5]):
// each format once, each rate in (0, 64]. Read with Params::format_rates.
ParamSpec format_rates(std::string name, std::string description);
}  // namespace param

struct KindSpec;

// A named sub-node: either a fixed section (`fixed` set, no `kind:` key) or a pluggable child
// whose `kind:` is looked up in the registry under `category`, and must provide `role`.
struct SlotSpec {
  std::string name;
  std::string description;
  std::string category;  // "component", "workload" or "part" (sim/registry.h)
  std::string role;      // required role of the child kind; empty = any
  bool required = true;
  const KindSpec* fixed = nullptr;
  // A role slot's default: the kind used when the child names none. It is left out of the
  // config hash whether written or implied, so naming the default changes no result folder.
  std::string default_kind = {};
};

struct KindSpec {
  std::string name;
  std::string category;     // "component", "workload", "part" or "section"
  std::string description;  // one line
  std::vector<ParamSpec> params;
  std::vector<SlotSpec> slots;
  std::vector<std::string> roles;  // what this kind can be plugged in as
  bool clocked = false;            // adds `clock` (inherited)

  KindSpec& add(ParamSpec p);
  KindSpec& slot(SlotSpec s);
  KindSpec& provides(std::string role);
  KindSpec& with_clock();
  const ParamSpec* find_param(const std::string& name) const;
  const SlotSpec* find_slot(const std::string& name) const;
};

// One validated parameter value.
struct ParamValue {
  const ParamSpec* spec = nullptr;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0;  // Float, Quantity (base units), and Int as a double
  std::string text;   // String, Enum, Path (absolute)
  std::vector<std::string> items;  // List
  std::vector<SourceLoc> item_locs;  // List: where each item was written
  std::vector<std::int64_t> item_integers;  // List of Int
  std::vector<double> item_numbers;         // List of Int or Float
  std::map<std::string, double> format_rates;  // List of FormatRate: canonical format name -> rate
  SourceLoc loc;
};

// The validated parameters of one node, with typed accessors. Asking for a parameter the kind
// did not declare is a programming error (std::logic_error).
class Params {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  bool flag(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  // A quantity in its family's base unit (Hz, s, B, B/s, J, W, mm2, ...).
  double quantity(const std::string& name) const;
  const std::string& string(const std::string& name) const;
  const std::string& path(const std::string& name) const;
  const std::vector<std::string>& list(const std::string& name) const;
  const std::map<std::string, double>& format_rates(const std::string& name) const;
  const std::vector<std::int64_t>& integers(const std::string& name) const;  // List of Int
  const std::vector<double>& reals(const std::string& name) const;           // List of Int or Float
  const ParamValue& value(const std::string& name) const;
  const SourceLoc& where(const std::string& name) const;
  void set(const std::string& name, ParamValue v) { values_[name] = std::move(v); }
  const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  const ParamValue& get(const std::string& name, ParamType type) const;
  std::map<std::string, ParamValue> values_;
};

// Where validation finds the kinds a role slot may name: the Registry (sim/registry.h) is one;
// the schema needs nothing else of it.
class KindCatalog {
 public:
  virtual ~KindCatalog() = default;
  virtual const KindSpec* find(const std::string& category, const std::string& name) const = 0;
  // Kind names of a category, sorted.
  virtual std::vector<std::string> names(const std::string& category) const = 0;
};

// A config node after validation: its kind, typed params and validated children.
struct ValidatedNode {
  std::string path;  // dotted key path, e.g. "hardware.memory"
  const KindSpec* spec = nullptr;
  SourceLoc loc;
  Params params;
  std::map<std::string, ValidatedNode> children;
  bool default_kind = false;  // its kind is its slot's default (canonical() leaves `kind` out)

  const ValidatedNode& child(const std::string& slot) const;
  // Where key `name` was written (or defaulted); the node's own place when its kind has no such
  // key (a swapped kind in a role slot).
  const SourceLoc& where(const std::string& name) const { return params.has(name) ? params.where(name) : loc; }
  // The canonical, path-independent form that the config hash is taken over: sorted keys,
  // quantities in base units, files by content hash, no-effect parameters left out.
  nlohmann::json canonical() const;
};

// Whether a name_or_file parameter's text names a file.
bool names_a_file(std::string_view text);

// Values of inherited parameters (`clock`, `tech`) from the enclosing nodes, by name.
using Inherited = std::map<std::string, std::string>;

// Validates `node` against `spec`, filling in defaults (and inherited values) in `node` itself
// so the resolved config echoes every parameter. Throws InputError naming file, line, column
// and key path for the first problem found.
ValidatedNode validate(ConfigNode& node, const KindSpec& spec, const std::string& path, const KindCatalog& kinds,
                       const Inherited& inherited = {});

// The experiment's config hash: XXH3-128 of canonical().dump(), as 32 hex digits.
std::string config_hash(const ValidatedNode& root);

// XXH3-128 of `text` as 32 hex digits.
std::string text_hash(std::string_view text);

// XXH3-128 of a file's bytes as 32 hex digits (streams; memory use is constant).
std::string file_hash(const std::string& path);

}  // namespace strata
