// The PIM mapper: lowers an operator graph onto a PIM DRAM and its host. Operators of the
// classes the design offloads (`offload`: gemv, attention, elementwise) become PIM kernels
// (memory/pim/pim_kernels.h places their weights or KV cache for row locality); everything else,
// and what PIM cannot run, goes to the host (the ASIC of PIM-GPT, the GPU of AttAcc), timed as a
// roofline with the transfers between the two.
//
//   Gemv, and Gemm with m <= max_gemv_batch rows   -> m GEMV kernels over the weights (each
//                                                     token rereads them: PIM has no reuse),
//                                                     unless the host would be faster
//   Attention with q_len = 1 (decode)              -> Q.K^T as one GEMV over every query head's K
//                                                     cache (batch x heads x kv_len outputs of
//                                                     head_dim inputs; a unit's outputs belong to
//                                                     one head, whose query is its input), softmax
//                                                     on the host, S.V the same over V^T (batch x
//                                                     heads x head_dim outputs of kv_len inputs)
//   Add, Mul, Relu                                 -> element-wise kernels, unless the host
//                                                     would be faster
//   anything else                                  -> host
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "memory/pim/pim_kernels.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

struct PimStep {
  enum class Kind { Gemv, Elementwise, Host };
  Kind kind = Kind::Host;
  std::int64_t outputs = 0, inputs = 0;  // Gemv
  std::int64_t elements = 0;             // Elementwise
  PimElementwise op = PimElementwise::Add;
  std::int64_t repeats = 1;  // PIM kernels run this many times (tokens of a GEMM)
  double flops = 0;          // Host: arithmetic
  double host_bytes = 0;     // Host: bytes through the host's own memory
  double link_bytes = 0;     // bytes crossing between host and PIM before the step
};

struct PimTask {
  OpId op = -1;
  std::string name;
  bool on_pim = false;  // any of its steps runs in the PIM
  double flops = 0;     // the operator's (OpGraph conventions)
  std::vector<PimStep> steps;
};

struct PimMapping {
  std::set<std::string> offload;  // "gemv", "attention", "elementwise"
  std::int64_t max_gemv_batch = 1;
  // Where a Gemm of several rows or an element-wise operator could run either way: whether the
  // PIM step beats the host step (the design's estimates); unset, the PIM takes it.
  std::function<bool(const PimStep& pim, const PimStep& host)> prefer_pim;
  bool host_on_dram_bus = true;  // the host reaches the PIM over the DRAM interface (no separate link)
};

std::vector<PimTask> map_graph_to_pim(const OpGraph& graph, const PimMapping& mapping);

}  // namespace strata
