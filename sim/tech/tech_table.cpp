#include "sim/tech/tech_table.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "sim/config_loader.h"
#include "sim/config_node.h"
#include "sim/schema.h"
#include "sim/tech/builtin_tables.h"
#include "sim/text.h"
#include "sim/units.h"

namespace fs = std::filesystem;

namespace strata {

// Reads one table file into a TechTable, key by key, so that a derived table's own entries
// replace the scaled ones and every error names the file, line and key.
class TechTableReader : public TechFileReader {
 public:
  TechTableReader(TechTable& t, const ConfigNode& root, bool derived, const TechSections& sections)
      : TechFileReader(root.loc().file, derived), t_(t), root_(root), sections_(sections) {}

  void read() {
    std::vector<std::string> known = {"name", "node_nm", "supply", "source",        "scale_from", "scaling", "leakage",
                                      "ops",  "mac",     "sram",   "register_file", "wire",       "power"};
    for (const auto& [key, spec] : sections_.all()) known.push_back(key);
    check_keys(root_, "", known);
    t_.name_ = text(required(root_, "name", ""), "name");
    t_.feature_nm_ = number(required(root_, "node_nm", ""), "node_nm", 1, 1000);
    t_.supply_v_ = quantity(required(root_, "supply", ""), "supply", UnitFamily::Voltage);
    t_.source_ = text(required(root_, "source", ""), "source");
    if (const ConfigNode* n = section("leakage")) {
      check_keys(*n, "leakage", {"logic", "sram", "temperature", "doubling", "source"});
      read_q(*n, "leakage", "logic", UnitFamily::PowerDensity, t_.leak_logic_);
      read_q(*n, "leakage", "sram", UnitFamily::PowerDensity, t_.leak_sram_);
      if (const ConfigNode* v = n->find("temperature"))
        t_.leak_temperature_k_ = quantity(*v, "leakage.temperature", UnitFamily::Temperature);
      if (const ConfigNode* v = n->find("doubling")) {
        // An interval: "25 K"; "25 C" would read as an absolute 298 K.
        const std::string written = text(*v, "leakage.doubling");
        const std::string_view interval = trim(written);
        if (interval.empty() || interval.back() != 'K' ||
            !((t_.leak_doubling_k_ = quantity(*v, "leakage.doubling", UnitFamily::Temperature)) > 0))
          throw InputError(v->loc(), "leakage.doubling",
                           "expected the interval over which leakage doubles, in kelvins, such as \"25 K\"");
      }
    }
    if (const ConfigNode* n = section("power")) read_power(*n);
    if (const ConfigNode* n = section("ops")) read_ops(*n);
    if (const ConfigNode* n = section("mac")) read_macs(*n);
    if (const ConfigNode* n = section("sram")) read_sram(*n);
    if (const ConfigNode* n = section("register_file")) read_register_file(*n);
    if (const ConfigNode* n = section("wire")) {
      check_keys(*n, "wire", {"energy", "source"});
      read_q(*n, "wire", "energy", UnitFamily::WireEnergy, t_.wire_j_per_bit_mm_);
    }
    for (const auto& [key, spec] : sections_.all()) {
      const ConfigNode* n = section(key.c_str());
      if (!n) continue;
      auto inherited = t_.sections_.find(key);
      t_.sections_[key] = spec.read(*this, *n, inherited == t_.sections_.end() ? nullptr : inherited->second.get());
    }
    check_recipes();
  }

  // Every value a model may ask for must be there once the base and the file are merged.
  void check_complete() const {
    const SourceLoc where{file()};
    auto need = [&](double v, const char* key) {
      if (!(v > 0)) throw InputError(where, key, "missing: a table needs this value (or scale_from: a table that has it)");
    };
    need(t_.leak_logic_, "leakage.logic");
    need(t_.leak_sram_, "leakage.sram");
    need(t_.sram_.ref_read_j, "sram.reference.read_energy");
    need(t_.sram_.bitcell_mm2, "sram.bitcell_area");
    need(t_.rf_.read_j_per_bit, "register_file.read_energy");
    need(t_.rf_.area_mm2_per_bit, "register_file.area_per_bit");
    need(t_.wire_j_per_bit_mm_, "wire.energy");
    need(t_.clock_j_per_mm2_cycle_, "power.clock_at_1ghz");
    if (t_.vf_.empty()) need(0, "power.voltage_frequency");
    for (const auto& [key, spec] : sections_.all())
      if (spec.required && !t_.sections_.count(key))
        throw InputError(where, key, "missing: a table needs this section (or scale_from: a table that has it)");
    if (t_.ops_.empty()) throw InputError(where, "ops", "missing: a table needs its operations");
    if (t_.macs_.empty()) throw InputError(where, "mac", "missing: a table needs its multiply-accumulate recipes");
  }

