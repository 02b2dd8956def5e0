// One queue (reads or writes) of a DRAM channel controller, indexed by bank: each bank keeps
// its requests in arrival order, and the queue keeps the banks that have any. The FR-FCFS
// scheduler then looks at each bank with work once per step (its oldest request, or its oldest
// hit on the open row) instead of at every request, which is what bounds its work per command:
// every request of a bank needs the same command (ACT, PRE, or the column command of a hit)
// and becomes legal at the same cycle, so the bank's oldest one stands for all of them.
//
// Requests live in a slab with stable ids; ages are arrival sequence numbers, so "the oldest
// ready command" compares sequence numbers across banks. Per bank, the queue also counts the
// requests that hit the bank's open row (the controller tells it when rows open and close) and
// keeps the bank's pick with a lower bound of when it may issue.
#pragma once

#include <cstdint>
#include <vector>

#include "memory/dram/address_mapping.h"
#include "memory/dram/dram_command.h"

namespace strata {

class RequestQueue {
 public:
  struct Request {
    std::uint64_t tag = 0;
    DramAddress a;
    std::uint64_t arrival = 0;
    std::uint64_t seq = 0;  // arrival order across the queue
    int bank = 0;           // flat bank index of the controller
    bool write = false;
    bool needed_pre = false, needed_act = false;
  };
  // A bank's pending command and the request it serves, kept until the bank's requests or its
  // row change (`valid`).
  struct BankPick {
    bool valid = false;
    DramCmd cmd = DramCmd::REF;
    std::uint32_t id = 0;
  };
  static constexpr std::uint64_t kNever = UINT64_MAX;

  RequestQueue(int banks, std::size_t capacity);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Appends `r` to its bank; `hit` says whether it hits the bank's open row. Returns its id.
  std::uint32_t push(Request r, bool hit);
  // Removes a request that hit its bank's open row (a column command served it).
  void erase_hit(std::uint32_t id);
  Request& at(std::uint32_t id) { return slab_[id]; }
  const Request& at(std::uint32_t id) const { return slab_[id]; }

  // The banks with at least one request, in no particular order.
  const std::vector<int>& active_banks() const { return active_; }
  // A bank's request ids in arrival order.
  const std::vector<std::uint32_t>& bank(int b) const { return banks_[static_cast<std::size_t>(b)].ids; }
  // Requests of bank `b` that hit its open row; of all banks.
  std::size_t hits(int b) const { return banks_[static_cast<std::size_t>(b)].hits; }
  std::size_t total_hits() const { return total_hits_; }
  // The bank opened `row` (recounts its hits) or closed (none).
  void bank_opened(int b, std::uint32_t row);
  void bank_closed(int b) {
    total_hits_ -= banks_[static_cast<std::size_t>(b)].hits;
    banks_[static_cast<std::size_t>(b)].hits = 0;
    invalidate(b);
  }
  BankPick& pick(int b) { return banks_[static_cast<std::size_t>(b)].pick; }
  // Per bank, a lower bound of the cycle its pick may issue (constraints only ever grow, so an
  // earlier answer for the same command stays one): while in the future the bank is not ready
  // and it is a safe wake-up time. 0: to be worked out; kNever: the bank has no requests. One
  // contiguous array, so that a step passes over the waiting banks in a few instructions each.
  const std::vector<std::uint64_t>& ready_times() const { return ready_at_; }
  std::uint64_t& ready_at(int b) { return ready_at_[static_cast<std::size_t>(b)]; }
  // The oldest request of bank `b` that hits `row` (the bank must have one).
  std::uint32_t oldest_hit(int b, std::uint32_t row) const;
  // The oldest request of the whole queue among the banks `eligible(bank)` accepts; kNone if
  // there is none.
  template <typename Eligible>
  std::uint32_t oldest(Eligible eligible) const {
    std::uint32_t best = kNone;
    for (int b : active_) {
      if (!eligible(b)) continue;
      const std::uint32_t id = banks_[static_cast<std::size_t>(b)].ids.front();
      if (best == kNone || slab_[id].seq < slab_[best].seq) best = id;
    }
    return best;
  }
  static constexpr std::uint32_t kNone = UINT32_MAX;

 private:
  struct Bank {
    std::vector<std::uint32_t> ids;
    std::size_t hits = 0;
    int active_pos = -1;  // index into active_, -1 when empty
    BankPick pick;
  };
  void invalidate(int b) {
    banks_[static_cast<std::size_t>(b)].pick.valid = false;
    if (ready_at_[static_cast<std::size_t>(b)] != kNever) ready_at_[static_cast<std::size_t>(b)] = 0;
  }
  std::vector<Request> slab_;
  std::vector<std::uint32_t> free_;
  std::vector<Bank> banks_;
  std::vector<std::uint64_t> ready_at_;
  std::vector<int> active_;  // banks with at least one request, in no particular order
  std::size_t size_ = 0;
  std::size_t total_hits_ = 0;
  std::uint64_t next_seq_ = 0;
};

}  // namespace strata
