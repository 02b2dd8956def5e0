// Workload kind `memory_trace`: replays a memory-trace file into a hardware design that accepts
// memory requests (a kind providing memory_target) through a TracePlayer named "workload".
//
// Keys (documented in spec()): path, format, clock, max_outstanding, request_bytes.
#pragma once

#include <memory>

#include "memory/trace_player.h"
#include "sim/workload.h"

namespace strata {

class MemoryTraceWorkload : public Workload {
 public:
  static KindSpec spec();
  MemoryTraceWorkload(const ValidatedNode& cfg, SimContext& ctx);
  void bind(Component& hardware) override;
  bool finished() const override { return player_ && player_->finished(); }
  std::optional<double> progress() const override;

 private:
  const ValidatedNode& cfg_;
  SimContext& ctx_;
  std::unique_ptr<TracePlayer> player_;
};

}  // namespace strata
