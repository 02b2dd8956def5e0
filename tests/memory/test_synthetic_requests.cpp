#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "memory/trace/synthetic_requests.h"

using strata::MemoryRequest;
using strata::RequestSource;
using strata::SyntheticPattern;
using strata::SyntheticRequests;
using strata::SyntheticRequestsConfig;

namespace {

SyntheticRequestsConfig random_config(std::uint64_t count = 1000, std::uint64_t seed = 1) {
  SyntheticRequestsConfig c;
  c.pattern = SyntheticPattern::Random;
  c.count = count;
  c.request_bytes = 64;
  c.base = 0x10000;
  c.span = 1 << 20;
  c.read_fraction = 0.5;
  c.seed = seed;
  return c;
}

std::vector<MemoryRequest> generate(const SyntheticRequestsConfig& c) {
  SyntheticRequests g(c);
  std::vector<MemoryRequest> out;
  while (auto r = g.next()) out.push_back(*r);
  return out;
}

bool same(const MemoryRequest& a, const MemoryRequest& b) {
  return a.cycle == b.cycle && a.write == b.write && a.address == b.address && a.bytes == b.bytes;
}

// The invalid_argument message for `c`, or "no error".
std::string error_of(const SyntheticRequestsConfig& c) {
  try {
    SyntheticRequests g(c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_HAS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

}  // namespace

TEST(SyntheticRequests, SameSeedSameSequenceOtherSeedDiffers) {
  const auto a = generate(random_config(10000, 7));
  const auto b = generate(random_config(10000, 7));
  ASSERT_EQ(a.size(), 10000u);
  ASSERT_EQ(b.size(), 10000u);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(same(a[i], b[i])) << i;

  const auto c = generate(random_config(10000, 8));
  size_t address_diffs = 0, op_diffs = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    address_diffs += a[i].address != c[i].address;
    op_diffs += a[i].write != c[i].write;
  }
  EXPECT_GT(address_diffs, 9900u);  // 16384 slots: a chance match is rare
  EXPECT_GT(op_diffs, 4000u);       // two fair coins differ half the time
}

// std::mt19937_64 is specified exactly by the standard and Boost.Random's distributions are fixed
// algorithms, so these values hold on every platform; a change here changes every seeded run.
TEST(SyntheticRequests, PinnedSequence) {
  auto c = random_config(4, 42);
  const auto r = generate(c);
  ASSERT_EQ(r.size(), 4u);
  std::string got;
  for (const auto& q : r) got += std::to_string(q.address) + (q.write ? "W " : "R ");
  // The addresses are base + 64 * (the engine's output >> 50): mt19937_64(42) starts
  // 13930160852258120406, 11788048577503494824, ...
  EXPECT_EQ(got, "857344R 735552W 854208W 208384R ");
}

TEST(SyntheticRequests, ReadFractionDoesNotChangeAddresses) {
  auto c = random_config(2000, 3);
  const auto a = generate(c);
  c.read_fraction = 0.9;
  const auto b = generate(c);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i].address, b[i].address) << i;
}

TEST(SyntheticRequests, RandomAddressesAreAlignedAndInBounds) {
  auto c = random_config(100000, 11);
  c.request_bytes = 128;
  c.base = 0x4000'0000;
  c.span = 16 * 128 + 100;  // not a multiple: only 16 whole requests fit
  std::set<std::uint64_t> seen;
  for (const auto& q : generate(c)) {
    ASSERT_GE(q.address, c.base);
    ASSERT_LE(q.address + q.bytes, c.base + c.span);
    ASSERT_EQ((q.address - c.base) % 128, 0u);
    ASSERT_EQ(q.address % 128, 0u);
    ASSERT_EQ(q.bytes, 128u);
    seen.insert(q.address);
  }
  EXPECT_EQ(seen.size(), 16u);  // every slot is reached, none beyond
  EXPECT_EQ(*seen.rbegin(), c.base + 15 * 128);
}

TEST(SyntheticRequests, RandomCoversTheSpanUniformly) {
  auto c = random_config(160000, 5);
  c.span = 16 * 64;
  std::vector<int> hits(16);
  for (const auto& q : generate(c)) ++hits[(q.address - c.base) / 64];
  // 10000 expected per slot, standard deviation about 97: 5% is over 5 sigma.
  for (int h : hits) {
    EXPECT_GT(h, 9500);
    EXPECT_LT(h, 10500);
  }
}

