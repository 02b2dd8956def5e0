#include "workloads/opgraph/graph_summary.h"

#include <numeric>

#include <fmt/format.h>

#include "sim/units.h"

namespace strata {

namespace {

// Bytes a collective moves over links in total. All-to-all: each device keeps 1/devices of its
// share, so (devices−1)/devices of the tensor crosses links. Ring all-reduce: every device
// sends 2·(devices−1)/devices of its copy, so 2·(devices−1) copies' worth in total. A
// point-to-point transfer moves its tensor once.
double collective_bytes(const Operator& op, const Tensor& t) {
  const double d = static_cast<double>(op.dim("devices"));
  const double data = static_cast<double>(op.dim("elements")) * t.bytes_per_element();
  if (op.kind == OpKind::AllToAll) return data * (d - 1) / d;
  if (op.kind == OpKind::AllReduce) return 2 * data * (d - 1);
  return 0;
}

double transfer_bytes(const Operator& op, const Tensor& t) {
  if (op.kind == OpKind::SendRecv) return static_cast<double>(op.dim("elements")) * t.bytes_per_element();
  return collective_bytes(op, t);
}

std::string with_prefix(double v, const char* unit) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (v >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.4g} {}{}", v, prefixes[i], unit);
}

}  // namespace

double GraphSummary::total_bytes() const { return std::accumulate(bytes.begin(), bytes.end(), 0.0); }
double GraphSummary::total_footprint() const { return std::accumulate(footprint.begin(), footprint.end(), 0.0); }
double GraphSummary::arithmetic_intensity() const {
  const double b = total_bytes();
  return b > 0 ? flops / b : 0;
}

GraphSummary summarize(const OpGraph& graph) {
  GraphSummary s;
  s.ops = static_cast<std::int64_t>(graph.ops().size());
  s.tensors = static_cast<std::int64_t>(graph.tensors().size());
  std::int64_t weights = 0;
  for (const auto& t : graph.tensors()) {
    s.footprint[static_cast<size_t>(t.cls)] += static_cast<double>(t.bytes);
    if (t.cls == TensorClass::Weights) weights += t.elements();
  }
  s.parameters = graph.parameters >= 0 ? graph.parameters : weights;
  s.active_parameters = graph.active_parameters >= 0 ? graph.active_parameters : s.parameters;
  for (const auto& op : graph.ops()) {
    const double f = op_flops(op);
    s.flops += f;
    auto& k = s.by_kind[op_kind_name(op.kind)];
    ++k.count;
    k.flops += f;
    auto count = [&](TensorId id, std::int64_t elements) {
      const Tensor& t = graph.tensor(id);
      s.bytes[static_cast<size_t>(t.cls)] += static_cast<double>(elements) * t.bytes_per_element();
    };
    for (size_t i = 0; i < op.inputs.size(); ++i) count(op.inputs[i], input_elements(op, i));
    for (size_t i = 0; i < op.outputs.size(); ++i) count(op.outputs[i], output_elements(op, i));
    if (op.kind == OpKind::AllToAll || op.kind == OpKind::AllReduce || op.kind == OpKind::SendRecv)
      s.network_bytes += transfer_bytes(op, graph.tensor(op.inputs[0]));
  }
  return s;
}

nlohmann::ordered_json summary_json(const GraphSummary& s) {
  nlohmann::ordered_json j;
  j["parameters"] = s.parameters;
  j["active_parameters"] = s.active_parameters;
  j["flops"] = s.flops;
  auto by_class = [](const std::array<double, kTensorClasses>& v, double total) {
    nlohmann::ordered_json o;
    o["total"] = total;
    for (int c = 0; c < kTensorClasses; ++c) o[tensor_class_name(static_cast<TensorClass>(c))] = v[static_cast<size_t>(c)];
    return o;
  };
  j["bytes"] = by_class(s.bytes, s.total_bytes());
  j["footprint_bytes"] = by_class(s.footprint, s.total_footprint());
  j["arithmetic_intensity"] = s.arithmetic_intensity();
  j["network_bytes"] = s.network_bytes;
  j["ops"] = s.ops;
  j["tensors"] = s.tensors;
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  for (const auto& [name, k] : s.by_kind) kinds[name] = {{"count", k.count}, {"flops", k.flops}};
  j["ops_by_kind"] = kinds;
  return j;
}

std::string summary_text(const GraphSummary& s) {
  std::string out;
  auto line = [&](const std::string& key, const std::string& value) { out += fmt::format("  {:<22} {}\n", key, value); };
  line("parameters", fmt::format("{} ({})", s.parameters, with_prefix(static_cast<double>(s.parameters), "")));
  if (s.active_parameters != s.parameters)
    line("active_parameters",
         fmt::format("{} ({})", s.active_parameters, with_prefix(static_cast<double>(s.active_parameters), "")));
  line("flops", with_prefix(s.flops, "FLOP"));
  line("bytes", format_quantity(s.total_bytes(), UnitFamily::Size, 4));
  for (int c = 0; c < kTensorClasses; ++c)
    if (s.bytes[static_cast<size_t>(c)] > 0)
      line(fmt::format("  {}", tensor_class_name(static_cast<TensorClass>(c))),
           format_quantity(s.bytes[static_cast<size_t>(c)], UnitFamily::Size, 4));
  line("footprint", format_quantity(s.total_footprint(), UnitFamily::Size, 4));
  for (int c = 0; c < kTensorClasses; ++c)
    if (s.footprint[static_cast<size_t>(c)] > 0)
      line(fmt::format("  {}", tensor_class_name(static_cast<TensorClass>(c))),
           format_quantity(s.footprint[static_cast<size_t>(c)], UnitFamily::Size, 4));
  line("arithmetic_intensity", fmt::format("{:.4g} FLOP/B", s.arithmetic_intensity()));
  if (s.network_bytes > 0) line("network_bytes", format_quantity(s.network_bytes, UnitFamily::Size, 4));
  line("ops", fmt::format("{} ({} tensors)", s.ops, s.tensors));
  for (const auto& [name, k] : s.by_kind)
    line(fmt::format("  {}", name), fmt::format("{:>7}  {}", k.count, with_prefix(k.flops, "FLOP")));
  return out;
}

}  // namespace strata
