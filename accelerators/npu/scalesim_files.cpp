// SCALE-Sim's file formats: scalesim/scale_config.py (configparser INI), scalesim/
// topology_utils.py (topology CSV) and scalesim/simulator.py generate_reports (report CSVs).
#include "accelerators/npu/scalesim_files.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/input_file.h"
#include "sim/text.h"

namespace strata::scalesim {

namespace {

std::vector<std::string> read_lines(const std::string& path, const char* what) {
  std::ifstream in;
  open_input_file(in, path, fmt::format("{} file", what));
  std::vector<std::string> lines;
  for (std::string line; read_line(in, line);) {
    // Layer and run names reach the JSON results: text that is not UTF-8 is refused here.
    require_utf8(line, path, static_cast<int>(lines.size() + 1));
    lines.push_back(std::move(line));
  }
  return lines;
}

// Python's int() of a stripped field: optional sign, decimal digits.
std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  std::string digits(s);
  if (digits.empty()) return std::nullopt;
  std::size_t i = (digits[0] == '+' || digits[0] == '-') ? 1 : 0;
  if (i == digits.size()) return std::nullopt;
  for (std::size_t j = i; j < digits.size(); ++j)
    if (digits[j] < '0' || digits[j] > '9') return std::nullopt;
  errno = 0;
  const long long v = std::strtoll(digits.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return v;
}

// ---------------------------------------------------------------------------------------------
// Config (scale_config.read_conf_file).

struct IniValue {
  std::string text;
  int line = 0, column = 0;
};

class Ini {
 public:
  explicit Ini(const std::string& path) : path_(path) {
    const auto lines = read_lines(path, "SCALE-Sim config");
    std::string section;
    for (std::size_t n = 0; n < lines.size(); ++n) {
      const int line_no = static_cast<int>(n + 1);
      const std::string_view raw = lines[n];
      const std::string_view s = trim(raw);
      if (s.empty() || s[0] == '#' || s[0] == ';') continue;
      const int indent = static_cast<int>(raw.find_first_not_of(" \t"));
      if (s.front() == '[') {
        if (s.back() != ']') throw InputError(loc(line_no, indent + 1), "", "section header lacks its ']'");
        section = std::string(trim(s.substr(1, s.size() - 2)));
        if (!sections_.insert(section).second)
          throw InputError(loc(line_no, indent + 1), "", fmt::format("section [{}] appears twice", section));
        continue;
      }
      const std::size_t delim = s.find_first_of("=:");
      if (delim == std::string_view::npos)
        throw InputError(loc(line_no, indent + 1), std::string(s), "expected 'key = value' or 'key: value'");
      const std::string key = lower(trim(s.substr(0, delim)));
      if (section.empty()) throw InputError(loc(line_no, indent + 1), key, "key outside any [section]");
      const std::string_view value = trim(s.substr(delim + 1));
      const std::size_t value_at = value.empty() ? s.size() : static_cast<std::size_t>(value.data() - s.data());
      if (!values_.emplace(std::pair(section, key), IniValue{std::string(value), line_no,
                                                             indent + 1 + static_cast<int>(value_at)})
               .second)
        throw InputError(loc(line_no, indent + 1), key, fmt::format("appears twice in [{}]", section));
    }
  }

  const IniValue* find(const std::string& section, const std::string& key) const {
    const auto it = values_.find({section, lower(key)});
    return it == values_.end() ? nullptr : &it->second;
  }
  // `key` in SCALE-Sim's spelling, for messages.
  const IniValue& get(const std::string& section, const std::string& key) const {
    if (const IniValue* v = find(section, key)) return *v;
    std::string msg = fmt::format("missing required key in [{}]", section);
    if (!sections_.count(section)) msg += fmt::format(" (the file has no [{}] section)", section);
    throw InputError(SourceLoc{path_}, key, msg);
  }
  std::int64_t get_int(const std::string& section, const std::string& key, std::int64_t min) const {
    const IniValue& v = get(section, key);
    const auto n = parse_int(v.text);
    if (!n) throw InputError(loc(v), key, fmt::format("'{}' is not an integer", v.text));
    if (*n < min)
      throw InputError(loc(v), key, fmt::format("{} is out of range (must be {})", *n, min > 0 ? "positive" : "at least 0"));
    return *n;
  }
  SourceLoc loc(const IniValue& v) const { return SourceLoc{path_, v.line, v.column}; }
  SourceLoc loc(int line, int column) const { return SourceLoc{path_, line, column}; }

