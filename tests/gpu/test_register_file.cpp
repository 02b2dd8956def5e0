// Register-bank conflicts and the register-file cache on the SM model alone: sources sharing a
// bank are read one a cycle and hold the sub-core's issue meanwhile; a source kept by a .reuse
// bit is read from the cache without a bank cycle. Every cycle is worked by hand.
#include <gtest/gtest.h>

#include "accelerators/gpu/sm_core.h"

namespace strata {
namespace {

WarpInstruction ffma_from(std::uint8_t dst, std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t reuse = 0) {
  WarpInstruction in;
  in.op = WarpOp::Fp32;
  in.dst[0] = dst;
  in.src = {a, b, c, kNoReg};
  in.reuse = reuse;
  return in;
}

// Issue cycles of a warp running `p` alone on a sub-core, and its completion.
std::vector<std::uint64_t> issue_cycles(const SmTiming& t, const WarpProgram& p, std::uint64_t* end = nullptr) {
  SmCore sm(t);
  std::vector<std::uint64_t> at;
  sm.observe([&](std::uint64_t cycle, int, std::uint64_t, const WarpInstruction&) { at.push_back(cycle); });
  sm.add_cta(p, 1, 0);
  int id = -1;
  const std::uint64_t e = sm.run(SmCore::kNever, id);
  if (end) *end = e;
  return at;
}

SmTiming two_banks(bool cache) {
  SmTiming t;  // 32 FP32 lanes a sub-core: one FFMA a cycle, 4 cycles to its result
  t.register_banks = 2;
  t.register_cache = cache;
  return t;
}

TEST(RegisterFile, SourcesInOneBankAreReadOneACycle) {
  WarpProgram p;
  for (std::uint8_t i = 0; i < 4; ++i) p.prologue.push_back(ffma_from(static_cast<std::uint8_t>(10 + 2 * i), 1, 3, 5));
  // R1, R3 and R5 are all in bank 1: three read cycles an FFMA.
  std::uint64_t end = 0;
  EXPECT_EQ(issue_cycles(two_banks(false), p, &end), (std::vector<std::uint64_t>{0, 3, 6, 9}));
  EXPECT_EQ(end, 9u + 2 + 4);  // the last reads to cycle 11, then the FFMA's 4
  // Without banks modelled, one a cycle.
  EXPECT_EQ(issue_cycles(SmTiming{}, p), (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

TEST(RegisterFile, SourcesSpreadOverTheBanksCostNothing) {
  WarpProgram p;
  for (std::uint8_t i = 0; i < 4; ++i) p.prologue.push_back(ffma_from(static_cast<std::uint8_t>(10 + 2 * i), 1, 2, kNoReg));
  EXPECT_EQ(issue_cycles(two_banks(false), p), (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

TEST(RegisterFile, ReusedSourcesComeFromTheCache) {
  WarpProgram p;
  // R1 and R3 marked .reuse in slots 0 and 1: after the first FFMA only R5 is read from bank 1.
  for (std::uint8_t i = 0; i < 4; ++i)
    p.prologue.push_back(ffma_from(static_cast<std::uint8_t>(10 + 2 * i), 1, 3, 5, 0b011));
  EXPECT_EQ(issue_cycles(two_banks(true), p), (std::vector<std::uint64_t>{0, 3, 4, 5}));
  // Without the cache the bits do nothing.
  EXPECT_EQ(issue_cycles(two_banks(false), p), (std::vector<std::uint64_t>{0, 3, 6, 9}));
  // A value is cached per operand slot: R1 read as source 1 the next time misses.
  WarpProgram swapped;
  swapped.prologue = {ffma_from(10, 1, 3, 5, 0b011), ffma_from(12, 3, 1, 5, 0b011)};
  EXPECT_EQ(issue_cycles(two_banks(true), swapped), (std::vector<std::uint64_t>{0, 3}));
}

}  // namespace
}  // namespace strata
