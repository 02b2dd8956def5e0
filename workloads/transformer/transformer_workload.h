// Workload kinds of transformer inference:
//   transformer  prefill and/or decode steps of a whole model (dense or MoE);
//   moe_layer    one MoE feed-forward block over a batch of tokens.
// Keys are documented in spec(); the model, quant and routing sections in their own specs.
#pragma once

#include <optional>
#include <vector>

#include "workloads/graph_workload.h"
#include "workloads/moe/routing_section.h"
#include "workloads/quant_section.h"
#include "workloads/transformer/transformer_model.h"

namespace strata {

class TransformerWorkload : public GraphWorkload {
 public:
  static KindSpec spec();
  TransformerWorkload(const ValidatedNode& cfg, SimContext& ctx);

 protected:
  OpGraph build() const override;
  nlohmann::ordered_json details() const override;

 private:
  TransformerModel model_;
  QuantChoice quant_;
  std::optional<MoeRouting> routing_;  // MoE models
};

class MoeLayerWorkload : public GraphWorkload {
 public:
  static KindSpec spec();
  MoeLayerWorkload(const ValidatedNode& cfg, SimContext& ctx);

 protected:
  OpGraph build() const override;
  nlohmann::ordered_json details() const override;

 private:
  TransformerModel model_;
  QuantChoice quant_;
  LayerRouting routing_;  // before the capacity limit
  MoeDispatch dispatch_;
};

}  // namespace strata