 private:
  std::string path_;
  std::set<std::string> sections_;
  std::map<std::pair<std::string, std::string>, IniValue> values_;
};

}  // namespace

ScaleSimConfig read_config(const std::string& path) {
  const Ini ini(path);
  ScaleSimConfig cfg;
  cfg.where = SourceLoc{path};
  cfg.run_name = ini.get("general", "run_name").text;

  const IniValue& mode = ini.get("run_presets", "InterfaceBandwidth");
  if (mode.text == "USER")
    throw InputError(ini.loc(mode), "InterfaceBandwidth",
                     "USER mode (stalls under a given DRAM bandwidth) is not reproduced; only CALC is");
  if (mode.text != "CALC")
    throw InputError(ini.loc(mode), "InterfaceBandwidth", fmt::format("'{}' is neither CALC nor USER", mode.text));

  const std::string arch = "architecture_presets";
  ArrayConfig& a = cfg.array;
  a.rows = ini.get_int(arch, "ArrayHeight", 1);
  a.cols = ini.get_int(arch, "ArrayWidth", 1);
  a.ifmap_sram_kb = ini.get_int(arch, "IfmapSramSzkB", 1);
  a.filter_sram_kb = ini.get_int(arch, "FilterSramSzkB", 1);
  a.ofmap_sram_kb = ini.get_int(arch, "OfmapSramSzkB", 1);
  a.ifmap_offset = ini.get_int(arch, "IfmapOffset", 0);
  a.filter_offset = ini.get_int(arch, "FilterOffset", 0);
  a.ofmap_offset = ini.get_int(arch, "OfmapOffset", 0);
  const IniValue& df = ini.get(arch, "Dataflow");
  // scale_config keeps the string as written and single_layer_sim compares it with 'os', 'ws'
  // and 'is'; anything else would silently run its default (os), so it is an error here.
  if (df.text == "os") a.dataflow = Dataflow::OutputStationary;
  else if (df.text == "ws") a.dataflow = Dataflow::WeightStationary;
  else if (df.text == "is") a.dataflow = Dataflow::InputStationary;
  else throw InputError(ini.loc(df), "Dataflow", fmt::format("unknown dataflow '{}' (os, ws or is)", df.text));
  // Read only in USER mode by SCALE-Sim; kept when they are plain integers.
  if (const IniValue* bw = ini.find(arch, "Bandwidth"))
    if (const auto n = parse_int(bw->text); n && *n > 0) a.bandwidth = *n;
  if (ini.find(arch, "MemoryBanks")) a.memory_banks = ini.get_int(arch, "MemoryBanks", 1);
  return cfg;
}

// ---------------------------------------------------------------------------------------------
// Topology (topology_utils.load_arrays_conv / load_arrays_gemm).

namespace {

struct Field {
  std::string text;
  int column;  // 1-based
};

// Splits a CSV line at commas, trimming fields; a trailing comma ends the row (SCALE-Sim drops
// the last split element), so the empty field after it is dropped.
std::vector<Field> split_fields(const std::string& line) {
  std::vector<Field> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    const std::string_view raw = std::string_view(line).substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string_view t = trim(raw);
    const std::size_t at = t.empty() ? start : start + static_cast<std::size_t>(t.data() - raw.data());
    out.push_back({std::string(t), static_cast<int>(at + 1)});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() > 1 && out.back().text.empty()) out.pop_back();
  return out;
}

}  // namespace

// The largest value of one topology field: SCALE-Sim's own sizes are far below it.
constexpr std::int64_t kMaxDimension = 2147483647;

