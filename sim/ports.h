// Port roles shared across folders. Memory-like traffic is TLM-2.0 generic payloads with the
// approximately-timed four-phase protocol (BEGIN_REQ/END_REQ/BEGIN_RESP/END_RESP), so any
// SystemC user can plug a Strata memory into their own platform and vice versa.
#pragma once

#include <cstdint>

#include "sim/tlm_at.h"

namespace strata {

// Role name a kind declares (KindSpec::provides) when it implements MemoryTarget.
inline constexpr const char* kMemoryTargetRole = "memory_target";

// Traffic as the analytic fidelity (sim/analytic.h) hands it to a memory instead of sending
// requests: `rows` runs of `row_bytes` contiguous bytes, `stride` bytes apart, from `address`,
// as the initiator splits it: `requests` requests that never cross a multiple of
// `request_align` bytes.
struct AnalyticTransfer {
  std::uint64_t address = 0, rows = 1, row_bytes = 0, stride = 0;
  std::uint64_t requests = 0, request_align = 64;
  bool write = false;
  // The rows are scattered uniformly over the memory (random requests), not `stride` apart:
  // each opens its own DRAM row.
  bool random = false;
  // Initiators streaming other address ranges into the memory at the same time as this one
  // (1: it runs alone). DRAM row-buffer locality falls when streams interleave in its banks.
  int streams = 1;
  // When its data moves (seconds): for figures over time (bandwidth, DRAM standby).
  double start_s = 0, end_s = 0;
  std::uint64_t bytes() const { return rows * row_bytes; }
};

// A component that accepts memory requests on a TLM-2.0 target socket: all an initiator needs
// to bind to it at cycle level (a DRAM, a PIM DRAM, a flash array, a cache in front of one).
class MemoryTarget {
 public:
  static constexpr const char* kRole = kMemoryTargetRole;  // Component::build_child<MemoryTarget>
  virtual ~MemoryTarget() = default;
  virtual TargetSocket& target_socket() = 0;
  // Peak data bandwidth in bytes per second (mappers size tiles with it; reports compare with it).
  virtual double peak_bandwidth() const = 0;
  // Independent request queues behind the socket (a DRAM's channel controllers), and which one
  // serves `address`: an initiator with a port per queue sends each request through its queue's
  // port, so a full queue holds back only its own requests.
  virtual int queues() const { return 1; }
  virtual int queue_of(std::uint64_t /*address*/) const { return 0; }
};

// A memory's analytic fidelity (sim/analytic.h), which a memory may leave out: without it the
// memory runs at cycle level only, and an analytic run says so at sim.fidelity.
class AnalyticMemory {
 public:
  virtual ~AnalyticMemory() = default;
  // The bandwidth (B/s) a long sequential stream sustains: the peak less the overheads the
  // memory's timing cannot hide (DRAM refresh, column-to-column spacing).
  virtual double sustained_bandwidth() const = 0;
  // Seconds from a request's arrival to its response on an idle memory (for a write, to its
  // acceptance where writes are posted).
  virtual double unloaded_latency(bool write) const = 0;
  // The dynamic energy (J) a byte of a long sequential read stream costs: the array access and
  // the I/O, not the standby power (a device's power model estimates a load's power with it).
  virtual double streaming_energy_per_byte() const = 0;
  // The share of the sustained bandwidth `t` can draw on, in (0, 1]: less than 1 where its
  // addresses fall in only some of the memory's channels (a block of rows whose stride is a
  // multiple of the channel interleave), or where each row costs a DRAM row activation.
  virtual double bandwidth_share(const AnalyticTransfer& t) = 0;
  // Requests of `request_bytes` the memory accepts before it holds further ones back (its
  // queues), for the latency a saturating initiator sees.
  virtual std::uint64_t queue_requests(std::uint64_t request_bytes) const = 0;
  // Counts what serving `t` would have counted at cycle level (requests, bytes, bursts, row
  // activations, their energy), without timing it. What depends on the run's length (refresh,
  // standby, achieved bandwidth) is counted in finalize(), with the analytic end time.
  virtual void account_analytic(const AnalyticTransfer& t) = 0;
};

struct ValidatedNode;

// The analytic side of `memory` (configured by `config`), or InputError at its kind when it has
// none.
AnalyticMemory& analytic_memory(MemoryTarget& memory, const ValidatedNode& config);

}  // namespace strata
