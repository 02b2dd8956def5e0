// Cycle counts of element-wise and reduction work on a vector (SIMD) unit of `lanes` lanes,
// from a per-operation table of latency and throughput, and of the composite operators an
// OpGraph asks for (softmax, layer/RMS norm, GELU, SiLU, ...) built from those operations.
// SystemC-free.
//
// One primitive pass over `elements` elements takes
//     latency + ⌈elements / (lanes · throughput)⌉ − 1   cycles (pipelined; throughput in
// elements per lane per cycle, ≤ 1 for iterative units such as exp or reciprocal), and a
// reduction of `rows` rows of `cols` elements adds a log2(lanes)-deep adder tree per row once
// the lanes are summed. Composite operators are sequences of passes, listed in vector_timing.cpp
// next to the operator they define, so the formula of each is documented where it is computed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata {

enum class VectorOp { Add, Mul, Exp, Reciprocal, Max, Reduce, Compare };
const char* vector_op_name(VectorOp op);  // "add", "mul", "exp", "reciprocal", "max", "reduce", "compare"

struct VectorOpCost {
  std::int64_t latency = 1;  // cycles of the pipeline
  double throughput = 1;     // elements per lane per cycle
};

struct VectorConfig {
  std::int64_t lanes = 128;
  std::map<VectorOp, VectorOpCost> ops = default_vector_ops();
  static std::map<VectorOp, VectorOpCost> default_vector_ops();
};

struct VectorTiming {
  std::uint64_t cycles = 0;
  std::map<VectorOp, std::uint64_t> elements;  // element-operations per primitive (energy events)
};

// One primitive over `elements` elements (Reduce: `rows` rows of elements/rows each).
VectorTiming vector_pass(const VectorConfig& cfg, VectorOp op, std::int64_t elements, std::int64_t rows = 1);

// Composite operators by OpGraph kind name: "softmax", "layer_norm", "rms_norm", "gelu",
// "silu", "relu", "add", "mul", "top_k", "scatter" (accumulating), "attention_softmax"
// (scores of an attention operator). `rows`×`cols` elements (element-wise kinds: rows = 1);
// `k` is top_k's k (1 ≤ k ≤ cols; ignored by the other kinds). Throws std::invalid_argument for
// an unknown name or non-positive sizes.
VectorTiming vector_operator(const VectorConfig& cfg, const std::string& kind, std::int64_t rows, std::int64_t cols,
                             std::int64_t k = 1);

// Sum of two timings run one after the other.
VectorTiming& operator+=(VectorTiming& a, const VectorTiming& b);

}  // namespace strata
