// The `routing:` section of MoE workloads: where expert choices come from (a seeded generator
// or a JSON Lines routing trace), expert capacity, and expert placement over devices.
// Keys are documented once, in routing_section_spec().
#pragma once

#include <string>
#include <vector>

#include "sim/schema.h"
#include "workloads/moe/expert_placement.h"
#include "workloads/moe/routing.h"

namespace strata {

const KindSpec& routing_section_spec();

class MoeRouting {
 public:
  // Checks the section against a model of `experts` experts, `top_k` per token; InputError
  // names the key.
  MoeRouting(const ValidatedNode& node, std::int32_t experts, std::int32_t top_k, std::uint64_t seed);

  // Routing of `moe_layers` MoE layers over `tokens` tokens (in sequence-major order: a
  // sequence's consecutive tokens are adjacent, so token persistence acts along a sequence).
  // From a trace, trace layer first_layer + i routes MoE layer i.
  std::vector<LayerRouting> route(std::int32_t moe_layers, std::int64_t tokens, std::int32_t first_layer = 0) const;
  // Capacity and device placement, with load-balanced placement over `load`.
  MoeDispatch dispatch(const std::vector<std::int64_t>& load) const;

 private:
  const ValidatedNode& node_;
  std::int32_t experts_, top_k_;
  RoutingGeneratorConfig gen_;
  std::string trace_;
};

}  // namespace strata
