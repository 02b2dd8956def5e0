// What a mapper needs to know about the hardware it lowers an OpGraph onto, as plain values and
// estimators (so mappers and the tile search run, and are tested, without SystemC): identical
// cores, each a matrix engine, a vector unit and a local scratchpad, sharing one memory. The NPU
// fills it from its blocks; GPU SMs, GNN processing elements and chiplets describe themselves
// the same way to reuse the GEMM tile search (gemm_tiling.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "models/matrix_engine.h"

namespace strata {

struct MapperTarget {
  int cores = 1;
  // Matrix engine: tile sizes are chosen in multiples of these; `matrix` times one tile.
  std::int64_t align_m = 1, align_n = 1, align_k = 1;
  std::function<MatrixRun(const MatrixWork&)> matrix;
  // Vector unit: cycles of a vector_operator() kind over rows × cols.
  std::function<std::uint64_t(const std::string& kind, std::int64_t rows, std::int64_t cols)> vector;
  std::uint64_t scratchpad_bytes = 4ull << 20;  // per core
  int buffers = 2;                              // tiles in flight per core (2: double buffering)
  double memory_bytes_per_cycle = 64;           // peak memory bandwidth in core cycles (shared)
  std::uint64_t accumulator_bytes = 4;          // bytes per partial sum kept in the scratchpad
  // Inside a package (accelerators/package/): collectives and transfers between devices are
  // left to the package, which times them over its links (LoweredOp::external).
  bool external_collectives = false;
};

}  // namespace strata
