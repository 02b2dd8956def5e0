// Fuzzes unit strings (sim/units.h): parse_quantity for the family picked by the first byte (mod
// the 13 families; seeds use 'A'.. for the families in declaration order), the rest as the text;
// a parsed value is formatted back with format_quantity. UnitError is the expected rejection.
#include "fuzz_util.h"
#include "sim/units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto family = static_cast<strata::UnitFamily>((data[0] - 'A' + 256) % 13);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const double v = strata::parse_quantity(text, family);
    strata::format_quantity(v, family);
  } catch (const strata::UnitError&) {
  }
  return 0;
}
