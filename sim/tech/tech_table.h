// A technology table: the energy per action, area and leakage of the building blocks a design is
// made of, at one process node (configs/tech/<node>.yaml, every number with its source). Models
// take their energy events and areas from here, so one key (`tech: 7nm`) re-evaluates a design
// at another node. The table is plain C++ (no SystemC): cycle-level components and analytic
// estimates read the same numbers.
//
// A table either lists its values (45nm: Horowitz's per-operation figures) or derives them with
// `scale_from: <node>` and a `scaling:` factor per class of value (logic energy, logic area,
// SRAM energy, SRAM area, wire energy, leakage density); entries the file gives itself replace
// the scaled ones. Sections of device figures (DRAM, NAND, links, the NoC router) are declared
// by the folders that model those devices (sim/tech/tech_section.h); sim/ reads them through the
// sections registered with the kinds. docs/energy-area.md explains every section.
#pragma once

#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/schema.h"
#include "sim/tech/tech_section.h"

namespace strata {

// One building block: energy per action, area per instance and its leakage power.
struct UnitCost {
  double energy_j = 0;
  double area_mm2 = 0;
  double leakage_w = 0;
  std::string source;  // where the numbers come from, with the confidence tag ([V], [M], [E])
};

// One SRAM macro of a given organisation, from the table's CACTI-like fit.
struct SramCost {
  double read_j = 0;   // one access of `width` bits
  double write_j = 0;
  double area_mm2 = 0;
  double leakage_w = 0;
  bool in_fitted_range = true;  // bank capacity inside the range the fit was made on
};

// One point of a node's voltage-frequency curve: a clock as a fraction of the design's top clock,
// and the supply it needs as a fraction of the table's (the energies' supply).
struct VfPoint {
  double clock = 1;
  double supply = 1;
};

// The factors a derived table multiplies its base's values by.
struct TechScaling {
  double logic_energy = 1, logic_area = 1, sram_energy = 1, sram_area = 1, wire_energy = 1, leakage_density = 1;
  std::map<std::string, std::string> sources;  // factor name -> source
};

class TechTable {
 public:
  // The built-in table of that name (configs/tech/<name>.yaml, compiled in), or the YAML file
  // at `name` when it names a file (contains '/' or ends in .yaml), relative to the directory
  // of `where.file`. Errors name the file, line and key of the table, or `where` and `key` for
  // an unknown name.
  // `sections` are the device sections a table may have (Registry::tech_sections()).
  static std::shared_ptr<const TechTable> load(const std::string& name, const SourceLoc& where, const std::string& key,
                                               const TechSections& sections);
  // Names of the built-in tables, finest node last: 45nm, 40nm, 28nm, 16nm, 7nm, 5nm.
  static std::vector<std::string> builtin_names();

  const std::string& name() const { return name_; }
  const std::string& file() const { return file_; }  // the file it was read from
  double feature_nm() const { return feature_nm_; }
  double supply_v() const { return supply_v_; }
  const std::string& source() const { return source_; }
  const std::string& base() const { return base_; }  // scale_from, "" for a base table
  const TechScaling& scaling() const { return scaling_; }

  // A named operation: "add.int8", "mul.fp16", "cmp.fp32", "sfu.exp", "ff.bit".
  UnitCost op(const std::string& name) const;
  bool has_op(const std::string& name) const { return ops_.count(name) != 0; }
  const std::map<std::string, UnitCost>& ops() const { return ops_; }
  // Entries this file gave itself (not scaled from the base), e.g. 7 nm's published figures.
  bool op_is_own(const std::string& name) const { return own_ops_.count(name) != 0; }

  // One multiply-accumulate lane of a data format ("int8", "fp16", "mxfp4", "nvfp4"): the sum
  // of its recipe of operations, block-scale handling included.
  UnitCost mac(const std::string& format) const;
  bool has_mac(const std::string& format) const { return macs_.count(format) != 0; }
  std::vector<std::string> mac_formats() const;
  // The recipe as written, e.g. "mul.int8 + add.int32 + ff.bit * 32".
  std::string mac_recipe(const std::string& format) const;

  // An SRAM of `capacity_bytes` in `banks` equal banks, accessed `width_bits` at a time.
  // Throws InputError (naming `where`/`key`) outside the fit's valid range.
  SramCost sram(double capacity_bytes, int width_bits, int banks, const SourceLoc& where = {},
                const std::string& key = "") const;
  // A flip-flop register file of `entries` x `width_bits`: energy per access, area, leakage.
  UnitCost register_file_read(int entries, int width_bits) const;
  UnitCost register_file_write(int entries, int width_bits) const;

