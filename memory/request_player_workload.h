// The workload kinds that send memory requests straight into a design that accepts them (a
// kind providing memory_target), through a TracePlayer named "workload":
//   memory_trace      a trace file in Strata's canonical format or a peer simulator's
//   memory_synthetic  a seeded generator (random, stream, strided; read/write mix; offered rate)
// Both report requests, bytes, bandwidth_gbps, latency_s and read/request latencies to
// summary.json. Keys are documented in each kind's spec().
#pragma once

#include <memory>

#include "memory/trace/request_source.h"
#include "memory/trace/synthetic_requests.h"
#include "memory/trace_player.h"
#include "sim/analytic.h"
#include "sim/ports.h"
#include "sim/workload.h"

namespace strata {

class RequestPlayerWorkload : public Workload {
 public:
  RequestPlayerWorkload(const ValidatedNode& cfg, SimContext& ctx) : cfg_(cfg), ctx_(ctx) {}
  void bind(Component& hardware) override;
  bool finished() const override { return player_ && player_->finished(); }
  std::optional<double> progress() const override;

 protected:
  // The keys every player kind has: clock, max_outstanding, request_bytes.
  static void add_player_params(KindSpec& s);
  virtual std::unique_ptr<RequestSource> make_source() = 0;
  const ValidatedNode& cfg_;
  SimContext& ctx_;
  MemoryTarget* target_ = nullptr;
  const ValidatedNode* target_config_ = nullptr;
  std::unique_ptr<TracePlayer> player_;
};

class MemoryTraceWorkload : public RequestPlayerWorkload {
 public:
  static KindSpec spec();
  using RequestPlayerWorkload::RequestPlayerWorkload;

 private:
  std::unique_ptr<RequestSource> make_source() override;
};

// Under `sim.fidelity: analytic` the synthetic patterns are evaluated in closed form
// (synthetic_analytic.h) against the memory's analytic figures; a trace is not (its timing
// depends on every address and arrival time in it).
class MemorySyntheticWorkload : public RequestPlayerWorkload, public AnalyticModel {
 public:
  static KindSpec spec();
  using RequestPlayerWorkload::RequestPlayerWorkload;
  double evaluate_analytic() override;

 private:
  std::unique_ptr<RequestSource> make_source() override;
  SyntheticRequestsConfig config() const;
};

}  // namespace strata
