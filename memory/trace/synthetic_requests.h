// A seeded synthetic memory-request generator, for driving a memory model without a trace file.
//
// Patterns (addresses all lie in [base, base + span) and are multiples of request_bytes apart
// from base; only whole requests fit, so the usable window is span rounded down to a multiple of
// request_bytes):
//   random   each address uniform over the window's request_bytes-aligned slots
//   stream   base, base + request_bytes, base + 2*request_bytes, ... wrapping to base at the
//            window's end
//   strided  base, base + stride, base + 2*stride, ... taken modulo the window
// Each request is a read with probability read_fraction (exactly 1: all reads; 0: all writes).
// With rate > 0 request i issues at cycle floor(i * request_bytes / rate * clock_hz) of a
// clock_hz clock, so the offered load is `rate` bytes/s; with rate == 0 every request has cycle 0
// (back to back).
//
// Randomness comes from std::mt19937_64 engines seeded from `seed` and Boost.Random
// distributions, whose algorithms are fixed, so a seed gives the same sequence on every platform
// and standard library. Addresses and read/write choices use separate engines, so changing
// read_fraction does not change the address sequence.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "memory/trace/request_source.h"

namespace strata {

enum class SyntheticPattern { Random, Stream, Strided };

// "random", "stream" or "strided"; throws std::invalid_argument for anything else.
SyntheticPattern parse_synthetic_pattern(std::string_view name);
std::string_view synthetic_pattern_name(SyntheticPattern pattern);

struct SyntheticRequestsConfig {
  static constexpr std::uint32_t kMaxRequestBytes = 1u << 20;

  SyntheticPattern pattern = SyntheticPattern::Random;
  std::uint64_t count = 0;           // requests to generate, at least 1
  std::uint32_t request_bytes = 64;  // 1 .. kMaxRequestBytes
  std::uint64_t base = 0;            // first address of the span; a multiple of request_bytes
  std::uint64_t span = 0;            // bytes, at least request_bytes; base + span <= 2^64
  std::uint64_t stride = 0;          // bytes, strided only: a positive multiple of request_bytes
  double read_fraction = 1.0;        // in [0, 1]
  double rate = 0.0;                 // offered bytes/s; 0 = back to back
  double clock_hz = 0.0;             // the clock that counts issue cycles; > 0 when rate > 0
  std::uint64_t seed = 0;

  // Throws std::invalid_argument naming the first bad field.
  void validate() const;
};

class SyntheticRequests : public RequestSource {
 public:
  // Validates `config` (std::invalid_argument on bad values).
  explicit SyntheticRequests(const SyntheticRequestsConfig& config);
  std::optional<MemoryRequest> next() override;
  double progress() const override;  // generated / count
  const SyntheticRequestsConfig& config() const { return config_; }

 private:
  std::uint64_t cycle_of(std::uint64_t i) const;

  SyntheticRequestsConfig config_;
  std::uint64_t window_ = 0;  // span rounded down to whole requests
  std::uint64_t step_ = 0;    // stream/strided: offset increment modulo window_
  std::uint64_t offset_ = 0;  // stream/strided: the next request's offset from base
  std::uint64_t generated_ = 0;
  bool exact_cycles_ = false;  // rate and clock_hz are integers: cycles by exact integer arithmetic
  std::uint64_t rate_int_ = 0, clock_int_ = 0;
  std::mt19937_64 address_rng_, op_rng_;
  boost::random::uniform_int_distribution<std::uint64_t> slot_;
  boost::random::bernoulli_distribution<double> read_;
};

}  // namespace strata
