// What the NPU mapper produces and the NPU's cores execute: per operator, per core, a list of
// tiles. A tile loads its operands from memory into the core's scratchpad (DMA descriptors),
// runs steps on the matrix engine or the vector unit, and stores its results. Loads marked
// `after_deps` read data an earlier operator produces and wait for it; the others (weights,
// KV cache, graph structure) may be prefetched while earlier operators finish.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/dma/dma_engine.h"
#include "models/matrix_engine.h"

namespace strata {

struct TileLoad {
  DmaDescriptor d;
  bool after_deps = false;
};

struct TileStep {
  enum class Unit { Matrix, Vector };
  Unit unit = Unit::Matrix;
  MatrixWork matrix;       // Unit::Matrix
  std::string vector_kind; // Unit::Vector: a vector_operator() kind
  std::int64_t rows = 0, cols = 0;
};

struct Tile {
  std::vector<TileLoad> loads;
  std::vector<TileStep> steps;
  std::vector<DmaDescriptor> stores;
  std::uint64_t footprint = 0;  // scratchpad bytes the tile occupies (inputs and outputs)
  std::uint64_t operand_bytes = 0;  // bytes the units read from the scratchpad
};

struct LoweredOp {
  std::int32_t op = -1;  // OpGraph id
  std::string name, kind;
  std::vector<int> deps;                 // indices of earlier lowered operators
  std::vector<std::vector<Tile>> cores;  // tiles per core
  std::string mapping;                   // how it was split and tiled, for people
  std::uint64_t candidates = 0;          // tilings the search evaluated
  std::uint64_t dram_bytes = 0;          // bytes its tiles move to and from memory
  double flops = 0;
  bool memory_bound = false;             // the plan's memory time exceeds its compute time
  // A collective or transfer between devices: no tiles; it ends when the package that holds
  // the device has timed it over its links (the cores pass it once its inputs are there).
  bool external = false;
  // sim.reuse: layers (layer_reuse.h): a later copy of an identical layer; the cores skip it and
  // the NPU counts the measured copy again for it.
  bool reused = false;
};

struct NpuProgram {
  std::vector<LoweredOp> ops;
  std::uint64_t tiles() const;
};

}  // namespace strata
