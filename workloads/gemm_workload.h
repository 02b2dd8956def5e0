// Workload kind `gemm`: one matrix product C[m,n] = A[m,k] · B[n,k]ᵀ (B stored [n,k], as a
// Linear layer's weights), or `batch` independent ones, as an operator graph of one operator,
// so any design with a graph mapper runs it (the GPU, the NPU).
//
//   m, n, k, batch   the shape (batch > 1: a batched GEMM, A and B both per batch)
//   quant:           activations: the format of A (and of C); weights: of B; accumulate: of the
//                    products' sums (quant_section.h)
// A is an activation tensor, B a weight tensor (batch 1) or activations (batch > 1), C an
// activation tensor in the activations' format.
#pragma once

#include "workloads/graph_workload.h"
#include "workloads/quant_section.h"

namespace strata {

class GemmWorkload : public GraphWorkload {
 public:
  static KindSpec spec();
  GemmWorkload(const ValidatedNode& cfg, SimContext& ctx);

 protected:
  OpGraph build() const override;

 private:
  QuantChoice quant_;
};

}  // namespace strata
