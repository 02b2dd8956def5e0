// Component kind `nand_flash`: a NAND flash device (channels of chips, dies and planes with data
// and cache registers, ONFI/Toggle channel buses) as a TLM-2.0 approximately-timed target, like
// the DRAM, so a trace, a DMA engine or an accelerator's flash controller drives it. Reads are
// page reads, writes page programs (flash_timeline.h has the timing and the address striping);
// responses leave when their last page is done, in order of time. Timing-only: no data, no FTL
// (the address is the physical page), no garbage collection or wear.
//
// Statistics: reads, writes, bytes, page_reads, page_programs, channel_utilization and
// plane_utilization (busy time over channels or planes x simulated time), service_latency.
// Energy from the technology table's `nand` row: a page read or program per page (scaled by the
// page size against the row's), the channel I/O per bit.
//
// sim.fidelity analytic: a long page-read stream sustains min(channel buses, planes' reads).
#pragma once

#include <cstdint>
#include <memory>

#include "memory/flash/flash_device.h"
#include "memory/flash/flash_timeline.h"
#include "memory/memory_capacity.h"
#include "sim/component.h"
#include "sim/ports.h"
#include "sim/tlm_at.h"

namespace strata {

class NandFlash : public Component, public MemoryTarget, public AnalyticMemory, public NandFlashDevice {
 public:
  static KindSpec spec();
  NandFlash(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  TargetSocket& target_socket() override { return port_.socket(); }
  double peak_bandwidth() const override { return timeline_.spec().channels * timeline_.spec().bus_bytes_per_s; }
  MemoryCapacity capacity() const override;  // its organization's bytes
  int queues() const override { return timeline_.spec().channels; }
  int queue_of(std::uint64_t address) const override { return timeline_.decode(address).channel; }

  double sustained_bandwidth() const override { return timeline_.spec().read_bandwidth(); }
  double streaming_energy_per_byte() const override;
  double unloaded_latency(bool write) const override;
  double bandwidth_share(const AnalyticTransfer&) override { return 1; }
  std::uint64_t queue_requests(std::uint64_t) const override { return queue_depth_; }
  void account_analytic(const AnalyticTransfer& t) override;
  void finalize(const sc_core::sc_time& end) override;

  // The nand_flash role (flash_device.h): a flash controller that schedules its own operations
  // (read-computes, sliced reads) through timeline() and so sends no TLM request.
  FlashTimeline& direct_controller(SimContext& ctx) override;
  FlashTimeline& timeline() override { return timeline_; }
  void count_direct(std::uint64_t pages, std::uint64_t channel_bytes) override;

 private:
  bool accept(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  double page_scale() const;  // this device's page over the technology table's
  double serve(bool write, std::uint64_t address, std::uint64_t bytes, double arrival);  // done (s)

  AtTarget port_;
  std::unique_ptr<AtInitiator> idle_controller_;
  FlashTimeline timeline_;
  std::size_t queue_depth_;
  std::size_t inflight_ = 0;
  Counter& reads_;
  Counter& writes_;
  Counter& bytes_;
  Distribution& service_latency_;
  Scalar& channel_utilization_;
  Scalar& plane_utilization_;
  EnergyEvent& page_read_;
  EnergyEvent& page_program_;
  EnergyEvent& io_bit_;
  std::uint64_t analytic_pages_ = 0;
  double analytic_busy_ = 0;
};

}  // namespace strata