 private:
  const ConfigNode* section(const char* key) const {
    const ConfigNode* n = root_.find(key);
    if (n && !n->is_map()) throw InputError(n->loc(), key, fmt::format("expected a mapping, got {}", n->type_name()));
    return n;
  }

  // power: {clock_at_1ghz: <mW/mm2>, voltage_frequency: [{clock, supply}, ...], source}
  void read_power(const ConfigNode& n) {
    check_keys(n, "power", {"clock_at_1ghz", "voltage_frequency", "source"});
    double clock_w = t_.clock_j_per_mm2_cycle_ * 1e9;
    read_q(n, "power", "clock_at_1ghz", UnitFamily::PowerDensity, clock_w);
    t_.clock_j_per_mm2_cycle_ = clock_w / 1e9;
    if (const ConfigNode* c = n.find("voltage_frequency")) {
      const std::string path = "power.voltage_frequency";
      if (!c->is_sequence() || c->items().empty())
        throw InputError(
            c->loc(), path,
            "expected a list of {clock: <fraction of the top clock>, supply: <fraction of the table's supply>}");
      std::vector<VfPoint> points;
      for (const ConfigNode& item : c->items()) {
        if (!item.is_map()) throw InputError(item.loc(), path, "expected {clock: <fraction>, supply: <fraction>}");
        check_keys(item, path, {"clock", "supply"});
        VfPoint v;
        v.clock = number(required(item, "clock", path), path + ".clock", 1e-3, 1);
        v.supply = number(required(item, "supply", path), path + ".supply", 0.1, 2);
        if (!points.empty() && !(v.clock > points.back().clock && v.supply > points.back().supply))
          throw InputError(item.loc(), path,
                           fmt::format("not monotone: ({}, {}) follows ({}, {}); clocks and supplies must both rise",
                                       v.clock, v.supply, points.back().clock, points.back().supply));
        points.push_back(v);
      }
      if (points.back().clock != 1)
        throw InputError(c->items().back().loc(), path + ".clock",
                         "the last point is the top clock: its clock must be 1 (the design's fastest clock)");
      t_.vf_ = std::move(points);
    } else if (!derived()) {
      throw InputError(n.key_loc(), "power.voltage_frequency", "missing required key");
    }
    read_source(n, "power", t_.power_source_);
  }

  void read_ops(const ConfigNode& ops) {
    for (const auto& [name, entry] : ops.entries()) {
      const std::string path = "ops." + name;
      if (!entry.is_map()) throw InputError(entry.loc(), path, "expected a mapping {energy, area, source}");
      check_keys(entry, path, {"energy", "area", "source"});
      UnitCost c;
      const ConfigNode* e = entry.find("energy");
      const ConfigNode* a = entry.find("area");
      if (!e) throw InputError(entry.key_loc(), path + ".energy", "missing required key");
      c.energy_j = quantity(*e, path + ".energy", UnitFamily::Energy);
      // An own entry without an area keeps the (scaled) base's area.
      if (a) c.area_mm2 = quantity(*a, path + ".area", UnitFamily::Area);
      else if (auto it = t_.ops_.find(name); it != t_.ops_.end()) c.area_mm2 = it->second.area_mm2;
      else throw InputError(entry.key_loc(), path + ".area", "missing required key");
      read_source(entry, path, c.source);
      t_.ops_[name] = c;
      t_.own_ops_.insert(name);
    }
  }

