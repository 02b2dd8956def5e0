// One core of an NPU: a matrix engine (the pluggable `engine:`), a vector unit, a scratchpad and
// a DMA engine, running its share of an NpuProgram. Two SystemC threads pipeline the tiles:
// the loader issues a tile's loads as soon as one of the core's `buffers` tile buffers is free
// (loads of data an earlier operator writes wait for it; weights and caches are prefetched),
// and the computer runs each loaded tile's steps (one wait per tile) and hands its results to
// the DMA to store. A buffer is freed when its tile has computed (its results drain from the
// output buffer), so DMA and compute overlap exactly as far as the buffers allow.
#pragma once

#include <deque>
#include <memory>

#include "accelerators/npu/npu_program.h"
#include "models/dma/dma_engine.h"
#include "models/matrix_engine.h"
#include "models/scratchpad/scratchpad.h"
#include "models/vector/vector_unit.h"
#include "sim/component.h"

namespace strata {

// What cores share: which operators are done, on every core.
class NpuSchedule {
 public:
  virtual ~NpuSchedule() = default;
  virtual bool deps_done(int op) const = 0;
  virtual sc_core::sc_event& op_done_event() = 0;
  virtual void core_finished(int op) = 0;  // its last store completed (or it had no tiles)
};

class NpuCore : public Component {
 public:
  // The spec of the `core:` section (engine slot, vector, scratchpad, dma sections).
  static const KindSpec& section();
  NpuCore(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, int index, int buffers,
          NpuSchedule& schedule);

  MatrixEngine& engine() { return *engine_; }
  VectorUnit& vector() { return *vector_; }
  Scratchpad& scratchpad() { return *scratchpad_; }
  DmaEngine& dma() { return *dma_; }
  void run_program(const NpuProgram* program) { program_ = program; }

  // Runs a tile's steps on the units, counting their events, and returns its compute cycles:
  // the engine's and the vector unit's steps, or the scratchpad reads of their operands when
  // those take longer (the units read while they compute). Both fidelities use it.
  std::uint64_t compute_tile(const Tile& tile);
  // Analytic fidelity: records `tiles` tiles computed in `compute_cycles`, after waiting
  // `stall_cycles` for their data, and the scratchpad bytes they held at most.
  void account_analytic(std::uint64_t tiles, std::uint64_t compute_cycles, std::uint64_t stall_cycles,
                        std::uint64_t peak_footprint);

 private:
  struct InFlight {
    int op;
    const Tile* tile;
    int pending_loads = 0;
    bool loaded = false;
    bool deps_waited = false;
  };
  void loader();    // SC_THREAD
  void computer();  // SC_THREAD
  void issue(const std::shared_ptr<InFlight>& f, bool after_deps);
  void release_buffer();
  void store_done(int op);

  int index_;
  NpuSchedule& schedule_;
  std::unique_ptr<MatrixEngine> engine_;
  std::unique_ptr<VectorUnit> vector_;
  std::unique_ptr<Scratchpad> scratchpad_;
  std::unique_ptr<DmaEngine> dma_;
  const NpuProgram* program_ = nullptr;
  std::deque<std::shared_ptr<InFlight>> in_flight_;
  int free_buffers_;
  std::vector<int> stores_pending_;  // per operator
  std::vector<bool> computed_;       // per operator: every tile computed
  std::uint64_t footprint_in_flight_ = 0;
  sc_core::sc_event buffer_event_, loaded_event_;
  int compute_track_ = 0;

  Counter& tiles_;
  Counter& stall_cycles_;
  Counter& compute_cycles_;
};

}  // namespace strata
