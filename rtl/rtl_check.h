// `strata rtl-check RTLCHECK.yaml [-o DIR] [--backend systemc|cpp|both]`: runs a Verilog design
// beside a Strata reference model on one stimulus and reports, cycle by cycle and bit by bit,
// where they part. The spec is checked first (keys, the model, the ports and widths Verilator
// sees), so a bad spec fails with exit code 2 before anything is compiled. DIR (default
// results/<name>/) receives:
//   stimulus.txt          the stimulus both sides ran (generated, or a copy of the file)
//   events-model.txt      the model's handshakes; events-<backend>.txt the RTL's
//   report.json           per backend: match, first divergence (cycle, stream, port, expected,
//                         actual), per-stream beat and mismatch counts, model and RTL timing
//                         (first input, first and last output, latency), cycles simulated,
//                         seconds and cycles per second, build time
//   divergence.vcd        the RTL's waveform from vcd_window cycles before the first divergence
//                         to vcd_window after (plain C++ backend, which it builds if needed)
// Exit codes: 0 the RTL matches, 3 it diverges, 2 bad input.
#pragma once

#include <string>

namespace strata {

class Registry;

int rtl_check(const std::string& spec_path, const std::string& output, const std::string& backend, const Registry& registry);

}  // namespace strata
