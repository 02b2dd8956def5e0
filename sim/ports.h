// Port roles shared across folders. Memory-like traffic is TLM-2.0 generic payloads with the
// approximately-timed four-phase protocol (BEGIN_REQ/END_REQ/BEGIN_RESP/END_RESP), so any
// SystemC user can plug a Strata memory into their own platform and vice versa.
#pragma once

#include <tlm>

namespace strata {

// Role name a kind declares (KindSpec::provides) when it implements MemoryTarget.
inline constexpr const char* kMemoryTargetRole = "memory_target";

// A component that accepts memory requests on a TLM-2.0 target socket.
class MemoryTarget {
 public:
  virtual ~MemoryTarget() = default;
  virtual tlm::tlm_target_socket<>& target_socket() = 0;
  // Peak data bandwidth in bytes per second (mappers size tiles with it; reports compare with it).
  virtual double peak_bandwidth() const = 0;
};

}  // namespace strata
