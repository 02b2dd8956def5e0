#include "accelerators/gpu/gpu_l2.h"

#include <algorithm>

#include "sim/stats.h"

namespace strata {

GpuL2::GpuL2(const L2Config& c, int sms, Deliver deliver, Acknowledge acknowledge, DramRequest dram)
    : c_(c),
      sms_(sms),
      deliver_(std::move(deliver)),
      acknowledge_(std::move(acknowledge)),
      dram_(std::move(dram)),
      cache_(c.bytes, c.ways, kLineBytes, kSectorBytes),
      slices_(static_cast<std::size_t>(c.slices)) {}

int GpuL2::slice_of(std::uint64_t line) const {
  // An XOR of the line number's bit fields, so strided streams spread over the slices.
  const std::uint64_t x = line / kLineBytes;
  return static_cast<int>((x ^ (x >> 7) ^ (x >> 13) ^ (x >> 19)) % static_cast<std::uint64_t>(c_.slices));
}

int GpuL2::to_dram(std::uint64_t cycle, std::uint64_t line, std::uint64_t mask, bool write, std::uint64_t tag) {
  int parts = 0;
  for (int first = 0; first < kLineBytes / kSectorBytes;) {
    if (!(mask >> first & 1u)) {
      ++first;
      continue;
    }
    int last = first;
    while (last + 1 < kLineBytes / kSectorBytes && (mask >> (last + 1) & 1u)) ++last;
    const auto bytes = static_cast<std::uint32_t>((last - first + 1) * kSectorBytes);
    (write ? dram_write_bytes_ : dram_read_bytes_) += bytes;
    dram_(cycle, line + static_cast<std::uint64_t>(first * kSectorBytes), bytes, write, tag);
    ++parts;
    first = last + 1;
  }
  return parts;
}

void GpuL2::write_back(int slice, std::uint64_t cycle, std::uint64_t line, std::uint64_t dirty) {
  slices_[static_cast<std::size_t>(slice)].writebacks +=
      to_dram(cycle, line, dirty, true, static_cast<std::uint64_t>(slice));
}

void GpuL2::access(const GlobalAccess& a) {
  const int slice = slice_of(a.line);
  // Slices are split evenly between the partitions, and so are the SMs.
  const bool far = slice * c_.partitions / c_.slices != a.sm * c_.partitions / sms_;
  far_ += far ? 1 : 0;
  // The way there and the way back: the two halves of the latencies.
  const std::uint64_t way = static_cast<std::uint64_t>(c_.latency / 2 + (far ? c_.far_latency / 2 : 0));
  const std::uint64_t back =
      static_cast<std::uint64_t>(c_.latency - c_.latency / 2 + (far ? c_.far_latency - c_.far_latency / 2 : 0));
  const auto n = static_cast<std::uint64_t>(__builtin_popcountll(a.sectors));
  Slice& s = slices_[static_cast<std::size_t>(slice)];
  const std::uint64_t start = std::max(a.cycle + way, s.free);
  s.free =
      start + (n + static_cast<std::uint64_t>(c_.slice_sectors) - 1) / static_cast<std::uint64_t>(c_.slice_sectors);
  std::uint64_t victim = 0, dirty = 0;
  if (a.write) {
    write_sectors_ += n;
    cache_.fill(a.line, a.sectors, true, victim, dirty);
    const WaitingStore store{a.sm, start, back, victim, dirty};
    if (!s.waiting.empty() || (dirty && s.writebacks >= c_.writeback_queue)) s.waiting.push_back(store);
    else take(slice, store, start);
    return;
  }
  const std::uint64_t present = cache_.lookup(a.line, a.sectors);
  const std::uint64_t missing = a.sectors & ~present;
  hit_sectors_ += static_cast<std::uint64_t>(__builtin_popcountll(present));
  if (!missing) {
    deliver_(a.sm, a.id, start + back);
    return;
  }
  miss_sectors_ += static_cast<std::uint64_t>(__builtin_popcountll(missing));
  std::size_t w;
  if (!free_waiters_.empty()) {
    w = free_waiters_.back();
    free_waiters_.pop_back();
    waiters_[w] = Waiter{a.sm, a.id, missing, start, back};
  } else {
    w = waiters_.size();
    waiters_.push_back(Waiter{a.sm, a.id, missing, start, back});
  }
  // Sectors no earlier miss has asked for go to the DRAM now.
  auto slot = pending_of_.find(a.line);
  if (slot == pending_of_.end()) {
    const std::uint64_t id = pending_.acquire();
    pending_[id].sectors = 0;
    pending_[id].tags.clear();
    slot = pending_of_.emplace(a.line, id).first;
  }
  Pending& pending = pending_[slot->second];
  if (const std::uint64_t fresh = missing & ~pending.sectors) {
    const std::uint64_t tag = fills_.acquire();
    Fill& f = fills_[tag];
    f.line = a.line;
    f.sectors = fresh;
    f.latest = 0;
    f.waiters.clear();
    pending.sectors |= fresh;
    pending.tags.push_back(tag);
    f.parts = to_dram(start + static_cast<std::uint64_t>(c_.dram_latency), a.line, fresh, false, tag);
  }
  for (const std::uint64_t tag : pending.tags)
    if (fills_[tag].sectors & missing) fills_[tag].waiters.push_back(w);
}

void GpuL2::dram_done(std::uint64_t tag, std::uint64_t cycle) {
  Fill& f = fills_.at(tag);
  f.latest = std::max(f.latest, cycle);
  if (--f.parts > 0) return;
  std::uint64_t victim = 0, dirty = 0;
  cache_.fill(f.line, f.sectors, false, victim, dirty);
  if (dirty) write_back(slice_of(victim), f.latest, victim, dirty);
  const auto slot = pending_of_.find(f.line);
  Pending& pending = pending_[slot->second];
  pending.tags.erase(std::find(pending.tags.begin(), pending.tags.end(), tag));
  pending.sectors &= ~f.sectors;
  if (pending.sectors == 0) {
    pending_.release(slot->second);
    pending_of_.erase(slot);
  }
  const std::uint64_t at_slice = f.latest + static_cast<std::uint64_t>(c_.dram_latency);
  for (const std::size_t i : f.waiters) {
    Waiter& w = waiters_[i];
    w.needs &= ~f.sectors;
    w.ready = std::max(w.ready, at_slice);
    if (w.needs == 0) {
      deliver_(w.sm, w.id, w.ready + w.back);
      free_waiters_.push_back(i);
    }
  }
  // Released last: deliver_ may send the SM's next accesses, but not to this L2 (the GPU
  // collects them for the next window), so `f` stays valid above.
  fills_.release(tag);
}

void GpuL2::dram_written(std::uint64_t tag, std::uint64_t cycle) {
  Slice& s = slices_.at(tag);
  --s.writebacks;
  // The stores waiting at the slice go in order while their write-backs find room.
  while (!s.waiting.empty() && (!s.waiting.front().dirty || s.writebacks < c_.writeback_queue)) {
    const WaitingStore w = s.waiting.front();
    s.waiting.pop_front();
    take(static_cast<int>(tag), w, std::max(w.arrives, cycle));
  }
}

void GpuL2::take(int slice, const WaitingStore& w, std::uint64_t at) {
  if (w.dirty) write_back(slice, at + static_cast<std::uint64_t>(c_.dram_latency), w.victim, w.dirty);
  acknowledge_(w.sm, at + w.back);
}

std::vector<double> GpuL2::counters() const {
  std::vector<double> c;
  for (const std::uint64_t* n : counter_fields(*this)) c.push_back(static_cast<double>(*n));
  return c;
}

void GpuL2::repeat_counters(const std::vector<double>& since, double times) {
  std::size_t i = 0;
  for (std::uint64_t* n : counter_fields(*this))
    *n += scaled_count(*n - static_cast<std::uint64_t>(since.at(i++)), times);
}

}  // namespace strata
