// Occupancy and waves against the CUDA occupancy rules (cuda_occupancy.h), worked by hand for
// each case below: registers per warp rounded up to 256 and allocated per sub-core, shared
// memory per CTA plus 1 KiB reserved, rounded up to 128 B.
#include <gtest/gtest.h>

#include "accelerators/gpu/occupancy.h"

namespace strata {
namespace {

SmLimits h100_limits() {
  SmLimits l;  // the defaults are compute capability 9.0's
  return l;
}

TEST(GpuOccupancy, WarpLimitedKernel) {
  // 256 threads = 8 warps: 64 / 8 = 8 CTAs by warps; 32 registers x 32 = 1024 per warp, 16 warps
  // per sub-core: 64 warps, 8 CTAs; shared 1 KiB (reserved) a CTA: 228.
  const Occupancy o = occupancy(h100_limits(), 256, 32, 0);
  EXPECT_EQ(o.ctas_per_sm, 8);
  EXPECT_EQ(o.by_warps, 8);
  EXPECT_EQ(o.by_registers, 8);
  EXPECT_EQ(o.by_shared, 228);
  EXPECT_EQ(o.limiter, "warps");
  EXPECT_EQ(o.warps_per_sm(), 64);
}

TEST(GpuOccupancy, SharedMemoryLimitedKernel) {
  // 48 KiB + 1 KiB reserved = 50,176 B a CTA: 233,472 / 50,176 = 4.65, so 4.
  const Occupancy o = occupancy(h100_limits(), 128, 64, 48 * 1024);
  EXPECT_EQ(o.by_shared, 4);
  EXPECT_EQ(o.by_registers, 8);  // 2048 registers a warp: 8 per sub-core, 32 warps, 4 warps a CTA
  EXPECT_EQ(o.ctas_per_sm, 4);
  EXPECT_EQ(o.limiter, "shared_memory");
  // 56 KiB + 1 KiB is 58,368 B: exactly 4 a SM; 100 B more rounds up to 58,496 B: 3.
  EXPECT_EQ(occupancy(h100_limits(), 128, 64, 56 * 1024).by_shared, 4);
  EXPECT_EQ(occupancy(h100_limits(), 128, 64, 56 * 1024 + 100).by_shared, 3);
}

TEST(GpuOccupancy, RegistersAreAllocatedPerSubCore) {
  // 192 registers a thread: 6144 a warp. A sub-core's 16,384 hold 2 such warps, so the SM holds
  // 8, not the 10 that 65,536 / 6144 would give; 2 warps a CTA: 4 CTAs.
  const Occupancy o = occupancy(h100_limits(), 64, 192, 0);
  EXPECT_EQ(o.by_registers, 4);
  EXPECT_EQ(o.ctas_per_sm, 4);
  EXPECT_EQ(o.limiter, "registers");
  // Registers round up to 256 a warp: 33 a thread take 1280 a warp (12 per sub-core).
  EXPECT_EQ(occupancy(h100_limits(), 32, 33, 0).by_registers, 48);
}

TEST(GpuOccupancy, CtaSlotsOnTheRtxA6000) {
  SmLimits a6000;
  a6000.max_warps = 48;
  a6000.max_ctas = 16;
  a6000.shared_bytes = 100 * 1024;
  a6000.max_shared_per_cta = 99 * 1024;
  const Occupancy o = occupancy(a6000, 32, 16, 0);
  EXPECT_EQ(o.ctas_per_sm, 16);
  EXPECT_EQ(o.limiter, "ctas");
  EXPECT_EQ(occupancy(a6000, 1024, 32, 0).ctas_per_sm, 1);  // 32 warps of 48
}

TEST(GpuOccupancy, KernelsThatCannotLaunch) {
  EXPECT_THROW(occupancy(h100_limits(), 2048, 32, 0), std::invalid_argument);          // threads
  EXPECT_THROW(occupancy(h100_limits(), 128, 256, 0), std::invalid_argument);          // registers a thread
  EXPECT_THROW(occupancy(h100_limits(), 1024, 128, 0), std::invalid_argument);         // 4096 a warp x 32 warps
  EXPECT_THROW(occupancy(h100_limits(), 128, 32, 300 * 1024), std::invalid_argument);  // shared memory
}

TEST(GpuOccupancy, Waves) {
  const Occupancy o = occupancy(h100_limits(), 256, 32, 0);  // 8 CTAs an SM
  EXPECT_EQ(waves(1056, o, 132), 1u);
  EXPECT_EQ(waves(1057, o, 132), 2u);
  EXPECT_EQ(waves(1, o, 132), 1u);
}

}  // namespace
}  // namespace strata
