// Verilator-specific pieces of the rtl-check flow (running programs is sim/process.h).
#pragma once

#include <string>

namespace strata {

// "verilator", or $STRATA_VERILATOR.
std::string verilator_program();

// The first line of `output` that reports an error (Verilator's "%Error", a compiler's
// "error:"), else its first line.
std::string first_error(const std::string& output);

}  // namespace strata
