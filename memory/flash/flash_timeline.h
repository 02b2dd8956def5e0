// A NAND flash device's organisation and timing, and the timeline of its shared resources: the
// channel buses, the planes (array, data and cache registers) and the dies' compute cores.
// SystemC-free: the `nand_flash` component (nand_flash.h) schedules each TLM request here, and
// tests check the closed forms against it.
//
// Addresses stripe pages over the channels first, then the chips of a channel, their dies and
// planes, so consecutive pages keep every bus and plane busy (as an SSD's page allocator does).
//
// A page read: the command's cycles on the channel bus, the array read (tR) into the plane's
// data register, the move to the cache register (t_register), then the requested bytes over the
// bus. With cache reads the plane starts its next array read once the data reach the cache
// register; without, only once they have left on the bus. A program: the command and the data
// over the bus, then tPROG in the plane. An erase: tBERS in the plane. A read-compute (compute in
// flash, Cambricon-LLM): the input vector over the bus, the array read and the register move,
// the GEMV on the die's core (one core per die, shared by its planes), then the result over the
// bus. Every resource serves one thing at a time. A channel bus is a calendar: a transfer takes
// the first idle gap long enough for it after it is ready, so a later command slips in before a
// transfer booked for when its page will be sensed; planes and cores serve in booking order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace strata {

struct FlashSpec {
  int channels = 8, chips_per_channel = 2, dies_per_chip = 2, planes_per_die = 2;
  std::int64_t blocks_per_plane = 2048, pages_per_block = 256;
  std::uint64_t page_bytes = 16384, spare_bytes = 1664;
  double t_read = 30e-6, t_program = 750e-6, t_erase = 3.8e-3;  // s: tR, tPROG, tBERS
  double t_register = 0;           // s: data register to cache register
  double bus_bytes_per_s = 1e9;    // one channel: transfers/s x width / 8
  int command_cycles = 7;          // bus transfers of a command and its address
  double bus_transfers_per_s = 1e9;
  bool cache_read = true;

  int dies() const { return channels * chips_per_channel * dies_per_chip; }
  int planes() const { return dies() * planes_per_die; }
  std::uint64_t capacity() const {
    return static_cast<std::uint64_t>(planes()) * static_cast<std::uint64_t>(blocks_per_plane) *
           static_cast<std::uint64_t>(pages_per_block) * page_bytes;
  }
  double command_s() const { return command_cycles / bus_transfers_per_s; }
  // Closed forms on an idle device: a read of `bytes` within one page, a program of one page's
  // `bytes`, and the channels' and planes' ceilings on a long stream of page reads.
  double read_latency(std::uint64_t bytes) const {
    return command_s() + t_read + t_register + static_cast<double>(bytes) / bus_bytes_per_s;
  }
  double program_latency(std::uint64_t bytes) const {
    return command_s() + static_cast<double>(bytes) / bus_bytes_per_s + t_program;
  }
  double read_bandwidth() const;  // B/s: min(channel buses, planes' page reads)
};

struct FlashAddress {
  int channel = 0, die = 0, plane = 0;  // die and plane: indices over the whole device
  std::int64_t block = 0, page = 0;
  std::uint64_t offset = 0;  // within the page
};

// Busy intervals of one resource, in time order; bookings take the first gap that fits.
// Logarithmic in the intervals held: a request of many pages books them all at one arrival
// (nothing is forgotten until a later one), and a list scanned from its start made that
// quadratic. Intervals that touch are one (a run of commands back to back is one interval), so
// the scan for a gap passes only real gaps.
class BusyCalendar {
 public:
  // Books `seconds` at or after `ready`; returns the start. Intervals ending at or before
  // `horizon` (no later booking starts before it) are forgotten. A booking of no time occupies
  // nothing.
  double book(double ready, double seconds, double horizon);
  std::size_t intervals() const { return busy_.size(); }

 private:
  std::map<double, double> busy_;  // start -> end of [start, end): disjoint, not touching
};

class FlashTimeline {
 public:
  explicit FlashTimeline(const FlashSpec& s);
  const FlashSpec& spec() const { return s_; }
  FlashAddress decode(std::uint64_t address) const;

  // Each returns when the operation is done (s), given when it arrives; a read or program may
  // span pages (each page its own operation; done when the last is).
  double read(std::uint64_t address, std::uint64_t bytes, double arrival);
  double program(std::uint64_t address, std::uint64_t bytes, double arrival);
  double erase(std::uint64_t address, double arrival);  // the block holding `address`
  // A GEMV on the page at `address` by its die's core, `compute_s` long, with `input_bytes` in
  // and `output_bytes` out over the channel.
  double read_compute(std::uint64_t address, std::uint64_t input_bytes, std::uint64_t output_bytes, double compute_s,
                      double arrival);

  // Totals: busy seconds of the channel buses, planes and cores, summed over each; operations.
  double channel_busy() const { return channel_busy_; }
  double plane_busy() const { return plane_busy_; }
  double core_busy() const { return core_busy_; }
  std::uint64_t page_reads() const { return page_reads_; }
  std::uint64_t page_programs() const { return page_programs_; }
  std::uint64_t block_erases() const { return block_erases_; }
  std::uint64_t bus_bytes() const { return bus_bytes_; }

 private:
  double bus(int channel, double ready, double seconds);  // occupies the bus; returns its end
  double read_page(const FlashAddress& a, std::uint64_t bytes, double arrival);
  double program_page(const FlashAddress& a, std::uint64_t bytes, double arrival);
  // Runs `op` on each page `bytes` at `address` touch; returns when the last is done.
  template <typename PageOp>
  double each_page(std::uint64_t address, std::uint64_t bytes, double arrival, PageOp op);

  FlashSpec s_;
  std::vector<BusyCalendar> channels_;
  std::vector<double> plane_free_, core_free_;
  double horizon_ = 0;  // the latest arrival: no booking starts before it
  double channel_busy_ = 0, plane_busy_ = 0, core_busy_ = 0;
  std::uint64_t page_reads_ = 0, page_programs_ = 0, block_erases_ = 0, bus_bytes_ = 0;
};

}  // namespace strata
