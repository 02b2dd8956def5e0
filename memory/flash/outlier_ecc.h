// Cambricon-LLM's outlier-oriented ECC for INT8 weight pages, and seeded raw bit errors, for the
// accuracy side of a flash study (../shared/reference/chiplet-flash.md section 2.5 [V]):
//   - the largest 1% of a page's values (by magnitude) are protected: each stored in the spare
//     area as a 14-bit address with a 5-bit Hamming code and two 8-bit copies; on read a bitwise
//     majority vote of the three copies restores it;
//   - a magnitude threshold (the smallest protected magnitude) is stored 9 times; on read an
//     unprotected value above it (a flipped high bit) is zeroed;
//   - size: 8 x 9 + (14 + 5 + 16) x protected bits (5,777 bits, 723 B, for a 16 KB page's 163
//     protected values, inside its 1,664 B spare area; the paper prints 722 B); a protected bit
//     stays wrong when two of its three copies flip: 3x^2 for a raw bit-error rate x.
// Timing-free and SystemC-free; deterministic for a seed (boost's mt19937_64, as the graph
// generators).
#pragma once

#include <cstdint>
#include <vector>

namespace strata {

// Values a page of `values` INT8 weights protects (1%, rounded down, at least 1) and the
// spare-area bytes.
std::int64_t outlier_ecc_protected(std::int64_t values);
std::uint64_t outlier_ecc_bytes(std::int64_t values);

struct BitErrorResult {
  std::vector<std::int8_t> read;       // the page as read (after ECC when on)
  std::uint64_t raw_flips = 0;         // bits flipped in the data and (with ECC) the spare area
  std::uint64_t protected_bit_errors = 0;  // wrong bits left in the protected values
  std::uint64_t protected_bits = 0;
  std::uint64_t zeroed = 0;            // unprotected values above the threshold, cleared
};

// Reads `page` after every stored bit flipped with probability `raw_ber`, with or without the
// outlier ECC.
BitErrorResult read_with_bit_errors(const std::vector<std::int8_t>& page, double raw_ber, std::uint64_t seed, bool ecc);

}  // namespace strata
