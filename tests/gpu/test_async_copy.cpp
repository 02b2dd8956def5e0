// Asynchronous copies into shared memory on the SM model alone: cp.async commit groups and
// wait_group, TMA bulk copies completing an mbarrier's transaction bytes, mbarrier phases over
// several warps, and a kernel that waits on a phase nothing completes. Global data comes back
// a fixed 100 cycles after the copy leaves (SmCore::answer_with), so every cycle is worked by
// hand in the comments.
#include <gtest/gtest.h>

#include <stdexcept>

#include "accelerators/gpu/sm_core.h"

namespace strata {
namespace {

constexpr std::uint64_t kCopyLatency = 100;

WarpInstruction async_op(WarpOp op, std::uint8_t mbarrier = 0) {
  WarpInstruction in;
  in.op = op;
  in.mbarrier = mbarrier;
  return in;
}

WarpInstruction cp_async_512(std::uint64_t base) {  // 32 lanes x 16 B: 4 lines, 16 sectors
  WarpInstruction in = async_op(WarpOp::CpAsync);
  in.base = base;
  in.width = 16;
  in.lane_stride = 16;
  return in;
}

WarpInstruction tma_box(std::uint8_t mbarrier, std::uint64_t base) {  // 32 rows of 128 B
  WarpInstruction in = async_op(WarpOp::Tma, mbarrier);
  in.base = base;
  in.box_rows = 32;
  in.box_row_bytes = 128;
  in.box_pitch = 128;
  return in;
}

WarpInstruction arrive_expecting(std::uint32_t bytes, std::uint8_t mbarrier = 0) {
  WarpInstruction in = async_op(WarpOp::MbarArrive, mbarrier);
  in.tx_bytes = bytes;
  return in;
}

// Issue cycles of the instructions of class `op`, in order.
struct AsyncCopyRun {
  std::vector<std::uint64_t> issued;
  std::uint64_t end = 0;
};
AsyncCopyRun run_async(const std::vector<const WarpProgram*>& warps, WarpOp op) {
  SmCore sm(SmTiming{});
  sm.answer_with([](const WarpInstruction&) { return kCopyLatency; });
  AsyncCopyRun r;
  sm.observe([&](std::uint64_t cycle, int, std::uint64_t, const WarpInstruction& in) {
    if (in.op == op) r.issued.push_back(cycle);
  });
  sm.add_cta(warps, 0);
  int id = -1;
  r.end = sm.run(SmCore::kNever, id);
  return r;
}

TEST(AsyncCopy, WaitGroupWaitsForTheGroupsBeyondItsCount) {
  WarpInstruction commit = async_op(WarpOp::CpAsyncCommit), wait1 = async_op(WarpOp::CpAsyncWait),
                  wait0 = async_op(WarpOp::CpAsyncWait);
  wait1.pending = 1;
  wait0.pending = 0;
  WarpProgram p;
  // The first copy leaves at 0 (data at 100) and holds the L1's path for 4 cycles, so the
  // second leaves at 4 (data at 104).
  p.prologue = {cp_async_512(0), commit, cp_async_512(512), commit, wait1, wait0};
  const AsyncCopyRun r = run_async({&p}, WarpOp::CpAsyncWait);
  EXPECT_EQ(r.issued, (std::vector<std::uint64_t>{100, 104}));
  EXPECT_EQ(r.end, 105u);
}

TEST(AsyncCopy, AnUncommittedCopyIsNotWaitedFor) {
  WarpInstruction wait0 = async_op(WarpOp::CpAsyncWait);
  wait0.pending = 0;
  WarpProgram p;
  p.prologue = {cp_async_512(0), wait0};  // no commit: wait_group 0 has no group to wait for
  const AsyncCopyRun r = run_async({&p}, WarpOp::CpAsyncWait);
  EXPECT_EQ(r.issued, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(r.end, 100u);  // the CTA still completes only when the copy's data is in
}

TEST(AsyncCopy, TmaCompletesTheMbarrierPhaseItsBytesWereExpectedFor) {
  WarpInstruction init = async_op(WarpOp::MbarInit), wait = async_op(WarpOp::MbarWait);
  WarpProgram p;
  // Phase 0: the arrival at 1 (counted from 2), the box leaves at 2 and lands at 102. Phase 1:
  // the arrival at 103, the box leaves at 104 and lands at 204.
  p.prologue = {init, arrive_expecting(4096), tma_box(0, 0), wait, arrive_expecting(4096), tma_box(0, 4096), wait};
  const AsyncCopyRun r = run_async({&p}, WarpOp::MbarWait);
  EXPECT_EQ(r.issued, (std::vector<std::uint64_t>{102, 204}));
}

TEST(AsyncCopy, APhaseWaitsForItsBytesAndForEveryArrival) {
  WarpInstruction init = async_op(WarpOp::MbarInit), wait = async_op(WarpOp::MbarWait);
  init.arrivals = 2;
  WarpProgram producer, late;
  producer.prologue = {init, arrive_expecting(4096), tma_box(0, 0), wait};  // the bytes land at 102
  WarpInstruction chain;
  chain.op = WarpOp::Fp32;
  chain.dst[0] = chain.src[0] = 0;
  for (int i = 0; i < 40; ++i) late.prologue.push_back(chain);  // issues at 0, 4, ..., 156
  late.prologue.push_back(async_op(WarpOp::MbarArrive));          // the second arrival, at 157
  late.prologue.push_back(wait);
  const AsyncCopyRun r = run_async({&producer, &late}, WarpOp::MbarWait);
  EXPECT_EQ(r.issued, (std::vector<std::uint64_t>{158, 158}));  // both go on the cycle after it
}

TEST(AsyncCopy, AWaitNothingCompletesIsADeadlockNotAHang) {
  WarpInstruction init = async_op(WarpOp::MbarInit), wait = async_op(WarpOp::MbarWait);
  init.arrivals = 2;
  WarpProgram p;
  p.prologue = {init, async_op(WarpOp::MbarArrive), wait};  // one arrival of the two
  EXPECT_THROW(run_async({&p}, WarpOp::MbarWait), std::logic_error);
}

}  // namespace
}  // namespace strata
