// SCALE-Sim's own files: its INI config (.cfg, v2 and v3), its topology CSV (convolution or
// `-i gemm` form) and the three reports it writes (COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv,
// DETAILED_ACCESS_REPORT.csv, byte for byte as scalesim/simulator.py writes them), so users can
// bring their SCALE-Sim inputs and diff the outputs. SystemC-free.
//
// Every bad input throws strata::InputError naming the file, line (0: the whole file), column
// and key.
#pragma once

#include <string>
#include <vector>

#include "models/systolic/scalesim_compat.h"
#include "sim/input_error.h"

namespace strata::scalesim {

struct ScaleSimConfig {
  std::string run_name;       // [general] run_name: SCALE-Sim's output folder
  ArrayConfig array;          // [architecture_presets]
  bool calc_bandwidth = true;  // [run_presets] InterfaceBandwidth: CALC (USER is rejected)
  SourceLoc where;            // the file
};

// Reads a SCALE-Sim v2 or v3 config. Keys are matched case-insensitively (configparser lower-
// cases them), sections exactly; `Key: value`, `Key : value` and `key = value` all work; `#`
// and `;` start comment lines. Unknown keys and sections (v3's [layout], [sparsity],
// ReadRequestBuffer, WriteRequestBuffer, UseRamulatorTrace, ...) are ignored. Required:
// run_name, InterfaceBandwidth, ArrayHeight, ArrayWidth, IfmapSramSzkB, FilterSramSzkB,
// OfmapSramSzkB, IfmapOffset, FilterOffset, OfmapOffset, Dataflow (os, ws or is).
ScaleSimConfig read_config(const std::string& path);

struct Topology {
  std::vector<Layer> layers;
  bool gemm = false;  // the header was `Layer, M, N, K,`
};

// Reads a topology CSV. The header decides the form: `Layer, M, N, K,` (GEMM rows become
// gemm_layer()) or `Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width,
// Channels, Num Filter, Strides,` (convolutions; a ninth `Stride width` or `Batch Size` column
// is read by its header name). Rows may or may not end with a comma; blank lines are skipped.
// As in SCALE-Sim, a convolution whose name contains "DP" (depthwise) becomes one layer per
// channel, named <name>Channel_<i>, each with 1 channel.
Topology read_topology(const std::string& path);

// The reports' file names, in the order write_reports writes them.
inline const std::vector<std::string> kReportFiles = {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv",
                                                      "DETAILED_ACCESS_REPORT.csv"};

// Writes COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and DETAILED_ACCESS_REPORT.csv into `dir`
// (created if needed), one row per layer in order, each file written to a temporary name in
// `dir` and renamed into place. Throws std::runtime_error if a file cannot be written and
// std::invalid_argument if the two vectors differ in length.
void write_reports(const std::string& dir, const std::vector<Layer>& layers, const std::vector<LayerReport>& reports);

// Python's repr() of a float (shortest round-trip digits, "1.0", "1e-05", "1e+16"): how the
// reports print every non-integer value.
std::string python_float(double v);

}  // namespace strata::scalesim
