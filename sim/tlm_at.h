// The one TLM-2.0 approximately-timed (AT) base-protocol layer: an initiator side and a target
// side that every model uses instead of writing the four phases out itself.
//
// AtInitiator: a thread sends a request with begin_request(); the target accepts it on the
// return path (END_REQ, whose delay the thread waits out) or later on the backward path, and
// until then request_open() holds (the request exclusion rule: the next BEGIN_REQ waits). Every
// response (BEGIN_RESP on the backward path, or TLM_COMPLETED on the forward one) goes to the
// model's handler with its annotated delay and is completed at once (TLM_COMPLETED), so a
// target never waits for END_RESP from a Strata initiator. progress() fires at END_REQ and
// at every response: a thread that waits for room or for the request phase waits on it.
//
// AtTarget: a multi-socket target (one or more initiators bound, each a port) that keeps both
// exclusion rules per port. BEGIN_REQ goes to the model's accept hook: it takes the request
// (END_REQ on the return path, with the delay the hook leaves) or has no room (the request
// waits; the model calls retry() when room frees, and the hook is asked again). The model
// schedules each response with respond(gp, at); responses leave in order of time, then of
// respond() calls, each port holding back further responses until its initiator has completed
// the previous one (END_RESP or TLM_COMPLETED). Payloads with a memory manager are held
// (acquire) from BEGIN_REQ until their response is completed.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

namespace strata {

class SimContext;

// The socket types models expose: any TLM-2.0 base-protocol initiator socket binds to any
// target socket (a single or a multi-socket).
using InitiatorSocket = tlm::tlm_initiator_socket<>;
using TargetSocket = tlm::tlm_base_target_socket_b<>;

class AtInitiator {
 public:
  // Called for each response: the payload and the delay annotated to it (it is complete at
  // sc_time_stamp() + delay).
  using ResponseHandler = std::function<void(tlm::tlm_generic_payload&, const sc_core::sc_time& delay)>;
  AtInitiator(const char* socket_name, ResponseHandler on_response);
  AtInitiator(const AtInitiator&) = delete;
  AtInitiator& operator=(const AtInitiator&) = delete;

  InitiatorSocket& socket() { return socket_; }
  // From an SC_THREAD, with request_open() false: sends BEGIN_REQ for `gp`; returns once the
  // target has taken it on the return path (after waiting its END_REQ delay), has answered it
  // at once (the handler has run), or has left it waiting for END_REQ (request_open()).
  void begin_request(tlm::tlm_generic_payload& gp);
  bool request_open() const { return open_ != nullptr; }
  sc_core::sc_event& progress() { return progress_; }
  // Fires at END_REQ only (a thread that waits for the request phase alone).
  sc_core::sc_event& request_ended() { return request_ended_; }

 private:
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void respond(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay);

  tlm_utils::simple_initiator_socket<AtInitiator> socket_;
  ResponseHandler on_response_;
  tlm::tlm_generic_payload* open_ = nullptr;  // BEGIN_REQ sent, END_REQ not yet received
  sc_core::sc_event progress_, request_ended_;
};

class AtTarget {
 public:
  struct Hooks {
    // BEGIN_REQ from `port` (or a retry, with a zero delay): takes the request and returns
    // true (the delay it leaves is END_REQ's), or returns false to keep it waiting.
    std::function<bool(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)> accept;
    // Optional: just before a response's BEGIN_RESP goes out.
    std::function<void(tlm::tlm_generic_payload& gp)> responding;
    // Optional: after the initiator has completed a response (before its payload is released).
    std::function<void(tlm::tlm_generic_payload& gp)> completed;
    // Optional: the loosely-timed path; without it b_transport is an error.
    std::function<void(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)> b_transport;
  };
  // Spawns its two method processes in the module being constructed; `name` names them.
  AtTarget(const std::string& name, Hooks hooks);
  AtTarget(const AtTarget&) = delete;
  AtTarget& operator=(const AtTarget&) = delete;

  TargetSocket& socket() { return socket_; }
  // Schedules BEGIN_RESP for `gp` (accepted from `port`) at `at` (not before now).
  void respond(int port, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at);
  // Room has freed: the waiting requests are offered to accept() again after `delay`.
  void retry(const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);

 private:
  struct Response {
    sc_core::sc_time at;
    std::uint64_t seq;
    tlm::tlm_generic_payload* gp;
    bool operator>(const Response& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct Port {
    tlm::tlm_generic_payload* waiting = nullptr;      // BEGIN_REQ not yet accepted
    tlm::tlm_generic_payload* in_response = nullptr;  // BEGIN_RESP sent, END_RESP not yet
    std::priority_queue<Response, std::vector<Response>, std::greater<Response>> responses;
  };
  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int port, tlm::tlm_generic_payload& gp);
  void send_responses();  // method: BEGIN_RESP for every due response of an unblocked port
  void accept_waiting();  // method: offers the waiting requests to accept() again
  void complete(tlm::tlm_generic_payload& gp);
  Port& port(int id);

  tlm_utils::multi_passthrough_target_socket<AtTarget> socket_;
  Hooks hooks_;
  std::deque<Port> ports_;  // grown on first use; a deque keeps references to earlier ports valid
  std::uint64_t seq_ = 0;
  int waiting_count_ = 0;
  sc_core::sc_event respond_event_, retry_event_;
};

// Binds `initiator` to `target`; with sim.check_protocol on, through a base-protocol checker
// (sim/tlm_protocol_checker.h) named `name` that stops the run at the first rule broken.
void bind_at(SimContext& ctx, InitiatorSocket& initiator, TargetSocket& target, const std::string& name);

}  // namespace strata