Topology read_topology(const std::string& path) {
  const auto lines = read_lines(path, "topology");
  Topology topo;
  std::vector<std::string> header;   // as written
  std::vector<std::string> lheader;  // lower-case
  std::size_t required = 0;
  int batch_col = -1, stride_w_col = -1;
  std::map<std::string, int> names;  // layer name -> line
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const int line_no = static_cast<int>(n + 1);
    if (trim(lines[n]).empty()) continue;
    const auto fields = split_fields(lines[n]);
    // A row of empty cells (a spreadsheet export; SCALE-Sim's own Resnet50.csv has one) is blank.
    if (std::all_of(fields.begin(), fields.end(), [](const Field& f) { return f.text.empty(); })) continue;
    if (header.empty()) {
      for (const Field& f : fields) header.push_back(f.text), lheader.push_back(lower(f.text));
      if (lheader.size() >= 4 && lheader[1] == "m" && lheader[2] == "n" && lheader[3] == "k") {
        topo.gemm = true, required = 4;
      } else if (lheader.size() >= 8 && lheader[1].rfind("ifmap height", 0) == 0) {
        required = 8;
      } else {
        throw InputError(SourceLoc{path, line_no, 1}, "header",
                         "expected 'Layer, M, N, K,' (GEMM) or 'Layer name, IFMAP Height, IFMAP Width, Filter Height, "
                         "Filter Width, Channels, Num Filter, Strides,' (convolution)");
      }
      for (std::size_t c = required; c < lheader.size(); ++c) {
        if (lheader[c].find("batch") != std::string::npos) batch_col = static_cast<int>(c);
        else if (!topo.gemm && lheader[c].find("stride") != std::string::npos) stride_w_col = static_cast<int>(c);
      }
      continue;
    }
    if (fields.size() < required) {
      const Field& last = fields.back();
      throw InputError(SourceLoc{path, line_no, last.column + static_cast<int>(last.text.size())}, header[fields.size()],
                       fmt::format("missing value: the row has {} of {} columns", fields.size(), required));
    }
    auto value = [&](std::size_t c) {
      const auto v = parse_int(fields[c].text);
      if (!v) throw InputError(SourceLoc{path, line_no, fields[c].column}, header[c],
                               fmt::format("'{}' is not an integer", fields[c].text));
      if (*v < 1) throw InputError(SourceLoc{path, line_no, fields[c].column}, header[c],
                                   fmt::format("{} must be positive", *v));
      if (*v > kMaxDimension)
        throw InputError(SourceLoc{path, line_no, fields[c].column}, header[c],
                         fmt::format("{} is above the largest dimension, {} (2^31 - 1)", *v, kMaxDimension));
      return *v;
    };
    Layer l;
    const std::string name = fields[0].text;
    // Reports and the operator graph name layers; two of one name would be one operator twice.
    if (const auto [at, fresh] = names.emplace(name, line_no); !fresh)
      throw InputError(SourceLoc{path, line_no, fields[0].column}, header[0],
                       fmt::format("layer name '{}' is used twice (first on line {})", printable(name, 80), at->second));
    if (topo.gemm) {
      l = gemm_layer(name, value(1), value(2), value(3));
    } else {
      l.name = name;
      l.ifmap_h = value(1), l.ifmap_w = value(2), l.filter_h = value(3), l.filter_w = value(4);
      l.channels = value(5), l.num_filters = value(6), l.stride = value(7);
      if (stride_w_col >= 0 && static_cast<std::size_t>(stride_w_col) < fields.size()) l.stride_w = value(stride_w_col);
      // topology_utils.append_topo_arrays asserts the filter fits in the ifmap.
      for (const std::size_t c : {std::size_t{3}, std::size_t{4}}) {
        const std::int64_t filter = c == 3 ? l.filter_h : l.filter_w, ifmap = c == 3 ? l.ifmap_h : l.ifmap_w;
        if (filter > ifmap)
          throw InputError(SourceLoc{path, line_no, fields[c].column}, header[c],
                           fmt::format("filter ({}) larger than the ifmap ({})", filter, ifmap));
      }
    }
    {
      // Element counts are products of these in 64-bit integers: the GEMM view's operands must
      // stay below 2^62 elements (found with dimensions near 2^63, issue 18).
      const double m = static_cast<double>(l.ofmap_pixels()), n = static_cast<double>(l.num_filters),
                   k = static_cast<double>(l.filter_h) * static_cast<double>(l.filter_w) * static_cast<double>(l.channels);
      if (std::max({m * k, n * k, m * n}) > 0x1p62)
        throw InputError(SourceLoc{path, line_no, fields[1].column}, header[1],
                         fmt::format("the layer's operands would hold more than 2^62 elements (M {:.0f}, N {:.0f}, K {:.0f})", m, n, k));
    }
    if (batch_col >= 0 && static_cast<std::size_t>(batch_col) < fields.size()) {
      l.batch = value(batch_col);
      if (l.batch != 1)
        throw InputError(SourceLoc{path, line_no, fields[batch_col].column}, header[batch_col],
                         "only batch 1 is reproduced (SCALE-Sim v2 simulates batch 1)");
    }
    if (!topo.gemm && name.find("DP") != std::string::npos) {
      const std::int64_t channels = l.channels;
      // A depthwise layer becomes one layer per channel, so bound the total: fuzzing
      // (tests/fuzz/regressions/scalesim_topology/) found that a channel count such as 888888884
      // made this loop build ~10^9 layers (minutes, tens of GB) instead of failing.
      constexpr std::int64_t kMaxLayers = 100000;
      if (channels > kMaxLayers - static_cast<std::int64_t>(topo.layers.size()))
        throw InputError(SourceLoc{path, line_no, fields[5].column}, header[5],
                         fmt::format("a depthwise (DP) layer becomes one layer per channel; {} channels make more "
                                     "than {} layers",
                                     channels, kMaxLayers));
      l.channels = 1;
      l.depthwise = true;
      for (std::int64_t c = 0; c < channels; ++c) {
        Layer per_channel = l;
        per_channel.name = name + "Channel_" + std::to_string(c);
        topo.layers.push_back(per_channel);
      }
    } else {
      topo.layers.push_back(l);
    }
  }
  if (header.empty()) throw InputError(SourceLoc{path}, "", "empty topology file");
  if (topo.layers.empty()) throw InputError(SourceLoc{path}, "", "the topology has no layers");
  return topo;
}

