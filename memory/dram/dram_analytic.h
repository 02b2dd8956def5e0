// Closed forms of a DRAM subsystem for the analytic fidelity (sim/analytic.h), from its
// standard's timings, its controller settings and its address mapping. SystemC-free.
//
// Sustained bandwidth, with requests spread over channels and bank groups:
//     peak x tBURST / max(tBURST, tCCD_S) x (1 - refresh_overhead)
//   refresh_overhead  all-bank: (tRFC + tRPab) / tREFI, the rank blocked while it precharges
//                     and refreshes; per-bank: tRFCpb / tREFIpb / banks, one bank of the rank
//                     blocked and the stream passing it in the queue; none: 0
// Bus turnarounds do not enter (streams read or write; an NPU's stores are a few percent of its
// traffic), nor do row switches (the controllers' queues open a stream's next row early in
// another bank). The tests hold the presets' streams to this within a few percent (docs/npu.md).
//
// Bandwidth share of a transfer (rows of contiguous bytes at a stride): the payload over the
// bursts it occupies (partial bursts at unaligned row ends), times
//   a contiguous run  1 when the requests a controller's read queue holds span two bank groups
//                     or more under this mapping (the scheduler alternates them), else
//                     max(tBURST, tCCD_S) / max(tBURST, tCCD_L) (column_cycles())
//   a block of rows   a spread stream's time for its bursts over their time, window by window
//                     of as many bursts as the controllers' read queues hold (a full channel
//                     queue holds up the front end, so what counts is how the bursts in flight
//                     spread): the busiest channel of a window sets its time, at tCCD_S per
//                     burst when its bursts span bank groups and tCCD_L when they stay in one;
//                     at most kSampleBursts bursts of whole rows walked. A block whose stride is
//                     a multiple of the channel or bank-group interleave gets only part of the
//                     bandwidth.
//   random rows       (requests uniform over the memory) each activates a row, so a controller
//                     serves at most ranks x min(banks / tRC, 4 / tFAW, 1 / tRRD_S) activations
//                     per cycle, two commands per request on a shared command bus (HBM: one on
//                     each of its row and column buses) and the request's bursts at tCCD_S; less
//                     refresh; over the sustained bandwidth
//
// Row activations of a transfer:
//   interleaved  (other initiators stream into the same banks, closing pages between visits)
//                one per page visit: a burst needs one when the burst before it on its
//                controller went to another page (FR-FCFS keeps one visit's hits together)
//   alone, contiguous or long rows (at least kSampleBursts bursts each): an open-page
//                controller serving the stream by itself activates when a burst's bank has
//                another row open
//   alone, short rows (a tile's block of a larger matrix): the rows' bursts walked over the
//                mapping against the banks' open rows, which persist from one transfer to the
//                next (a tile's rows, and the next tile's, hit rows earlier ones opened); at
//                most kSampleBursts bursts of whole rows, scaled to all rows
// Contiguous runs use per-mapping tables: the mapping walked once over the first bursts of a
// stream from address 0 (at most kWalkBursts), counting both kinds at every power of two of
// bursts; a run of n bursts is interpolated between them (and scaled linearly past the walk).
#pragma once

#include <cstdint>
#include <vector>

#include "memory/dram/address_mapping.h"
#include "memory/dram/channel_controller.h"
#include "memory/dram/dram_spec.h"

namespace strata {

class DramAnalytic {
 public:
  static constexpr std::uint64_t kWalkBursts = std::uint64_t{1} << 15;
  static constexpr std::uint64_t kSampleBursts = 512;

  DramAnalytic(const DramSpec& spec, const ControllerConfig& controller, const AddressMapping& mapping);

  // Command cycles between a stream's bursts on one (pseudo-)channel under this mapping.
  double column_cycles() const { return column_cycles_; }
  double refresh_overhead() const { return refresh_overhead_; }
  double sustained_bandwidth() const { return sustained_; }
  // The share of the sustained bandwidth random requests of `bytes` each can draw on.
  double random_share(std::uint64_t bytes) const;
  // Row activations of a run of `bursts` consecutive bursts.
  double activations(std::uint64_t bursts, bool interleaved) const;
  // The share of the sustained bandwidth `rows` rows of `row_bytes` bytes, `stride` apart, from
  // `address` can draw on (see above).
  double bandwidth_share(std::uint64_t address, std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t stride);
  // Row activations of `rows` rows of `row_bytes` contiguous bytes, `stride` apart, from
  // `address` (see above); updates the banks' open rows when it walks them.
  double activations(std::uint64_t address, std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t stride,
                     bool interleaved);

 private:
  const DramOrganization org_;
  const DramTiming timing_;
  const double tck_s_;
  const bool separate_buses_;
  const AddressMapping& mapping_;
  std::vector<std::int64_t> open_row_;  // per bank of every controller, for the walks of short rows
  std::vector<std::uint64_t> window_bursts_;  // per controller, in the window bandwidth_share() walks
  std::vector<std::uint32_t> window_groups_;  // per controller: bank groups seen in the window
  std::size_t queue_window_;                  // bursts the controllers' read queues hold
  double short_cycles_, long_cycles_;         // per burst: max(tBURST, tCCD_S), max(tBURST, tCCD_L)
  // Per power of two of bursts (index j: 2^j bursts): activations alone and interleaved.
  std::vector<double> alone_, interleaved_;
  double column_cycles_ = 1, refresh_overhead_ = 0, sustained_ = 0;
};

}  // namespace strata
