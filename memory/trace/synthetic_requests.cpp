#include "memory/trace/synthetic_requests.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace strata {
namespace {

__extension__ using u128 = unsigned __int128;

// SplitMix64's finaliser: a fixed, well-mixed function of the seed for the second engine.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr long double kTwoTo64 = 18446744073709551616.0L;

// `v` as an integer if it is a whole number below 2^64.
std::optional<std::uint64_t> whole(double v) {
  if (!(v >= 0.0) || v >= 18446744073709551616.0 || std::floor(v) != v) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

[[noreturn]] void bad(const std::string& message) { throw std::invalid_argument("synthetic requests: " + message); }

const SyntheticRequestsConfig& validated(const SyntheticRequestsConfig& c) {
  c.validate();
  return c;
}

}  // namespace

SyntheticPattern parse_synthetic_pattern(std::string_view name) {
  if (name == "random") return SyntheticPattern::Random;
  if (name == "stream") return SyntheticPattern::Stream;
  if (name == "strided") return SyntheticPattern::Strided;
  throw std::invalid_argument(fmt::format("unknown request pattern \"{}\" (expected random, stream or strided)", name));
}

std::string_view synthetic_pattern_name(SyntheticPattern pattern) {
  switch (pattern) {
    case SyntheticPattern::Random: return "random";
    case SyntheticPattern::Stream: return "stream";
    case SyntheticPattern::Strided: return "strided";
  }
  return "random";
}

void SyntheticRequestsConfig::validate() const {
  if (count == 0) bad("count must be at least 1");
  if (request_bytes == 0 || request_bytes > kMaxRequestBytes)
    bad(fmt::format("request_bytes must be 1 to {}, got {}", kMaxRequestBytes, request_bytes));
  if (span < request_bytes) bad(fmt::format("span ({} B) must be at least request_bytes ({} B)", span, request_bytes));
  if (base % request_bytes != 0)
    bad(fmt::format("base 0x{:x} must be a multiple of request_bytes ({}) so that requests are aligned", base,
                    request_bytes));
  if (span - 1 > std::numeric_limits<std::uint64_t>::max() - base)
    bad(fmt::format("base 0x{:x} + span {} runs past the end of the 64-bit address space", base, span));
  if (pattern == SyntheticPattern::Strided && (stride == 0 || stride % request_bytes != 0))
    bad(fmt::format("stride must be a positive multiple of request_bytes ({}), got {}", request_bytes, stride));
  if (!(read_fraction >= 0.0 && read_fraction <= 1.0))
    bad(fmt::format("read_fraction must be between 0 and 1, got {}", read_fraction));
  if (!(rate >= 0.0) || !std::isfinite(rate)) bad(fmt::format("rate must be 0 (back to back) or positive, got {}", rate));
  if (rate > 0.0) {
    if (!(clock_hz > 0.0) || !std::isfinite(clock_hz))
      bad(fmt::format("clock_hz must be positive when rate is set, got {}", clock_hz));
    const long double last = static_cast<long double>(count - 1) * request_bytes * clock_hz / rate;
    if (!(last < kTwoTo64))
      bad(fmt::format("rate {} B/s is so low that the last request's issue cycle does not fit in 64 bits", rate));
  }
}

SyntheticRequests::SyntheticRequests(const SyntheticRequestsConfig& config)
    : config_(validated(config)), address_rng_(config_.seed), op_rng_(mix(config_.seed)), read_(config_.read_fraction) {
  const std::uint64_t rb = config_.request_bytes;
  window_ = config_.span - config_.span % rb;
  slot_ = boost::random::uniform_int_distribution<std::uint64_t>(0, window_ / rb - 1);
  if (config_.pattern == SyntheticPattern::Stream) step_ = rb % window_;
  if (config_.pattern == SyntheticPattern::Strided) step_ = config_.stride % window_;

  if (config_.rate > 0.0) {
    const auto rate = whole(config_.rate), clock = whole(config_.clock_hz);
    if (rate && clock && *rate > 0 && *clock > 0) {
      // (count - 1) * request_bytes * clock must fit in 128 bits.
      const u128 most = static_cast<u128>(config_.count - 1) * rb;
      if (most <= ~static_cast<u128>(0) / *clock) {
        exact_cycles_ = true;
        rate_int_ = *rate;
        clock_int_ = *clock;
      }
    }
  }
}

std::uint64_t SyntheticRequests::cycle_of(std::uint64_t i) const {
  if (config_.rate <= 0.0) return 0;
  if (exact_cycles_)
    return static_cast<std::uint64_t>(static_cast<u128>(i) * config_.request_bytes * clock_int_ / rate_int_);
  return static_cast<std::uint64_t>(
      std::floor(static_cast<long double>(i) * config_.request_bytes * config_.clock_hz / config_.rate));
}

std::optional<MemoryRequest> SyntheticRequests::next() {
  if (generated_ >= config_.count) return std::nullopt;
  MemoryRequest r;
  r.cycle = cycle_of(generated_);
  r.bytes = config_.request_bytes;
  if (config_.pattern == SyntheticPattern::Random) {
    r.address = config_.base + slot_(address_rng_) * config_.request_bytes;
  } else {
    r.address = config_.base + offset_;
    // offset_ = (offset_ + step_) mod window_, without overflow.
    offset_ = offset_ >= window_ - step_ ? offset_ - (window_ - step_) : offset_ + step_;
  }
  r.write = !read_(op_rng_);
  ++generated_;
  return r;
}

double SyntheticRequests::progress() const {
  return static_cast<double>(generated_) / static_cast<double>(config_.count);
}

}  // namespace strata
