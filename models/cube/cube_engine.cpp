#include "models/cube/cube_engine.h"

namespace strata {

KindSpec CubeEngine::spec() {
  KindSpec s;
  s.name = "cube_engine";
  s.description = "m0 x n0 x k0 matrix block product per cycle (Ascend cube unit style), one event per tile";
  s.with_clock();
  s.add(param::integer("m0", "rows of the A block per cycle").def("16").range("1", "4096"));
  s.add(param::integer("n0", "columns of the B block per cycle").def("16").range("1", "4096"));
  s.add(param::integer("k0", "reduction depth per cycle in the base format").def("16").range("1", "4096"));
  s.add(param::integer("pipeline_latency", "cycles from the first block in to the first result out, paid once per tile")
            .def("8")
            .range("0", "4096"));
  // Ascend's cube: FP16 16x16x16 per cycle, INT8 16x16x32 (Liao et al., "Ascend: a scalable and
  // unified architecture for ubiquitous deep neural network computing", HPCA 2021).
  s.add(rates_param("fp16=1, bf16=1, int8=2, int4=4, fp8_e4m3=2, fp8_e5m2=2, fp32=0.25"));
  s.provides(kMatrixEngineRole);
  return s;
}

CubeEngine::CubeEngine(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : MatrixEngine(name, cfg, ctx,
                   static_cast<double>(cfg.params.integer("m0") * cfg.params.integer("n0") * cfg.params.integer("k0"))) {
  cube_.m0 = params().integer("m0");
  cube_.n0 = params().integer("n0");
  cube_.k0 = params().integer("k0");
  cube_.pipeline_latency = params().integer("pipeline_latency");
  const double lanes = static_cast<double>(cube_.m0 * cube_.n0 * cube_.k0);
  add_area("mac_lanes", lanes * lane_mm2(), lanes * lane_leakage_w());
}

MatrixRun CubeEngine::estimate(const MatrixWork& w) const {
  const CubeTiming t = cube_gemm(cube_, w.m, w.n, w.k, rate(w.format));
  MatrixRun r;
  r.cycles = t.cycles;
  r.folds = t.block_products;
  r.macs = t.macs;
  r.utilization = t.utilization;
  r.a_reads = t.a_reads;
  r.b_reads = t.b_reads;
  r.c_writes = t.c_writes;
  return r;
}

}  // namespace strata
