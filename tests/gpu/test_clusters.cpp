// Thread-block clusters and distributed shared memory: the GPC layout of the presets, the
// clusters that co-reside (cudaOccupancyMaxActiveClusters) and the waves they take, worked by
// hand; where the GPU places a cluster (one GPC, distinct SMs); and the SM's remote
// shared-memory path (latency and the SM-to-SM port's bandwidth).
#include <gtest/gtest.h>

#include <set>

#include "accelerators/gpu/occupancy.h"
#include "accelerators/gpu/sm_core.h"

namespace strata {
namespace {

const std::vector<int> kClusterTestH100Gpcs = {18, 18, 16, 16, 16, 16, 16, 16};

TEST(GpuClusters, GpcsSpreadWholeTpcs) {
  EXPECT_EQ(gpc_sizes(132, 8), kClusterTestH100Gpcs);                            // H100 SXM: 66 TPCs
  EXPECT_EQ(gpc_sizes(108, 7), (std::vector<int>{16, 16, 16, 16, 16, 14, 14}));  // A100: 54 TPCs
  EXPECT_EQ(gpc_sizes(84, 7), std::vector<int>(7, 12));                          // RTX A6000
  EXPECT_EQ(gpc_sizes(5, 2), (std::vector<int>{2, 3}));                          // an odd SM goes last
  EXPECT_EQ(gpc_sizes(3, 3), (std::vector<int>{1, 1, 1}));                       // single SMs
  EXPECT_THROW(gpc_sizes(4, 5), std::invalid_argument);
}

TEST(GpuClusters, MaxActiveClustersAndWavesByHand) {
  // 256 threads, 32 registers, no shared memory: 8 CTAs an SM (warps). Clusters of 8: a GPC of
  // n SMs holds n x 8 / 8 = n, so 132 in all.
  const Occupancy eight = occupancy(SmLimits{}, 256, 32, 0);
  ASSERT_EQ(eight.ctas_per_sm, 8);
  EXPECT_EQ(max_active_clusters(kClusterTestH100Gpcs, eight.ctas_per_sm, 8), 132u);
  // 100 KiB of shared memory: 2 CTAs an SM. Clusters of 8: floor(36 / 8) = 4 in an 18-SM GPC,
  // 32 / 8 = 4 in a 16-SM one: 32. Of 16 (non-portable): 2 and 2: 16. Of 3: 12 and 10: 84.
  const Occupancy two = occupancy(SmLimits{}, 32, 32, 100 * 1024);
  ASSERT_EQ(two.ctas_per_sm, 2);
  EXPECT_EQ(max_active_clusters(kClusterTestH100Gpcs, 2, 8), 32u);
  EXPECT_EQ(max_active_clusters(kClusterTestH100Gpcs, 2, 16), 16u);
  EXPECT_EQ(max_active_clusters(kClusterTestH100Gpcs, 2, 3), 84u);
  // One CTA an SM, clusters of 3: floor(18 / 3) = 6 twice and floor(16 / 3) = 5 six times: 42;
  // 100 clusters take 3 waves of 42.
  EXPECT_EQ(max_active_clusters(kClusterTestH100Gpcs, 1, 3), 42u);
  EXPECT_EQ(cluster_waves(100, 42), 3u);
  EXPECT_EQ(cluster_waves(84, 42), 2u);
  // A cluster needs distinct SMs of one GPC: 16 fits no 12-SM GPC of the RTX A6000.
  EXPECT_EQ(max_active_clusters(gpc_sizes(84, 7), 16, 16), 0u);
}

TEST(GpuClusters, EachClusterLandsOnDistinctSmsOfOneGpc) {
  ClusterPlacer placer(kClusterTestH100Gpcs, 2);
  std::vector<int> sms;
  // The GPC with the most free slots first: the first cluster on GPC 0's first SMs, the next
  // on GPC 1 (36 free against GPC 0's 33).
  ASSERT_TRUE(placer.place(3, sms));
  EXPECT_EQ(sms, (std::vector<int>{0, 1, 2}));
  ASSERT_TRUE(placer.place(3, sms));
  EXPECT_EQ(sms, (std::vector<int>{18, 19, 20}));
  int placed = 2;
  while (placer.place(3, sms)) {
    ++placed;
    ASSERT_EQ(sms.size(), 3u);
    EXPECT_EQ(std::set<int>(sms.begin(), sms.end()).size(), 3u) << "distinct SMs";
    for (int s : sms) EXPECT_EQ(placer.gpc_of(s), placer.gpc_of(sms[0])) << "one GPC";
  }
  EXPECT_EQ(static_cast<std::uint64_t>(placed), max_active_clusters(kClusterTestH100Gpcs, 2, 3));
  // Freed slots on two full GPCs (18 SMs hold 12 clusters of 3 exactly) do not make a cluster;
  // three SMs of one GPC do. (The 16-SM GPCs keep one slot free on each of two SMs.)
  placer.release(0);
  placer.release(1);
  placer.release(20);
  EXPECT_FALSE(placer.place(3, sms));
  placer.release(2);
  ASSERT_TRUE(placer.place(3, sms));
  EXPECT_EQ(sms, (std::vector<int>{0, 1, 2}));
}

WarpInstruction dsm_test_access(WarpOp op, std::uint8_t dst, std::uint8_t src, int lane_stride) {
  WarpInstruction in;
  in.op = op;
  in.dst[0] = dst;
  in.src[0] = src;
  in.lane_stride = lane_stride;
  return in;
}

std::uint64_t dsm_test_run(const SmTiming& t, const WarpProgram& p, int cluster) {
  SmCore sm(t);
  sm.add_cta(p, 1, 0, 0, cluster);
  int id = -1;
  return sm.run(SmCore::kNever, id);
}

TEST(GpuClusters, RemoteSharedLoadsTakeTheDsmLatency) {
  SmTiming t;
  t.dsm_latency = 194;
  t.shared_latency = 30;
  WarpProgram chase;
  chase.body = {dsm_test_access(WarpOp::LdsCluster, 0, 0, 0)};  // every lane follows one pointer
  chase.iterations = 100;
  EXPECT_EQ(dsm_test_run(t, chase, 2), 100u * 194);  // into the other CTA of a pair
  EXPECT_EQ(dsm_test_run(t, chase, 1), 100u * 30);   // a cluster of one: its own shared memory
  chase.body[0].cluster_peer = 0;
  EXPECT_EQ(dsm_test_run(t, chase, 2), 100u * 30);  // rank offset 0: its own
  chase.body[0].cluster_peer = 2;
  EXPECT_EQ(dsm_test_run(t, chase, 2), 100u * 30);  // wraps to its own rank
}

TEST(GpuClusters, TheSmToSmPortBoundsRemoteBandwidth) {
  // Posted remote stores of 32 distinct words (128 B) issue every cycle, but the 32 B a cycle
  // port moves one every 4 cycles: 256 of them are done at cycle 1024.
  SmTiming t;
  t.dsm_bytes_per_cycle = 32;
  WarpProgram stores;
  stores.body = {dsm_test_access(WarpOp::StsCluster, kNoReg, kNoReg, 4)};
  stores.iterations = 256;
  EXPECT_EQ(dsm_test_run(t, stores, 2), 1024u);
  t.dsm_bytes_per_cycle = 64;
  EXPECT_EQ(dsm_test_run(t, stores, 2), 512u);
}

TEST(GpuClusters, ClusterBarrierPhasesCountWarpsThatHaveNotExited) {
  ClusterBarrier b{3, 0, {}};
  b.arrive(0);
  b.arrive(0);
  b.arrive(1);  // one warp runs ahead to the next phase's arrive
  EXPECT_FALSE(b.advance());
  b.exit(0);  // the third warp exits without arriving: phase 0 is complete
  EXPECT_TRUE(b.advance());
  EXPECT_EQ(b.phase, 1u);
  b.exit(2);  // the warp that arrived early exits: its arrive no longer counts
  b.arrive(1);
  EXPECT_TRUE(b.advance());
  EXPECT_EQ(b.phase, 2u);
}

TEST(GpuClusters, ClusterBarrierHoldsWarpsOnAnotherSm) {
  // Two SMs in step, a pair's barrier kept as the GPU keeps it: SM a's warp arrives and waits
  // at once; SM b's arrives after a chain of 100 FFMAs (issued at 0, 4, ..., 396, the arrive
  // at 397). The phase completes dsm_latency after that: both waits issue at 397 + 194 = 591.
  SmTiming t;
  t.dsm_latency = 194;
  SmCore a(t, 0), b(t, 1);
  ClusterBarrier bar{2, 0, {}};
  const auto on_arrive = [&](std::uint64_t, std::uint32_t phase, std::uint64_t cycle) {
    bar.arrive(phase);
    if (bar.advance())
      for (SmCore* sm : {&a, &b}) sm->cluster_release(7, bar.phase, cycle + 194);
  };
  const auto on_exit = [&](std::uint64_t, std::uint32_t arrivals, std::uint64_t cycle) {
    bar.exit(arrivals);
    if (bar.advance())
      for (SmCore* sm : {&a, &b}) sm->cluster_release(7, bar.phase, cycle + 194);
  };
  a.connect_clusters(on_arrive, on_exit);
  b.connect_clusters(on_arrive, on_exit);
  WarpInstruction arrive_op, wait_op, fma;
  arrive_op.op = WarpOp::BarClusterArrive;
  wait_op.op = WarpOp::BarClusterWait;
  fma.op = WarpOp::Fp32;
  fma.dst[0] = 0;
  fma.src[0] = 0;
  WarpProgram pa, pb;
  pa.body = {arrive_op, wait_op, fma};
  pb.prologue.assign(100, fma);
  pb.body = {arrive_op, wait_op};
  a.add_cta(pa, 1, 0, 0, 2, 7);
  b.add_cta(pb, 1, 0, 0, 2, 7);
  std::uint64_t end_a = 0, end_b = 0;
  int id = -1;
  for (std::uint64_t cycle = 1; cycle < 2000 && !(end_a && end_b); ++cycle) {
    for (std::uint64_t c; (c = a.run(cycle, id)) != SmCore::kNever;) end_a = c;
    for (std::uint64_t c; (c = b.run(cycle, id)) != SmCore::kNever;) end_b = c;
  }
  EXPECT_EQ(end_a, 591u + 1 + 4);  // the wait at 591, the FFMA at 592, its result at 596
  EXPECT_EQ(end_b, 592u);          // the wait at 591 is its last instruction
  // Without the GPU's barrier, a CTA's own warps make its cluster's: the arrive completes the
  // phase at once, and the wait goes on dsm_latency later.
  SmCore alone(t);
  alone.add_cta(pa, 1, 0, 0, 2, 7);
  EXPECT_EQ(alone.run(SmCore::kNever, id), 194u + 1 + 4);
}

}  // namespace
}  // namespace strata
