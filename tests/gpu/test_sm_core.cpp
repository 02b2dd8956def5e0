// The SM timing model on its own: dependent and independent issue, the three schedulers, both
// dependence schemes, shared-memory bank conflicts, tensor-core occupancy and the compiler's
// control bits.
#include <gtest/gtest.h>

#include "accelerators/gpu/control_bits.h"
#include "accelerators/gpu/gpu_microbenchmark.h"
#include "accelerators/gpu/sm_core.h"

namespace strata {
namespace {

WarpInstruction ffma(std::uint8_t dst, std::uint8_t src) {
  WarpInstruction in;
  in.op = WarpOp::Fp32;
  in.dst[0] = dst;
  in.src[0] = src;
  return in;
}

// The cycle the only CTA of `program` (`warps` warps) completes on a fresh SM.
std::uint64_t run_cta(const SmTiming& t, const WarpProgram& program, int warps = 1) {
  SmCore sm(t);
  sm.add_cta(program, warps, 0);
  int id = -1;
  const std::uint64_t end = sm.run(SmCore::kNever, id);
  EXPECT_EQ(id, 0);
  return end;
}

SmTiming h100_timing() {
  SmTiming t;
  t.tensor_macs = {{"fp16", 512}, {"int8", 1024}};
  t.wgmma_latency = 43;
  return t;
}

TEST(SmCore, DependentChainTakesThePipeLatencyInBothSchemes) {
  WarpProgram p;
  p.body = {ffma(0, 0)};
  p.iterations = 100;
  SmTiming t = h100_timing();
  EXPECT_EQ(run_cta(t, p), 400u);  // issues at 0, 4, ..., 396; the last result at 400
  t.dependences = SmTiming::Dependences::ControlBits;
  assign_control_bits(p, t);
  EXPECT_EQ(p.body[0].stall, 4);
  EXPECT_EQ(run_cta(t, p), 400u);
}

TEST(SmCore, ControlBitsAreTrustedAsTheCompilerSetThem) {
  WarpProgram p;
  p.body = {ffma(0, 1), ffma(2, 0)};  // the second reads the first's result; stall counts left at 1
  SmTiming t = h100_timing();
  EXPECT_EQ(run_cta(t, p), 8u);  // scoreboard: the reader waits to cycle 4, its result at 8
  t.dependences = SmTiming::Dependences::ControlBits;
  EXPECT_EQ(run_cta(t, p), 5u);  // control bits: it issues at cycle 1, as the bits allow
}

TEST(SmCore, IndependentInstructionsIssueAtThePipeRate) {
  WarpProgram p;
  for (std::uint8_t r = 0; r < 8; ++r) p.body.push_back(ffma(r, r));
  p.iterations = 100;
  SmTiming t = h100_timing();
  // Four warps, one per sub-core: 800 instructions each, one a cycle (32 FP32 lanes).
  EXPECT_EQ(run_cta(t, p, 4), 800u - 1 + 4);
  // 16 lanes a sub-core (A100): every instruction holds the pipe two cycles.
  t.fp32_lanes = 16;
  EXPECT_EQ(run_cta(t, p, 4), 1600u - 2 + 4);
}

// The order (warp arrival numbers) in which one sub-core issues two warps of four independent
// instructions each.
std::vector<std::uint64_t> issue_order(SmTiming::Scheduler s) {
  SmTiming t = h100_timing();
  t.sub_cores = 1;
  t.scheduler = s;
  WarpProgram p;
  for (std::uint8_t r = 0; r < 4; ++r) p.body.push_back(ffma(r, r));
  SmCore sm(t);
  std::vector<std::uint64_t> order;
  sm.observe([&](std::uint64_t, int, std::uint64_t warp, const WarpInstruction&) { order.push_back(warp); });
  sm.add_cta(p, 2, 0);
  int id = -1;
  sm.run(SmCore::kNever, id);
  return order;
}

TEST(SmCore, SchedulingPolicies) {
  using S = SmTiming::Scheduler;
  EXPECT_EQ(issue_order(S::Gto), (std::vector<std::uint64_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(issue_order(S::Lrr), (std::vector<std::uint64_t>{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(issue_order(S::Cggty), (std::vector<std::uint64_t>{1, 1, 1, 1, 0, 0, 0, 0}));
}

TEST(SmCore, BarrierHoldsEveryWarpOfTheCtaUntilTheLastArrives) {
  WarpInstruction bar;
  bar.op = WarpOp::Bar;
  WarpProgram slow, fast;
  for (int i = 0; i < 10; ++i) slow.prologue.push_back(ffma(0, 0));  // issues at 0, 4, ..., 36
  slow.prologue.push_back(bar);                                      // arrives at 37
  slow.prologue.push_back(ffma(1, 1));
  fast.prologue = {bar, ffma(1, 1)};  // arrives at 0 and waits
  SmCore sm(h100_timing());
  std::vector<std::uint64_t> after_barrier;
  sm.observe([&](std::uint64_t cycle, int, std::uint64_t, const WarpInstruction& in) {
    if (in.op == WarpOp::Fp32 && in.dst[0] == 1) after_barrier.push_back(cycle);
  });
  sm.add_cta({&slow, &fast}, 0);
  int id = -1;
  EXPECT_EQ(sm.run(SmCore::kNever, id), 42u);  // both released at 38, their FFMAs done at 42
  EXPECT_EQ(after_barrier, (std::vector<std::uint64_t>{38, 38}));
}

TEST(SmCore, AnExitedWarpReleasesTheBarrier) {
  WarpInstruction bar;
  bar.op = WarpOp::Bar;
  WarpProgram waits, exits;
  waits.prologue = {bar, ffma(1, 1)};
  exits.prologue = {ffma(0, 0), ffma(0, 0)};  // never reaches the barrier: done issuing at 4
  SmCore sm(h100_timing());
  sm.add_cta({&waits, &exits}, 0);
  int id = -1;
  EXPECT_EQ(sm.run(SmCore::kNever, id), 9u);  // released at 5, its FFMA's result at 9
}

TEST(SmCore, SharedMemoryWavefronts) {
  SmCore sm(h100_timing());
  WarpInstruction in;
  in.op = WarpOp::Lds;
  const auto wavefronts = [&](int stride, int width) {
    in.lane_stride = stride;
    in.width = static_cast<std::uint8_t>(width);
    return sm.wavefronts(in);
  };
  EXPECT_EQ(wavefronts(4, 4), 1);     // one word per bank
  EXPECT_EQ(wavefronts(0, 4), 1);     // every lane the same word: a broadcast
  EXPECT_EQ(wavefronts(8, 4), 2);     // two lanes a bank
  EXPECT_EQ(wavefronts(128, 4), 32);  // every lane in bank 0
  EXPECT_EQ(wavefronts(8, 8), 2);     // 256 B: two wavefronts, no conflict
  EXPECT_EQ(wavefronts(16, 16), 4);   // 512 B: four
  in.active_mask = 0x0000ffffu;       // half the warp at a 2-way stride
  EXPECT_EQ(wavefronts(8, 4), 1);
  // A gather (a trace's per-lane addresses): lanes 0-15 in bank 0's words 0-15, the rest broadcast.
  in.active_mask = 0xffffffffu;
  in.lane_addresses = 0;
  in.width = 4;
  std::vector<std::uint64_t> pool(32, 0);
  for (int lane = 0; lane < 16; ++lane) pool[static_cast<std::size_t>(lane)] = static_cast<std::uint64_t>(lane) * 128;
  EXPECT_EQ(sm.wavefronts(in, pool), 16);
}

TEST(SmCore, TensorCoreCycles) {
  SmCore sm(h100_timing());
  WarpInstruction mma;
  mma.op = WarpOp::Mma;
  mma.m = 16, mma.n = 8, mma.k = 16;
  EXPECT_EQ(sm.tensor_cycles(mma, 512), 4u);  // 2048 MACs at 512 a cycle (H100)
  EXPECT_EQ(sm.tensor_cycles(mma, 256), 8u);  // A100
  mma.sparse = true;
  EXPECT_EQ(sm.tensor_cycles(mma, 512), 2u);  // 2:4 sparsity: twice the rate
  WarpInstruction wgmma;
  wgmma.op = WarpOp::Wgmma;
  wgmma.m = 64, wgmma.n = 128, wgmma.k = 16;
  EXPECT_EQ(sm.tensor_cycles(wgmma, 512), 64u);  // a quarter of the warp group's MACs per sub-core
  EXPECT_THROW(sm.tensor_rate("tf32"), std::invalid_argument);
}

TEST(SmCore, TensorChainsFollowTheCompletionModel) {
  const SmTiming t = h100_timing();
  MicrobenchmarkConfig c;
  c.iterations = 64;
  c.benchmark = "mma_chain";
  Microbenchmark b = make_microbenchmark(c, t);
  EXPECT_EQ(run_cta(t, *b.kernel.program), 64u * (4 + 24));  // MACs / rate + mma_latency each
  c.benchmark = "wgmma_chain";
  for (int n : {64, 128}) {
    c.n = n;
    b = make_microbenchmark(c, t);
    // 43 + N/2 to completion, and the wait's own issue cycle.
    EXPECT_EQ(run_cta(t, *b.kernel.program, 4), 64u * static_cast<std::uint64_t>(43 + n / 2 + 1)) << n;
  }
}

TEST(SmCore, CompilerAssignsCountersToVariableLatencyProducers) {
  WarpProgram p;
  WarpInstruction lds;
  lds.op = WarpOp::Lds;
  lds.dst[0] = 0;
  lds.src[0] = 0;
  p.body = {lds, ffma(1, 0)};
  p.iterations = 10;
  SmTiming t = h100_timing();
  t.dependences = SmTiming::Dependences::ControlBits;
  assign_control_bits(p, t);
  EXPECT_EQ(p.body[0].write_barrier, 0);
  EXPECT_EQ(p.body[1].wait_mask, 1);
  EXPECT_EQ(p.body[0].wait_mask, 1);  // the next iteration's load reads its own last result
  // Both schemes then give the same time: the load's latency, then the FFMA's, ten times over
  // (the FFMA's result is not read again, but the next load waits for the last load).
  const std::uint64_t bits = run_cta(t, p);
  t.dependences = SmTiming::Dependences::Scoreboard;
  EXPECT_EQ(run_cta(t, p), bits);
}

// A store leaves the SM at issue but holds a place in the store queue until its slice's
// acknowledgement is back: with the queue full the next store waits for the first
// acknowledgement's cycle, and the warp's exit does not wait for the rest.
TEST(SmCore, AFullStoreQueueHoldsTheNextStoreUntilAnAcknowledgement) {
  WarpProgram p;
  for (std::uint64_t k = 0; k < 3; ++k) {
    WarpInstruction st;
    st.op = WarpOp::Stg;
    st.src[0] = 0;
    st.base = k * kLineBytes;  // 32 lanes x 4 B: one line each
    p.body.push_back(st);
  }
  SmTiming t = h100_timing();
  t.store_queue = 2;
  SmCore sm(t);
  std::vector<GlobalAccess> sent;
  sm.connect([&](const GlobalAccess& a) { sent.push_back(a); });
  sm.add_cta(p, 1, 0);
  int id = -1;
  EXPECT_EQ(sm.run(40, id), SmCore::kNever);  // the third store waits
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_TRUE(sent[0].write && sent[1].write);
  EXPECT_EQ(sm.stores_out(), 2u);
  sm.store_acknowledged(100);
  EXPECT_EQ(sm.stores_out(), 1u);
  // The third store issues at the acknowledgement's cycle, and the warp retires with it.
  EXPECT_EQ(sm.run(SmCore::kNever, id), 101u);
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[2].cycle, 100u);
  EXPECT_EQ(sm.stores_out(), 2u);
  sm.store_acknowledged(300);
  sm.store_acknowledged(290);
  EXPECT_EQ(sm.stores_out(), 0u);
  EXPECT_EQ(sm.last_store_acknowledged(), 300u);
  EXPECT_THROW(sm.store_acknowledged(310), std::logic_error);
}

}  // namespace
}  // namespace strata
