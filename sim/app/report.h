// `strata report DIR`: the energy and area breakdown of a result directory, by component and
// by event (energy) or part (area), and the design's per-operator or per-kernel rows (NPU
// `ops`, GPU `launches`), read back from its stats.json and summary.json.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata {

struct EnergyAreaReport {
  struct Event {
    std::string name;  // an energy event, or "static" (leakage and background)
    double count = 0;  // events counted; 0 for static
    double energy_j = 0;
  };
  struct Part {
    std::string name;
    double area_mm2 = 0;
  };
  struct ComponentRow {
    std::string name;  // hierarchical, e.g. "hardware.memory"
    double energy_j = 0, area_mm2 = 0, static_power_w = 0;
    std::vector<Event> events;
    std::vector<Part> parts;
  };
  // Per-operator or per-kernel rows a design reports under `<component>.ops` (the NPU) or
  // `<component>.launches` (the GPU): one row per node whose leaves are statistics, named by its
  // path below the section; the columns shown are the section's (kRowColumns in report.cpp) that
  // its rows have.
  struct RowTable {
    std::string component, section;
    std::vector<std::string> columns, units;
    std::vector<std::pair<std::string, std::vector<double>>> rows;  // NaN: the row lacks the column
  };
  std::string dir;
  nlohmann::ordered_json summary;  // summary.json as written
  double energy_j = 0, area_mm2 = 0;
  std::vector<ComponentRow> components;
  std::vector<RowTable> tables;
};

// Reads DIR/stats.json and DIR/summary.json; InputError (exit 2) when DIR is not a complete
// result directory.
EnergyAreaReport read_report(const std::string& dir);

std::string report_table(const EnergyAreaReport& r);
// One row per event and per part: section,component,item,count,value,unit,share
std::string report_csv(const EnergyAreaReport& r);
nlohmann::ordered_json report_json(const EnergyAreaReport& r);

}  // namespace strata
