#include "models/systolic/systolic_array.h"

namespace strata {

KindSpec SystolicArray::spec() {
  KindSpec s;
  s.name = "systolic_array";
  s.description = "rows x cols multiply-accumulate array (os/ws/is dataflow), one event per tile";
  s.with_clock();
  s.add(param::integer("rows", "PE rows (the dimension mapped on rows: M for os, K for ws and is)").def("128").range("1", "65536"));
  s.add(param::integer("cols", "PE columns (N for os and ws, M for is)").def("128").range("1", "65536"));
  s.add(param::choice("dataflow", {"os", "ws", "is"},
                      "output-, weight- or input-stationary: which operand stays in the PEs while the third "
                      "dimension streams through")
            .def("ws"));
  s.add(param::choice("timing", {"real", "scalesim_compat"},
                      "real: overlapped folds and double-buffered stationary operands as real arrays do; "
                      "scalesim_compat: SCALE-Sim v2's cycle count (no overlap, full preload per fold)")
            .def("real"));
  s.add(param::boolean("double_buffer",
                       "real timing: preload the next fold's stationary operand (or drain the last fold's "
                       "outputs) while the current fold computes")
            .def("true"));
  s.add(param::boolean("overlap_folds",
                       "real timing: the next fold's operands enter right behind the current fold's, so skew, "
                       "fill and drain are paid once per tile")
            .def("true"));
  s.add(rates_param(
      "int8=1, int4=2, fp8_e4m3=1, fp8_e5m2=1, mxint8=1, mxfp8_e4m3=1, mxfp4=2, nvfp4=2, fp16=0.5, bf16=0.5, "
      "fp32=0.125"));
  s.provides(kMatrixEngineRole);
  return s;
}

SystolicArray::SystolicArray(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : MatrixEngine(name, cfg, ctx, static_cast<double>(cfg.params.integer("rows") * cfg.params.integer("cols"))) {
  array_.rows = params().integer("rows");
  array_.cols = params().integer("cols");
  array_.dataflow = *find_dataflow(params().string("dataflow"));
  array_.mode = params().string("timing") == "real" ? SystolicMode::Real : SystolicMode::ScaleSimCompat;
  array_.double_buffer = params().flag("double_buffer");
  array_.overlap_folds = params().flag("overlap_folds");
  // A PE is a MAC lane plus its pipeline registers: the moving operand, the stationary operand
  // twice (double buffer) and the partial sum.
  const UnitCost ff = tech().op("ff.bit");
  const double reg_bits = 8 + 2 * 8 + 32;
  const double pes = static_cast<double>(array_.rows * array_.cols);
  add_area("pes", pes * lane_mm2(), pes * lane_leakage_w());
  add_area("pe_registers", pes * reg_bits * ff.area_mm2, pes * reg_bits * ff.leakage_w);
}

std::int64_t SystolicArray::align_m() const {
  return array_.dataflow == Dataflow::OutputStationary ? array_.rows
         : array_.dataflow == Dataflow::InputStationary ? array_.cols
                                                        : 1;
}
std::int64_t SystolicArray::align_n() const {
  return array_.dataflow == Dataflow::InputStationary ? 1 : array_.cols;
}
std::int64_t SystolicArray::align_k() const {
  return array_.dataflow == Dataflow::OutputStationary ? 1 : array_.rows;
}

MatrixRun SystolicArray::estimate(const MatrixWork& w) const {
  const SystolicTiming t = systolic_gemm(array_, w.m, w.n, w.k, rate(w.format));
  MatrixRun r;
  r.cycles = t.cycles;
  r.folds = t.folds;
  r.macs = t.macs;
  r.utilization = t.utilization;
  r.a_reads = t.a_reads;
  r.b_reads = t.b_reads;
  r.c_writes = t.c_writes;
  r.c_reads = t.c_reads;
  return r;
}

}  // namespace strata
