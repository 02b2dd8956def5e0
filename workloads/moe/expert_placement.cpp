#include "workloads/moe/expert_placement.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace strata {

const char* to_string(PlacementPolicy p) {
  switch (p) {
    case PlacementPolicy::RoundRobin: return "round_robin";
    case PlacementPolicy::Contiguous: return "contiguous";
    case PlacementPolicy::LoadBalanced: return "load_balanced";
  }
  return "?";
}

std::optional<PlacementPolicy> parse_placement_policy(std::string_view name) {
  if (name == "round_robin") return PlacementPolicy::RoundRobin;
  if (name == "contiguous") return PlacementPolicy::Contiguous;
  if (name == "load_balanced") return PlacementPolicy::LoadBalanced;
  return std::nullopt;
}

std::vector<std::int32_t> place_experts(std::int32_t num_experts, std::int32_t devices, PlacementPolicy policy,
                                        const std::vector<std::int64_t>& load) {
  if (num_experts < 1) throw std::invalid_argument(fmt::format("num_experts must be at least 1, got {}", num_experts));
  if (devices < 1) throw std::invalid_argument(fmt::format("devices must be at least 1, got {}", devices));
  const auto n = static_cast<size_t>(num_experts);
  if (policy == PlacementPolicy::LoadBalanced && load.empty())
    throw std::invalid_argument("load_balanced placement needs the load of every expert");
  if (!load.empty() && load.size() != n)
    throw std::invalid_argument(fmt::format("load has {} entries for {} experts", load.size(), num_experts));
  for (size_t e = 0; e < load.size(); ++e)
    if (load[e] < 0) throw std::invalid_argument(fmt::format("load of expert {} is negative ({})", e, load[e]));

  std::vector<std::int32_t> device(n);
  switch (policy) {
    case PlacementPolicy::RoundRobin:
      for (std::int32_t e = 0; e < num_experts; ++e) device[e] = e % devices;
      break;
    case PlacementPolicy::Contiguous: {
      // Device d holds base (+1 for the first `extra` devices) consecutive experts.
      const std::int32_t base = num_experts / devices, extra = num_experts % devices;
      std::int32_t e = 0;
      for (std::int32_t d = 0; d < devices && e < num_experts; ++d)
        for (std::int32_t i = 0; i < base + (d < extra ? 1 : 0); ++i) device[e++] = d;
      break;
    }
    case PlacementPolicy::LoadBalanced: {
      std::vector<std::int32_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return load[a] > load[b]; });
      const std::int32_t cap = (num_experts + devices - 1) / devices;
      std::vector<std::int64_t> sum(static_cast<size_t>(devices), 0);
      std::vector<std::int32_t> count(static_cast<size_t>(devices), 0);
      for (std::int32_t e : order) {
        std::int32_t best = -1;
        for (std::int32_t d = 0; d < devices; ++d)
          if (count[d] < cap && (best < 0 || sum[d] < sum[best])) best = d;
        device[e] = best;  // cap * devices >= num_experts, so some device has room
        sum[best] += load[e];
        ++count[best];
      }
      break;
    }
  }
  return device;
}

std::vector<std::int64_t> device_load(const std::vector<std::int32_t>& placement, std::int32_t devices,
                                      const std::vector<std::int64_t>& load) {
  if (devices < 1) throw std::invalid_argument(fmt::format("devices must be at least 1, got {}", devices));
  if (load.size() != placement.size())
    throw std::invalid_argument(fmt::format("load has {} entries for {} experts", load.size(), placement.size()));
  std::vector<std::int64_t> out(static_cast<size_t>(devices), 0);
  for (size_t e = 0; e < placement.size(); ++e) {
    if (placement[e] < 0 || placement[e] >= devices)
      throw std::invalid_argument(fmt::format("expert {} is on device {}, outside 0..{}", e, placement[e], devices - 1));
    out[static_cast<size_t>(placement[e])] += load[e];
  }
  return out;
}

}  // namespace strata