TEST(SyntheticRequests, RandomOverTheWholeAddressSpace) {
  auto c = random_config(1000, 9);
  c.base = 0;
  c.span = std::numeric_limits<std::uint64_t>::max();  // 2^64 - 1: the top 64 bytes do not fit a request
  for (const auto& q : generate(c)) {
    ASSERT_EQ(q.address % 64, 0u);
    ASSERT_LE(q.address, std::numeric_limits<std::uint64_t>::max() - 127);
  }
}

TEST(SyntheticRequests, ReadFractionOver100kRequests) {
  for (double f : {0.0, 0.1, 0.5, 0.7, 1.0}) {
    auto c = random_config(100000, 21);
    c.read_fraction = f;
    std::uint64_t reads = 0;
    for (const auto& q : generate(c)) reads += !q.write;
    // Binomial standard deviation is at most sqrt(0.25 / 100000) = 0.0016: a tolerance of 0.01 is
    // over 6 sigma. Exactly 0 and 1 are exact.
    const double got = static_cast<double>(reads) / 100000.0;
    if (f == 0.0 || f == 1.0) EXPECT_EQ(got, f);
    else EXPECT_NEAR(got, f, 0.01) << "read_fraction " << f;
  }
}

TEST(SyntheticRequests, OfferedRateSetsIssueCycles) {
  auto c = random_config(7, 1);
  c.rate = 3e9;  // 3 GB/s of 64 B requests on a 1 GHz clock: one every 21.33 cycles
  c.clock_hz = 1e9;
  const auto r = generate(c);
  const std::uint64_t expected[] = {0, 21, 42, 64, 85, 106, 128};  // floor(i * 64 / 3)
  ASSERT_EQ(r.size(), 7u);
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].cycle, expected[i]) << i;

  // 25.6 GB/s of 64 B at 1.6 GHz: exactly 4 cycles apart.
  c = random_config(1000, 1);
  c.rate = 25.6e9;
  c.clock_hz = 1.6e9;
  const auto s = generate(c);
  for (size_t i = 0; i < s.size(); ++i) ASSERT_EQ(s[i].cycle, 4 * i) << i;

  // A rate that is not a whole number of bytes/s: 2.5 B/s of 1 B requests on a 10 Hz clock.
  c = random_config(5, 1);
  c.request_bytes = 1;
  c.base = 0;
  c.rate = 2.5;
  c.clock_hz = 10;
  const auto t = generate(c);
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i].cycle, 4 * i) << i;

  // A very fast offered rate gives several requests per cycle, never a decreasing cycle.
  c = random_config(100, 1);
  c.rate = 1e12;
  c.clock_hz = 1e9;
  std::uint64_t last = 0;
  for (const auto& q : generate(c)) {
    EXPECT_GE(q.cycle, last);
    last = q.cycle;
  }
  EXPECT_EQ(last, 99 * 64 / 1000);
}

TEST(SyntheticRequests, ZeroRateIsBackToBack) {
  for (const auto& q : generate(random_config(100, 2))) EXPECT_EQ(q.cycle, 0u);
}

TEST(SyntheticRequests, StreamWrapsAtTheSpan) {
  SyntheticRequestsConfig c;
  c.pattern = SyntheticPattern::Stream;
  c.count = 10;
  c.request_bytes = 64;
  c.base = 0x1000;
  c.span = 256 + 32;  // four whole requests fit
  c.read_fraction = 1.0;
  const auto r = generate(c);
  const std::uint64_t expected[] = {0x1000, 0x1040, 0x1080, 0x10c0, 0x1000, 0x1040, 0x1080, 0x10c0, 0x1000, 0x1040};
  ASSERT_EQ(r.size(), 10u);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].address, expected[i]) << i;
    EXPECT_FALSE(r[i].write);
  }
}

TEST(SyntheticRequests, StreamAtTheTopOfTheAddressSpace) {
  SyntheticRequestsConfig c;
  c.pattern = SyntheticPattern::Stream;
  c.count = 6;
  c.request_bytes = 64;
  c.span = 256;
  c.base = std::numeric_limits<std::uint64_t>::max() - 255;  // the last 256 bytes
  const auto r = generate(c);
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].address, c.base + (i % 4) * 64) << i;
}

