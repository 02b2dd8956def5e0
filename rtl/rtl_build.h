// Building and running a Verilated design for rtl-check: the runner program (runner_template.h)
// plus generated port glue, compiled by CMake with find_package(verilator) and verilate()
// (SYSTEMC for the SystemC backend, linked with Debian's SystemC), cached by the content of
// everything that goes into it. ccache, when installed, makes rebuilds of the Verilator
// runtime cheap.
//   cache: $STRATA_RTL_CACHE, else $XDG_CACHE_HOME/strata/rtl, else ~/.cache/strata/rtl
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "rtl/rtl_spec.h"
#include "rtl/verilog_ports.h"

namespace strata {

struct RtlBuild {
  std::string runner;  // the executable
  bool cached = false;
  double build_s = 0;
};

// Throws InputError (naming the spec) when the design does not compile.
RtlBuild build_runner(const RtlSpec& spec, const std::map<std::string, VerilogPort>& ports, const std::string& backend);

struct RtlRun {
  std::uint64_t cycles = 0;
  double seconds = 0;
};

// Runs the runner on a stimulus file, writing its handshake events; with `vcd`, dumps the
// waveform from cycle `from` to `to`.
RtlRun run_runner(const RtlBuild& b, const std::string& stimulus, const std::string& events, std::size_t expected_outputs,
                  std::uint64_t max_cycles, const std::string& vcd = "", std::uint64_t from = 0, std::uint64_t to = 0);

}  // namespace strata
