// Component kind `cube_engine`: an Ascend-style cube unit multiplying an m0×k0 block by a k0×n0
// block every cycle, fed from L0 operand buffers. One event per tile, cycle count from
// cube_timing.h. Keys are documented in spec().
#pragma once

#include "models/cube/cube_timing.h"
#include "models/matrix_engine.h"

namespace strata {

class CubeEngine : public MatrixEngine {
 public:
  static KindSpec spec();
  CubeEngine(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  MatrixRun estimate(const MatrixWork& w) const override;
  std::int64_t align_m() const override { return cube_.m0; }
  std::int64_t align_n() const override { return cube_.n0; }
  std::int64_t align_k() const override { return cube_.k0; }

 private:
  CubeConfig cube_;
};

}  // namespace strata
