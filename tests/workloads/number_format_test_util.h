// Looking up number formats by name in the format tests.
#pragma once

#include <stdexcept>
#include <string>

#include "sim/number_format.h"

namespace strata::testing {

// The registered format `name`; a test that names an unknown one fails with an exception.
inline const NumberFormat& fmt_of(const char* name) {
  const NumberFormat* f = find_number_format(name);
  if (f == nullptr) throw std::runtime_error(std::string("no format ") + name);
  return *f;
}

}  // namespace strata::testing
