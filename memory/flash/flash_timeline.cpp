#include "memory/flash/flash_timeline.h"

#include <algorithm>
#include <iterator>

namespace strata {

double FlashSpec::read_bandwidth() const {
  const double buses = channels * bus_bytes_per_s;
  const double arrays = planes() * static_cast<double>(page_bytes) / (t_read + t_register);
  return std::min(buses, arrays);
}

FlashTimeline::FlashTimeline(const FlashSpec& s)
    : s_(s),
      channels_(static_cast<std::size_t>(s.channels)),
      plane_free_(static_cast<std::size_t>(s.planes()), 0.0),
      core_free_(static_cast<std::size_t>(s.dies()), 0.0) {}

FlashAddress FlashTimeline::decode(std::uint64_t address) const {
  FlashAddress a;
  a.offset = address % s_.page_bytes;
  std::uint64_t q = address / s_.page_bytes;
  const auto take = [&q](std::uint64_t n) {
    const std::uint64_t v = q % n;
    q /= n;
    return v;
  };
  a.channel = static_cast<int>(take(static_cast<std::uint64_t>(s_.channels)));
  const auto chip = take(static_cast<std::uint64_t>(s_.chips_per_channel));
  const auto die = take(static_cast<std::uint64_t>(s_.dies_per_chip));
  const auto plane = take(static_cast<std::uint64_t>(s_.planes_per_die));
  a.page = static_cast<std::int64_t>(take(static_cast<std::uint64_t>(s_.pages_per_block)));
  a.block = static_cast<std::int64_t>(take(static_cast<std::uint64_t>(s_.blocks_per_plane)));
  a.die = static_cast<int>((static_cast<std::uint64_t>(a.channel) * static_cast<std::uint64_t>(s_.chips_per_channel) + chip) *
                               static_cast<std::uint64_t>(s_.dies_per_chip) +
                           die);
  a.plane = a.die * s_.planes_per_die + static_cast<int>(plane);
  return a;
}

double BusyCalendar::book(double ready, double seconds, double horizon) {
  while (!busy_.empty() && busy_.begin()->second <= horizon) busy_.erase(busy_.begin());
  // The first interval that ends after `ready`: the last one starting at or before it, if it
  // is still busy then, else the next.
  auto at = busy_.upper_bound(ready);
  if (at != busy_.begin() && std::prev(at)->second > ready) --at;
  double start = ready;
  for (; at != busy_.end(); ++at) {
    if (at->first >= start + seconds) break;  // the gap before it fits
    start = std::max(start, at->second);      // overlaps: try after it
  }
  if (!(seconds > 0)) return start;  // occupies nothing
  // Insert [start, end) before `at`, joined with a neighbour it touches.
  const double begin = start;
  double end = start + seconds;
  if (at != busy_.end() && at->first == end) {
    end = at->second;
    at = busy_.erase(at);
  }
  if (at != busy_.begin() && std::prev(at)->second == begin) {
    std::prev(at)->second = end;
  } else {
    busy_.emplace_hint(at, begin, end);
  }
  return start;
}

double FlashTimeline::bus(int channel, double ready, double seconds) {
  const double start = channels_[static_cast<std::size_t>(channel)].book(ready, seconds, horizon_);
  channel_busy_ += seconds;
  return start + seconds;
}

double FlashTimeline::read_page(const FlashAddress& a, std::uint64_t bytes, double arrival) {
  double& plane = plane_free_[static_cast<std::size_t>(a.plane)];
  const double issued = bus(a.channel, arrival, s_.command_s());
  const double start = std::max(issued, plane);
  const double in_cache = start + s_.t_read + s_.t_register;
  const double done = bus(a.channel, in_cache, static_cast<double>(bytes) / s_.bus_bytes_per_s);
  const double released = s_.cache_read ? in_cache : done;
  plane_busy_ += released - start;
  plane = released;
  ++page_reads_;
  bus_bytes_ += bytes;
  return done;
}

double FlashTimeline::program_page(const FlashAddress& a, std::uint64_t bytes, double arrival) {
  double& plane = plane_free_[static_cast<std::size_t>(a.plane)];
  const double loaded = bus(a.channel, arrival, s_.command_s() + static_cast<double>(bytes) / s_.bus_bytes_per_s);
  const double start = std::max(loaded, plane);
  plane = start + s_.t_program;
  plane_busy_ += s_.t_program;
  ++page_programs_;
  bus_bytes_ += bytes;
  return plane;
}

template <typename PageOp>
double FlashTimeline::each_page(std::uint64_t address, std::uint64_t bytes, double arrival, PageOp op) {
  horizon_ = std::max(horizon_, arrival);
  double done = arrival;
  while (bytes > 0) {
    const FlashAddress a = decode(address);
    const std::uint64_t part = std::min(bytes, s_.page_bytes - a.offset);
    done = std::max(done, (this->*op)(a, part, arrival));
    address += part;
    bytes -= part;
  }
  return done;
}

double FlashTimeline::read(std::uint64_t address, std::uint64_t bytes, double arrival) {
  return each_page(address, bytes, arrival, &FlashTimeline::read_page);
}

double FlashTimeline::program(std::uint64_t address, std::uint64_t bytes, double arrival) {
  return each_page(address, bytes, arrival, &FlashTimeline::program_page);
}

double FlashTimeline::erase(std::uint64_t address, double arrival) {
  horizon_ = std::max(horizon_, arrival);
  const FlashAddress a = decode(address);
  double& plane = plane_free_[static_cast<std::size_t>(a.plane)];
  const double start = std::max(bus(a.channel, arrival, s_.command_s()), plane);
  plane = start + s_.t_erase;
  plane_busy_ += s_.t_erase;
  ++block_erases_;
  return plane;
}

double FlashTimeline::read_compute(std::uint64_t address, std::uint64_t input_bytes, std::uint64_t output_bytes,
                                   double compute_s, double arrival) {
  horizon_ = std::max(horizon_, arrival);
  const FlashAddress a = decode(address);
  double& plane = plane_free_[static_cast<std::size_t>(a.plane)];
  double& core = core_free_[static_cast<std::size_t>(a.die)];
  const double loaded =
      bus(a.channel, arrival, s_.command_s() + static_cast<double>(input_bytes) / s_.bus_bytes_per_s);
  const double start = std::max(loaded, plane);
  const double in_cache = start + s_.t_read + s_.t_register;
  // The data register is free once the page reaches the cache register, which the core reads.
  plane_busy_ += in_cache - start;
  plane = in_cache;
  const double computed = std::max(in_cache, core) + compute_s;
  core_busy_ += compute_s;
  core = computed;
  ++page_reads_;
  bus_bytes_ += input_bytes + output_bytes;
  return bus(a.channel, computed, static_cast<double>(output_bytes) / s_.bus_bytes_per_s);
}

}  // namespace strata
