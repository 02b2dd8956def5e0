// Running Verilator and the build tools from the rtl-check flow.
#pragma once

#include <string>
#include <vector>

namespace strata {

struct ToolResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `program args...` (no shell) and captures its output.
ToolResult run_tool(const std::string& program, const std::vector<std::string>& args, const std::string& cwd = "");

// "verilator", or $STRATA_VERILATOR.
std::string verilator_program();

// The first line of `output` that reports an error (Verilator's "%Error", a compiler's
// "error:"), else its first line.
std::string first_error(const std::string& output);

}  // namespace strata
