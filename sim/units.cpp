#include "sim/units.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/text.h"

namespace strata {
namespace {

struct Unit {
  UnitFamily family;
  double scale;       // base units per one of this unit
  double offset = 0;  // base units at zero of this unit (degrees Celsius are kelvins less 273.15)
};

// Prefix table shared by the families that take decimal prefixes.
struct Prefix {
  const char* text;
  double scale;
};
constexpr Prefix kSmallPrefixes[] = {{"", 1.0},    {"m", 1e-3},  {"u", 1e-6}, {"µ", 1e-6},
                                     {"n", 1e-9},  {"p", 1e-12}, {"f", 1e-15}};
constexpr Prefix kLargePrefixes[] = {{"", 1.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6},
                                     {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
constexpr Prefix kBinaryPrefixes[] = {{"Ki", 1024.0},
                                      {"Mi", 1024.0 * 1024},
                                      {"Gi", 1024.0 * 1024 * 1024},
                                      {"Ti", 1024.0 * 1024 * 1024 * 1024},
                                      {"Pi", 1024.0 * 1024 * 1024 * 1024 * 1024}};

std::map<std::string, Unit> build_table() {
  std::map<std::string, Unit> t;
  auto add = [&t](const std::string& s, UnitFamily f, double scale) { t.emplace(s, Unit{f, scale}); };
  for (const auto& p : kLargePrefixes) {
    if (std::string(p.text) == "K") continue;  // "KHz" is not a unit; "kHz" is
    add(std::string(p.text) + "Hz", UnitFamily::Frequency, p.scale);
  }
  for (const auto& p : kSmallPrefixes) add(std::string(p.text) + "s", UnitFamily::Time, p.scale);
  // Sizes and bandwidths: bytes (B) and bits (b, bit), decimal and binary prefixes.
  for (const auto& p : kLargePrefixes) {
    add(std::string(p.text) + "B", UnitFamily::Size, p.scale);
    add(std::string(p.text) + "b", UnitFamily::Size, p.scale / 8);
    add(std::string(p.text) + "bit", UnitFamily::Size, p.scale / 8);
    add(std::string(p.text) + "B/s", UnitFamily::Bandwidth, p.scale);
    add(std::string(p.text) + "b/s", UnitFamily::Bandwidth, p.scale / 8);
    add(std::string(p.text) + "bps", UnitFamily::Bandwidth, p.scale / 8);
  }
  for (const auto& p : kBinaryPrefixes) {
    add(std::string(p.text) + "B", UnitFamily::Size, p.scale);
    add(std::string(p.text) + "b", UnitFamily::Size, p.scale / 8);
    add(std::string(p.text) + "B/s", UnitFamily::Bandwidth, p.scale);
  }
  for (const auto& p : kSmallPrefixes) {
    add(std::string(p.text) + "J", UnitFamily::Energy, p.scale);
    add(std::string(p.text) + "W", UnitFamily::Power, p.scale);
    add(std::string(p.text) + "V", UnitFamily::Voltage, p.scale);
    add(std::string(p.text) + "A", UnitFamily::Current, p.scale);
    for (const char* bit : {"/bit", "/b"}) {
      add(std::string(p.text) + "J" + bit, UnitFamily::EnergyPerBit, p.scale);
      add(std::string(p.text) + "J" + bit + "/mm", UnitFamily::WireEnergy, p.scale);
    }
    for (const char* sq : {"2", "^2", "²"}) {
      add(std::string(p.text) + "W/mm" + sq, UnitFamily::PowerDensity, p.scale);
      add(std::string(p.text) + "W/um" + sq, UnitFamily::PowerDensity, p.scale * 1e6);
      add(std::string(p.text) + "W/µm" + sq, UnitFamily::PowerDensity, p.scale * 1e6);
    }
  }
  add("kJ", UnitFamily::Energy, 1e3);
  add("kW", UnitFamily::Power, 1e3);
  // Areas, in mm² as the base because that is how chips are compared.
  for (const char* sq : {"2", "^2", "²"}) {
    add(std::string("mm") + sq, UnitFamily::Area, 1.0);
    add(std::string("um") + sq, UnitFamily::Area, 1e-6);
    add(std::string("µm") + sq, UnitFamily::Area, 1e-6);
    add(std::string("cm") + sq, UnitFamily::Area, 100.0);
  }
  // Lengths (wires, links), in mm like areas.
  add("mm", UnitFamily::Length, 1.0);
  add("um", UnitFamily::Length, 1e-3);
  add("µm", UnitFamily::Length, 1e-3);
  add("cm", UnitFamily::Length, 10.0);
  // Temperatures, in kelvins (an interval is written in K: "25 K").
  add("K", UnitFamily::Temperature, 1.0);
  for (const char* c : {"C", "°C", "degC"}) t.emplace(c, Unit{UnitFamily::Temperature, 1.0, 273.15});
  return t;
}

const std::map<std::string, Unit>& table() {
  static const std::map<std::string, Unit> t = build_table();
  return t;
}

// Prefixes used when formatting, largest first.
std::vector<Prefix> format_prefixes(UnitFamily f) {
  switch (f) {
    case UnitFamily::Frequency:
    case UnitFamily::Bandwidth:
      return {{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1}};
    case UnitFamily::Size:
      return {{"Ti", 1024.0 * 1024 * 1024 * 1024}, {"Gi", 1024.0 * 1024 * 1024}, {"Mi", 1024.0 * 1024},
              {"Ki", 1024.0}, {"", 1}};
    case UnitFamily::Area:
      return {{"m", 1}, {"µ", 1e-6}};
    case UnitFamily::Length:
      return {{"m", 1}, {"µ", 1e-3}};
    case UnitFamily::Temperature: return {{"", 1}};
    default:
      return {{"", 1}, {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}, {"p", 1e-12}, {"f", 1e-15}};
  }
}

}  // namespace

const char* family_name(UnitFamily f) {
  switch (f) {
    case UnitFamily::Frequency: return "frequency";
    case UnitFamily::Time: return "time";
    case UnitFamily::Size: return "size";
    case UnitFamily::Bandwidth: return "bandwidth";
    case UnitFamily::Energy: return "energy";
    case UnitFamily::Power: return "power";
    case UnitFamily::Area: return "area";
    case UnitFamily::Voltage: return "voltage";
    case UnitFamily::Current: return "current";
    case UnitFamily::EnergyPerBit: return "energy per bit";
    case UnitFamily::WireEnergy: return "wire energy";
    case UnitFamily::PowerDensity: return "power density";
    case UnitFamily::Length: return "length";
    case UnitFamily::Temperature: return "temperature";
  }
  return "?";
}

const char* base_unit(UnitFamily f) {
  switch (f) {
    case UnitFamily::Frequency: return "Hz";
    case UnitFamily::Time: return "s";
    case UnitFamily::Size: return "B";
    case UnitFamily::Bandwidth: return "B/s";
    case UnitFamily::Energy: return "J";
    case UnitFamily::Power: return "W";
    case UnitFamily::Area: return "mm2";
    case UnitFamily::Voltage: return "V";
    case UnitFamily::Current: return "A";
    case UnitFamily::EnergyPerBit: return "J/bit";
    case UnitFamily::WireEnergy: return "J/bit/mm";
    case UnitFamily::PowerDensity: return "W/mm2";
    case UnitFamily::Length: return "mm";
    case UnitFamily::Temperature: return "K";
  }
  return "?";
}

const char* family_description(UnitFamily f) {
  switch (f) {
    case UnitFamily::Frequency: return "a frequency such as \"1.6 GHz\"";
    case UnitFamily::Time: return "a time such as \"625 ps\"";
    case UnitFamily::Size: return "a size such as \"64 KiB\"";
    case UnitFamily::Bandwidth: return "a bandwidth such as \"3.35 TB/s\"";
    case UnitFamily::Energy: return "an energy such as \"12 pJ\"";
    case UnitFamily::Power: return "a power such as \"350 mW\"";
    case UnitFamily::Area: return "an area such as \"6.5 mm2\"";
    case UnitFamily::Voltage: return "a voltage such as \"1.1 V\"";
    case UnitFamily::Current: return "a current such as \"55 mA\"";
    case UnitFamily::EnergyPerBit: return "an energy per bit such as \"0.5 pJ/bit\"";
    case UnitFamily::WireEnergy: return "a wire energy such as \"0.15 pJ/bit/mm\"";
    case UnitFamily::PowerDensity: return "a power density such as \"12 mW/mm2\"";
    case UnitFamily::Length: return "a length such as \"1.5 mm\"";
    case UnitFamily::Temperature: return "a temperature such as \"65 C\" or \"338 K\"";
  }
  return "?";
}

double parse_quantity(std::string_view text, UnitFamily family) {
  const std::string_view s = trim(text);
  const std::string want = family_description(family);
  if (s.empty()) throw UnitError(fmt::format("expected {}, got an empty value", want));
  // The number: from_chars is locale-independent, unlike strtod.
  double value = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin)
    throw UnitError(fmt::format("expected {}, got \"{}\"", want, s));
  if (!std::isfinite(value)) throw UnitError(fmt::format("\"{}\" is not a finite number", s));
  const std::string unit(trim(std::string_view(ptr, static_cast<size_t>(end - ptr))));
  if (unit.empty())
    throw UnitError(fmt::format("\"{}\" has no unit; expected {}", s, want));
  const auto& t = table();
  if (auto it = t.find(unit); it != t.end()) {
    if (it->second.family != family)
      throw UnitError(fmt::format("\"{}\" is a {}, expected {}", s, family_name(it->second.family), want));
    return value * it->second.scale + it->second.offset;
  }
  // Unknown spelling: suggest a unit of the right family that differs only in case or by a
  // small edit.
  std::vector<std::string> candidates = unit_spellings(family);
  for (const auto& c : candidates)
    if (lower(c) == lower(unit)) throw UnitError(fmt::format("unknown unit \"{}\" in \"{}\" (did you mean \"{}\"?)", unit, s, c));
  if (auto best = closest_match(unit, candidates))
    throw UnitError(fmt::format("unknown unit \"{}\" in \"{}\" (did you mean \"{}\"?)", unit, s, *best));
  throw UnitError(fmt::format("unknown unit \"{}\" in \"{}\"; expected {}", unit, s, want));
}

std::string format_quantity(double value, UnitFamily family, int digits) {
  const char* base = base_unit(family);
  std::string unit_tail = base;
  if (family == UnitFamily::Area) unit_tail = "m2";
  if (family == UnitFamily::Length) unit_tail = "m";
  if (value == 0) return fmt::format("0 {}", base);
  for (const auto& p : format_prefixes(family)) {
    if (std::fabs(value) >= p.scale * (1 - 1e-12) || p.scale == format_prefixes(family).back().scale)
      return fmt::format("{:.{}g} {}{}", value / p.scale, digits, p.text, unit_tail);
  }
  return fmt::format("{:.{}g} {}", value, digits, base);
}

std::vector<std::string> unit_spellings(UnitFamily family) {
  std::vector<std::string> out;
  for (const auto& [text, unit] : table())
    if (unit.family == family) out.push_back(text);
  return out;
}

}  // namespace strata
