// A TLM-2.0 base-protocol checker for the approximately-timed phases, inserted between an
// initiator and a target (bind_at in sim/tlm_at.h does it when sim.check_protocol is on). It
// passes every call through unchanged and stops the run (SC_REPORT_ERROR) at the first rule
// broken: a transaction's phases in order (BEGIN_REQ, END_REQ, BEGIN_RESP, END_RESP, where
// BEGIN_RESP may imply END_REQ and any return path may complete it), the request exclusion rule
// (no BEGIN_REQ while another request is in its request phase) and the response exclusion rule
// (no BEGIN_RESP while another response is unfinished), phase times that never go backwards,
// a payload not sent again while in flight, and a response status set by BEGIN_RESP.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

namespace strata {

class TlmProtocolChecker : public sc_core::sc_module {
 public:
  explicit TlmProtocolChecker(sc_core::sc_module_name name);
  tlm::tlm_target_socket<>& target_socket() { return target_; }
  tlm::tlm_initiator_socket<>& initiator_socket() { return initiator_; }
  // Transactions completed through every checker of this process (tests read it).
  static std::uint64_t checked_total() { return total_; }

 private:
  enum class Phase { Request, Accepted, Response };
  struct Open {
    Phase phase;
    sc_core::sc_time at;  // time of its last phase
  };
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  // Moves `gp` to `phase` at `at` (checking time order); `done` ends the transaction.
  void advance(tlm::tlm_generic_payload& gp, Phase phase, const sc_core::sc_time& at);
  void advance(Open& o, Phase phase, const sc_core::sc_time& at);  // o: gp's entry, looked up once
  void begin_response(tlm::tlm_generic_payload& gp, const sc_core::sc_time& at);
  void finish(tlm::tlm_generic_payload& gp);
  Open& open(tlm::tlm_generic_payload& gp, const char* what);
  [[noreturn]] void violation(const std::string& what) const;

  tlm_utils::simple_target_socket<TlmProtocolChecker> target_;
  tlm_utils::simple_initiator_socket<TlmProtocolChecker> initiator_;
  // Looked up by payload, never iterated: hashed (an ordered map was a tenth of a checked run).
  std::unordered_map<const tlm::tlm_generic_payload*, Open> open_;
  const tlm::tlm_generic_payload* in_request_ = nullptr;   // request phase not yet ended
  const tlm::tlm_generic_payload* in_response_ = nullptr;  // response phase not yet ended
  static inline std::uint64_t total_ = 0;
};

}  // namespace strata
