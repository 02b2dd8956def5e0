// Vector unit timing: primitive passes from a latency/throughput table, composite operators as
// sequences of dependent passes (each waits for the previous one's results, so every pass pays
// its pipeline latency). E = rows·cols elements, R = rows.
#include "models/vector/vector_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "sim/rounding.h"

namespace strata {

const char* vector_op_name(VectorOp op) {
  switch (op) {
    case VectorOp::Add: return "add";
    case VectorOp::Mul: return "mul";
    case VectorOp::Exp: return "exp";
    case VectorOp::Reciprocal: return "reciprocal";
    case VectorOp::Max: return "max";
    case VectorOp::Reduce: return "reduce";
    case VectorOp::Compare: return "compare";
  }
  return "?";
}

// Assumptions, not measurements of one product: a pipelined FP32 ALU lane has a 2-4 stage adder,
// multiplier and comparator at one result per lane per cycle (GPU FP32 add/mul latencies are
// ~4 cycles). exp and reciprocal (also standing for rsqrt) run on special-function units with a
// quarter of the lanes' throughput — NVIDIA's SMs have 16 SFU results per clock against 64 FP32
// (CUDA Programming Guide, arithmetic instruction throughput, cc 7.x-9.0) — and an iterative
// latency of ~10-12 cycles. A reduction's first adder stage is the reduce latency; its
// log2(lanes) tree is added by vector_pass().
std::map<VectorOp, VectorOpCost> VectorConfig::default_vector_ops() {
  return {
      {VectorOp::Add, {3, 1}},         {VectorOp::Mul, {4, 1}},     {VectorOp::Max, {2, 1}},
      {VectorOp::Compare, {2, 1}},     {VectorOp::Reduce, {3, 1}},  {VectorOp::Exp, {12, 0.25}},
      {VectorOp::Reciprocal, {10, 0.25}},
  };
}

namespace {

std::uint64_t ceil_log2(std::int64_t x) {
  std::uint64_t bits = 0;
  while ((std::int64_t{1} << bits) < x) ++bits;
  return bits;
}

}  // namespace

VectorTiming vector_pass(const VectorConfig& cfg, VectorOp op, std::int64_t elements, std::int64_t rows) {
  if (cfg.lanes <= 0) throw std::invalid_argument("vector_pass: lanes must be positive");
  if (elements <= 0 || rows <= 0) throw std::invalid_argument("vector_pass: elements and rows must be positive");
  if (op == VectorOp::Reduce && rows > elements)
    throw std::invalid_argument("vector_pass: a reduction needs at least one element per row");
  const auto it = cfg.ops.find(op);
  if (it == cfg.ops.end()) throw std::invalid_argument(std::string("vector_pass: no cost for ") + vector_op_name(op));
  const VectorOpCost& c = it->second;
  if (c.latency <= 0 || !(c.throughput > 0) || !std::isfinite(c.throughput))
    throw std::invalid_argument(std::string("vector_pass: latency and throughput of ") + vector_op_name(op) +
                                " must be positive");

  VectorTiming t;
  const double per_cycle = static_cast<double>(cfg.lanes) * c.throughput;
  t.cycles = static_cast<std::uint64_t>(c.latency) + ceil_snap(static_cast<double>(elements) / per_cycle) - 1;
  // Each row's lane-wise partial sums go through a log2(lanes)-deep adder tree.
  if (op == VectorOp::Reduce) t.cycles += static_cast<std::uint64_t>(rows) * ceil_log2(cfg.lanes);
  t.elements[op] = static_cast<std::uint64_t>(elements);
  return t;
}

VectorTiming& operator+=(VectorTiming& a, const VectorTiming& b) {
  a.cycles += b.cycles;
  for (const auto& [op, n] : b.elements) a.elements[op] += n;
  return a;
}

VectorTiming vector_operator(const VectorConfig& cfg, const std::string& kind, std::int64_t rows, std::int64_t cols,
                             std::int64_t k) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("vector_operator: rows and cols must be positive");
  const std::int64_t E = rows * cols, R = rows;
  VectorTiming t;
  auto pass = [&](VectorOp op, std::int64_t n) { t += vector_pass(cfg, op, n, 1); };
  auto reduce = [&] { t += vector_pass(cfg, VectorOp::Reduce, E, R); };