  void read_macs(const ConfigNode& macs) {
    for (const auto& [format, entry] : macs.entries()) {
      const std::string path = "mac." + format;
      if (!entry.is_map()) throw InputError(entry.loc(), path, "expected a mapping {ops, source}");
      check_keys(entry, path, {"ops", "source"});
      TechTable::Recipe r;
      const ConfigNode* ops = entry.find("ops");
      if (!ops) throw InputError(entry.key_loc(), path + ".ops", "missing required key");
      const std::string recipe = text(*ops, path + ".ops");
      for (const auto& term_text : split(recipe, '+')) {
        const std::string term(trim(term_text));
        TechTable::RecipeTerm term_out;
        const size_t mul = term.find_first_of("*/");
        term_out.op = std::string(trim(term.substr(0, mul)));
        if (mul != std::string::npos) {
          ConfigNode k = ConfigNode::scalar(std::string(trim(term.substr(mul + 1))), ops->loc());
          const double factor = number(k, path + ".ops", 1e-9, 1e9);
          term_out.count = term[mul] == '*' ? factor : 1.0 / factor;
        }
        if (term_out.op.empty()) throw InputError(ops->loc(), path + ".ops", fmt::format("empty term in \"{}\"", recipe));
        r.terms.push_back(term_out);
      }
      read_source(entry, path, r.source);
      t_.macs_[format] = r;
      recipe_locs_[format] = ops->loc();
    }
  }

  void check_recipes() const {
    for (const auto& [format, loc] : recipe_locs_) {
      for (const auto& term : t_.macs_.at(format).terms) {
        if (t_.ops_.count(term.op)) continue;
        std::vector<std::string> names;
        for (const auto& [n, c] : t_.ops_) names.push_back(n);
        std::string msg = fmt::format("unknown operation '{}'", term.op);
        if (auto best = closest_match(term.op, names)) msg += fmt::format(" (did you mean '{}'?)", *best);
        throw InputError(loc, "mac." + format + ".ops", msg);
      }
    }
  }

  void read_range(const ConfigNode& n, const std::string& path, const std::string& key, double& lo, double& hi) const {
    const ConfigNode* v = n.find(key);
    if (!v) {
      if (!derived()) throw InputError(n.key_loc(), join(path, key), "missing required key");
      return;
    }
    if (!v->is_sequence() || v->items().size() != 2)
      throw InputError(v->loc(), join(path, key), "expected [smallest, largest], e.g. [8 KiB, 1 MiB]");
    lo = quantity(v->items()[0], join(path, key), UnitFamily::Size);
    hi = quantity(v->items()[1], join(path, key), UnitFamily::Size);
    if (!(lo > 0 && lo < hi)) throw InputError(v->loc(), join(path, key), "expected 0 < smallest < largest");
  }

  void read_sram(const ConfigNode& n) {
    auto& s = t_.sram_;
    check_keys(n, "sram", {"reference", "capacity_exponent", "write_to_read", "bitcell_area", "array_efficiency",
                           "half_efficiency_bank", "fitted_range", "valid_range", "source"});
    if (const ConfigNode* ref = n.find("reference")) {
      check_keys(*ref, "sram.reference", {"capacity", "width", "read_energy"});
      read_q(*ref, "sram.reference", "capacity", UnitFamily::Size, s.ref_capacity_bytes);
      double width = s.ref_width_bits;
      read_n(*ref, "sram.reference", "width", 1, 4096, width);
      s.ref_width_bits = static_cast<int>(width);
      read_q(*ref, "sram.reference", "read_energy", UnitFamily::Energy, s.ref_read_j);
    } else if (!derived()) {
      throw InputError(n.key_loc(), "sram.reference", "missing required key");
    }
    read_n(n, "sram", "capacity_exponent", 0, 1, s.capacity_exponent);
    read_n(n, "sram", "write_to_read", 0.1, 10, s.write_to_read);
    read_q(n, "sram", "bitcell_area", UnitFamily::Area, s.bitcell_mm2);
    read_n(n, "sram", "array_efficiency", 0.05, 1, s.array_efficiency);
    double half_bytes = s.half_efficiency_bits / 8;
    read_q(n, "sram", "half_efficiency_bank", UnitFamily::Size, half_bytes);
    s.half_efficiency_bits = half_bytes * 8;
    read_range(n, "sram", "fitted_range", s.fit_min_bytes, s.fit_max_bytes);
    read_range(n, "sram", "valid_range", s.valid_min_bytes, s.valid_max_bytes);
    read_source(n, "sram", s.source);
  }

