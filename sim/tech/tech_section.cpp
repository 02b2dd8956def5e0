#include "sim/tech/tech_section.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/text.h"

namespace strata {

void TechFileReader::check_keys(const ConfigNode& n, const std::string& path,
                                const std::vector<std::string>& known) const {
  for (const auto& [key, value] : n.entries()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string msg = fmt::format("unknown key '{}'", key);
    if (auto best = closest_match(key, known)) msg += fmt::format(" (did you mean '{}'?)", *best);
    throw InputError(value.key_loc(), join(path, key), msg);
  }
}

const ConfigNode& TechFileReader::required(const ConfigNode& n, const std::string& key, const std::string& path) const {
  const ConfigNode* v = n.find(key);
  if (!v) throw InputError(n.key_loc(), join(path, key), "missing required key");
  return *v;
}

std::string TechFileReader::text(const ConfigNode& v, const std::string& key) {
  if (!v.is_scalar()) throw InputError(v.loc(), key, "expected text");
  return v.value();
}

double TechFileReader::quantity(const ConfigNode& v, const std::string& key, UnitFamily family) {
  if (!v.is_scalar()) throw InputError(v.loc(), key, fmt::format("expected {}", family_description(family)));
  double x = 0;
  try {
    x = parse_quantity(v.value(), family);
  } catch (const UnitError& e) {
    throw InputError(v.loc(), key, e.what());
  }
  if (x < 0) throw InputError(v.loc(), key, fmt::format("{} is negative", v.value()));
  return x;
}

double TechFileReader::number(const ConfigNode& v, const std::string& key, double lo, double hi) {
  if (!v.is_scalar()) throw InputError(v.loc(), key, "expected a number");
  double x = 0;
  try {
    size_t used = 0;
    x = std::stod(v.value(), &used);
    if (used != v.value().size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw InputError(v.loc(), key, fmt::format("expected a number, got \"{}\"", v.value()));
  }
  if (!(x >= lo && x <= hi))
    throw InputError(v.loc(), key, fmt::format("{} is out of range [{}, {}]", v.value(), lo, hi));
  return x;
}

void TechFileReader::read_q(const ConfigNode& n, const std::string& path, const std::string& key, UnitFamily f,
                            double& out, bool always) const {
  if (const ConfigNode* v = n.find(key)) out = quantity(*v, join(path, key), f);
  else if (always || !derived_) throw InputError(n.key_loc(), join(path, key), "missing required key");
}

void TechFileReader::read_n(const ConfigNode& n, const std::string& path, const std::string& key, double lo, double hi,
                            double& out) const {
  if (const ConfigNode* v = n.find(key)) out = number(*v, join(path, key), lo, hi);
  else if (!derived_) throw InputError(n.key_loc(), join(path, key), "missing required key");
}

void TechFileReader::read_source(const ConfigNode& n, const std::string& path, std::string& out) const {
  if (const ConfigNode* v = n.find("source")) out = text(*v, join(path, "source"));
  else if (out.empty()) throw InputError(n.key_loc(), join(path, "source"), "missing: every number needs its source");
}

void TechFileReader::read_rows(
    const ConfigNode& node, const std::string& section, const std::vector<std::string>& keys,
    const std::function<void(const std::string& name, const ConfigNode& row, const std::string& path)>& row) const {
  for (const auto& [name, entry] : node.entries()) {
    const std::string path = section + "." + name;
    if (!entry.is_map())
      throw InputError(entry.loc(), path, fmt::format("expected a mapping {{{}}}", fmt::join(keys, ", ")));
    check_keys(entry, path, keys);
    row(name, entry, path);
  }
}

std::shared_ptr<const TechSection> TechSection::scaled(const TechScaling&) const { return nullptr; }

void TechSections::add(TechSectionSpec spec) {
  const std::string key = spec.key;
  if (!specs_.emplace(key, std::move(spec)).second)
    throw std::logic_error("technology section registered twice: " + key);
}

const TechSectionSpec* TechSections::find(const std::string& key) const {
  auto it = specs_.find(key);
  return it == specs_.end() ? nullptr : &it->second;
}

}  // namespace strata
