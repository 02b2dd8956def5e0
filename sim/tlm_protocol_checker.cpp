#include "sim/tlm_protocol_checker.h"

#include <fmt/format.h>

namespace strata {

namespace {
const char* phase_name(const tlm::tlm_phase& p) {
  if (p == tlm::BEGIN_REQ) return "BEGIN_REQ";
  if (p == tlm::END_REQ) return "END_REQ";
  if (p == tlm::BEGIN_RESP) return "BEGIN_RESP";
  if (p == tlm::END_RESP) return "END_RESP";
  return "an unknown phase";
}
}  // namespace

TlmProtocolChecker::TlmProtocolChecker(sc_core::sc_module_name name)
    : sc_core::sc_module(name), target_("target_socket"), initiator_("initiator_socket") {
  target_.register_nb_transport_fw(this, &TlmProtocolChecker::fw);
  target_.register_b_transport(this, &TlmProtocolChecker::b_transport);
  target_.register_transport_dbg(this, &TlmProtocolChecker::transport_dbg);
  initiator_.register_nb_transport_bw(this, &TlmProtocolChecker::bw);
}

void TlmProtocolChecker::violation(const std::string& what) const {
  SC_REPORT_ERROR("strata/tlm_protocol", fmt::format("{}: TLM-2.0 base protocol broken at {}: {}", name(),
                                                     sc_core::sc_time_stamp().to_string(), what)
                                             .c_str());
  throw std::logic_error(what);  // SC_REPORT_ERROR throws; this keeps [[noreturn]] honest
}

TlmProtocolChecker::Open& TlmProtocolChecker::open(tlm::tlm_generic_payload& gp, const char* what) {
  auto it = open_.find(&gp);
  if (it == open_.end()) violation(fmt::format("{} for a transaction that is not in flight", what));
  return it->second;
}

void TlmProtocolChecker::advance(tlm::tlm_generic_payload& gp, Phase phase, const sc_core::sc_time& at) {
  advance(open(gp, "a phase"), phase, at);
}

void TlmProtocolChecker::advance(Open& o, Phase phase, const sc_core::sc_time& at) {
  if (at < o.at)
    violation(
        fmt::format("a phase at {} before the transaction's previous phase at {}", at.to_string(), o.at.to_string()));
  if (o.phase == Phase::Request && phase != Phase::Request) in_request_ = nullptr;
  o.phase = phase;
  o.at = at;
}

void TlmProtocolChecker::begin_response(tlm::tlm_generic_payload& gp, const sc_core::sc_time& at) {
  if (in_response_ && in_response_ != &gp)
    violation("BEGIN_RESP while another response has not ended (response exclusion rule)");
  Open& o = open(gp, "BEGIN_RESP");
  if (o.phase == Phase::Response) violation("a second BEGIN_RESP for one transaction");
  if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation("BEGIN_RESP with the response status still TLM_INCOMPLETE_RESPONSE");
  advance(o, Phase::Response, at);
  in_response_ = &gp;
}

void TlmProtocolChecker::finish(tlm::tlm_generic_payload& gp) {
  if (in_request_ == &gp) in_request_ = nullptr;
  if (in_response_ == &gp) in_response_ = nullptr;
  open_.erase(&gp);
  ++total_;
}

tlm::tlm_sync_enum TlmProtocolChecker::fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                          sc_core::sc_time& delay) {
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
  if (phase == tlm::BEGIN_REQ) {
    if (!open_.try_emplace(&gp, Open{Phase::Request, at}).second)
      violation("BEGIN_REQ for a payload already in flight");
    if (in_request_) violation("BEGIN_REQ while another request has not ended (request exclusion rule)");
    in_request_ = &gp;
  } else if (phase == tlm::END_RESP) {
    Open& o = open(gp, "END_RESP");
    if (o.phase != Phase::Response) violation("END_RESP before BEGIN_RESP");
    advance(o, Phase::Response, at);
  } else {
    violation(fmt::format("{} on the forward path", phase_name(phase)));
  }
  const tlm::tlm_phase sent = phase;
  const tlm::tlm_sync_enum status = initiator_->nb_transport_fw(gp, phase, delay);
  const sc_core::sc_time back = sc_core::sc_time_stamp() + delay;
  if (status == tlm::TLM_COMPLETED) {
    if (sent == tlm::BEGIN_REQ && gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      violation("TLM_COMPLETED for BEGIN_REQ with the response status still TLM_INCOMPLETE_RESPONSE");
    finish(gp);
  } else if (status == tlm::TLM_UPDATED) {
    if (sent == tlm::END_RESP) violation("TLM_UPDATED returned for END_RESP");
    if (phase == tlm::END_REQ) {
      advance(gp, Phase::Accepted, back);
    } else if (phase == tlm::BEGIN_RESP) {
      begin_response(gp, back);
    } else {
      violation(fmt::format("TLM_UPDATED with {} for BEGIN_REQ", phase_name(phase)));
    }
  } else if (sent == tlm::END_RESP) {
    finish(gp);  // TLM_ACCEPTED for END_RESP: nothing further follows
  }
  return status;
}

tlm::tlm_sync_enum TlmProtocolChecker::bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                          sc_core::sc_time& delay) {
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
  if (phase == tlm::END_REQ) {
    if (open(gp, "END_REQ").phase != Phase::Request) violation("END_REQ for a transaction not in its request phase");
    advance(gp, Phase::Accepted, at);
  } else if (phase == tlm::BEGIN_RESP) {
    begin_response(gp, at);
  } else {
    violation(fmt::format("{} on the backward path", phase_name(phase)));
  }
  const tlm::tlm_phase sent = phase;
  const tlm::tlm_sync_enum status = target_->nb_transport_bw(gp, phase, delay);
  if (sent == tlm::END_REQ) {
    if (status == tlm::TLM_UPDATED) violation("TLM_UPDATED returned for END_REQ");
    if (status == tlm::TLM_COMPLETED) finish(gp);
  } else if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
    finish(gp);
  } else if (status == tlm::TLM_UPDATED) {
    violation(fmt::format("TLM_UPDATED with {} for BEGIN_RESP", phase_name(phase)));
  }
  return status;
}

void TlmProtocolChecker::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (open_.count(&gp)) violation("b_transport with a payload in flight on the non-blocking path");
  initiator_->b_transport(gp, delay);
}

unsigned TlmProtocolChecker::transport_dbg(tlm::tlm_generic_payload& gp) { return initiator_->transport_dbg(gp); }

}  // namespace strata
