#include "workloads/graph_workload.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/component.h"
#include "workloads/opgraph/opgraph_jsonl.h"

namespace strata {

const OpGraph& GraphWorkload::graph() const {
  if (!graph_) {
    OpGraph g;
    try {
      g = build();
    } catch (const std::invalid_argument& e) {
      // The graph's own checks (shapes, dimensions past 2^62) on what the workload's
      // parameters or files asked for: the user's input, so exit 2.
      throw InputError(cfg_.loc, "workload", e.what());
    }
    if (g.provenance.empty())
      g.provenance = {{"tool", "strata"}, {"workload", cfg_.spec->name}, {"config", cfg_.canonical()}};
    graph_ = std::make_shared<const OpGraph>(std::move(g));
  }
  return *graph_;
}

void GraphWorkload::bind(Component& hardware) {
  target_ = dynamic_cast<GraphTarget*>(&hardware);
  if (!target_)
    throw InputError(cfg_.loc, "workload.kind",
                     fmt::format("workload kind '{}' is an operator graph, and hardware kind '{}' has no mapper for "
                                 "operator graphs (characterize it with `strata workload info`)",
                                 cfg_.spec->name, hardware.config().spec->name));
  graph();
  try {
    target_->load_graph(graph_);
  } catch (const InputError& e) {
    // A mapper names the operator it cannot lower; the workload is where it came from.
    if (!e.loc().file.empty()) throw;
    throw InputError(cfg_.loc, e.key().empty() ? cfg_.path : e.key(), e.message());
  }
}

std::optional<nlohmann::ordered_json> GraphWorkload::info() const {
  nlohmann::ordered_json j;
  j["workload"] = cfg_.spec->name;
  j["name"] = graph().name;
  const nlohmann::ordered_json summary = summary_json(summarize(graph())), extra = details();
  for (const auto& [key, value] : summary.items()) j[key] = value;
  for (const auto& [key, value] : extra.items()) j[key] = value;
  return j;
}

std::string GraphWorkload::info_text() const {
  std::string out = fmt::format("{} ({})\n", graph().name.empty() ? cfg_.spec->name : graph().name, cfg_.spec->name);
  out += summary_text(summarize(graph()));
  const nlohmann::ordered_json extra = details();
  for (const auto& [key, value] : extra.items()) {
    if (value.is_object()) {
      out += fmt::format("  {}:\n", key);
      for (const auto& [k, v] : value.items())
        out += fmt::format("    {:<20} {}\n", k, v.is_number_float() ? fmt::format("{:.4g}", v.get<double>()) : v.dump());
    } else {
      out += fmt::format("  {:<22} {}\n", key, value.is_number_float() ? fmt::format("{:.4g}", value.get<double>()) : value.dump());
    }
  }
  return out;
}

bool GraphWorkload::export_trace(const std::string& path) const {
  write_opgraph_jsonl(graph(), path);
  return true;
}

}  // namespace strata
