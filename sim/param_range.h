// A parameter's allowed range as text, for error messages and `strata list`.
#pragma once

#include <string>

#include "sim/schema.h"

namespace strata {

// "[lo, hi]", "(lo, hi]" (a rate's default lower bound: above 0), "at least lo", "above lo",
// "at most hi"; empty for a parameter without bounds.
std::string range_text(const ParamSpec& p);

}  // namespace strata
