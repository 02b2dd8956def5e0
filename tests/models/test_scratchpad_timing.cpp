// Banked scratchpad access cycles, worked by hand on the default 32 banks × 32 bytes, and
// checked against a word-by-word count.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "models/scratchpad/scratchpad_timing.h"

namespace strata {
namespace {

// A bank row is 32·32 = 1024 bytes: 4096 contiguous bytes are 128 words, 4 rows of banks.
TEST(ScratchpadTiming, Contiguous) {
  const ScratchpadConfig cfg;
  ScratchpadAccess a = scratchpad_access(cfg, 4096);
  EXPECT_EQ(a.cycles, 4u);
  EXPECT_EQ(a.bank_accesses, 128u);
  EXPECT_EQ(a.conflict_cycles, 0u);
  a = scratchpad_access(cfg, 4097);  // one more word, one more row
  EXPECT_EQ(a.cycles, 5u);
  EXPECT_EQ(a.bank_accesses, 129u);
  EXPECT_EQ(scratchpad_access(cfg, 1).cycles, 1u);
  // 1024 elements of 4 bytes back to back are the same 4096 bytes.
  a = scratchpad_access(cfg, 1024, 4, 4);
  EXPECT_EQ(a.cycles, 4u);
  EXPECT_EQ(a.bank_accesses, 128u);
}

// Stride = width × banks = 1024 bytes: every element lies in bank 0, one word each, so 64
// elements take 64 cycles where 64 words spread over 32 banks would take 2: 62 conflict cycles.
TEST(ScratchpadTiming, StrideOfABankRowSerialises) {
  const ScratchpadConfig cfg;
  const ScratchpadAccess a = scratchpad_access(cfg, 64, 4, 1024);
  EXPECT_EQ(a.cycles, 64u);
  EXPECT_EQ(a.bank_accesses, 64u);
  EXPECT_EQ(a.conflict_cycles, 62u);
  // Two bank rows apart: the same.
  EXPECT_EQ(scratchpad_access(cfg, 64, 4, 2048).cycles, 64u);
}

// Stride 2 words (64 bytes): element i is word 2i, bank 2i mod 32, so only the 16 even banks:
// 64 elements, 4 per bank, 4 cycles against 2 conflict-free. Stride 3 words: gcd(3, 32) = 1,
// all banks, 2 cycles. Stride 4 words: 8 banks, 8 cycles.
TEST(ScratchpadTiming, StrideOfTwoWordsUsesHalfTheBanks) {
  const ScratchpadConfig cfg;
  ScratchpadAccess a = scratchpad_access(cfg, 64, 4, 64);
  EXPECT_EQ(a.cycles, 4u);
  EXPECT_EQ(a.bank_accesses, 64u);
  EXPECT_EQ(a.conflict_cycles, 2u);
  a = scratchpad_access(cfg, 64, 4, 96);
  EXPECT_EQ(a.cycles, 2u);
  EXPECT_EQ(a.conflict_cycles, 0u);
  EXPECT_EQ(scratchpad_access(cfg, 64, 4, 128).cycles, 8u);
  // 65 elements at stride 2 words: bank 0 gets a fifth.
  EXPECT_EQ(scratchpad_access(cfg, 65, 4, 64).cycles, 5u);
}

// Elements smaller than the width share bank words: 2-byte elements every 4 bytes put 8 in a
// 32-byte word, so 64 elements are 8 words in banks 0-7: one cycle, 8 bank accesses. 4-byte
// elements every 8 bytes: 4 per word, 256 elements are 64 words, 2 cycles.
TEST(ScratchpadTiming, SeveralElementsPerWord) {
  const ScratchpadConfig cfg;
  ScratchpadAccess a = scratchpad_access(cfg, 64, 2, 4);
  EXPECT_EQ(a.cycles, 1u);
  EXPECT_EQ(a.bank_accesses, 8u);
  EXPECT_EQ(a.conflict_cycles, 0u);
  a = scratchpad_access(cfg, 256, 4, 8);
  EXPECT_EQ(a.cycles, 2u);
  EXPECT_EQ(a.bank_accesses, 64u);
}

// Stride 36 bytes (not a multiple of the width): element i is word ⌊36i/32⌋ = i + ⌊i/8⌋, so the
// first 32 elements are words 0-7, 9-16, 18-25, 27-34; words 32-34 fall in banks 0-2 again:
// 32 words, 2 cycles, 1 conflict cycle.
// Elements wider than a word: 64-byte elements every 2048 bytes cover banks 0 and 1, 8 of them
// 16 words in 2 banks: 8 cycles, 7 of them conflicts.
TEST(ScratchpadTiming, UnalignedAndWideElements) {
  const ScratchpadConfig cfg;
  ScratchpadAccess a = scratchpad_access(cfg, 32, 4, 36);
  EXPECT_EQ(a.cycles, 2u);
  EXPECT_EQ(a.bank_accesses, 32u);
  EXPECT_EQ(a.conflict_cycles, 1u);
  a = scratchpad_access(cfg, 8, 64, 2048);
  EXPECT_EQ(a.cycles, 8u);
  EXPECT_EQ(a.bank_accesses, 16u);
  EXPECT_EQ(a.conflict_cycles, 7u);
}

TEST(ScratchpadTiming, PortsDoNotChangeOnePortsCount) {
  for (std::int64_t ports : {1, 2, 4}) {
    ScratchpadConfig cfg;
    cfg.ports = ports;
    EXPECT_EQ(scratchpad_access(cfg, 4096).cycles, 4u);
    EXPECT_EQ(scratchpad_access(cfg, 64, 4, 64).cycles, 4u);
    EXPECT_EQ(scratchpad_access(cfg, 64, 4, 1024).cycles, 64u);
  }
}

// Word-by-word reference: the set of words every element touches, counted per bank.
ScratchpadAccess brute(const ScratchpadConfig& cfg, std::uint64_t n, std::uint64_t e, std::uint64_t s) {
  const std::uint64_t w = cfg.bank_width_bytes, banks = cfg.banks;
  std::set<std::uint64_t> words;
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t b = i * s; b < i * s + e; ++b) words.insert(b / w);
  std::vector<std::uint64_t> per(banks, 0);
  for (std::uint64_t word : words) ++per[word % banks];
  ScratchpadAccess a;
  a.bank_accesses = words.size();
  a.cycles = *std::max_element(per.begin(), per.end());
  a.conflict_cycles = a.cycles - (a.bank_accesses + banks - 1) / banks;
  return a;
}

TEST(ScratchpadTiming, MatchesWordByWordCount) {
  for (auto [banks, width] : std::vector<std::pair<std::int64_t, std::int64_t>>{{32, 32}, {4, 8}, {3, 4}, {1, 16}}) {
    ScratchpadConfig cfg;
    cfg.banks = banks, cfg.bank_width_bytes = width;
    for (std::uint64_t e : {1, 2, 3, 4, 8, 40})
      for (std::uint64_t s : {1, 2, 3, 4, 5, 6, 8, 12, 36, 40, 64, 100, 1024, 2048})
        for (std::uint64_t n : {1, 2, 7, 31, 32, 33, 100, 300}) {
          if (s < e) continue;
          SCOPED_TRACE(::testing::Message() << banks << "x" << width << " n=" << n << " e=" << e << " s=" << s);
          const ScratchpadAccess a = scratchpad_access(cfg, n, e, s), b = brute(cfg, n, e, s);
          ASSERT_EQ(a.cycles, b.cycles);
          ASSERT_EQ(a.bank_accesses, b.bank_accesses);
          ASSERT_EQ(a.conflict_cycles, b.conflict_cycles);
        }
  }
}

TEST(ScratchpadTiming, RejectsBadSizes) {
  const ScratchpadConfig cfg;
  EXPECT_THROW(scratchpad_access(cfg, 0), std::invalid_argument);
  EXPECT_THROW(scratchpad_access(cfg, 0, 4, 4), std::invalid_argument);
  EXPECT_THROW(scratchpad_access(cfg, 4, 0, 4), std::invalid_argument);
  EXPECT_THROW(scratchpad_access(cfg, 4, 8, 4), std::invalid_argument);  // elements overlap
  for (int field = 0; field < 3; ++field) {
    ScratchpadConfig bad;
    (field == 0 ? bad.banks : field == 1 ? bad.bank_width_bytes : bad.ports) = 0;
    EXPECT_THROW(scratchpad_access(bad, 64), std::invalid_argument);
    EXPECT_THROW(scratchpad_access(bad, 4, 4, 8), std::invalid_argument);
  }
}

}  // namespace
}  // namespace strata
