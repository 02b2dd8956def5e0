#include "accelerators/package/collectives.h"

#include <algorithm>
#include <stdexcept>

namespace strata {

const char* collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::AllToAll: return "all_to_all";
    case CollectiveKind::SendRecv: return "send_recv";
  }
  return "?";
}

const char* collective_algorithm_name(CollectiveAlgorithm a) {
  return a == CollectiveAlgorithm::Ring ? "ring" : "tree";
}

namespace {

std::uint64_t share(std::uint64_t bytes, std::uint64_t parts) { return (bytes + parts - 1) / parts; }

TransferSteps ring_all_reduce(const std::vector<int>& m, std::uint64_t bytes) {
  const auto p = m.size();
  const std::uint64_t chunk = share(bytes, 2 * p);
  TransferSteps steps(2 * (p - 1));
  for (auto& step : steps)
    for (size_t i = 0; i < p; ++i) {
      step.push_back({m[i], m[(i + 1) % p], chunk, 1});
      step.push_back({m[i], m[(i + p - 1) % p], chunk, -1});
    }
  return steps;
}

TransferSteps tree_all_reduce(const std::vector<int>& m, std::uint64_t bytes) {
  std::vector<int> depth(m.size(), 0);
  int levels = 0;
  for (size_t i = 1; i < m.size(); ++i) {
    depth[i] = depth[(i - 1) / 2] + 1;
    levels = std::max(levels, depth[i]);
  }
  TransferSteps steps;
  for (int level = levels; level >= 1; --level) {  // reduce toward member 0
    steps.emplace_back();
    for (size_t i = 1; i < m.size(); ++i)
      if (depth[i] == level) steps.back().push_back({m[i], m[(i - 1) / 2], bytes, 0});
  }
  for (int level = 1; level <= levels; ++level) {  // broadcast the sum back
    steps.emplace_back();
    for (size_t i = 1; i < m.size(); ++i)
      if (depth[i] == level) steps.back().push_back({m[(i - 1) / 2], m[i], bytes, 0});
  }
  return steps;
}

}  // namespace

TransferSteps collective_steps(CollectiveKind kind, CollectiveAlgorithm algorithm, const std::vector<int>& members,
                               std::uint64_t bytes) {
  if (members.size() < 2) return {};
  switch (kind) {
    case CollectiveKind::AllReduce:
      return algorithm == CollectiveAlgorithm::Ring ? ring_all_reduce(members, bytes) : tree_all_reduce(members, bytes);
    case CollectiveKind::AllToAll: {
      TransferSteps steps(1);
      const std::uint64_t part = share(bytes, members.size());
      for (int s : members)
        for (int d : members)
          if (s != d) steps[0].push_back({s, d, part, 0});
      return steps;
    }
    case CollectiveKind::SendRecv:
      if (members.size() != 2) throw std::logic_error("send_recv: two members expected");
      return {{{members[0], members[1], bytes, 0}}};
  }
  throw std::logic_error("collective_steps: unknown kind");
}

}  // namespace strata
