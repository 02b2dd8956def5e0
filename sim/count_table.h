// Counts by key in one flat, open-addressed array (linear probing, at most half full): a
// distribution's sample is then one probe into contiguous memory instead of a walk through
// tree or chained-hash nodes. Keys are doubles or integers; read back in ascending key order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace strata {

template <typename Key>
class CountTable {
 public:
  std::size_t size() const { return size_; }
  void clear() {
    slots_.clear();
    size_ = 0;
  }
  void add(Key k, std::uint64_t n) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    Slot& s = find(slots_, k);
    if (s.count == 0) {
      s.key = k;
      ++size_;
    }
    s.count += n;
  }
  std::uint64_t count_of(Key k) const {
    if (slots_.empty()) return 0;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].count == 0) return 0;
      if (slots_[i].key == k) return slots_[i].count;
    }
  }
  // (key, count) pairs in ascending key order.
  std::vector<std::pair<Key, std::uint64_t>> sorted() const {
    std::vector<std::pair<Key, std::uint64_t>> v;
    v.reserve(size_);
    for (const Slot& s : slots_)
      if (s.count) v.emplace_back(s.key, s.count);
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return v;
  }
  template <typename F>
  void for_each(F f) const {
    for (const Slot& s : slots_)
      if (s.count) f(s.key, s.count);
  }

 private:
  struct Slot {
    Key key{};
    std::uint64_t count = 0;  // 0: empty
  };
  static std::uint64_t hash(Key k) {
    std::uint64_t x = 0;
    if constexpr (std::is_floating_point_v<Key>) {
      if (k != 0) std::memcpy(&x, &k, sizeof x);  // +0 and -0 compare equal: one key
    } else {
      x = static_cast<std::uint64_t>(k);
    }
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    return x ^ (x >> 29);
  }
  static Slot& find(std::vector<Slot>& slots, Key k) {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = hash(k) & mask;; i = (i + 1) & mask)
      if (slots[i].count == 0 || slots[i].key == k) return slots[i];
  }
  void grow() {
    std::vector<Slot> bigger(std::max<std::size_t>(16, slots_.size() * 2));
    for (const Slot& s : slots_)
      if (s.count) find(bigger, s.key) = s;
    slots_.swap(bigger);
  }
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace strata
