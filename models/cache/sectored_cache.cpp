#include "models/cache/sectored_cache.h"

#include <stdexcept>

#include <fmt/format.h>

namespace strata {

SectoredCache::SectoredCache(std::uint64_t capacity, int ways, int line_bytes, int sector_bytes)
    : ways_(ways), line_bytes_(line_bytes), sector_bytes_(sector_bytes) {
  if (ways < 1 || line_bytes < 1 || sector_bytes < 1 || line_bytes % sector_bytes != 0 || line_bytes / sector_bytes > 64)
    throw std::invalid_argument(fmt::format("a cache of {} B lines of {} B sectors, {} ways, cannot be built", line_bytes,
                                            sector_bytes, ways));
  const std::uint64_t per_set = static_cast<std::uint64_t>(ways) * static_cast<std::uint64_t>(line_bytes);
  sets_ = capacity / per_set;
  if (sets_ == 0 || capacity % per_set != 0)
    throw std::invalid_argument(
        fmt::format("{} B is not a whole number of sets of {} ways x {} B lines", capacity, ways, line_bytes));
  ways_array_.resize(sets_ * static_cast<std::uint64_t>(ways));
}

SectoredCache::Way* SectoredCache::find(std::uint64_t line_address) {
  const std::uint64_t line = line_address / static_cast<std::uint64_t>(line_bytes_);
  Way* set = &ways_array_[(line % sets_) * static_cast<std::uint64_t>(ways_)];
  for (int w = 0; w < ways_; ++w)
    if (set[w].valid != 0 && set[w].tag == line) return &set[w];
  return nullptr;
}

std::uint64_t SectoredCache::lookup(std::uint64_t line_address, std::uint64_t mask) {
  Way* way = find(line_address);
  if (!way) return 0;
  const std::uint64_t present = way->valid & mask;
  if (present) way->used = ++clock_;
  return present;
}

std::uint64_t SectoredCache::write(std::uint64_t line_address, std::uint64_t mask) {
  Way* way = find(line_address);
  if (!way) return 0;
  const std::uint64_t present = way->valid & mask;
  way->dirty |= present;
  if (present) way->used = ++clock_;
  return present;
}

void SectoredCache::fill(std::uint64_t line_address, std::uint64_t mask, bool dirty, std::uint64_t& victim,
                         std::uint64_t& victim_dirty) {
  victim_dirty = 0;
  victim = 0;
  Way* way = find(line_address);
  if (!way) {
    const std::uint64_t line = line_address / static_cast<std::uint64_t>(line_bytes_);
    Way* set = &ways_array_[(line % sets_) * static_cast<std::uint64_t>(ways_)];
    way = &set[0];
    for (int w = 1; w < ways_ && way->valid != 0; ++w)
      if (set[w].valid == 0 || set[w].used < way->used) way = &set[w];
    if (way->valid != 0 && way->dirty != 0) {
      victim = way->tag * static_cast<std::uint64_t>(line_bytes_);
      victim_dirty = way->dirty;
    }
    *way = Way{line, 0, 0, 0};
  }
  way->valid |= mask;
  if (dirty) way->dirty |= mask;
  way->used = ++clock_;
}

}  // namespace strata
