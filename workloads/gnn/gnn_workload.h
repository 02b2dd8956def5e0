// Workload kind `gnn`: graph-neural-network layers on a real or synthetic graph, each layer an
// aggregation (SpMM over the normalized adjacency) and a combination (GEMM with the layer's
// weights), in the order chosen per layer:
//   combine_first    A·(X·W)  — usually far cheaper when the layer narrows the features
//   aggregate_first  (A·X)·W
//   auto             whichever needs fewer FLOPs
// Models: gcn (Â = D^-1/2 (A+I) D^-1/2), sage (mean aggregation plus a self path, two weight
// matrices), gin (sum over A+I, then a two-layer MLP). A sparse layer input (feature density
// below 1) enters the combination as the sparse operand of an SpMM. Node features may use
// per-node formats by in-degree bucket (quant.degree_bounds / degree_formats).
#pragma once

#include "workloads/graph/csr_graph.h"
#include "workloads/graph_workload.h"
#include "workloads/quant_section.h"

namespace strata {

class GnnWorkload : public GraphWorkload {
 public:
  static KindSpec spec();
  GnnWorkload(const ValidatedNode& cfg, SimContext& ctx);

 protected:
  OpGraph build() const override;
  nlohmann::ordered_json details() const override;

 private:
  struct Layer {
    std::int64_t in = 0, out = 0;
    double density = 1;          // of the layer's input X
    std::int64_t input_nnz = 0;  // nonzeros of X when sparse
    bool combine_first = true;
  };
  double layer_flops(const Layer& l, bool combine_first) const;

  CsrGraph graph_;
  std::optional<FeatureStats> features_;
  std::string model_;
  std::vector<Layer> layers_;
  std::int64_t adjacency_nnz_ = 0;
  bool self_loops_ = false;  // the adjacency is A + I (gcn with self_loops, gin)
  QuantChoice quant_;
};

}  // namespace strata
