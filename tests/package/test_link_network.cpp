// The package's links and collectives against their closed forms: on idle single-hop links a
// bidirectional ring all-reduce of S bytes over p devices takes 2(p-1)(a + S/(2pB)), a binary
// tree 2·depth·(a + S/B), an all-to-all a + (S/p)/B on a fully connected package; multi-hop
// transfers pay the latency per hop and the bytes once (cut-through); transfers that share a
// link queue. Tolerance: 1e-12 relative (the same arithmetic).
#include <gtest/gtest.h>

#include "accelerators/package/collectives.h"
#include "accelerators/package/link_network.h"

namespace strata {
namespace {

constexpr double kBandwidth = 50e9, kLatency = 500e-9;

LinkNetwork network(int devices, PackageTopology topology, std::vector<std::uint64_t>* carried = nullptr) {
  std::vector<LinkLane> lanes;
  for (size_t i = 0; i < LinkNetwork::link_names(devices, topology).size(); ++i)
    lanes.push_back({kBandwidth, kLatency, [carried](std::uint64_t bytes, double) {
                       if (carried) carried->push_back(bytes);
                     }});
  return LinkNetwork(devices, topology, std::move(lanes));
}

std::vector<int> members(int p) {
  std::vector<int> m;
  for (int i = 0; i < p; ++i) m.push_back(i);
  return m;
}

TEST(LinkNetwork, RingRoutesTheShorterWayAndTwoDevicesHaveTwoLinksEachWay) {
  const LinkNetwork ring = network(4, PackageTopology::Ring);
  EXPECT_EQ(ring.route(0, 1), (std::vector<int>{0}));         // cw0
  EXPECT_EQ(ring.route(0, 3), (std::vector<int>{4}));         // ccw0
  EXPECT_EQ(ring.route(3, 1), (std::vector<int>{3, 0}));      // cw3, cw0
  EXPECT_EQ(ring.route(1, 3, -1), (std::vector<int>{5, 4}));  // ccw1, ccw0
  EXPECT_EQ(LinkNetwork::link_names(2, PackageTopology::Ring),
            (std::vector<std::string>{"cw0", "cw1", "ccw0", "ccw1"}));
  const LinkNetwork pair = network(2, PackageTopology::Ring);
  EXPECT_NE(pair.route(0, 1, 1), pair.route(0, 1, -1));
  const LinkNetwork full = network(3, PackageTopology::FullyConnected);
  EXPECT_EQ(LinkNetwork::link_names(3, PackageTopology::FullyConnected)[static_cast<size_t>(full.route(2, 1)[0])],
            "d2_to_d1");
  EXPECT_TRUE(LinkNetwork::link_names(1, PackageTopology::Ring).empty());
}

TEST(Collectives, RingAllReduceMatchesItsClosedForm) {
  for (int p : {2, 3, 4, 8}) {
    for (std::uint64_t bytes : {std::uint64_t{4096} * 8, std::uint64_t{1} << 24}) {
      LinkNetwork net = network(p, PackageTopology::Ring);
      const double t =
          net.run(collective_steps(CollectiveKind::AllReduce, CollectiveAlgorithm::Ring, members(p), bytes), 0);
      const double chunk = static_cast<double>((bytes + 2 * p - 1) / (2 * p));
      EXPECT_NEAR(t, 2.0 * (p - 1) * (kLatency + chunk / kBandwidth), 1e-12 * t) << p << " devices, " << bytes << " B";
    }
  }
}

TEST(Collectives, TreeAllReduceAndAllToAllOnAFullyConnectedPackage) {
  const std::uint64_t bytes = 1 << 20;
  for (int p : {2, 4, 7}) {
    LinkNetwork net = network(p, PackageTopology::FullyConnected);
    const double tree =
        net.run(collective_steps(CollectiveKind::AllReduce, CollectiveAlgorithm::Tree, members(p), bytes), 0, true);
    int depth = 0;
    for (int n = 1; n < p; n = 2 * n + 1) ++depth;  // levels below the root of a complete binary tree
    EXPECT_NEAR(tree, 2.0 * depth * (kLatency + bytes / kBandwidth), 1e-12 * tree) << p;
    const double a2a =
        net.run(collective_steps(CollectiveKind::AllToAll, CollectiveAlgorithm::Ring, members(p), bytes), 0, true);
    EXPECT_NEAR(a2a, kLatency + static_cast<double>((bytes + p - 1) / p) / kBandwidth, 1e-12 * a2a) << p;
  }
}

TEST(Collectives, TreeBeatsRingForSmallMessagesOverManyDevices) {
  LinkNetwork net = network(16, PackageTopology::FullyConnected);
  const auto m = members(16);
  const double ring = net.run(collective_steps(CollectiveKind::AllReduce, CollectiveAlgorithm::Ring, m, 1024), 0, true);
  const double tree = net.run(collective_steps(CollectiveKind::AllReduce, CollectiveAlgorithm::Tree, m, 1024), 0, true);
  EXPECT_LT(tree, ring);  // 8 latencies against 30
  const std::uint64_t big = std::uint64_t{1} << 30;
  EXPECT_GT(net.run(collective_steps(CollectiveKind::AllReduce, CollectiveAlgorithm::Tree, m, big), 0, true),
            net.run(collective_steps(CollectiveKind::AllReduce, CollectiveAlgorithm::Ring, m, big), 0, true));
}

TEST(LinkNetwork, MultiHopIsCutThroughAndSharedLinksQueue) {
  std::vector<std::uint64_t> carried;
  LinkNetwork net = network(4, PackageTopology::Ring, &carried);
  const std::uint64_t bytes = 1 << 20;
  const double hop2 = net.run({{{0, 2, bytes, 1}}}, 0);
  EXPECT_NEAR(hop2, 2 * kLatency + bytes / kBandwidth, 1e-15);
  EXPECT_EQ(carried, (std::vector<std::uint64_t>{bytes, bytes}));  // once per link
  // Two transfers on cw0 in one step: the second waits for the first.
  LinkNetwork busy = network(4, PackageTopology::Ring);
  const double both = busy.run({{{0, 1, bytes, 1}, {0, 1, bytes, 1}}}, 0);
  EXPECT_NEAR(both, kLatency + 2 * bytes / kBandwidth, 1e-15);
  // Reservations persist between runs unless timed idle.
  EXPECT_NEAR(busy.run({{{0, 1, bytes, 1}}}, 0), kLatency + 3 * bytes / kBandwidth, 1e-15);
  EXPECT_NEAR(busy.run({{{0, 1, bytes, 1}}}, 0, true), kLatency + bytes / kBandwidth, 1e-15);
}

TEST(Collectives, OneMemberMovesNothing) {
  EXPECT_TRUE(collective_steps(CollectiveKind::AllReduce, CollectiveAlgorithm::Ring, {3}, 1024).empty());
  EXPECT_EQ(collective_steps(CollectiveKind::SendRecv, CollectiveAlgorithm::Ring, {1, 2}, 64).size(), 1u);
}

}  // namespace
}  // namespace strata
