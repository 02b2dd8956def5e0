#include "accelerators/npu/npu_core.h"

#include <algorithm>

#include <fmt/format.h>

namespace strata {

const KindSpec& NpuCore::section() {
  static const KindSpec core = [] {
    KindSpec s;
    s.name = "npu_core";
    s.category = "section";
    s.description = "one NPU core: matrix engine, vector unit, scratchpad and DMA";
    s.with_clock();
    s.add(tech_param());
    s.slot(SlotSpec{"engine", "the matrix unit (kind: systolic_array or cube_engine)", "component", kMatrixEngineRole,
                    true, nullptr});
    // Role slots with default kinds: `kind:` may be left out (the shipped presets do).
    s.slot(SlotSpec{"vector", "the vector unit (a vector_unit role kind; default vector_unit)", "component",
                    kVectorUnitRole, false, nullptr, "vector_unit"});
    s.slot(SlotSpec{"scratchpad", "the local SRAM (a scratchpad role kind; default scratchpad)", "component",
                    kScratchpadRole, false, nullptr, "scratchpad"});
    s.slot(
        SlotSpec{"dma", "the DMA engine (a dma role kind; default dma)", "component", kDmaRole, false, nullptr, "dma"});
    return s;
  }();
  return core;
}

NpuCore::NpuCore(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, int index, int buffers,
                 NpuSchedule& schedule)
    : Component(name, cfg, ctx),
      index_(index),
      schedule_(schedule),
      free_buffers_(buffers),
      tiles_(counter("tiles", "tiles", "tiles computed")),
      stall_cycles_(counter("stall_cycles", "cycles", "cycles the compute units waited for data")),
      compute_cycles_(counter("compute_cycles", "cycles", "cycles the compute units were busy")) {
  engine_ = build_part<MatrixEngine>("engine");
  vector_ = build_part<VectorUnit>("vector");
  scratchpad_ = build_part<Scratchpad>("scratchpad");
  dma_ = build_part<DmaEngine>("dma");
  compute_track_ = ctx.timeline().track(std::string(this->name()) + " compute");
  SC_HAS_PROCESS(NpuCore);
  SC_THREAD(loader);
  SC_THREAD(computer);
}

void NpuCore::issue(const std::shared_ptr<InFlight>& f, bool after_deps) {
  for (const TileLoad& ld : f->tile->loads) {
    if (ld.after_deps != after_deps) continue;
    ++f->pending_loads;
    scratchpad_->write(ld.d.bytes());
    dma_->submit(ld.d, [this, f] {
      if (--f->pending_loads == 0 && f->deps_waited) {
        f->loaded = true;
        loaded_event_.notify(sc_core::SC_ZERO_TIME);
      }
    });
  }
}

void NpuCore::loader() {
  if (!program_) return;
  for (size_t op = 0; op < program_->ops.size(); ++op) {
    if (program_->ops[op].reused) continue;
    const auto& tiles = program_->ops[op].cores[static_cast<size_t>(index_)];
    for (const Tile& tile : tiles) {
      while (free_buffers_ == 0) wait(buffer_event_);
      --free_buffers_;
      footprint_in_flight_ += tile.footprint;
      scratchpad_->occupy(footprint_in_flight_);
      auto f = std::make_shared<InFlight>();
      f->op = static_cast<int>(op);
      f->tile = &tile;
      in_flight_.push_back(f);
      issue(f, false);
      while (!schedule_.deps_done(static_cast<int>(op))) wait(schedule_.op_done_event());
      f->deps_waited = true;
      issue(f, true);
      if (f->pending_loads == 0) {
        f->loaded = true;
        loaded_event_.notify(sc_core::SC_ZERO_TIME);
      }
    }
  }
}

void NpuCore::computer() {
  if (!program_) return;
  stores_pending_.assign(program_->ops.size(), 0);
  computed_.assign(program_->ops.size(), false);
  for (size_t op = 0; op < program_->ops.size(); ++op) {
    if (program_->ops[op].reused) continue;
    const int id = static_cast<int>(op);
    const auto& tiles = program_->ops[op].cores[static_cast<size_t>(index_)];
    for (size_t i = 0; i < tiles.size(); ++i) {
      const sc_core::sc_time waiting = sc_core::sc_time_stamp();
      while (in_flight_.empty() || !in_flight_.front()->loaded) wait(loaded_event_);
      std::shared_ptr<InFlight> f = in_flight_.front();
      in_flight_.pop_front();
      const sc_core::sc_time start = clock().next_edge(sc_core::sc_time_stamp());
      stall_cycles_.add(clock().cycles_in(start - waiting));
      const std::uint64_t cycles = compute_tile(*f->tile);
      const sc_core::sc_time end = start + clock().time_of(cycles);
      wait(end - sc_core::sc_time_stamp());
      compute_cycles_.add(cycles);
      tiles_.add();
      if (cycles > 0) context().timeline().span(compute_track_, program_->ops[op].name, start, end);
      // The inputs are consumed: the buffer takes the next tile's loads while the results
      // drain from the output buffer.
      footprint_in_flight_ -= f->tile->footprint;
      release_buffer();
      for (const DmaDescriptor& st : f->tile->stores) {
        ++stores_pending_[op];
        scratchpad_->read(st.bytes());
        dma_->submit(st, [this, id] { store_done(id); });
      }
    }
    // An operator without tiles here still waits for its inputs, so nothing after it starts early.
    if (tiles.empty())
      while (!schedule_.deps_done(id)) wait(schedule_.op_done_event());
    computed_[op] = true;
    if (stores_pending_[op] == 0) schedule_.core_finished(id);
  }
}

std::uint64_t NpuCore::compute_tile(const Tile& tile) {
  // The units read their operands from the scratchpad while they compute; a tile takes the
  // longer of the two.
  std::uint64_t cycles = 0;
  for (const TileStep& s : tile.steps)
    cycles += s.unit == TileStep::Unit::Matrix ? engine_->run(s.matrix).cycles
                                               : vector_->run(s.vector_kind, s.rows, s.cols).cycles;
  return std::max(cycles, scratchpad_->read(tile.operand_bytes));
}

void NpuCore::account_analytic(std::uint64_t tiles, std::uint64_t compute_cycles, std::uint64_t stall_cycles,
                               std::uint64_t peak_footprint) {
  tiles_.add(tiles);
  compute_cycles_.add(compute_cycles);
  stall_cycles_.add(stall_cycles);
  scratchpad_->occupy(peak_footprint);
}

void NpuCore::release_buffer() {
  ++free_buffers_;
  buffer_event_.notify(sc_core::SC_ZERO_TIME);
}

void NpuCore::store_done(int op) {
  if (--stores_pending_[static_cast<size_t>(op)] == 0 && computed_[static_cast<size_t>(op)]) schedule_.core_finished(op);
}

}  // namespace strata
