#include "models/cube/cube_engine.h"

#include <algorithm>

#include <fmt/format.h>

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
    : Component(name, cfg, ctx),
      tiles_(counter("tiles", "tiles", "tiles run")),
      macs_(counter("macs", "MACs", "useful multiply-accumulates")),
      busy_cycles_(counter("busy_cycles", "cycles", "cycles the unit spent on tiles")),
      utilization_(scalar("utilization", "fraction", "useful MACs over base-rate capacity in the elapsed time")) {
  cube_.m0 = params().integer("m0");
  cube_.n0 = params().integer("n0");
  cube_.k0 = params().integer("k0");
  cube_.pipeline_latency = params().integer("pipeline_latency");
  rates_ = parse_rates(params(), config().path);
  const MacLanes lanes = declare_mac_lanes(*this, rates_);
  mac_energy_ = lanes.energy;
  const double n_lanes = static_cast<double>(cube_.m0 * cube_.n0 * cube_.k0);
  add_area("mac_lanes", n_lanes * lanes.lane_mm2, n_lanes * lanes.lane_leakage_w);
}

double CubeEngine::rate(const std::string& format) const { return rate_of(rates_, format, params(), config().path); }

double CubeEngine::peak_macs_per_cycle(const std::string& format) const {
  return static_cast<double>(cube_.m0 * cube_.n0 * cube_.k0) * rate(format);
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

MatrixRun CubeEngine::run(const MatrixWork& w) {
  const MatrixRun r = estimate(w);
  tiles_.add();
  macs_.add(r.macs);
  busy_cycles_.add(r.cycles);
  mac_energy_.at(w.format)->add(r.macs);
  return r;
}

void CubeEngine::finalize(const sc_core::sc_time& end) {
  const double peak = static_cast<double>(cube_.m0 * cube_.n0 * cube_.k0) *
                      static_cast<double>(clock().cycles_in(end.to_seconds()));
  utilization_.set(peak > 0 ? static_cast<double>(macs_.count()) / peak : 0);
}

}  // namespace strata
