// The ports of a Verilog top module as Verilator elaborates them (`verilator --xml-only`, a
// fraction of a second, nothing compiled), so a port map can be checked before the design is
// built.
#pragma once

#include <map>
#include <string>

#include "rtl/rtl_spec.h"

namespace strata {

struct VerilogPort {
  std::string name;
  bool input = true;
  int width = 1;
};

// Throws InputError naming the spec file when Verilator rejects the design (its first error).
std::map<std::string, VerilogPort> verilog_ports(const RtlSpec& spec, const std::string& work_dir);

// Checks the spec's clock, reset and stream ports against the design's ports and the model's
// stream widths; throws InputError (file, line, key) at the first mismatch.
void check_port_map(const RtlSpec& spec, const std::map<std::string, VerilogPort>& ports);

}  // namespace strata
