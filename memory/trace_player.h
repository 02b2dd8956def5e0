// Replays memory requests (a trace file or a generator) over a TLM-2.0 initiator socket with the approximately-timed
// four-phase protocol: each request is issued at its trace cycle (in this player's clock) or as
// soon after as the outstanding-request limit and the target's END_REQ allow, and at most one
// request is issued per cycle.
#pragma once

#include <memory>
#include <vector>

#include "memory/trace/request_source.h"
#include "sim/component.h"
#include "sim/payload_pool.h"
#include "sim/tlm_at.h"

namespace strata {

class TracePlayer : public Component, public tlm::tlm_mm_interface {
 public:
  TracePlayer(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, std::unique_ptr<RequestSource> reader,
              size_t max_outstanding);
  InitiatorSocket& initiator_socket() { return port_.socket(); }
  bool finished() const { return finished_; }
  double progress() const { return reader_->progress(); }
  void finalize(const sc_core::sc_time& end) override;
  void free(tlm::tlm_generic_payload* gp) override;  // tlm_mm_interface

  // Analytic fidelity (sim/analytic.h): records `reads` and `writes` requests moving `bytes`
  // evenly over [0, end_s), each answered after `latency_s` (one value for every request),
  // with `outstanding` requests in flight on average, and the run as finished at `end_s`.
  void account_analytic(std::uint64_t reads, std::uint64_t writes, std::uint64_t bytes, double latency_s,
                        double outstanding, double end_s);

 private:
  // Our payloads carry their issue time; the target hands back the same object.
  struct Request : tlm::tlm_generic_payload {
    explicit Request(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) {}
    sc_core::sc_time issued;
    std::uint64_t id = 0;
    std::vector<unsigned char> data;
  };
  void run();  // SC_THREAD
  void complete(Request& r, const sc_core::sc_time& at);

  AtInitiator port_;
  std::unique_ptr<RequestSource> reader_;
  size_t max_outstanding_;
  size_t outstanding_ = 0;
  bool finished_ = false;
  std::uint64_t next_id_ = 0;
  PayloadPool<Request> pool_{this};
  int track_ = 0;

  Counter& reads_;
  Counter& writes_;
  Counter& bytes_;
  Distribution& latency_;
  Distribution& read_latency_;
  Distribution& write_latency_;
  Average& issue_delay_;
  TimeAverage& outstanding_level_;
  TimeSeries& bandwidth_series_;
  Scalar& bandwidth_;
  Scalar& completion_time_;
  sc_core::sc_time last_response_;
  sc_core::sc_time last_issue_;
};

}  // namespace strata
