// The GPU's L2 and crossbar: sliced, sectored, write-back, shared by every SM, in front of the
// DRAM. SystemC-free: the GPU feeds it the SMs' accesses in time order and carries its DRAM
// requests over TLM.
//
// An access crosses the crossbar to its line's slice (an XOR hash of the line address) in half
// of `latency` cycles, plus half of `far_latency` when the slice sits in the other partition
// than the SM; the slice handles `slice_sectors` sectors a cycle. A hit's data returns the same
// way. A miss asks the DRAM for the line's missing sectors `dram_latency` cycles after the
// slice (the memory controller and the path to it), and its data returns from the slice once
// the DRAM answers; later accesses to sectors already asked for wait for the same answer.
// Stores allocate their sectors dirty (no read); dirty sectors go back to the DRAM when
// evicted. A slice holds at most `writeback_queue` write-backs that the DRAM's controller has
// not yet taken: a store whose line evicts dirty data while the queue is full waits, and the
// slice's later stores behind it, until the DRAM takes one. The slice acknowledges a store to
// its SM when it takes it, so stores meet the DRAM's write rate and a kernel ends with its
// last acknowledgement. Loads are not held behind waiting stores.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "accelerators/gpu/sm_core.h"
#include "models/cache/sectored_cache.h"
#include "sim/slot_map.h"

namespace strata {

struct L2Config {
  std::uint64_t bytes = 50ull << 20;
  int ways = 16;
  int slices = 64;
  int partitions = 2;
  int latency = 260;       // cycles, a load's issue to its data on a near hit (SM side)
  int far_latency = 150;   // more for a slice in the other partition
  int slice_sectors = 2;   // sectors a slice reads or writes a cycle
  int dram_latency = 200;  // cycles from a slice's miss to its DRAM request, and the way back
  int writeback_queue = 64;  // write-backs a slice may have on their way to the DRAM's controller
};

class GpuL2 {
 public:
  // Data for an SM's access, at a cycle (SmCore::complete).
  using Deliver = std::function<void(int sm, std::uint64_t id, std::uint64_t cycle)>;
  // A store of an SM's taken by its slice; the acknowledgement is back at the SM at `cycle`
  // (SmCore::store_acknowledged).
  using Acknowledge = std::function<void(int sm, std::uint64_t cycle)>;
  // A DRAM request at a cycle; `tag` comes back with dram_done() for reads and with
  // dram_written() for writes.
  using DramRequest = std::function<void(std::uint64_t cycle, std::uint64_t address, std::uint32_t bytes, bool write,
                                         std::uint64_t tag)>;
  GpuL2(const L2Config& c, int sms, Deliver deliver, Acknowledge acknowledge, DramRequest dram);

  // An SM's access, in time order with every other (ties: SM, then the SM's own order).
  void access(const GlobalAccess& a);
  // The DRAM answered read `tag` at `cycle`.
  void dram_done(std::uint64_t tag, std::uint64_t cycle);
  // The DRAM's controller took write `tag` at `cycle` (posted: its queue had room).
  void dram_written(std::uint64_t tag, std::uint64_t cycle);
  // The smallest latency between an access leaving an SM and anything coming back to it or
  // reaching the DRAM: how far SMs may run between exchanges (the GPU's lookahead).
  static int lookahead(const L2Config& c) { return c.latency / 2; }

  std::uint64_t hit_sectors() const { return hit_sectors_; }
  std::uint64_t miss_sectors() const { return miss_sectors_; }
  std::uint64_t write_sectors() const { return write_sectors_; }
  std::uint64_t dram_read_bytes() const { return dram_read_bytes_; }
  std::uint64_t dram_write_bytes() const { return dram_write_bytes_; }
  std::uint64_t far_accesses() const { return far_; }
  // sim.reuse and sim.sample (sim/reuse.h): the counters above as they stand, and `times` more of
  // what they gained since `since`, an earlier counters().
  std::vector<double> counters() const;
  void repeat_counters(const std::vector<double>& since, double times);

 private:
  int slice_of(std::uint64_t line) const;
  // Sends `mask`'s sectors of `line` to or from the DRAM as runs of contiguous sectors.
  // Returns how many requests it made.
  int to_dram(std::uint64_t cycle, std::uint64_t line, std::uint64_t mask, bool write, std::uint64_t tag);
  // Sends an evicted line's dirty sectors back from slice `slice`, counting them in its queue.
  void write_back(int slice, std::uint64_t cycle, std::uint64_t line, std::uint64_t dirty);
  // The counters counters() reports, in its order (const or not, as `l2` is).
  template <class L2>
  static auto counter_fields(L2& l2) {
    return std::array{&l2.hit_sectors_, &l2.miss_sectors_,    &l2.write_sectors_,
                      &l2.far_,         &l2.dram_read_bytes_, &l2.dram_write_bytes_};
  }

  struct Waiter {
    int sm;
    std::uint64_t id, needs, ready, back;  // sectors still missing, the data's earliest cycle, the return path
  };
  struct Fill {
    std::uint64_t line, sectors;
    int parts;             // DRAM requests it was sent as
    std::uint64_t latest;  // the latest answer so far
    std::vector<std::size_t> waiters;
  };

  // A store its slice has not taken yet: it needs room for its victim's write-back (dirty
  // non-zero), or waits behind one that does.
  struct WaitingStore {
    int sm;
    std::uint64_t arrives, back;  // at the slice; the way back to the SM
    std::uint64_t victim, dirty;
  };
  struct Slice {
    std::uint64_t free = 0;  // busy until then
    int writebacks = 0;      // write-back requests the DRAM's controller has not taken
    std::deque<WaitingStore> waiting;
  };
  // Slice `slice` takes store `w` at cycle `at`: its victim's write-back goes out, and the
  // acknowledgement back to its SM.
  void take(int slice, const WaitingStore& w, std::uint64_t at);

  L2Config c_;
  int sms_;
  Deliver deliver_;
  Acknowledge acknowledge_;
  DramRequest dram_;
  SectoredCache cache_;
  std::vector<Slice> slices_;
  // A line with DRAM reads in flight: the sectors asked for and the reads' tags.
  struct Pending {
    std::uint64_t sectors;
    std::vector<std::uint64_t> tags;
  };
  SlotMap<Fill> fills_;                                          // by tag: DRAM reads in flight
  SlotMap<Pending> pending_;                                     // lines with reads in flight
  std::unordered_map<std::uint64_t, std::uint64_t> pending_of_;  // line -> its slot in pending_
  std::vector<Waiter> waiters_;
  std::vector<std::size_t> free_waiters_;
  std::uint64_t hit_sectors_ = 0, miss_sectors_ = 0, write_sectors_ = 0, far_ = 0;
  std::uint64_t dram_read_bytes_ = 0, dram_write_bytes_ = 0;
};

}  // namespace strata
