// Sections of a technology table that belong to a device, not to the logic and SRAM every
// design is built of: the folder that models the device declares its section (its keys, how
// they are read, whether a derived node scales them) and registers it with the kinds
// (Registry::tech_sections()), so sim/tech/ knows no device. memory/ owns `dram` (interface
// energy and PHY area per standard) and `nand`, models/link/ `links` (energy per bit by
// packaging), models/noc/ `router`. A model reads its section with
// `tech().section<DramCosts>("dram")`.
//
// Section values are package and memory figures, inherited unscaled by a table derived with
// `scale_from:`, unless the section scales them (the router is logic, scaled like it).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/config_node.h"
#include "sim/units.h"

namespace strata {

struct TechScaling;

// The reading rules every section shares with the table's own sections: errors name the
// table file, line and key; a base table must give every key, a derived one only those it
// changes.
class TechFileReader {
 public:
  TechFileReader(std::string file, bool derived) : file_(std::move(file)), derived_(derived) {}
  bool derived() const { return derived_; }
  const std::string& file() const { return file_; }

  void check_keys(const ConfigNode& n, const std::string& path, const std::vector<std::string>& known) const;
  const ConfigNode& required(const ConfigNode& n, const std::string& key, const std::string& path) const;
  static std::string text(const ConfigNode& v, const std::string& key);
  static double quantity(const ConfigNode& v, const std::string& key, UnitFamily family);
  // A plain number in [lo, hi].
  static double number(const ConfigNode& v, const std::string& key, double lo, double hi);
  // n[key] into `out` when present; a base table must have it, and so must `always` keys.
  void read_q(const ConfigNode& n, const std::string& path, const std::string& key, UnitFamily f, double& out,
              bool always = false) const;
  void read_n(const ConfigNode& n, const std::string& path, const std::string& key, double lo, double hi,
              double& out) const;
  void read_source(const ConfigNode& n, const std::string& path, std::string& out) const;
  // `node` is a mapping of rows (one per standard or packaging), each a mapping of `keys`;
  // `row` reads each (path "section.name").
  void read_rows(
      const ConfigNode& node, const std::string& section, const std::vector<std::string>& keys,
      const std::function<void(const std::string& name, const ConfigNode& row, const std::string& path)>& row) const;

  static std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; }

 private:
  std::string file_;
  bool derived_;
};

// One section's values, read from a table file.
class TechSection {
 public:
  virtual ~TechSection() = default;
  // This section in a table derived from its table with these factors, or null when it is
  // inherited unchanged (the default).
  virtual std::shared_ptr<const TechSection> scaled(const TechScaling& s) const;
};

// A derived table's section starts as a copy of the inherited one (a base table's as a
// default-made T), which the file's own entries then change.
template <class T>
std::shared_ptr<T> inherit_section(const TechSection* inherited) {
  return std::make_shared<T>(inherited ? dynamic_cast<const T&>(*inherited) : T{});
}

struct TechSectionSpec {
  std::string key;        // top-level key of the table file
  bool required = false;  // a complete table has it (given, or inherited through scale_from)
  // Reads the file's section over `inherited` (the base table's, already scaled; null in a
  // base table) and returns the merged section.
  std::function<std::shared_ptr<const TechSection>(const TechFileReader& reader, const ConfigNode& node,
                                                   const TechSection* inherited)>
      read;
};

class TechSections {
 public:
  void add(TechSectionSpec spec);
  const TechSectionSpec* find(const std::string& key) const;
  const std::map<std::string, TechSectionSpec>& all() const { return specs_; }

 private:
  std::map<std::string, TechSectionSpec> specs_;
};

// A section of rows by name (DRAM standards, link packagings), merged row by row over the
// inherited one: a row a derived table gives replaces the base's whole.
template <class Row>
class TechRows : public TechSection {
 public:
  std::map<std::string, Row> rows;
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [n, r] : rows) out.push_back(n);
    return out;
  }
};

}  // namespace strata
