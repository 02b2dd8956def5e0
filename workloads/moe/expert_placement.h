// Expert placement: which device (GPU, NPU chip, chiplet) holds each expert of an MoE layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace strata {

enum class PlacementPolicy {
  RoundRobin,    // expert e on device e % devices
  Contiguous,    // consecutive blocks; the first E % devices devices hold one expert more
  LoadBalanced,  // greedy on `load`, see place_experts
};

// "round_robin", "contiguous", "load_balanced"; parse returns nullopt for anything else.
const char* to_string(PlacementPolicy p);
std::optional<PlacementPolicy> parse_placement_policy(std::string_view name);

// Device of each expert (size num_experts). LoadBalanced places experts in decreasing load (ties:
// lower expert index first) on the least-loaded device that holds fewer than
// ceil(num_experts / devices) experts (ties: lowest device index); it needs `load` (one
// non-negative entry per expert). The other policies ignore `load`, which must then be empty or
// of size num_experts. Throws std::invalid_argument for num_experts < 1, devices < 1, or a bad
// `load`. With more devices than experts, the last devices hold none.
std::vector<std::int32_t> place_experts(std::int32_t num_experts, std::int32_t devices, PlacementPolicy policy,
                                        const std::vector<std::int64_t>& load = {});

// How an MoE layer's tokens reach its experts: expert capacity and the device of each expert.
struct MoeDispatch {
  double capacity_factor = 0;               // 0: no capacity limit
  std::vector<std::int32_t> expert_device;  // device of each expert (empty: all on device 0)
  std::int32_t devices = 1;
};

// Load of each device (size devices): the sum of `load` over the experts placed on it.
std::vector<std::int64_t> device_load(const std::vector<std::int32_t>& placement, std::int32_t devices,
                                      const std::vector<std::int64_t>& load);

}  // namespace strata
