#include "sim/app/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/units.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

nlohmann::ordered_json read_json(const fs::path& p, const std::string& dir) {
  std::ifstream in(p);
  if (!in)
    throw InputError(
        SourceLoc{dir}, "",
        fmt::format("not a complete result directory: no {} (run `strata run` first)", p.filename().string()));
  try {
    return nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(SourceLoc{p.string()}, "", fmt::format("not valid JSON: {}", e.what()));
  }
}

double number(const nlohmann::ordered_json& leaf) {
  return leaf.is_object() && leaf.contains("value") && leaf["value"].is_number() ? leaf["value"].get<double>() : 0;
}

// A component is a node of stats.json with energy.total (Component::close_accounting writes it).
void collect(const nlohmann::ordered_json& node, const std::string& path, EnergyAreaReport& r) {
  if (!node.is_object() || node.contains("type")) return;
  const auto energy = node.find("energy");
  if (energy != node.end() && energy->is_object() && energy->contains("total")) {
    EnergyAreaReport::ComponentRow c;
    c.name = path;
    c.energy_j = number((*energy)["total"]);
    const auto events = node.find("events");
    for (const auto& [name, leaf] : energy->items()) {
      if (name == "total" || name == "static") continue;
      double count = 0;
      if (events != node.end() && events->contains(name)) count = number((*events)[name]);
      c.events.push_back({name, count, number(leaf)});
    }
    if (energy->contains("static")) c.events.push_back({"static", 0, number((*energy)["static"])});
    if (const auto area = node.find("area"); area != node.end() && area->is_object()) {
      c.area_mm2 = number((*area)["total"]);
      for (const auto& [name, leaf] : area->items())
        if (name != "total") c.parts.push_back({name, number(leaf)});
    }
    if (const auto power = node.find("power"); power != node.end() && power->contains("static"))
      c.static_power_w = number((*power)["static"]);
    // Workload drivers are components too, but not hardware: nothing to report.
    bool any = c.energy_j != 0 || c.area_mm2 != 0;
    for (const auto& e : c.events) any = any || e.count != 0;
    if (any) r.components.push_back(std::move(c));
  }
  for (const auto& [key, child] : node.items()) collect(child, path.empty() ? key : path + "." + key, r);
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

// The columns each row section shows, in order.
const std::vector<std::pair<std::string, std::vector<std::string>>>& row_columns() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kRowColumns = {
      {"launches", {"time", "tflops", "bandwidth", "l2_hit_rate", "occupancy", "waves", "memory_bound", "reused"}},
      {"ops", {"latency", "flops", "bandwidth", "bound_fraction", "memory_bound", "reused"}},
  };
  return kRowColumns;
}

// The rows under a section node: every node with statistic leaves, by its path.
void collect_rows(const nlohmann::ordered_json& node, const std::string& path, EnergyAreaReport::RowTable& t) {
  std::vector<double> row(t.columns.size(), std::nan(""));
  bool any = false;
  for (const auto& [key, child] : node.items()) {
    if (!child.is_object() || !child.contains("type")) continue;
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c] == key) {
        row[c] = number(child);
        if (t.units[c].empty() && child.contains("unit")) t.units[c] = child["unit"].get<std::string>();
        any = true;
      }
  }
  if (any) t.rows.emplace_back(path, std::move(row));  // a row before the rows nested in it
  for (const auto& [key, child] : node.items())
    if (child.is_object() && !child.contains("type")) collect_rows(child, path.empty() ? key : path + "." + key, t);
}

