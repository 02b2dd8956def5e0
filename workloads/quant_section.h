// The `quant:` section of a workload: the number format of each tensor class, and where the
// workload allows it, per-expert (MoE) or per-degree (GNN) formats.
//
//   quant:
//     weights: mxfp4          # any name parse_quant_spec takes: fp16, fp8_e4m3, int4_g128, nvfp4, ...
//     activations: fp8_e4m3
//     kv_cache: int8
//     accumulate: fp32        # a float element format: fp32, tf32, bf16, fp16
//     experts: [mxfp4, ...]   # MoE: one weight format per routed expert (empty: all use weights)
//     degree_bounds: [4, 16]  # GNN: in-degree bucket bounds; node features of bucket i use
//     degree_formats: [int4, int8, fp16]   #   degree_formats[i] (one more format than bounds)
#pragma once

#include <string>
#include <vector>

#include "sim/number_format.h"
#include "sim/schema.h"

namespace strata {

struct QuantChoice {
  std::string weights, activations, kv_cache, accumulate;  // canonical names
  std::vector<std::string> experts;                        // MoE, may be empty
  std::vector<std::int64_t> degree_bounds;                 // GNN, may be empty
  std::vector<std::string> degree_formats;
};

enum class QuantExtras { None, Experts, Degrees };
const KindSpec& quant_section_spec(QuantExtras extras);
// Checks every format name; InputError names the key (quant.weights, quant.experts[3], ...).
QuantChoice read_quant_section(const ValidatedNode& node);

}  // namespace strata
