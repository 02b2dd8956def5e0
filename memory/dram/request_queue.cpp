#include "memory/dram/request_queue.h"

#include <algorithm>

namespace strata {

RequestQueue::RequestQueue(int banks, std::size_t capacity)
    : banks_(static_cast<std::size_t>(banks)), ready_at_(static_cast<std::size_t>(banks), kNever) {
  slab_.reserve(capacity);
  free_.reserve(capacity);
  active_.reserve(static_cast<std::size_t>(banks));
}

std::uint32_t RequestQueue::push(Request r, bool hit) {
  r.seq = next_seq_++;
  std::uint32_t id;
  if (free_.empty()) {
    id = static_cast<std::uint32_t>(slab_.size());
    slab_.push_back(r);
  } else {
    id = free_.back();
    free_.pop_back();
    slab_[id] = r;
  }
  Bank& b = banks_[static_cast<std::size_t>(r.bank)];
  if (b.ids.empty()) {
    b.active_pos = static_cast<int>(active_.size());
    active_.push_back(r.bank);
    ready_at_[static_cast<std::size_t>(r.bank)] = 0;
  }
  b.ids.push_back(id);
  if (hit) ++b.hits, ++total_hits_;
  invalidate(r.bank);
  ++size_;
  return id;
}

void RequestQueue::erase_hit(std::uint32_t id) {
  const int bank = slab_[id].bank;
  Bank& b = banks_[static_cast<std::size_t>(bank)];
  b.ids.erase(std::find(b.ids.begin(), b.ids.end(), id));
  --b.hits;
  --total_hits_;
  invalidate(bank);
  free_.push_back(id);
  --size_;
  if (b.ids.empty()) {
    // Swap-remove from the active list.
    const int last = active_.back();
    active_[static_cast<std::size_t>(b.active_pos)] = last;
    banks_[static_cast<std::size_t>(last)].active_pos = b.active_pos;
    active_.pop_back();
    b.active_pos = -1;
    ready_at_[static_cast<std::size_t>(bank)] = kNever;
  }
}

void RequestQueue::bank_opened(int b, std::uint32_t row) {
  invalidate(b);
  Bank& bank = banks_[static_cast<std::size_t>(b)];
  total_hits_ -= bank.hits;
  bank.hits = static_cast<std::size_t>(
      std::count_if(bank.ids.begin(), bank.ids.end(), [&](std::uint32_t id) { return slab_[id].a.row == row; }));
  total_hits_ += bank.hits;
}

std::uint32_t RequestQueue::oldest_hit(int b, std::uint32_t row) const {
  for (std::uint32_t id : banks_[static_cast<std::size_t>(b)].ids)
    if (slab_[id].a.row == row) return id;
  return kNone;
}

}  // namespace strata
