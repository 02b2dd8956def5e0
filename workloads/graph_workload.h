// Base of the workload kinds that are operator graphs (transformer, moe_layer, gnn, op_trace).
// They build their OpGraph on demand, deterministically from the config and seed, and answer
// `strata workload info` and `strata trace export` from it.
//
// Running one needs a design whose mapper lowers OpGraphs (a hardware kind implementing
// GraphTarget); bind() says so plainly when the chosen hardware has none.
#pragma once

#include <memory>

#include "sim/schema.h"
#include "sim/sim_context.h"
#include "sim/workload.h"
#include "workloads/opgraph/graph_summary.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

// Implemented by designs whose mapper consumes operator graphs.
class GraphTarget {
 public:
  virtual ~GraphTarget() = default;
  virtual void load_graph(std::shared_ptr<const OpGraph> graph) = 0;
  virtual bool graph_finished() const = 0;
  virtual std::optional<double> graph_progress() const { return std::nullopt; }
};

class GraphWorkload : public Workload {
 public:
  GraphWorkload(const ValidatedNode& cfg, SimContext& ctx) : cfg_(cfg), ctx_(ctx) {}

  // The operator graph, built once.
  const OpGraph& graph() const;

  void bind(Component& hardware) override;
  bool finished() const override { return target_ && target_->graph_finished(); }
  std::optional<double> progress() const override { return target_ ? target_->graph_progress() : std::nullopt; }
  std::optional<nlohmann::ordered_json> info() const override;
  std::string info_text() const override;
  bool export_trace(const std::string& path) const override;

 protected:
  virtual OpGraph build() const = 0;
  // Figures of the kind beyond the graph summary (model, routing, graph statistics,
  // quantization error), merged into info() under their own keys.
  virtual nlohmann::ordered_json details() const { return nlohmann::ordered_json::object(); }

  const ValidatedNode& cfg_;
  SimContext& ctx_;

 private:
  mutable std::shared_ptr<const OpGraph> graph_;
  GraphTarget* target_ = nullptr;
};

}  // namespace strata
