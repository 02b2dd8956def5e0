// The C++ source of the program that runs a Verilated design on a stimulus file and writes
// every handshake that fires (see rtl_build.h). One template serves both Verilator outputs:
// STRATA_RTL_SYSTEMC selects the SystemC module (driven through sc_signals, time advanced by
// sc_start) or the plain C++ model (eval()). The generated part, ports.inc, defines the port
// accessors for the design at hand.
#pragma once

namespace strata {
extern const char* const kRtlRunnerSource;
}
