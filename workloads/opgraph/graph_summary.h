// Summary figures of an operator graph, independent of any hardware: FLOPs, bytes by tensor
// class, arithmetic intensity, parameters. `strata workload info` prints them.
//
// Two byte figures, because they answer different questions:
//   bytes      what the operators read and write, each operator streaming its operands once
//              (no reuse between operators): the traffic a roofline divides FLOPs by;
//   footprint  every tensor counted once: the memory the workload needs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "workloads/opgraph/op_graph.h"

namespace strata {

struct GraphSummary {
  std::int64_t ops = 0, tensors = 0;
  std::int64_t parameters = 0, active_parameters = 0;
  double flops = 0;
  std::array<double, kTensorClasses> bytes{};      // traffic, by class
  std::array<double, kTensorClasses> footprint{};  // unique tensor bytes, by class
  double network_bytes = 0;                         // carried by collectives between devices
  struct KindFigures {
    std::int64_t count = 0;
    double flops = 0;
  };
  std::map<std::string, KindFigures> by_kind;

  double total_bytes() const;
  double total_footprint() const;
  double arithmetic_intensity() const;  // FLOPs per byte of traffic
};

GraphSummary summarize(const OpGraph& graph);

// One JSON object: parameters, active_parameters, flops, bytes {total, <class>...},
// footprint_bytes {...}, arithmetic_intensity, network_bytes, ops, tensors, ops_by_kind.
nlohmann::ordered_json summary_json(const GraphSummary& s);
// The same figures as aligned text with readable units.
std::string summary_text(const GraphSummary& s);

}  // namespace strata
