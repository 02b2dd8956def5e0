// Objects in flight named by a small integer id that is reused once they are done: requests,
// misses and fills that live for a few hundred cycles and are looked up by the id their answer
// carries. A vector with a free list, so a lookup is an index and a finished object's storage
// (its vectors' capacity included) serves the next one without a heap allocation, where a map
// keyed by an ever-growing number allocates and rebalances for every object.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace strata {

template <typename T>
class SlotMap {
 public:
  // A slot for a new object and its id. The slot holds whatever its last object left there:
  // the caller sets every field (clearing, not reassigning, vectors keeps their capacity).
  std::uint64_t acquire() {
    if (!free_.empty()) {
      const std::uint64_t id = free_.back();
      free_.pop_back();
      live_[id] = true;
      return id;
    }
    slots_.emplace_back();
    live_.push_back(true);
    return slots_.size() - 1;
  }
  // The object `id` names; throws if it names none (an answer to something never asked).
  T& at(std::uint64_t id) {
    if (id >= slots_.size() || !live_[id]) throw std::logic_error("SlotMap: no object has this id");
    return slots_[id];
  }
  T& operator[](std::uint64_t id) { return slots_[id]; }
  void release(std::uint64_t id) {
    live_[id] = false;
    free_.push_back(id);
  }
  bool empty() const { return size() == 0; }
  std::size_t size() const { return slots_.size() - free_.size(); }

 private:
  std::vector<T> slots_;
  std::vector<bool> live_;
  std::vector<std::uint64_t> free_;
};

}  // namespace strata
