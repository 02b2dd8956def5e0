// MoE routing traces in JSON Lines, one line per (layer, token):
//
//   {"layer": 0, "token_idx": 5, "experts": [3, 7], "gating_probs": [0.6, 0.4]}
//
// Lines that are blank or start with '#' (after spaces) are skipped; other keys on a line are
// ignored. Lines may come in any order. experts are distinct ids in [0, num_experts), in the
// order the trace gives them (write_routing_trace writes them in decreasing gate order);
// gating_probs has one probability in [0, 1] per expert, summing to at most 1 (+1e-3 for
// rounding; top-k probabilities of a softmax over all experts sum to less than 1). Every layer
// from 0 to the largest given must hold every token from 0 to the largest token_idx given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/moe/routing.h"

namespace strata {

// Reads a whole routing trace. top_k > 0 requires exactly top_k experts per line; top_k == 0
// accepts any number (0 included: a token whose every assignment was dropped). Throws
// InputError naming the file, line and key: not JSON or not an object, a missing or mistyped
// key, a negative layer/token_idx, an expert out of range, duplicate experts, gating_probs of a
// different length than experts or out of range, a (layer, token) given twice, a layer or token
// missing below the largest one given, an empty trace, or a file that cannot be opened.
// num_experts < 1 or top_k outside [0, num_experts] throws std::invalid_argument.
std::vector<LayerRouting> read_routing_trace(const std::string& path, std::int32_t num_experts,
                                             std::int32_t top_k /* 0: any k */);

// Writes `layers` in the format above, layer by layer and token by token, after a '#' header
// line; gates are written in their shortest round-trip form, so read_routing_trace gives back
// exactly `layers`. Throws InputError if the file cannot be written.
void write_routing_trace(const std::vector<LayerRouting>& layers, const std::string& path);

}  // namespace strata
