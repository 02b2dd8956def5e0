#include "memory/flash/outlier_ecc.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include <boost/random/geometric_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>

namespace strata {
namespace {

constexpr int kAddressBits = 14, kHammingBits = 5, kCopyBits = 16, kThresholdCopies = 9;

// Flips each of `bits` bits with probability p: calls flip(i) for each flipped bit index,
// skipping geometrically between flips.
template <typename Flip>
std::uint64_t flip_bits(std::uint64_t bits, double p, boost::random::mt19937_64& rng, Flip flip) {
  if (p <= 0) return 0;
  std::uint64_t flips = 0;
  if (p >= 1) {
    for (std::uint64_t i = 0; i < bits; ++i) flip(i);
    return bits;
  }
  boost::random::geometric_distribution<std::uint64_t, double> gap(p);
  for (std::uint64_t i = gap(rng); i < bits; i += 1 + gap(rng)) {
    flip(i);
    ++flips;
  }
  return flips;
}

int magnitude(std::int8_t v) { return std::abs(static_cast<int>(v)); }

}  // namespace

std::int64_t outlier_ecc_protected(std::int64_t values) { return values > 0 ? std::max<std::int64_t>(1, values / 100) : 0; }

std::uint64_t outlier_ecc_bytes(std::int64_t values) {
  const std::uint64_t bits = 8 * kThresholdCopies + static_cast<std::uint64_t>(outlier_ecc_protected(values)) *
                                                        (kAddressBits + kHammingBits + kCopyBits);
  return (bits + 7) / 8;
}

BitErrorResult read_with_bit_errors(const std::vector<std::int8_t>& page, double raw_ber, std::uint64_t seed, bool ecc) {
  BitErrorResult r;
  boost::random::mt19937_64 rng(seed);
  r.read = page;
  auto* bytes = reinterpret_cast<std::uint8_t*>(r.read.data());
  r.raw_flips += flip_bits(8 * page.size(), raw_ber, rng, [&](std::uint64_t i) { bytes[i / 8] ^= std::uint8_t(1u << (i % 8)); });
  if (!ecc) return r;

  // The protected values: the largest magnitudes, ties to the lower address.
  const auto n = static_cast<std::int64_t>(page.size());
  std::vector<std::int32_t> order(page.size());
  std::iota(order.begin(), order.end(), 0);
  const std::int64_t k = std::min(n, outlier_ecc_protected(n));
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::int32_t a, std::int32_t b) {
    return magnitude(page[static_cast<std::size_t>(a)]) != magnitude(page[static_cast<std::size_t>(b)])
               ? magnitude(page[static_cast<std::size_t>(a)]) > magnitude(page[static_cast<std::size_t>(b)])
               : a < b;
  });
  const int threshold = k > 0 ? magnitude(page[static_cast<std::size_t>(order[static_cast<std::size_t>(k - 1)])]) : 127;

  // The spare area: the threshold's copies, then per protected value its address codeword and
  // two copies, each bit flipping like the data's.
  std::vector<std::uint8_t> thresholds(kThresholdCopies, static_cast<std::uint8_t>(threshold));
  r.raw_flips += flip_bits(8 * kThresholdCopies, raw_ber, rng, [&](std::uint64_t i) { thresholds[i / 8] ^= std::uint8_t(1u << (i % 8)); });
  int voted = 0;  // bitwise majority of the threshold's copies
  for (int b = 0; b < 8; ++b) {
    int ones = 0;
    for (const std::uint8_t t : thresholds) ones += (t >> b) & 1;
    voted |= (ones * 2 > kThresholdCopies ? 1 : 0) << b;
  }
  std::vector<char> is_protected(page.size(), 0);
  for (std::int64_t j = 0; j < k; ++j) {
    const auto at = static_cast<std::size_t>(order[static_cast<std::size_t>(j)]);
    std::uint8_t copy1 = static_cast<std::uint8_t>(page[at]), copy2 = copy1;
    std::uint64_t address_flips = 0;
    r.raw_flips += flip_bits(kAddressBits + kHammingBits + kCopyBits, raw_ber, rng, [&](std::uint64_t i) {
      if (i < kAddressBits + kHammingBits) ++address_flips;
      else if (i < kAddressBits + kHammingBits + 8) copy1 ^= std::uint8_t(1u << (i - kAddressBits - kHammingBits));
      else copy2 ^= std::uint8_t(1u << (i - kAddressBits - kHammingBits - 8));
    });
    // The Hamming code corrects one flip in the address; two or more lose the entry.
    if (address_flips > 1) continue;
    is_protected[at] = 1;
    const auto stored = static_cast<std::uint8_t>(r.read[at]);
    const auto restored = static_cast<std::uint8_t>((stored & copy1) | (stored & copy2) | (copy1 & copy2));
    r.read[at] = static_cast<std::int8_t>(restored);
    r.protected_bit_errors += std::bitset<8>(restored ^ static_cast<std::uint8_t>(page[at])).count();
    r.protected_bits += 8;
  }
  for (std::size_t i = 0; i < r.read.size(); ++i)
    if (!is_protected[i] && magnitude(r.read[i]) > voted) {
      r.read[i] = 0;
      ++r.zeroed;
    }
  return r;
}

}  // namespace strata