TEST(SyntheticRequests, Strided) {
  SyntheticRequestsConfig c;
  c.pattern = SyntheticPattern::Strided;
  c.count = 9;
  c.request_bytes = 64;
  c.base = 0;
  c.span = 512;
  c.stride = 192;
  c.read_fraction = 0.0;
  const auto r = generate(c);
  // Offsets are multiples of 192 taken modulo 512.
  const std::uint64_t expected[] = {0, 192, 384, 64, 256, 448, 128, 320, 0};
  ASSERT_EQ(r.size(), 9u);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].address, expected[i]) << i;
    EXPECT_TRUE(r[i].write);
  }

  // A stride larger than the span still wraps inside it.
  c.stride = 4096 + 128;
  c.count = 5;
  const auto s = generate(c);
  const std::uint64_t wrapped[] = {0, 128, 256, 384, 0};
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i].address, wrapped[i]) << i;
}

TEST(SyntheticRequests, ProgressAndEnd) {
  SyntheticRequests g(random_config(4, 1));
  const RequestSource& src = g;
  EXPECT_DOUBLE_EQ(src.progress(), 0.0);
  ASSERT_TRUE(g.next());
  ASSERT_TRUE(g.next());
  EXPECT_DOUBLE_EQ(src.progress(), 0.5);
  ASSERT_TRUE(g.next());
  ASSERT_TRUE(g.next());
  EXPECT_DOUBLE_EQ(src.progress(), 1.0);
  EXPECT_FALSE(g.next());
  EXPECT_FALSE(g.next());
  EXPECT_DOUBLE_EQ(src.progress(), 1.0);
}

TEST(SyntheticRequests, RejectsBadConfigs) {
  auto c = random_config();
  EXPECT_EQ(error_of(c), "no error");

  c = random_config();
  c.count = 0;
  EXPECT_HAS(error_of(c), "count must be at least 1");
  c = random_config();
  c.request_bytes = 0;
  EXPECT_HAS(error_of(c), "request_bytes must be 1 to 1048576, got 0");
  c = random_config();
  c.request_bytes = (1 << 20) + 1;
  EXPECT_HAS(error_of(c), "request_bytes must be 1 to 1048576");
  c = random_config();
  c.span = 32;
  EXPECT_HAS(error_of(c), "span (32 B) must be at least request_bytes (64 B)");
  c = random_config();
  c.base = 0x10020;
  EXPECT_HAS(error_of(c), "base 0x10020 must be a multiple of request_bytes (64)");
  c = random_config();
  c.base = std::numeric_limits<std::uint64_t>::max() - 63;
  c.span = 128;
  EXPECT_HAS(error_of(c), "runs past the end of the 64-bit address space");
  c = random_config();
  c.pattern = SyntheticPattern::Strided;
  c.stride = 0;
  EXPECT_HAS(error_of(c), "stride must be a positive multiple of request_bytes (64), got 0");
  c.stride = 96;
  EXPECT_HAS(error_of(c), "stride must be a positive multiple of request_bytes (64), got 96");
  c = random_config();
  c.read_fraction = 1.5;
  EXPECT_HAS(error_of(c), "read_fraction must be between 0 and 1, got 1.5");
  c.read_fraction = -0.1;
  EXPECT_HAS(error_of(c), "read_fraction must be between 0 and 1");
  c.read_fraction = std::nan("");
  EXPECT_HAS(error_of(c), "read_fraction must be between 0 and 1");
  c = random_config();
  c.rate = -1;
  EXPECT_HAS(error_of(c), "rate must be 0 (back to back) or positive");
  c.rate = std::numeric_limits<double>::infinity();
  EXPECT_HAS(error_of(c), "rate must be 0 (back to back) or positive");
  c = random_config();
  c.rate = 1e9;
  c.clock_hz = 0;
  EXPECT_HAS(error_of(c), "clock_hz must be positive when rate is set");
  c = random_config(1ull << 40, 1);
  c.rate = 1e-3;
  c.clock_hz = 1e9;
  EXPECT_HAS(error_of(c), "issue cycle does not fit in 64 bits");
  // Every message says where it comes from.
  EXPECT_HAS(error_of(c), "synthetic requests: ");
}

TEST(SyntheticRequests, PatternNames) {
  EXPECT_EQ(strata::parse_synthetic_pattern("random"), SyntheticPattern::Random);
  EXPECT_EQ(strata::parse_synthetic_pattern("stream"), SyntheticPattern::Stream);
  EXPECT_EQ(strata::parse_synthetic_pattern("strided"), SyntheticPattern::Strided);
  for (auto p : {SyntheticPattern::Random, SyntheticPattern::Stream, SyntheticPattern::Strided})
    EXPECT_EQ(strata::parse_synthetic_pattern(strata::synthetic_pattern_name(p)), p);
  EXPECT_THROW(strata::parse_synthetic_pattern("sequential"), std::invalid_argument);
}
