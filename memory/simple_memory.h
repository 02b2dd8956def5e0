// A fixed-latency memory with a bandwidth limit and a bounded request queue, as a TLM-2.0
// approximately-timed target. Timing-only: payload data is not stored or returned.
//
// A request accepted at edge a (END_REQ) is ready at a + latency; its data then occupies the
// one data channel for bytes / bandwidth (exact, not rounded per request, so the long-run
// throughput equals `bandwidth`); BEGIN_RESP goes out at the first clock edge after its data
// is done, in acceptance order. So an unloaded request takes latency + bytes/bandwidth
// (rounded up to a clock edge). At most queue_depth requests are between END_REQ and the end
// of their response; a further BEGIN_REQ waits for END_REQ (back-pressure).
#pragma once

#include <deque>

#include "memory/dram/dram_interface_cost.h"
#include "sim/component.h"
#include "sim/ports.h"
#include "sim/tlm_at.h"

namespace strata {

class SimpleMemory : public Component, public MemoryTarget, public AnalyticMemory {
 public:
  static KindSpec spec();
  SimpleMemory(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  TargetSocket& target_socket() override { return port_.socket(); }
  double peak_bandwidth() const override { return 1.0 / seconds_per_byte_; }
  // Analytic fidelity: the one data channel sustains its bandwidth exactly; a request waits
  // `latency` before its data.
  double sustained_bandwidth() const override { return peak_bandwidth(); }
  double streaming_energy_per_byte() const override { return 8 * bit_energy_.joules_per_event(); }
  double unloaded_latency(bool) const override { return latency_.to_seconds(); }
  double bandwidth_share(const AnalyticTransfer&) override { return 1; }  // one channel
  std::uint64_t queue_requests(std::uint64_t) const override { return queue_depth_; }
  void account_analytic(const AnalyticTransfer& t) override;
  void finalize(const sc_core::sc_time& end) override;
  std::vector<double> reuse_totals(const sc_core::sc_time&) const override { return {busy_s_}; }
  void repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time&) override {
    busy_s_ += times * (busy_s_ - since.at(0));
  }

 private:
  DramInterfaceCost dram_row() const;
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  // Reserves the data channel for a request accepted at `accepted`; returns its response edge.
  sc_core::sc_time schedule(const sc_core::sc_time& accepted, unsigned bytes);
  // BEGIN_REQ (or its retry): takes the request if a queue slot is free.
  bool accept(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void complete_head();  // the oldest request's response is done

  AtTarget port_;
  sc_core::sc_time latency_;
  double seconds_per_byte_;
  size_t queue_depth_;
  double channel_free_s_ = 0;  // when the data channel is next free (unrounded)
  std::deque<sc_core::sc_time> inflight_;  // acceptance times of the requests not yet answered, oldest first

  Counter& reads_;
  Counter& writes_;
  Counter& bytes_;
  Distribution& service_latency_;
  TimeAverage& occupancy_;
  TimeSeries& bandwidth_series_;
  Scalar& bandwidth_;
  Scalar& utilization_;
  EnergyEvent& bit_energy_;
  double busy_s_ = 0;
};

}  // namespace strata