  if (kind == "softmax" || kind == "attention_softmax") {
    // y = e^(x − max) / Σ e^(x − max) per row (attention: rows = batch·heads·q_len, cols = kv_len).
    reduce();                          // row max (a comparator tree shaped like the adder tree)
    pass(VectorOp::Add, E);            // x − max
    pass(VectorOp::Exp, E);            // e^(x − max)
    reduce();                          // row sum
    pass(VectorOp::Reciprocal, R);     // 1 / sum, once per row
    pass(VectorOp::Mul, E);            // · (1 / sum)
  } else if (kind == "layer_norm") {
    reduce();                          // Σx
    pass(VectorOp::Mul, R);            // mean = Σx · (1/cols)
    pass(VectorOp::Add, E);            // d = x − mean
    pass(VectorOp::Mul, E);            // d²
    reduce();                          // Σd²
    pass(VectorOp::Reciprocal, R);     // rstd = 1/sqrt(Σd²/cols + ε): the SFU's rsqrt, scale and ε folded in
    pass(VectorOp::Mul, E);            // d · rstd
    pass(VectorOp::Mul, E);            // · γ
    pass(VectorOp::Add, E);            // + β
  } else if (kind == "rms_norm") {
    pass(VectorOp::Mul, E);            // x²
    reduce();                          // Σx²
    pass(VectorOp::Reciprocal, R);     // 1/sqrt(Σx²/cols + ε) (rsqrt on the SFU)
    pass(VectorOp::Mul, E);            // x · r
    pass(VectorOp::Mul, E);            // · γ
  } else if (kind == "gelu") {
    // Tanh form 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³), computed as x·σ(2u) since
    // 0.5·(1 + tanh(u)) = 1/(1 + e^(−2u)); v = 2u = x·(c1 + c2·x²), c1 = 2√(2/π), c2 = 0.044715·c1.
    pass(VectorOp::Mul, E);            // x²
    pass(VectorOp::Mul, E);            // c2·x²
    pass(VectorOp::Add, E);            // + c1
    pass(VectorOp::Mul, E);            // v = x·(...)
    pass(VectorOp::Exp, E);            // e^(−v) (the sign is an operand modifier)
    pass(VectorOp::Add, E);            // 1 + e^(−v)
    pass(VectorOp::Reciprocal, E);     // σ(v)
    pass(VectorOp::Mul, E);            // x·σ(v)
  } else if (kind == "silu") {
    pass(VectorOp::Exp, E);            // e^(−x)
    pass(VectorOp::Add, E);            // 1 + e^(−x)
    pass(VectorOp::Reciprocal, E);     // σ(x)
    pass(VectorOp::Mul, E);            // x·σ(x)
  } else if (kind == "relu") {
    pass(VectorOp::Max, E);            // max(x, 0)
  } else if (kind == "add") {
    pass(VectorOp::Add, E);
  } else if (kind == "mul") {
    pass(VectorOp::Mul, E);
  } else if (kind == "top_k") {
    // Each row keeps a sorted list of its k best; an element finds its place by binary search,
    // ⌈log2 k⌉ comparisons (1 for k = 1, a running max): that many compare passes over E.
    if (k <= 0 || k > cols) throw std::invalid_argument("vector_operator: top_k needs 1 ≤ k ≤ cols");
    const std::uint64_t steps = std::max<std::uint64_t>(1, ceil_log2(k));
    for (std::uint64_t s = 0; s < steps; ++s) pass(VectorOp::Compare, E);
  } else if (kind == "scatter") {
    // Accumulating scatter: out[index] += weight · x.
    pass(VectorOp::Mul, E);
    pass(VectorOp::Add, E);
  } else {
    throw std::invalid_argument("vector_operator: unknown operator '" + kind + "'");
  }
  return t;
}

}  // namespace strata