  void read_register_file(const ConfigNode& n) {
    auto& r = t_.rf_;
    check_keys(n, "register_file",
               {"read_energy", "write_energy", "area_per_bit", "reference_entries", "entries_exponent", "source"});
    read_q(n, "register_file", "read_energy", UnitFamily::EnergyPerBit, r.read_j_per_bit);
    read_q(n, "register_file", "write_energy", UnitFamily::EnergyPerBit, r.write_j_per_bit);
    read_q(n, "register_file", "area_per_bit", UnitFamily::Area, r.area_mm2_per_bit);
    read_n(n, "register_file", "reference_entries", 1, 65536, r.ref_entries);
    read_n(n, "register_file", "entries_exponent", 0, 1, r.entries_exponent);
    read_source(n, "register_file", r.source);
  }

  TechTable& t_;
  const ConfigNode& root_;
  const TechSections& sections_;
  std::map<std::string, SourceLoc> recipe_locs_;
};

namespace {

struct Scaled {
  const char* key;
  double TechScaling::*field;
};
constexpr Scaled kFactors[] = {{"logic_energy", &TechScaling::logic_energy}, {"logic_area", &TechScaling::logic_area},
                               {"sram_energy", &TechScaling::sram_energy},   {"sram_area", &TechScaling::sram_area},
                               {"wire_energy", &TechScaling::wire_energy},   {"leakage_density", &TechScaling::leakage_density}};

TechScaling read_scaling(const ConfigNode& root) {
  const ConfigNode* n = root.find("scaling");
  if (!n || !n->is_map())
    throw InputError(n ? n->loc() : root.key_loc(), "scaling", "scale_from needs a scaling: mapping of factors");
  TechScaling s;
  std::vector<std::string> known;
  for (const auto& f : kFactors) known.push_back(f.key);
  for (const auto& [key, entry] : n->entries()) {
    const std::string& name = key;  // C++17 lambdas cannot capture structured bindings (clang)
    const auto* f = std::find_if(std::begin(kFactors), std::end(kFactors), [&](const Scaled& x) { return name == x.key; });
    if (f == std::end(kFactors)) {
      std::string msg = fmt::format("unknown key '{}'", key);
      if (auto best = closest_match(key, known)) msg += fmt::format(" (did you mean '{}'?)", *best);
      throw InputError(entry.key_loc(), "scaling." + key, msg);
    }
    const std::string path = "scaling." + key;
    if (!entry.is_map() || !entry.find("factor") || !entry.find("source"))
      throw InputError(entry.loc(), path, "expected {factor: <number>, source: \"...\"}");
    s.*(f->field) = TechFileReader::number(*entry.find("factor"), path + ".factor", 1e-6, 100);
    s.sources[key] = entry.find("source")->value();
  }
  for (const auto& f : kFactors)
    if (!s.sources.count(f.key)) throw InputError(n->key_loc(), std::string("scaling.") + f.key, "missing required key");
  return s;
}

std::shared_ptr<const TechTable> load_node(const ConfigNode& root, const std::string& hash_of_text,
                                           std::vector<std::string>& chain, const TechSections& sections);

std::shared_ptr<const TechTable> load_named(const std::string& name, const SourceLoc& where, const std::string& key,
                                            std::vector<std::string>& chain, const TechSections& sections) {
  if (names_a_file(name)) {
    fs::path p(name);
    if (p.is_relative() && !where.file.empty() && where.file.front() != '<')
      p = fs::path(where.file).parent_path() / p;
    if (!fs::is_regular_file(p)) throw InputError(where, key, fmt::format("technology table \"{}\" not found", p.string()));
    const std::string file = p.lexically_normal().string();
    if (std::find(chain.begin(), chain.end(), file) != chain.end())
      throw InputError(where, key, fmt::format("scale_from loops back to {}", file));
    chain.push_back(file);
    return load_node(load_config(file), file_hash(file), chain, sections);
  }
  for (const auto& b : detail::builtin_tech_tables()) {
    if (name != b.name) continue;
    if (std::find(chain.begin(), chain.end(), b.file) != chain.end())
      throw InputError(where, key, fmt::format("scale_from loops back to {}", b.file));
    chain.push_back(b.file);
    return load_node(ConfigNode::parse(b.text, b.file), text_hash(b.text), chain, sections);
  }
  const std::vector<std::string> names = TechTable::builtin_names();
  const auto best = closest_match(name, names);
  throw InputError(where, key,
                   fmt::format("unknown technology '{}' ({}built in: {}; or a path to a table file)", name,
                               best ? fmt::format("did you mean '{}'? ", *best) : "", fmt::join(names, ", ")));
}

std::shared_ptr<const TechTable> load_node(const ConfigNode& root, const std::string& hash_of_text,
                                           std::vector<std::string>& chain, const TechSections& sections) {
  if (!root.is_map()) throw InputError(root.loc(), "", "a technology table must be a mapping");
  auto t = std::make_shared<TechTable>();
  const ConfigNode* from = root.find("scale_from");
  std::string base_hash;
  if (from) {
    if (!from->is_scalar()) throw InputError(from->loc(), "scale_from", "expected a table name");
    auto base = load_named(from->value(), from->loc(), "scale_from", chain, sections);
    *t = TechTable::scaled(*base, read_scaling(root));
    base_hash = base->content_hash();
  } else if (root.find("scaling")) {
    throw InputError(root.find("scaling")->key_loc(), "scaling", "scaling: needs scale_from: <base table>");
  }
  TechTableReader reader(*t, root, from != nullptr, sections);
  reader.read();
  reader.check_complete();
  t->set_provenance(root.loc().file, from ? from->value() : "", text_hash(hash_of_text + base_hash));
  return t;
}

}  // namespace

void TechTable::set_provenance(std::string file, std::string base, std::string hash) {
  file_ = std::move(file);
  base_ = std::move(base);
  hash_ = std::move(hash);
}

std::shared_ptr<const TechTable> TechTable::load(const std::string& name, const SourceLoc& where,
                                                 const std::string& key, const TechSections& sections) {
  std::vector<std::string> chain;
  return load_named(name, where, key, chain, sections);
}

std::vector<std::string> TechTable::builtin_names() {
  std::vector<std::pair<double, std::string>> by_node;
  for (const auto& b : detail::builtin_tech_tables()) by_node.emplace_back(-std::atof(b.name), b.name);
  std::sort(by_node.begin(), by_node.end());
  std::vector<std::string> out;
  for (const auto& [n, name] : by_node) out.push_back(name);
  return out;
}

TechTable TechTable::scaled(const TechTable& base, const TechScaling& s) {
  TechTable t = base;
  t.scaling_ = s;
  t.own_ops_.clear();
  const std::string note = fmt::format("scaled from {}", base.name_);
  for (auto& [name, c] : t.ops_) {
    c.energy_j *= s.logic_energy;
    c.area_mm2 *= s.logic_area;
    c.source = fmt::format("{} ({}: {})", note, base.name_, c.source);
  }
  t.sram_.ref_read_j *= s.sram_energy;
  t.sram_.bitcell_mm2 *= s.sram_area;
  t.sram_.source = fmt::format("{} ({}: {})", note, base.name_, t.sram_.source);
  t.rf_.read_j_per_bit *= s.logic_energy;
  t.rf_.write_j_per_bit *= s.logic_energy;
  t.rf_.area_mm2_per_bit *= s.logic_area;
  for (auto& [key, section] : t.sections_)
    if (auto own = section->scaled(s)) section = std::move(own);
  t.wire_j_per_bit_mm_ *= s.wire_energy;
  t.leak_logic_ *= s.leakage_density;
  t.leak_sram_ *= s.leakage_density;
  // Clock power per mm2 is switched capacitance per area: energy per gate over area per gate.
  t.clock_j_per_mm2_cycle_ *= s.logic_energy / s.logic_area;
  return t;
}

double TechTable::leakage_factor_at(double kelvin) const {
  return leak_doubling_k_ > 0 ? std::exp2((kelvin - leak_temperature_k_) / leak_doubling_k_) : 1.0;
}

double TechTable::supply_at(double clock_fraction) const {
  if (vf_.empty() || clock_fraction <= vf_.front().clock) return vf_.empty() ? 1 : vf_.front().supply;
  for (std::size_t i = 1; i < vf_.size(); ++i)
    if (clock_fraction <= vf_[i].clock) {
      const VfPoint& a = vf_[i - 1];
      const VfPoint& b = vf_[i];
      return a.supply + (b.supply - a.supply) * (clock_fraction - a.clock) / (b.clock - a.clock);
    }
  return vf_.back().supply;
}

UnitCost TechTable::with_leakage(UnitCost c) const {
  c.leakage_w = c.area_mm2 * leak_logic_;
  return c;
}

void TechTable::missing(const std::string& section, const std::string& name, const std::vector<std::string>& known) const {
  std::string msg = fmt::format("no entry '{}' in this table", name);
  if (auto best = closest_match(name, known)) msg += fmt::format(" (did you mean '{}'?)", *best);
  throw InputError(SourceLoc{file_}, section, msg);
}

UnitCost TechTable::op(const std::string& name) const {
  auto it = ops_.find(name);
  if (it == ops_.end()) {
    std::vector<std::string> known;
    for (const auto& [n, c] : ops_) known.push_back(n);
    missing("ops", name, known);
  }
  return with_leakage(it->second);
}

UnitCost TechTable::mac(const std::string& format) const {
  auto it = macs_.find(format);
  if (it == macs_.end()) missing("mac", format, mac_formats());
  UnitCost sum;
  for (const auto& term : it->second.terms) {
    const UnitCost& c = ops_.at(term.op);
    sum.energy_j += term.count * c.energy_j;
    sum.area_mm2 += term.count * c.area_mm2;
  }
  sum.source = fmt::format("{} = {} ({})", format, mac_recipe(format), it->second.source);
  return with_leakage(sum);
}

std::vector<std::string> TechTable::mac_formats() const {
  std::vector<std::string> out;
  for (const auto& [f, r] : macs_) out.push_back(f);
  return out;
}

std::string TechTable::mac_recipe(const std::string& format) const {
  std::string out;
  for (const auto& term : macs_.at(format).terms) {
    if (!out.empty()) out += " + ";
    out += term.op;
    if (term.count > 1) out += fmt::format(" * {:g}", term.count);
    else if (term.count < 1) out += fmt::format(" / {:g}", 1 / term.count);
  }
  return out;
}

// CACTI-like fit: energy per access grows with the bank's capacity as a power law anchored at
// the reference macro and in proportion to the bits accessed; banks beyond the first add an
// H-tree that carries the accessed bits half the array's side. Area is the bit cells over an
// array efficiency that falls for small banks (periphery does not shrink with capacity).
SramCost TechTable::sram(double capacity, int width, int banks, const SourceLoc& where, const std::string& key) const {
  const SramFit& f = sram_;
  const double bank_bytes = capacity / banks;
  if (!(bank_bytes >= f.valid_min_bytes && bank_bytes <= f.valid_max_bytes))
    throw InputError(where, key,
                     fmt::format("an SRAM bank of {} is outside the {} table's SRAM model range [{}, {}]",
                                 format_quantity(bank_bytes, UnitFamily::Size, 4), name_,
                                 format_quantity(f.valid_min_bytes, UnitFamily::Size, 4),
                                 format_quantity(f.valid_max_bytes, UnitFamily::Size, 4)));
  SramCost c;
  const double bank_bits = bank_bytes * 8;
  const double efficiency = f.array_efficiency * bank_bits / (bank_bits + f.half_efficiency_bits);
  c.area_mm2 = banks * bank_bits * f.bitcell_mm2 / efficiency;
  c.read_j = f.ref_read_j * (static_cast<double>(width) / f.ref_width_bits) *
             std::pow(bank_bytes / f.ref_capacity_bytes, f.capacity_exponent);
  if (banks > 1) c.read_j += width * wire_j_per_bit_mm_ * std::sqrt(c.area_mm2) / 2;
  c.write_j = c.read_j * f.write_to_read;
  c.leakage_w = c.area_mm2 * leak_sram_;
  c.in_fitted_range = bank_bytes >= f.fit_min_bytes && bank_bytes <= f.fit_max_bytes;
  return c;
}

UnitCost TechTable::register_file_read(int entries, int width) const {
  UnitCost c;
  const double growth = std::pow(entries / rf_.ref_entries, rf_.entries_exponent);
  c.energy_j = rf_.read_j_per_bit * width * growth;
  c.area_mm2 = rf_.area_mm2_per_bit * entries * width;
  c.source = rf_.source;
  return with_leakage(c);
}

UnitCost TechTable::register_file_write(int entries, int width) const {
  UnitCost c = register_file_read(entries, width);
  c.energy_j *= rf_.write_j_per_bit / rf_.read_j_per_bit;
  return c;
}

ParamSpec tech_param() {
  return param::string("tech",
                       "technology table for energy, area and leakage: a built-in node (45nm, 40nm, 28nm, 16nm, "
                       "7nm, 5nm) or a table file; inherited from the enclosing component")
      .def("7nm")
      .inherit()
      .or_file();
}

}  // namespace strata