  double wire_energy_per_bit_mm() const { return wire_j_per_bit_mm_; }
  // A device section (sim/tech/tech_section.h) as its owner's type; InputError naming the
  // table when it has none.
  template <class T>
  const T& section(const std::string& key) const {
    auto it = sections_.find(key);
    if (it == sections_.end()) throw InputError(SourceLoc{file_}, key, "missing: this table has no such section");
    return dynamic_cast<const T&>(*it->second);
  }
  // The row `name` of a section of rows (TechRows<Row>), or InputError naming the table and the
  // section, with a suggestion.
  template <class Row>
  const Row& row(const std::string& key, const std::string& name) const {
    const auto& rows = section<TechRows<Row>>(key);
    auto it = rows.rows.find(name);
    if (it == rows.rows.end()) missing(key, name, rows.names());
    return it->second;
  }
  // InputError naming the table and `section` for an entry it lacks, with a suggestion.
  [[noreturn]] void missing(const std::string& section, const std::string& name,
                            const std::vector<std::string>& known) const;
  // `c` with the leakage of its area as logic.
  UnitCost with_leakage(UnitCost c) const;
  double logic_leakage_w_per_mm2() const { return leak_logic_; }
  // Leakage at junction temperature `kelvin` over the table's (at leakage.temperature): doubled
  // every leakage.doubling kelvins; 1 when the table gives no doubling.
  double leakage_factor_at(double kelvin) const;
  double leakage_temperature_k() const { return leak_temperature_k_; }
  // Power: the clock tree and the registers it reaches that no gating stops, per mm2 of
  // clocked silicon per hertz at the table's supply (J per mm2 per cycle).
  double clock_j_per_mm2_cycle() const { return clock_j_per_mm2_cycle_; }
  // The voltage-frequency curve, clocks and supplies strictly rising, the last clock 1.
  const std::vector<VfPoint>& voltage_frequency() const { return vf_; }
  // The supply fraction a clock fraction needs: linear between points, the lowest point's supply
  // below it (a clock under the curve's lowest point gains no further voltage).
  double supply_at(double clock_fraction) const;
  const std::string& power_source() const { return power_source_; }
  double sram_leakage_w_per_mm2() const { return leak_sram_; }

  // XXH3-128 of the table's text and its bases' (provenance in stats.json).
  const std::string& content_hash() const { return hash_; }

  // Applies a derivation: the base's values times the factors (used by load, and by tests that
  // compare a rule's prediction with a node's published figures).
  static TechTable scaled(const TechTable& base, const TechScaling& s);

  struct SramFit {
    double ref_read_j = 0, ref_capacity_bytes = 0;
    int ref_width_bits = 0;
    double capacity_exponent = 0.5, write_to_read = 1;
    double bitcell_mm2 = 0, array_efficiency = 0.7, half_efficiency_bits = 0;
    double fit_min_bytes = 0, fit_max_bytes = 0, valid_min_bytes = 0, valid_max_bytes = 0;
    std::string source;
  };
  const SramFit& sram_fit() const { return sram_; }
  void set_provenance(std::string file, std::string base, std::string hash);

 private:
  friend class TechTableReader;
  struct RecipeTerm {
    std::string op;
    double count = 1;
  };
  struct Recipe {
    std::vector<RecipeTerm> terms;
    std::string source;
  };
  struct RegisterFit {
    double read_j_per_bit = 0, write_j_per_bit = 0, area_mm2_per_bit = 0, ref_entries = 32, entries_exponent = 0.5;
    std::string source;
  };
  std::string name_, file_, source_, base_, hash_;
  double feature_nm_ = 0, supply_v_ = 0;
  TechScaling scaling_;
  std::map<std::string, UnitCost> ops_;
  std::set<std::string> own_ops_;
  std::map<std::string, Recipe> macs_;
  SramFit sram_;
  RegisterFit rf_;
  double wire_j_per_bit_mm_ = 0;
  std::map<std::string, std::shared_ptr<const TechSection>> sections_;
  double leak_logic_ = 0, leak_sram_ = 0;
  double leak_temperature_k_ = 298.15, leak_doubling_k_ = 0;
  double clock_j_per_mm2_cycle_ = 0;
  std::vector<VfPoint> vf_;
  std::string power_source_;
};

// The `tech` parameter every component kind has (the registry adds it): a built-in table name
// or a table file, inherited from the enclosing component and the experiment.
ParamSpec tech_param();

}  // namespace strata
