// Component kind `dma`: moves data between a core's scratchpad and memory. A transfer is a
// descriptor (rows of contiguous bytes at a stride, read or write); the engine splits it into
// requests that never cross a `burst`-aligned boundary and issues them over a TLM-2.0
// approximately-timed initiator socket, one per cycle, with at most `max_outstanding` in flight.
// Descriptors are served in submission order; a callback fires when a descriptor's last
// request completes. Writes are posted: they complete when the memory answers them.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "sim/component.h"
#include "sim/payload_pool.h"
#include "sim/tlm_at.h"

namespace strata {

struct DmaDescriptor {
  std::uint64_t address = 0;    // first byte in memory
  std::uint64_t rows = 1;       // rows of row_bytes each
  std::uint64_t row_bytes = 0;  // contiguous bytes per row
  std::uint64_t stride = 0;     // bytes between row starts; 0 means row_bytes (one contiguous block)
  bool write = false;
  std::uint64_t bytes() const { return rows * row_bytes; }
};

// The `block`-aligned windows `d`'s rows touch: the requests a DMA with that burst issues for it
// (and the DRAM accesses papers count in 64 B blocks).
std::uint64_t aligned_blocks(const DmaDescriptor& d, std::uint64_t block);

inline constexpr const char* kDmaRole = "dma";

class DmaEngine : public Component, public tlm::tlm_mm_interface {
 public:
  static KindSpec spec();
  DmaEngine(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  InitiatorSocket& initiator_socket() { return port_.socket(); }
  // Queues a transfer; `done` runs (inside the simulation, at the completion time) when its
  // last request has completed. A descriptor of zero bytes completes at once.
  void submit(const DmaDescriptor& d, std::function<void()> done);
  void free(tlm::tlm_generic_payload* gp) override;  // tlm_mm_interface
  void finalize(const sc_core::sc_time& end) override;

  // Analytic fidelity (sim/analytic.h). The requests `d` takes, split at burst boundaries as
  // run() splits it.
  std::uint64_t requests_of(const DmaDescriptor& d) const;
  // Counts `d` as a transfer whose data moved during [start_s, end_s): the descriptor, its
  // requests and bytes, and its bytes over time. Latencies are not filled.
  void account_analytic(const DmaDescriptor& d, double start_s, double end_s);
  std::uint64_t burst() const { return burst_; }
  std::size_t max_outstanding() const { return max_outstanding_; }

 private:
  struct Transfer {
    DmaDescriptor d;
    std::function<void()> done;
    std::uint64_t row = 0, offset = 0;  // next byte to issue: row, offset within the row
    std::uint64_t in_flight = 0;
    std::uint64_t id = 0;
    bool issued_all = false;
  };
  struct Request : tlm::tlm_generic_payload {
    explicit Request(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) {}
    std::shared_ptr<Transfer> transfer;
    sc_core::sc_time issued;
  };
  void run();  // SC_THREAD: issues requests
  void complete(Request& r, const sc_core::sc_time& at);

  AtInitiator port_;
  std::uint64_t burst_;
  std::size_t max_outstanding_;
  std::size_t outstanding_ = 0;
  std::deque<std::shared_ptr<Transfer>> queue_;
  sc_core::sc_event work_event_;
  sc_core::sc_time last_issue_;
  bool issued_any_ = false;
  std::uint64_t next_id_ = 0;
  int track_ = 0;
  PayloadPool<Request> pool_{this};
  std::vector<unsigned char> scratch_;  // payload data pointer (timing-only memories ignore it)

  Counter& descriptors_;
  Counter& requests_;
  Counter& bytes_read_;
  Counter& bytes_written_;
  Distribution& read_latency_;
  TimeAverage& outstanding_level_;
  TimeSeries& bandwidth_series_;
};

}  // namespace strata
