#include "sim/tlm_at.h"

#include <memory>

#include "sim/sim_context.h"
#include "sim/tlm_protocol_checker.h"

namespace strata {

AtInitiator::AtInitiator(const char* socket_name, ResponseHandler on_response)
    : socket_(socket_name), on_response_(std::move(on_response)) {
  socket_.register_nb_transport_bw(this, &AtInitiator::nb_transport_bw);
}

void AtInitiator::begin_request(tlm::tlm_generic_payload& gp) {
  open_ = &gp;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum status = socket_->nb_transport_fw(gp, phase, delay);
  if (status == tlm::TLM_UPDATED && phase == tlm::END_REQ) {
    open_ = nullptr;
    if (delay > sc_core::SC_ZERO_TIME) sc_core::wait(delay);
  } else if (status == tlm::TLM_COMPLETED) {
    open_ = nullptr;
    respond(gp, delay);
  }
  // TLM_ACCEPTED: END_REQ comes on the backward path.
}

void AtInitiator::respond(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
  progress_.notify(sc_core::SC_ZERO_TIME);
  on_response_(gp, delay);
}

tlm::tlm_sync_enum AtInitiator::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                sc_core::sc_time& delay) {
  if (phase == tlm::END_REQ) {
    if (&gp == open_) open_ = nullptr;
    progress_.notify(delay);
    request_ended_.notify(delay);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    if (&gp == open_) {  // its BEGIN_RESP implies its END_REQ
      open_ = nullptr;
      progress_.notify(delay);
      request_ended_.notify(delay);
    }
    respond(gp, delay);
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR("strata/tlm", (std::string(socket_.name()) + ": unexpected phase on the backward path").c_str());
  return tlm::TLM_COMPLETED;
}

AtTarget::AtTarget(const std::string& name, Hooks hooks) : socket_(name.c_str()), hooks_(std::move(hooks)) {
  socket_.register_nb_transport_fw(this, &AtTarget::nb_transport_fw);
  socket_.register_b_transport(this, &AtTarget::b_transport);
  socket_.register_transport_dbg(this, &AtTarget::transport_dbg);
  const auto spawn = [&](void (AtTarget::*method)(), sc_core::sc_event& trigger, const char* suffix) {
    sc_core::sc_spawn_options options;
    options.spawn_method();
    options.set_sensitivity(&trigger);
    options.dont_initialize();
    sc_core::sc_spawn(sc_bind(method, this), (name + suffix).c_str(), &options);
  };
  spawn(&AtTarget::send_responses, respond_event_, "_respond");
  spawn(&AtTarget::accept_waiting, retry_event_, "_retry");
}

AtTarget::Port& AtTarget::port(int id) {
  if (static_cast<std::size_t>(id) >= ports_.size()) ports_.resize(static_cast<std::size_t>(id) + 1);
  return ports_[static_cast<std::size_t>(id)];
}

tlm::tlm_sync_enum AtTarget::nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                             sc_core::sc_time& delay) {
  Port& p = port(id);
  if (phase == tlm::BEGIN_REQ) {
    if (p.waiting)
      SC_REPORT_ERROR("strata/tlm", (std::string(socket_.name()) +
                                     ": BEGIN_REQ before the previous request's END_REQ (TLM-2.0 AT rule)")
                                        .c_str());
    if (gp.has_mm()) gp.acquire();
    if (hooks_.accept(id, gp, delay)) {
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    p.waiting = &gp;
    ++waiting_count_;
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::END_RESP && p.in_response == &gp) {
    p.in_response = nullptr;
    complete(gp);
    respond_event_.notify(sc_core::SC_ZERO_TIME);
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR("strata/tlm", (std::string(socket_.name()) + ": unexpected phase on the forward path").c_str());
  return tlm::TLM_COMPLETED;
}

void AtTarget::complete(tlm::tlm_generic_payload& gp) {
  if (hooks_.completed) hooks_.completed(gp);
  if (gp.has_mm()) gp.release();
}

void AtTarget::respond(int id, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at) {
  Port& p = port(id);
  p.responses.push(Response{at, seq_++, &gp});
  if (!p.in_response) respond_event_.notify(p.responses.top().at - sc_core::sc_time_stamp());
}

void AtTarget::send_responses() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  for (;;) {
    // The earliest response of a port that is free to take one.
    Port* next = nullptr;
    int id = 0;
    for (std::size_t i = 0; i < ports_.size(); ++i) {
      Port& p = ports_[i];
      if (p.in_response || p.responses.empty() || (next && !(next->responses.top() > p.responses.top()))) continue;
      next = &p;
      id = static_cast<int>(i);
    }
    if (!next) return;
    const Response head = next->responses.top();
    if (head.at > now) {
      respond_event_.notify(head.at - now);
      return;
    }
    next->responses.pop();
    if (hooks_.responding) hooks_.responding(*head.gp);
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = socket_[id]->nb_transport_bw(*head.gp, phase, delay);
    if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::END_RESP)) complete(*head.gp);
    else next->in_response = head.gp;
  }
}

void AtTarget::retry(const sc_core::sc_time& delay) {
  if (waiting_count_ > 0) retry_event_.notify(delay);
}

void AtTarget::accept_waiting() {
  for (std::size_t id = 0; id < ports_.size(); ++id) {
    Port& p = ports_[id];
    if (!p.waiting) continue;
    tlm::tlm_generic_payload* gp = p.waiting;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    if (!hooks_.accept(static_cast<int>(id), *gp, delay)) continue;
    p.waiting = nullptr;
    --waiting_count_;
    tlm::tlm_phase phase = tlm::END_REQ;
    socket_[static_cast<int>(id)]->nb_transport_bw(*gp, phase, delay);
  }
}

void AtTarget::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (hooks_.b_transport) {
    hooks_.b_transport(gp, delay);
    return;
  }
  SC_REPORT_ERROR("strata/tlm", (std::string(socket_.name()) +
                                 ": b_transport: this target is approximately-timed only (nb_transport_fw)")
                                    .c_str());
}

unsigned AtTarget::transport_dbg(int, tlm::tlm_generic_payload&) { return 0; }  // timing only: no data is stored

void bind_at(SimContext& ctx, InitiatorSocket& initiator, TargetSocket& target, const std::string& name) {
  if (!ctx.check_protocol()) {
    initiator.bind(target);
    return;
  }
  auto owned = std::make_shared<TlmProtocolChecker>(sc_core::sc_gen_unique_name((name + "_checker").c_str()));
  TlmProtocolChecker* checker = owned.get();
  ctx.keep(std::move(owned));  // as long as the design
  initiator.bind(checker->target_socket());
  checker->initiator_socket().bind(target);
}

}  // namespace strata
