#include "models/vector/vector_unit.h"

#include <algorithm>

#include <fmt/format.h>

namespace strata {

KindSpec VectorUnit::spec() {
  KindSpec s;
  s.name = "vector_unit";
  s.description = "SIMD unit for element-wise work, reductions, softmax, norms and activations";
  s.with_clock();
  s.add(param::integer("lanes", "elements per cycle of a simple operation").def("128").range("1", "65536"));
  s.add(param::string("format", "number format the unit computes in (energy and area rows of the technology table)")
            .def("fp32"));
  s.add(param::real("sfu_throughput",
                    "exp and reciprocal results per lane per cycle (special-function units are fewer than ALUs)")
            .def("0.25")
            .range("0.001", "1"));
  s.provides(kVectorUnitRole);
  return s;
}

namespace {

// The table row of primitive `op` in `format`, falling back to the FP32 row when the table has
// no row for this format (compares and special functions are tabulated for few formats).
UnitCost primitive_cost(const TechTable& t, VectorOp op, const std::string& format) {
  std::string base;
  switch (op) {
    case VectorOp::Add:
    case VectorOp::Reduce: base = "add"; break;
    case VectorOp::Mul: base = "mul"; break;
    case VectorOp::Max:
    case VectorOp::Compare: base = "cmp"; break;
    case VectorOp::Exp:
    case VectorOp::Reciprocal: base = "sfu"; break;
  }
  const std::string name = base + "." + format;
  return t.op(t.has_op(name) ? name : base + ".fp32");
}

}  // namespace

VectorUnit::VectorUnit(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      tiles_(counter("tiles", "tiles", "operator tiles run")),
      busy_cycles_(counter("busy_cycles", "cycles", "cycles the unit spent on tiles")) {
  vector_.lanes = params().integer("lanes");
  // Latencies are the table of vector_timing.cpp; special-function throughput is configurable.
  for (VectorOp op : {VectorOp::Exp, VectorOp::Reciprocal}) vector_.ops[op].throughput = params().real("sfu_throughput");
  const TechTable& t = tech();
  const std::string& format = params().string("format");
  if (!t.has_op("add." + format))
    throw InputError(params().where("format"), config().path + ".format",
                     fmt::format("technology table {} has no add.{} row", t.name(), format));
  for (const auto& [op, cost] : vector_.ops)
    energy_[op] = &energy_event(vector_op_name(op), primitive_cost(t, op, format).energy_j,
                                fmt::format("{} element operations in {}", vector_op_name(op), format));
  // Each lane has an adder, a multiplier and a comparator; special-function units are
  // lanes x sfu_throughput.
  const double lanes = static_cast<double>(vector_.lanes);
  const double sfus = lanes * params().real("sfu_throughput");
  const UnitCost alu_parts[] = {primitive_cost(t, VectorOp::Add, format), primitive_cost(t, VectorOp::Mul, format),
                                primitive_cost(t, VectorOp::Compare, format)};
  double alu_mm2 = 0, alu_leak = 0;
  for (const UnitCost& c : alu_parts) {
    alu_mm2 += c.area_mm2;
    alu_leak += c.leakage_w;
  }
  add_area("alus", lanes * alu_mm2, lanes * alu_leak);
  const UnitCost sfu = primitive_cost(t, VectorOp::Exp, format);
  add_area("sfus", sfus * sfu.area_mm2, sfus * sfu.leakage_w);
}

VectorTiming VectorUnit::estimate(const std::string& kind, std::int64_t rows, std::int64_t cols) const {
  return vector_operator(vector_, kind, rows, cols);
}

VectorTiming VectorUnit::run(const std::string& kind, std::int64_t rows, std::int64_t cols) {
  const VectorTiming t = estimate(kind, rows, cols);
  tiles_.add();
  busy_cycles_.add(t.cycles);
  for (const auto& [op, n] : t.elements) energy_.at(op)->add(n);
  return t;
}

double VectorUnit::peak_dynamic_j_per_cycle() const {
  double j = 0;
  for (const auto& [op, e] : energy_) j = std::max(j, vector_.ops.at(op).throughput * e->joules_per_event());
  return static_cast<double>(vector_.lanes) * j;
}

}  // namespace strata