void collect_tables(const nlohmann::ordered_json& node, const std::string& path, EnergyAreaReport& r) {
  if (!node.is_object() || node.contains("type")) return;
  for (const auto& [key, child] : node.items()) {
    const auto section =
        std::find_if(row_columns().begin(), row_columns().end(), [&](const auto& s) { return s.first == key; });
    if (section != row_columns().end() && child.is_object() && !child.contains("type")) {
      EnergyAreaReport::RowTable t;
      t.component = path;
      t.section = key;
      t.columns = section->second;
      t.units.assign(t.columns.size(), "");
      collect_rows(child, "", t);
      // Keep the columns some row has.
      std::vector<std::size_t> kept;
      for (std::size_t c = 0; c < t.columns.size(); ++c)
        if (std::any_of(t.rows.begin(), t.rows.end(), [c](const auto& row) { return !std::isnan(row.second[c]); }))
          kept.push_back(c);
      EnergyAreaReport::RowTable out{t.component, t.section, {}, {}, {}};
      for (std::size_t c : kept) {
        out.columns.push_back(t.columns[c]);
        out.units.push_back(t.units[c]);
      }
      for (auto& [name, values] : t.rows) {
        std::vector<double> v;
        for (std::size_t c : kept) v.push_back(values[c]);
        out.rows.emplace_back(name, std::move(v));
      }
      if (!out.rows.empty()) r.tables.push_back(std::move(out));
      continue;
    }
    collect_tables(child, path.empty() ? key : path + "." + key, r);
  }
}

}  // namespace

EnergyAreaReport read_report(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError(SourceLoc{dir}, "", "no such result directory");
  EnergyAreaReport r;
  r.dir = dir;
  r.summary = read_json(fs::path(dir) / "summary.json", dir);
  const nlohmann::ordered_json stats = read_json(fs::path(dir) / "stats.json", dir);
  for (const auto& [key, child] : stats.items())
    if (key != "totals") {
      collect(child, key, r);
      collect_tables(child, key, r);
    }
  if (stats.contains("totals")) {
    r.energy_j = number(stats["totals"]["energy"]);
    r.area_mm2 = number(stats["totals"]["area"]);
  }
  return r;
}

std::string report_table(const EnergyAreaReport& r) {
  auto summary = [&](const char* key) { return r.summary.contains(key) ? r.summary[key].get<double>() : 0.0; };
  std::string out = fmt::format(
      "{}: {} simulated; energy {}, average power {}, peak power {}; area {}\n", r.dir,
      format_quantity(summary("simulated_time_s"), UnitFamily::Time, 4),
      format_quantity(r.energy_j, UnitFamily::Energy, 4), format_quantity(summary("avg_power_w"), UnitFamily::Power, 4),
      format_quantity(summary("peak_power_w"), UnitFamily::Power, 4), format_quantity(r.area_mm2, UnitFamily::Area, 4));
  out += fmt::format("\n{:<40} {:>14} {:>12} {:>7}\n", "energy by component and event", "events", "energy", "share");
  for (const auto& c : r.components) {
    out += fmt::format("{:<40} {:>14} {:>12} {:>6.1f}%\n", c.name, "",
                       format_quantity(c.energy_j, UnitFamily::Energy, 4), 100 * share(c.energy_j, r.energy_j));
    for (const auto& e : c.events) {
      const std::string count = e.name == "static"
                                    ? fmt::format("({})", format_quantity(c.static_power_w, UnitFamily::Power, 3))
                                    : fmt::format("{:.0f}", e.count);
      out += fmt::format("  {:<38} {:>14} {:>12} {:>6.1f}%\n", e.name, count,
                         format_quantity(e.energy_j, UnitFamily::Energy, 4), 100 * share(e.energy_j, r.energy_j));
    }
  }
  out += fmt::format("\n{:<40} {:>14} {:>12} {:>7}\n", "area by component and part", "", "area", "share");
  for (const auto& c : r.components) {
    out += fmt::format("{:<40} {:>14} {:>12} {:>6.1f}%\n", c.name, "", fmt::format("{:.4g} mm2", c.area_mm2),
                       100 * share(c.area_mm2, r.area_mm2));
    for (const auto& p : c.parts)
      out += fmt::format("  {:<38} {:>14} {:>12} {:>6.1f}%\n", p.name, "", fmt::format("{:.4g} mm2", p.area_mm2),
                         100 * share(p.area_mm2, r.area_mm2));
  }
  for (const auto& t : r.tables) {
    out += fmt::format("\n{}.{}: {} rows\n{:<40}", t.component, t.section, t.rows.size(), "name");
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      out += fmt::format(" {:>14}", t.units[c].empty() || t.units[c] == "bool" || t.units[c] == "fraction" ||
                                            t.units[c] == t.columns[c]
                                        ? t.columns[c]
                                        : fmt::format("{} ({})", t.columns[c], t.units[c]));
    out += "\n";
    for (const auto& [name, values] : t.rows) {
      out += fmt::format("{:<40}", name);
      for (double v : values) out += std::isnan(v) ? fmt::format(" {:>14}", "") : fmt::format(" {:>14.4g}", v);
      out += "\n";
    }
  }
  return out;
}

