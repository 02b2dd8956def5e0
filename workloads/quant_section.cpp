#include "workloads/quant_section.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {

const KindSpec& quant_section_spec(QuantExtras extras) {
  auto make = [](QuantExtras x) {
    KindSpec s;
    s.name = "quant";
    s.category = "section";
    s.description = "number formats per tensor class";
    s.add(param::string("weights", "format of weights (fp16, bf16, fp8_e4m3, int8_pc, int4_g128, mxfp4, nvfp4, ...)")
              .def("fp16"));
    s.add(param::string("activations", "format of activations").def("fp16"));
    s.add(param::string("kv_cache", "format of the KV cache").def("fp16"));
    s.add(param::string("accumulate", "format matrix products accumulate in (fp32, tf32, bf16, fp16)").def("fp32"));
    if (x == QuantExtras::Experts)
      s.add(param::list("experts", "MoE: weight format of each routed expert, in expert order (empty: weights)").def(""));
    if (x == QuantExtras::Degrees) {
      s.add(param::list("degree_bounds", "GNN: in-degree bounds of the precision buckets, ascending")
                .of(ParamType::Int)
                .at_least("1")
                .def(""));
      s.add(param::list("degree_formats", "GNN: feature format of each bucket, one more than degree_bounds").def(""));
    }
    return s;
  };
  static const KindSpec none = make(QuantExtras::None), experts = make(QuantExtras::Experts),
                        degrees = make(QuantExtras::Degrees);
  return extras == QuantExtras::Experts ? experts : extras == QuantExtras::Degrees ? degrees : none;
}

QuantChoice read_quant_section(const ValidatedNode& node) {
  const Params& p = node.params;
  auto check = [&](const std::string& text, const SourceLoc& loc, const std::string& key) {
    try {
      return parse_quant_spec(text).name();
    } catch (const std::invalid_argument& e) {
      throw InputError(loc, key, e.what());
    }
  };
  auto scalar = [&](const char* key) { return check(p.string(key), p.where(key), node.path + "." + key); };
  auto list = [&](const char* key) {
    std::vector<std::string> out;
    if (!p.has(key)) return out;
    const ParamValue& v = p.value(key);
    for (size_t i = 0; i < v.items.size(); ++i)
      out.push_back(check(v.items[i], v.item_locs[i], fmt::format("{}.{}[{}]", node.path, key, i)));
    return out;
  };
  QuantChoice q;
  q.weights = scalar("weights");
  q.activations = scalar("activations");
  q.kv_cache = scalar("kv_cache");
  q.accumulate = scalar("accumulate");
  const NumberFormat* acc = find_number_format(q.accumulate);
  if (acc->kind != FormatKind::Float || acc->element_bits < 16)
    throw InputError(p.where("accumulate"), node.path + ".accumulate",
                     fmt::format("'{}' cannot accumulate: use a float format of 16 bits or more (fp32, tf32, bf16, fp16)",
                                 q.accumulate));
  q.experts = list("experts");
  q.degree_formats = list("degree_formats");
  if (p.has("degree_bounds")) {
    const ParamValue& v = p.value("degree_bounds");
    q.degree_bounds = v.item_integers;
    for (size_t i = 1; i < q.degree_bounds.size(); ++i)
      if (q.degree_bounds[i] <= q.degree_bounds[i - 1])
        throw InputError(v.item_locs[i], fmt::format("{}.degree_bounds[{}]", node.path, i), "bounds must be ascending");
    if (q.degree_formats.size() != (q.degree_bounds.empty() ? 0 : q.degree_bounds.size() + 1))
      throw InputError(node.loc, node.path + ".degree_formats",
                       fmt::format("needs one format per bucket: {} bounds make {} buckets, got {} formats",
                                   q.degree_bounds.size(), q.degree_bounds.size() + 1, q.degree_formats.size()));
  }
  return q;
}

}  // namespace strata
