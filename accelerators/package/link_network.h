// The links between the devices of a package and the transfers they carry, in seconds (no
// SystemC: both fidelities and the tests use it).
//
// Topologies:
//   ring             every device has two ports, clockwise to the next device and
//                    counter-clockwise to the one before, each a link per direction (with two
//                    devices both ports join the same pair: two links each way, as TPUv4i's
//                    two ICI ports do)
//   fully_connected  one link per ordered pair of devices
// A transfer follows its route link by link, cut-through: it starts on a link when its head has
// arrived (the link's latency after it started on the previous one) and the link is free, holds
// the link for bytes / bandwidth, and ends when its last byte reaches the destination.
// Transfers reserve links in the order they are run, so transfers that share a link queue.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace strata {

enum class PackageTopology { Ring, FullyConnected };

struct LinkLane {
  double bandwidth = 1;  // B/s
  double latency = 0;    // s
  // Told of every transfer the link carried: bytes and the seconds it held the link.
  std::function<void(std::uint64_t bytes, double seconds)> carried;
};

struct LinkTransfer {
  int src = 0, dst = 0;
  std::uint64_t bytes = 0;
  int direction = 0;  // ring: +1 clockwise, -1 counter-clockwise, 0 the shorter way
};

// A collective as steps: every transfer of a step starts when the step before has arrived.
using TransferSteps = std::vector<std::vector<LinkTransfer>>;

class LinkNetwork {
 public:
  // Links of a topology and their names ("cw0": device 0 clockwise to 1, "ccw0": 0 to the one
  // before; "d0_to_d1" fully connected), in index order.
  static std::vector<std::string> link_names(int devices, PackageTopology topology);

  LinkNetwork(int devices, PackageTopology topology, std::vector<LinkLane> lanes);

  int devices() const { return devices_; }
  // Link indices from src to dst.
  std::vector<int> route(int src, int dst, int direction = 0) const;

  // Runs the steps from `start` (s) and returns when the last byte arrived. `idle`: on links
  // free from `start` on, without touching their reservations (a collective timed alone, as
  // the analytic fidelity does); `count`: report the bytes to the links.
  double run(const TransferSteps& steps, double start, bool idle = false, bool count = true);

 private:
  double send(const LinkTransfer& t, double ready, std::vector<double>& free, bool count);
  int devices_;
  PackageTopology topology_;
  std::vector<LinkLane> lanes_;
  std::vector<double> free_;  // when each link is next free (s)
};

}  // namespace strata
