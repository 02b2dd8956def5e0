// An rtl-check file: a Verilog design, the Strata reference model it must match, how the RTL's
// ports map onto the model's streams, and the stimulus. Every key, documented once:
//
//   name: systolic-4x4            names results/<name>/ (default: the file's stem)
//   rtl:
//     sources: [tile.v, pe.v]     Verilog/SystemVerilog files, relative to this file
//     top: systolic_tile          the top module
//     parameters: {N: 4}          top-module parameters (verilator -G)
//     defines: [MUTATE_TIMING]    preprocessor defines (+define+)
//     clock: clk                  the clock input (one rising edge per cycle)
//     reset: {port: rst_n, active: low, cycles: 4}   held active for `cycles` edges first
//   model:
//     kind: systolic_array        a reference model kind (docs/rtl-validation.md)
//     rows: 4                     ...and its parameters
//   streams:                      one entry per model stream, by the model's stream name
//     a: {valid: a_valid, ready: a_ready, data: a_data, last: a_last}
//     c: {valid: c_valid, ready: c_ready, data: c_data, last: c_last, latency_tolerance: 0}
//                                 data: one port, or a list of ports concatenated (first in the
//                                 low bits); their widths must add up to the stream's width;
//                                 ready may be omitted for an always-ready input; last is
//                                 required where the model's stream has one; latency_tolerance
//                                 (output streams): cycles a beat may be early or late
//   stimulus:
//     generate: {transactions: 8, length: 16, seed: 1, bubbles: 0.1, stalls: 0.1}
//                                 the model's own generator: transactions (tiles, dot products)
//                                 of `length` beats, input gaps and output stalls per cycle
//     file: stim.txt              or a recorded stimulus (format in stimulus.h)
//   backend: both                 systemc (verilator --sc), cpp (plain C++) or both
//   vcd_window: 16                cycles of RTL waveform kept each side of the first divergence
//   max_cycles: 10000000          a run stops here
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/schema.h"

namespace strata {

class Registry;

class ReferenceModel;

struct StreamPorts {
  std::string stream;  // model stream name
  std::string valid, ready, last;
  std::vector<std::string> data;
  int latency_tolerance = 0;
  SourceLoc loc;
};

struct RtlSpec {
  std::string file, name;
  std::vector<std::string> sources;  // absolute
  std::string top;
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<std::string> defines;
  std::string clock, reset;
  bool reset_active_low = true;
  int reset_cycles = 4;
  ValidatedNode model;
  std::shared_ptr<const ReferenceModel> reference;  // made from `model`
  std::vector<StreamPorts> streams;
  SourceLoc streams_loc;
  // stimulus
  std::string stimulus_file;  // absolute, or empty: generate
  int transactions = 8, length = 16;
  std::uint64_t seed = 1;
  double bubbles = 0, stalls = 0;
  std::vector<std::string> backends;  // "systemc", "cpp"
  int vcd_window = 16;
  std::uint64_t max_cycles = 10000000;
  ConfigNode config;  // for error locations
};

// Throws InputError (file, line, key) for anything wrong, before anything is compiled.
RtlSpec load_rtl_spec(const std::string& path, const Registry& registry);

}  // namespace strata
