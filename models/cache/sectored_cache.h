// A set-associative cache of lines split into sectors, as GPU L1 and L2 caches are (128 B
// lines of four 32 B sectors): a tag per line, a valid bit per sector, LRU replacement. It keeps
// state only; timing is its owner's. Free of SystemC, for any design's cache.
#pragma once

#include <cstdint>
#include <vector>

namespace strata {

class SectoredCache {
 public:
  // capacity / (line_bytes x ways) sets; line_bytes a multiple of sector_bytes, at most 64
  // sectors a line. Throws std::invalid_argument for a geometry that does not divide.
  SectoredCache(std::uint64_t capacity_bytes, int ways, int line_bytes, int sector_bytes);

  // The sectors of `mask` (bit i: sector i of the line at `line_address`) that are present;
  // marks the line most recently used when any is.
  std::uint64_t lookup(std::uint64_t line_address, std::uint64_t mask);
  // Makes the sectors of `mask` present, allocating the line (evicting the least recently used
  // one of its set) when it is absent. Returns the evicted line's address and its dirty sectors
  // through `victim` / `victim_dirty` (victim_dirty 0: nothing to write back).
  void fill(std::uint64_t line_address, std::uint64_t mask, bool dirty, std::uint64_t& victim,
            std::uint64_t& victim_dirty);
  // Marks present sectors of `mask` dirty (a write hit); returns those that were present.
  std::uint64_t write(std::uint64_t line_address, std::uint64_t mask);

  int line_bytes() const { return line_bytes_; }
  int sector_bytes() const { return sector_bytes_; }
  std::uint64_t sets() const { return sets_; }
  std::uint64_t capacity() const { return sets_ * static_cast<std::uint64_t>(ways_) * static_cast<std::uint64_t>(line_bytes_); }

 private:
  struct Way {
    std::uint64_t tag = 0;
    std::uint64_t valid = 0, dirty = 0;  // sector masks
    std::uint64_t used = 0;              // LRU stamp
  };
  Way* find(std::uint64_t line_address);

  int ways_, line_bytes_, sector_bytes_;
  std::uint64_t sets_;
  std::vector<Way> ways_array_;
  std::uint64_t clock_ = 0;
};

}  // namespace strata