// ---------------------------------------------------------------------------------------------
// Reports (simulator.generate_reports): "LayerID, " then the items joined by ", " and a
// trailing ",\n"; items are printed with Python's str(): ints as ints, floats (utilisations,
// bandwidths, and cycles, which are numpy floats there) as repr.

std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest digits that read back to v.
  char buf[40];
  int prec = 1;
  for (; prec < 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
  const std::string s = buf;
  const bool neg = s[0] == '-';
  const std::size_t e = s.find('e');
  std::string digits;
  for (std::size_t i = neg ? 1 : 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int exp10 = std::atoi(s.c_str() + e + 1);
  const int point = exp10 + 1;  // digits × 10^(point − len): CPython's decpt
  std::string out = neg ? "-" : "";
  if (v == 0) return out + "0.0";
  if (point <= -4 || point > 16) {  // CPython float_repr_style 'short': exponent form
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    return out + fmt::format("e{}{:02d}", exp10 < 0 ? '-' : '+', std::abs(exp10));
  }
  const int n = static_cast<int>(digits.size());
  if (point <= 0) return out + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  if (point >= n) return out + digits + std::string(static_cast<std::size_t>(point - n), '0') + ".0";
  return out + digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
}

namespace {

std::string cycle(std::int64_t c) { return python_float(static_cast<double>(c)); }

void write_atomically(const std::filesystem::path& file, const std::string& content) {
  const std::filesystem::path tmp = file.parent_path() / ("." + file.filename().string() + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot write " + file.string());
  }
}

}  // namespace

void write_reports(const std::string& dir, const std::vector<Layer>& layers, const std::vector<LayerReport>& reports) {
  if (layers.size() != reports.size()) throw std::invalid_argument("write_reports: one report per layer is needed");
  std::string compute = "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n";
  std::string bandwidth =
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, Avg FILTER DRAM BW, Avg "
      "OFMAP DRAM BW,\n";
  std::string detail =
      "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM Filter Start Cycle, SRAM Filter "
      "Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, DRAM IFMAP "
      "Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM "
      "Filter Reads, DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n";
  const auto& f = python_float;
  for (std::size_t id = 0; id < reports.size(); ++id) {
    const LayerReport& r = reports[id];
    compute += fmt::format("{}, {}, {}, {}, {}, {},\n", id, r.total_cycles, r.stall_cycles, f(r.overall_util_pct),
                           f(r.mapping_efficiency_pct), f(r.compute_util_pct));
    bandwidth += fmt::format("{}, {}, {}, {}, {}, {}, {},\n", id, f(r.avg_ifmap_sram_bw), f(r.avg_filter_sram_bw),
                             f(r.avg_ofmap_sram_bw), f(r.avg_ifmap_dram_bw), f(r.avg_filter_dram_bw),
                             f(r.avg_ofmap_dram_bw));
    detail += fmt::format(
        "{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},\n", id, cycle(r.sram_ifmap_start),
        cycle(r.sram_ifmap_stop), r.sram_ifmap_reads, cycle(r.sram_filter_start), cycle(r.sram_filter_stop),
        r.sram_filter_reads, cycle(r.sram_ofmap_start), cycle(r.sram_ofmap_stop), r.sram_ofmap_writes,
        cycle(r.dram_ifmap_start), cycle(r.dram_ifmap_stop), r.dram_ifmap_reads, cycle(r.dram_filter_start),
        cycle(r.dram_filter_stop), r.dram_filter_reads, cycle(r.dram_ofmap_start), cycle(r.dram_ofmap_stop),
        r.dram_ofmap_writes);
  }
  const std::filesystem::path d(dir);
  std::error_code ec;
  std::filesystem::create_directories(d, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  write_atomically(d / kReportFiles[0], compute);
  write_atomically(d / kReportFiles[1], bandwidth);
  write_atomically(d / kReportFiles[2], detail);
}

}  // namespace strata::scalesim
