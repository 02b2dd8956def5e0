// Banked scratchpad access cycles. Bank b holds the words (width w bytes) whose index ≡ b mod
// banks; the access starts at a bank-row boundary (address 0). Each bank serves one word per
// cycle per port, and all elements in one word are served by that one word access, so an access
// takes as many cycles as its busiest bank has distinct words:
//   cycles          = max over banks of the words it serves
//   bank_accesses   = distinct words touched
//   conflict_cycles = cycles − ⌈bank_accesses / banks⌉ (the count if the words spread evenly)
// Contiguous n bytes: ⌈n/w⌉ words over all banks in turn, ⌈n/(banks·w)⌉ cycles. Stride s = q·w
// with elements inside one word: element i is word i·q, bank i·q mod banks, which visits
// banks/gcd(q, banks) banks equally: ⌈n·gcd(q, banks)/banks⌉ cycles. Other strides (elements
// smaller than a word, strides that are not a multiple of the width, elements spanning words)
// are counted exactly: the bank pattern repeats every P = banks·w / gcd(s, banks·w) elements
// (P·s is a whole number of bank rows), so one period is walked and scaled. Ports are
// independent: the count is for one port and does not depend on how many there are.
#include "models/scratchpad/scratchpad_timing.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "sim/rounding.h"

namespace strata {

namespace {

using u64 = std::uint64_t;

void check(const ScratchpadConfig& cfg) {
  if (cfg.banks <= 0 || cfg.bank_width_bytes <= 0 || cfg.ports <= 0)
    throw std::invalid_argument("scratchpad_access: banks, bank_width_bytes and ports must be positive");
}

ScratchpadAccess from_bank_counts(const std::vector<u64>& words, u64 banks) {
  ScratchpadAccess a;
  for (u64 n : words) a.bank_accesses += n;
  a.cycles = *std::max_element(words.begin(), words.end());
  a.conflict_cycles = a.cycles - ceil_div(a.bank_accesses, banks);
  return a;
}

// Adds to `words[bank]` the distinct words of elements 0..count−1 (element i at i·stride).
// Addresses only grow, so a word is new exactly when it lies past the last one counted.
void count_words(u64 count, u64 element, u64 stride, u64 width, std::vector<u64>& words) {
  const u64 banks = words.size();
  u64 next = 0;  // first word not yet counted
  for (u64 i = 0; i < count; ++i) {
    const u64 lo = std::max(next, i * stride / width), hi = (i * stride + element - 1) / width;
    if (hi < lo) continue;
    const u64 len = hi - lo + 1;
    for (u64& n : words) n += len / banks;  // whole bank rows
    for (u64 j = 0; j < len % banks; ++j) ++words[(lo + j) % banks];
    next = hi + 1;
  }
}

}  // namespace

ScratchpadAccess scratchpad_access(const ScratchpadConfig& cfg, std::uint64_t bytes) {
  check(cfg);
  if (bytes == 0) throw std::invalid_argument("scratchpad_access: bytes must be positive");
  const u64 banks = static_cast<u64>(cfg.banks), width = static_cast<u64>(cfg.bank_width_bytes);
  ScratchpadAccess a;
  a.bank_accesses = ceil_div(bytes, width);
  a.cycles = ceil_div(a.bank_accesses, banks);
  return a;
}

ScratchpadAccess scratchpad_access(const ScratchpadConfig& cfg, std::uint64_t elements, std::uint64_t element_bytes,
                                   std::uint64_t stride_bytes) {
  check(cfg);
  if (elements == 0 || element_bytes == 0) throw std::invalid_argument("scratchpad_access: sizes must be positive");
  if (stride_bytes < element_bytes) throw std::invalid_argument("scratchpad_access: stride smaller than an element");
  if (stride_bytes == element_bytes) return scratchpad_access(cfg, elements * element_bytes);

  const u64 banks = static_cast<u64>(cfg.banks), width = static_cast<u64>(cfg.bank_width_bytes);
  const u64 row = banks * width;
  const u64 period = row / std::gcd(stride_bytes, row);
  // Element P starts a new bank row and element P−1 ends before it (element ≤ stride), so the
  // periods share no word and each touches the same banks the same number of times.
  std::vector<u64> per_period(banks, 0), rest(banks, 0);
  if (elements >= period) count_words(period, element_bytes, stride_bytes, width, per_period);
  count_words(elements % period, element_bytes, stride_bytes, width, rest);
  const u64 full = elements / period;
  for (u64 b = 0; b < banks; ++b) rest[b] += full * per_period[b];
  return from_bank_counts(rest, banks);
}

}  // namespace strata
