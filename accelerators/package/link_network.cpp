#include "accelerators/package/link_network.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace strata {

std::vector<std::string> LinkNetwork::link_names(int devices, PackageTopology topology) {
  std::vector<std::string> names;
  if (devices < 2) return names;
  if (topology == PackageTopology::Ring) {
    for (int d = 0; d < devices; ++d) names.push_back(fmt::format("cw{}", d));
    for (int d = 0; d < devices; ++d) names.push_back(fmt::format("ccw{}", d));
  } else {
    for (int s = 0; s < devices; ++s)
      for (int t = 0; t < devices; ++t)
        if (s != t) names.push_back(fmt::format("d{}_to_d{}", s, t));
  }
  return names;
}

LinkNetwork::LinkNetwork(int devices, PackageTopology topology, std::vector<LinkLane> lanes)
    : devices_(devices), topology_(topology), lanes_(std::move(lanes)), free_(lanes_.size(), 0.0) {
  if (lanes_.size() != link_names(devices, topology).size())
    throw std::logic_error("LinkNetwork: one lane per link of the topology expected");
}

std::vector<int> LinkNetwork::route(int src, int dst, int direction) const {
  if (src < 0 || dst < 0 || src >= devices_ || dst >= devices_)
    throw std::logic_error("LinkNetwork::route: no such device");
  std::vector<int> links;
  if (src == dst) return links;
  if (topology_ == PackageTopology::FullyConnected) {
    links.push_back(src * (devices_ - 1) + (dst < src ? dst : dst - 1));
    return links;
  }
  const int forward = ((dst - src) % devices_ + devices_) % devices_;
  if (direction == 0) direction = forward <= devices_ - forward ? 1 : -1;
  for (int d = src; d != dst; d = ((d + direction) % devices_ + devices_) % devices_)
    links.push_back(direction > 0 ? d : devices_ + d);
  return links;
}

double LinkNetwork::send(const LinkTransfer& t, double ready, std::vector<double>& free, bool count) {
  double head = ready, arrived = ready;  // the head's arrival at the current node, the tail's
  for (int l : route(t.src, t.dst, t.direction)) {
    const LinkLane& lane = lanes_[static_cast<size_t>(l)];
    const double seconds = static_cast<double>(t.bytes) / lane.bandwidth;
    const double start = std::max(head, free[static_cast<size_t>(l)]);
    const double tail_left = std::max(start + seconds, arrived);
    free[static_cast<size_t>(l)] = tail_left;
    if (count && lane.carried) lane.carried(t.bytes, seconds);
    head = start + lane.latency;
    arrived = tail_left + lane.latency;
  }
  return arrived;
}

double LinkNetwork::run(const TransferSteps& steps, double start, bool idle, bool count) {
  std::vector<double> scratch;
  if (idle) scratch.assign(free_.size(), start);
  std::vector<double>& free = idle ? scratch : free_;
  double t = start;
  for (const auto& step : steps) {
    double end = t;
    for (const LinkTransfer& x : step) end = std::max(end, send(x, t, free, count));
    t = end;
  }
  return t;
}

}  // namespace strata