std::string report_csv(const EnergyAreaReport& r) {
  std::string out = "section,component,item,count,value,unit,share\n";
  for (const auto& c : r.components) {
    out += fmt::format("energy,{},total,,{:.9g},J,{:.6g}\n", c.name, c.energy_j, share(c.energy_j, r.energy_j));
    for (const auto& e : c.events)
      out += fmt::format("energy,{},{},{:.0f},{:.9g},J,{:.6g}\n", c.name, e.name, e.count, e.energy_j,
                         share(e.energy_j, r.energy_j));
  }
  for (const auto& c : r.components) {
    out += fmt::format("area,{},total,,{:.9g},mm2,{:.6g}\n", c.name, c.area_mm2, share(c.area_mm2, r.area_mm2));
    for (const auto& p : c.parts)
      out += fmt::format("area,{},{},,{:.9g},mm2,{:.6g}\n", c.name, p.name, p.area_mm2, share(p.area_mm2, r.area_mm2));
  }
  // Row sections: section = ops or launches, item = row name and column.
  for (const auto& t : r.tables)
    for (const auto& [name, values] : t.rows)
      for (std::size_t c = 0; c < t.columns.size(); ++c)
        if (!std::isnan(values[c]))
          out += fmt::format("{},{},{}.{},,{:.9g},{},\n", t.section, t.component, name, t.columns[c], values[c],
                             t.units[c]);
  return out;
}

nlohmann::ordered_json report_json(const EnergyAreaReport& r) {
  nlohmann::ordered_json j;
  j["dir"] = r.dir;
  for (const char* key :
       {"experiment", "config_hash", "simulated_time_s", "energy_j", "area_mm2", "avg_power_w", "peak_power_w"})
    if (r.summary.contains(key)) j[key] = r.summary[key];
  j["components"] = nlohmann::ordered_json::array();
  for (const auto& c : r.components) {
    nlohmann::ordered_json jc;
    jc["name"] = c.name;
    jc["energy_j"] = c.energy_j;
    jc["area_mm2"] = c.area_mm2;
    jc["static_power_w"] = c.static_power_w;
    jc["events"] = nlohmann::ordered_json::array();
    for (const auto& e : c.events)
      jc["events"].push_back({{"name", e.name}, {"count", e.count}, {"energy_j", e.energy_j}});
    jc["area"] = nlohmann::ordered_json::array();
    for (const auto& p : c.parts) jc["area"].push_back({{"part", p.name}, {"area_mm2", p.area_mm2}});
    j["components"].push_back(std::move(jc));
  }
  for (const auto& t : r.tables) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& [name, values] : t.rows) {
      nlohmann::ordered_json row;
      row["name"] = name;
      for (std::size_t c = 0; c < t.columns.size(); ++c)
        if (!std::isnan(values[c])) row[t.columns[c]] = values[c];
      rows.push_back(std::move(row));
    }
    j[t.section].push_back({{"component", t.component}, {"rows", std::move(rows)}});
  }
  return j;
}

}  // namespace strata
