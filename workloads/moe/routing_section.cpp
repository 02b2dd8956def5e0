#include "workloads/moe/routing_section.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/input_file.h"
#include "sim/text.h"
#include "workloads/moe/routing_trace.h"

namespace strata {

const KindSpec& routing_section_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "routing";
    s.category = "section";
    s.description = "MoE routing: generator or trace, capacity and placement";
    s.add(param::choice("source", {"generator", "trace"}, "where expert choices come from").def("generator"));
    s.add(param::choice("popularity", {"uniform", "zipf", "dirichlet"}, "generator: expert popularity per layer")
              .def("uniform"));
    s.add(param::real("hot_ratio", "generator: expected load of the hottest expert over the uniform load")
              .def("1")
              .at_least("1"));
    s.add(param::real("dirichlet_alpha", "generator: Dirichlet concentration; 0 derives it from hot_ratio")
              .def("0")
              .at_least("0"));
    s.add(param::real("token_persistence", "generator: probability a token reuses the previous token's experts")
              .def("0")
              .range("0", "1"));
    s.add(param::real("layer_affinity",
                      "generator: probability a token's top expert follows the layer-to-layer transition matrix")
              .def("0")
              .range("0", "1"));
    s.add(param::real("affinity_peak", "generator: weight of each expert's preferred successor in the generated matrix")
              .def("0.8")
              .range("0", "1"));
    s.add(param::path("transition", "generator: E×E transition matrix, one row of E numbers per line ('#' comments); "
                                    "empty generates one from affinity_peak")
              .def(""));
    s.add(param::path("trace", "trace: JSON Lines routing trace {layer, token_idx, experts, gating_probs}").def(""));
    s.add(param::real("capacity_factor", "expert capacity = ceil(factor · tokens · k / experts); 0 means unlimited")
              .def("0")
              .at_least("0"));
    s.add(param::integer("devices", "devices the experts are spread over (all-to-all between them)").def("1").range("1", "65536"));
    s.add(param::choice("placement", {"round_robin", "contiguous", "load_balanced"}, "expert placement over devices")
              .def("round_robin"));
    return s;
  }();
  return spec;
}

namespace {

Eigen::MatrixXd read_transition(const std::string& path, std::int32_t experts, const std::string& key) {
  std::ifstream in;
  open_input_file(in, path, "the transition matrix", SourceLoc{path}, key);
  Eigen::MatrixXd m(experts, experts);
  std::string text;
  int line = 0, row = 0;
  while (read_line(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos || text[text.find_first_not_of(" \t\r")] == '#') continue;
    std::replace(text.begin(), text.end(), ',', ' ');
    std::istringstream s(text);
    std::vector<double> values;
    double v = 0;
    while (s >> v) values.push_back(v);
    if (!s.eof()) throw InputError(SourceLoc{path, line}, key, "expected numbers");
    if (row >= experts) throw InputError(SourceLoc{path, line}, key, fmt::format("more than {} rows", experts));
    if (static_cast<std::int32_t>(values.size()) != experts)
      throw InputError(SourceLoc{path, line}, key, fmt::format("row has {} numbers, expected {}", values.size(), experts));
    for (std::int32_t c = 0; c < experts; ++c) m(row, c) = values[static_cast<size_t>(c)];
    ++row;
  }
  if (row != experts) throw InputError(SourceLoc{path, line}, key, fmt::format("{} rows, expected {}", row, experts));
  return m;
}

}  // namespace

MoeRouting::MoeRouting(const ValidatedNode& node, std::int32_t experts, std::int32_t top_k, std::uint64_t seed)
    : node_(node), experts_(experts), top_k_(top_k) {
  const Params& p = node.params;
  const std::string key = node.path;
  if (p.string("source") == "trace") {
    trace_ = p.path("trace");
    if (trace_.empty()) throw InputError(p.where("source"), key + ".trace", "source: trace needs a trace file");
    return;
  }
  gen_.num_experts = experts_;
  gen_.top_k = top_k_;
  gen_.popularity = *parse_popularity(p.string("popularity"));
  gen_.hot_ratio = p.real("hot_ratio");
  gen_.dirichlet_alpha = p.real("dirichlet_alpha");
  gen_.token_persistence = p.real("token_persistence");
  gen_.layer_affinity = p.real("layer_affinity");
  gen_.affinity_peak = p.real("affinity_peak");
  if (!p.path("transition").empty()) gen_.transition = read_transition(p.path("transition"), experts_, key + ".transition");
  gen_.seed = seed;
  try {
    validate(gen_);
  } catch (const std::invalid_argument& e) {
    throw InputError(node.loc, key, e.what());
  }
}

std::vector<LayerRouting> MoeRouting::route(std::int32_t moe_layers, std::int64_t tokens, std::int32_t first_layer) const {
  if (trace_.empty()) {
    RoutingGeneratorConfig cfg = gen_;
    cfg.num_layers = first_layer + moe_layers;
    auto layers = generate_routing(cfg, tokens);
    layers.erase(layers.begin(), layers.begin() + first_layer);
    return layers;
  }
  auto layers = read_routing_trace(trace_, experts_, top_k_);
  const std::string key = node_.path + ".trace";
  if (static_cast<std::int64_t>(layers.size()) < first_layer + moe_layers)
    throw InputError(SourceLoc{trace_}, key,
                     fmt::format("routes {} layers; the workload needs layers {} to {}", layers.size(), first_layer,
                                 first_layer + moe_layers - 1));
  layers.erase(layers.begin(), layers.begin() + first_layer);
  layers.resize(static_cast<size_t>(moe_layers));
  for (auto& l : layers) {
    if (static_cast<std::int64_t>(l.tokens.size()) < tokens)
      throw InputError(SourceLoc{trace_}, key,
                       fmt::format("layer {} routes {} tokens; the workload needs {}", l.layer, l.tokens.size(), tokens));
    l.tokens.resize(static_cast<size_t>(tokens));
  }
  return layers;
}

MoeDispatch MoeRouting::dispatch(const std::vector<std::int64_t>& load) const {
  const Params& p = node_.params;
  MoeDispatch d;
  d.capacity_factor = p.real("capacity_factor");
  d.devices = static_cast<std::int32_t>(p.integer("devices"));
  const auto policy = *parse_placement_policy(p.string("placement"));
  d.expert_device = place_experts(experts_, d.devices, policy, policy == PlacementPolicy::LoadBalanced ? load : std::vector<std::int64_t>{});
  return d;
}

}  // namespace strata
