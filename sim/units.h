// Physical quantities written as strings in configs: "1.6 GHz", "625 ps", "64 KiB", "3.35 TB/s".
//
// Every quantity is converted to one SI base unit per family (Hz, s, byte, byte/s, J, W, mm²,
// V, A, J/bit, J/bit/mm, W/mm²) so that "1600 MHz" and "1.6 GHz" compare and hash as the same value. Decimal prefixes
// (k, M, G, T) are powers of 1000 and binary prefixes (Ki, Mi, Gi, Ti) powers of 1024, as in
// IEC 80000-13. A lower-case "b" or "bit" counts bits: "8 Gb" is 1e9 bytes, "25.6 Gb/s" 3.2 GB/s.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

// EnergyPerBit ("0.5 pJ/bit"), WireEnergy (energy per bit per mm, "0.15 pJ/bit/mm") and
// PowerDensity ("12 mW/mm2") are the technology tables' rates.
enum class UnitFamily {
  Frequency,
  Time,
  Size,
  Bandwidth,
  Energy,
  Power,
  Area,
  Voltage,
  Current,
  EnergyPerBit,
  WireEnergy,
  PowerDensity,
  Length,
  Temperature
};

// The family's base unit as written in output, e.g. "Hz" for Frequency.
const char* base_unit(UnitFamily family);
// A human name with an example, e.g. "a frequency such as \"1.6 GHz\"".
const char* family_description(UnitFamily family);
const char* family_name(UnitFamily family);

// Thrown for text that is not a valid quantity of the requested family; the message is one
// line meant to follow "key: ".
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses "<number> <unit>" (space optional) into the family's base unit. Throws UnitError for
// a missing or unknown unit, a unit of another family, or a malformed number; the message
// suggests the intended unit when the spelling is close ("ghz" -> "GHz").
double parse_quantity(std::string_view text, UnitFamily family);

// Formats a base-unit value with the largest prefix that keeps the mantissa >= 1, e.g.
// 1.6e9 Hz -> "1.6 GHz", with at most `digits` significant digits.
std::string format_quantity(double value, UnitFamily family, int digits = 12);

// Every unit spelling accepted for a family (for documentation and `strata list`).
std::vector<std::string> unit_spellings(UnitFamily family);

}  // namespace strata
