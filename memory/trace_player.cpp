#include "memory/trace_player.h"

#include <algorithm>

#include "sim/input_error.h"
#include "sim/kernel.h"

namespace strata {

TracePlayer::TracePlayer(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx,
                         std::unique_ptr<RequestSource> reader, size_t max_outstanding)
    : Component(name, cfg, ctx),
      port_("socket",
            [this](tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
              complete(static_cast<Request&>(gp), sc_core::sc_time_stamp() + delay);
            }),
      reader_(std::move(reader)),
      max_outstanding_(max_outstanding),
      reads_(counter("reads", "requests", "read requests completed")),
      writes_(counter("writes", "requests", "write requests completed")),
      bytes_(counter("bytes", "B", "bytes requested and completed")),
      latency_(distribution("latency", "ns", "request latency, BEGIN_REQ to BEGIN_RESP")),
      read_latency_(distribution("read_latency", "ns", "read latency, BEGIN_REQ to BEGIN_RESP")),
      write_latency_(distribution("write_latency", "ns", "write latency, BEGIN_REQ to BEGIN_RESP")),
      issue_delay_(average("issue_delay", "ns", "how late requests were issued after their trace cycle")),
      outstanding_level_(time_average("outstanding", "requests", "requests in flight")),
      bandwidth_series_(time_series("bandwidth_over_time", "GB/s", "completed bytes per window", 1e-9)),
      bandwidth_(scalar("bandwidth", "GB/s", "bytes completed over the time of the last response")),
      completion_time_(scalar("completion_time", "s", "time of the last response")) {
  track_ = ctx.timeline().track(std::string(this->name()) + " requests");
  SC_HAS_PROCESS(TracePlayer);
  SC_THREAD(run);
}

void TracePlayer::free(tlm::tlm_generic_payload* gp) { pool_.recycle(gp); }

void TracePlayer::run() {
  try {
    while (const std::optional<MemoryRequest> req = reader_->next()) {
      const sc_core::sc_time due = clock().time_of(req->cycle);
      if (due > sc_core::sc_time_stamp()) wait(due - sc_core::sc_time_stamp());
      while (outstanding_ >= max_outstanding_ || port_.request_open()) wait(port_.progress());
      // Responses arrive on the target's clock edges; issue on our own, at most one request
      // per cycle.
      sc_core::sc_time edge = clock().next_edge(sc_core::sc_time_stamp());
      if (next_id_ > 0) edge = std::max(edge, clock().edge_after(last_issue_));
      if (edge > sc_core::sc_time_stamp()) wait(edge - sc_core::sc_time_stamp());

      Request* r = pool_.allocate();
      r->acquire();
      r->issued = last_issue_ = sc_core::sc_time_stamp();
      r->id = next_id_++;
      r->data.resize(req->bytes);
      r->set_command(req->write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      r->set_address(req->address);
      r->set_data_ptr(r->data.data());
      r->set_data_length(req->bytes);
      r->set_streaming_width(req->bytes);
      r->set_byte_enable_ptr(nullptr);
      r->set_dmi_allowed(false);
      r->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      issue_delay_.sample(to_seconds(r->issued - due) * 1e9);
      ++outstanding_;
      outstanding_level_.set(to_seconds(r->issued), static_cast<double>(outstanding_));
      context().timeline().async_begin(track_, req->write ? "write" : "read", r->id, r->issued);
      port_.begin_request(*r);
    }
  } catch (const InputError& e) {
    context().fail(e);
    return;
  }
  while (outstanding_ > 0) wait(port_.progress());
  finished_ = true;
}

void TracePlayer::complete(Request& r, const sc_core::sc_time& at) {
  if (r.get_response_status() != tlm::TLM_OK_RESPONSE && r.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE) {
    context().fail(InputError(SourceLoc{name()}, "", "the memory answered request " + std::to_string(r.id) +
                                                        " with an error: " + r.get_response_string()));
  }
  const double ns = to_seconds(at - r.issued) * 1e9;
  latency_.sample(ns);
  (r.is_write() ? write_latency_ : read_latency_).sample(ns);
  (r.is_write() ? writes_ : reads_).add();
  bytes_.add(r.get_data_length());
  bandwidth_series_.add(to_seconds(at), r.get_data_length());
  context().timeline().async_end(track_, r.is_write() ? "write" : "read", r.id, at);
  --outstanding_;
  outstanding_level_.set(to_seconds(at), static_cast<double>(outstanding_));
  last_response_ = std::max(last_response_, at);
  r.release();
}

void TracePlayer::account_analytic(std::uint64_t reads, std::uint64_t writes, std::uint64_t bytes, double latency_s,
                                   double outstanding, double end_s) {
  reads_.add(reads);
  writes_.add(writes);
  bytes_.add(bytes);
  latency_.sample(latency_s * 1e9, reads + writes);
  read_latency_.sample(latency_s * 1e9, reads);
  write_latency_.sample(latency_s * 1e9, writes);
  outstanding_level_.set(0, outstanding);
  bandwidth_series_.add_spread(0, end_s, static_cast<double>(bytes));
  last_response_ = sc_core::sc_time(end_s, sc_core::SC_SEC);
  finished_ = true;
}

void TracePlayer::finalize(const sc_core::sc_time&) {
  // Measured to the last response, not to the end of the run, so a trace's own idle tail
  // does not dilute it.
  const double t = last_response_.to_seconds();
  completion_time_.set(t);
  outstanding_level_.finish(t);
  bandwidth_series_.finish(t);
  bandwidth_.set(t > 0 ? static_cast<double>(bytes_.count()) / t * 1e-9 : 0);
}

}  // namespace strata
