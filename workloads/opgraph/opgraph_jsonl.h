// The on-disk form of an OpGraph: JSON Lines, schema version 1. Strata writes it
// (`strata trace export`) and reads it back unchanged (workload kind `op_trace`), so operator
// traces captured elsewhere can be brought in. The format is documented in docs/workloads.md.
//
//   line 1     {"format": "strata-opgraph", "version": 1, "name": ..., "provenance": {...},
//               "parameters": N, "active_parameters": N}            (the last two optional)
//   tensors    {"tensor": "l0.wq", "class": "weights", "shape": [4096, 4096], "format": "fp16",
//               "bytes": 33554432}           ("bytes" optional unless format is "index";
//                                              format "mixed" adds "parts": [{"format", "elements"}])
//   operators  {"op": 0, "name": "l0.q_proj", "kind": "gemm", "dims": {"m": 1, "n": 4096, "k": 4096},
//               "inputs": ["x", "l0.wq"], "outputs": ["l0.q"], "deps": [],
//               "compute": "fp16", "accumulate": "fp32", "layer": 0, "device": -1,
//               "group_sizes": [...]}        (grouped_gemm only; compute, accumulate, layer,
//                                             device, deps optional)
// Blank lines and lines starting with '#' are skipped. A tensor is declared before an operator
// uses it; operator ids count up from 0 in file order; deps may point forward.
#pragma once

#include <string>

#include "workloads/opgraph/op_graph.h"

namespace strata {

inline constexpr int kOpGraphSchemaVersion = 1;

// Writes atomically (temporary file, then rename).
void write_opgraph_jsonl(const OpGraph& graph, const std::string& path);
std::string opgraph_jsonl(const OpGraph& graph);

// Throws InputError "<file>:<line>: error: <key>: <message>" for malformed or inconsistent
// traces: bad JSON, unknown kind or key, shape mismatch, unknown tensor, dangling dependency,
// dependency cycle, wrong schema version.
OpGraph read_opgraph_jsonl(const std::string& path);

}  // namespace strata
