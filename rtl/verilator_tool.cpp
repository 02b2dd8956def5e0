#include "rtl/verilator_tool.h"

#include <cstdlib>
#include <sstream>

namespace strata {

std::string verilator_program() {
  const char* e = std::getenv("STRATA_VERILATOR");
  return e && *e ? e : "verilator";
}

std::string first_error(const std::string& output) {
  std::istringstream in(output);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("%Error") != std::string::npos || line.find("error:") != std::string::npos) return line;
  }
  return first;
}

}  // namespace strata
