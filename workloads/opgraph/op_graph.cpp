#include "workloads/opgraph/op_graph.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/number_format.h"

namespace strata {

namespace {

constexpr const char* kClassNames[kTensorClasses] = {"weights", "activations", "kv_cache", "graph"};

std::int64_t product(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

// Element counts, byte counts and FLOPs are products of dimensions in 64-bit integers (and
// doubles): a product past 2^62 would overflow them, so it is refused where it is declared.
constexpr std::int64_t kMaxProduct = std::int64_t{1} << 62;

bool product_fits(const std::vector<std::int64_t>& values) {
  std::int64_t p = 1;
  for (auto v : values)
    if (v > 0 && (__builtin_mul_overflow(p, v, &p) || p > kMaxProduct)) return false;
  return true;
}

void check_shape(const std::string& name, const std::vector<std::int64_t>& shape) {
  if (shape.empty()) throw std::invalid_argument(fmt::format("tensor '{}': shape must have at least one dimension", name));
  for (auto d : shape)
    if (d < 1) throw std::invalid_argument(fmt::format("tensor '{}': shape [{}] has a dimension below 1", name,
                                                       fmt::join(shape, ", ")));
  if (!product_fits(shape))
    throw std::invalid_argument(fmt::format("tensor '{}': shape [{}] holds more than 2^62 elements", name, fmt::join(shape, ", ")));
}

// Dimensions that are flags or may be zero.
bool may_be_zero(const std::string& dim) {
  return dim == "causal" || dim == "accumulate" || dim == "v_head_dim" || dim == "src_rows" || dim == "dst_rows" ||
         dim == "b_nnz" || dim == "table_rows";
}

}  // namespace

const char* tensor_class_name(TensorClass c) { return kClassNames[static_cast<int>(c)]; }

std::optional<TensorClass> find_tensor_class(std::string_view name) {
  for (int i = 0; i < kTensorClasses; ++i)
    if (name == kClassNames[i]) return static_cast<TensorClass>(i);
  return std::nullopt;
}

std::int64_t SparseStructure::nnz() const {
  return graph.num_edges() - graph.self_loops() + (diagonal ? graph.num_nodes() : 0);
}

void SparseStructure::row(std::int64_t v, std::vector<std::int32_t>& out) const {
  out.clear();
  bool placed = !diagonal;
  const auto self = static_cast<std::int32_t>(v);
  for (const std::int32_t c : graph.neighbors(v)) {
    if (c == self) continue;
    if (!placed && c > self) {
      out.push_back(self);
      placed = true;
    }
    out.push_back(c);
  }
  if (!placed) out.push_back(self);
}

std::int64_t Tensor::elements() const { return product(shape); }

double Tensor::bytes_per_element() const {
  const auto n = elements();
  return n ? static_cast<double>(bytes) / static_cast<double>(n) : 0;
}

std::uint64_t tensor_storage_bytes(const std::string& format, const std::vector<std::int64_t>& shape) {
  const QuantSpec q = parse_quant_spec(format);
  return q.storage_bytes(product(shape), shape.back());
}

TensorId OpGraph::add_tensor(std::string name, TensorClass cls, std::vector<std::int64_t> shape, std::string format,
                             std::uint64_t bytes) {
  Tensor t;
  t.name = std::move(name);
  t.cls = cls;
  t.shape = std::move(shape);
  t.format = std::move(format);
  t.bytes = bytes;
  return add_tensor(std::move(t));
}

TensorId OpGraph::add_mixed_tensor(std::string name, TensorClass cls, std::vector<std::int64_t> shape,
                                   std::vector<FormatPart> parts) {
  Tensor t;
  t.name = std::move(name);
  t.cls = cls;
  t.shape = std::move(shape);
  t.format = "mixed";
  t.parts = std::move(parts);
  return add_tensor(std::move(t));
}

TensorId OpGraph::add_tensor(Tensor t) {
  if (t.name.empty()) throw std::invalid_argument("tensor without a name");
  if (tensor_ids_.count(t.name)) throw std::invalid_argument(fmt::format("tensor '{}' is declared twice", t.name));
  check_shape(t.name, t.shape);
  if (t.format == "index") {
    if (t.bytes == 0) throw std::invalid_argument(fmt::format("tensor '{}': format index needs its bytes", t.name));
  } else {
    std::uint64_t expect = 0;
    try {
      if (t.format == "mixed") {
        if (t.parts.empty()) throw std::invalid_argument("format mixed needs parts");
        std::int64_t covered = 0;
        for (const auto& part : t.parts) {
          if (part.elements < 1) throw std::invalid_argument("a part must have at least one element");
          expect += parse_quant_spec(part.format).storage_bytes(part.elements, t.shape.back());
          covered += part.elements;
        }
        if (covered != t.elements())
          throw std::invalid_argument(
              fmt::format("parts cover {} elements but the shape holds {}", covered, t.elements()));
      } else {
        if (!t.parts.empty()) throw std::invalid_argument("parts are only for format mixed");
        expect = tensor_storage_bytes(t.format, t.shape);
      }
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("tensor '{}': {}", t.name, e.what()));
    }
    if (t.bytes != 0 && t.bytes != expect)
      throw std::invalid_argument(fmt::format("tensor '{}': bytes {} disagree with shape [{}] in {} ({} bytes)", t.name,
                                              t.bytes, fmt::join(t.shape, ", "), t.format, expect));
    t.bytes = expect;
  }
  t.id = static_cast<TensorId>(tensors_.size());
  tensor_ids_[t.name] = t.id;
  tensors_.push_back(std::move(t));
  producer_.push_back(-1);
  return tensors_.back().id;
}

TensorId OpGraph::find_tensor(const std::string& n) const {
  auto it = tensor_ids_.find(n);
  return it == tensor_ids_.end() ? -1 : it->second;
}

OpId OpGraph::producer(TensorId t) const { return producer_.at(static_cast<size_t>(t)); }

OpId OpGraph::add_op(Operator op) {
  const OpKindInfo& info = op_kind_info(op.kind);
  auto fail = [&](const std::string& msg) {
    throw std::invalid_argument(fmt::format("operator '{}' ({}): {}", op.name, info.name, msg));
  };
  if (op.name.empty()) op.name = fmt::format("{}{}", info.name, ops_.size());
  for (const auto& [d, fallback] : info.optional_dims) op.dims.emplace(d, fallback);
  for (const char* d : info.dims)
    if (!op.dims.count(d)) fail(fmt::format("missing dimension '{}'", d));
  for (const auto& dim : op.dims) {
    // Not a structured binding: clang 14 (the libFuzzer build, tests/fuzz) cannot capture one
    // in the lambdas below (a C++20 extension).
    const std::string& d = dim.first;
    const auto v = dim.second;
    const bool known = std::any_of(info.dims.begin(), info.dims.end(), [&](const char* n) { return d == n; }) ||
                       std::any_of(info.optional_dims.begin(), info.optional_dims.end(),
                                   [&](const auto& p) { return d == p.first; });
    if (!known) fail(fmt::format("unknown dimension '{}'", d));
    if (v < (may_be_zero(d) ? 0 : 1)) fail(fmt::format("dimension {} = {} is out of range", d, v));
  }
  for (const char* flag : {"causal", "accumulate"})
    if (op.dims.count(flag) && op.dims[flag] > 1) fail(fmt::format("{} must be 0 or 1", flag));
  // The products the models form (operand elements, multiply-adds), not every dimension's: a
  // graph's rows x cols x nnz x n is no count anything holds.
  if (!op_counts_fit(op, static_cast<double>(kMaxProduct)))
    fail("its operands or multiply-adds exceed 2^62 elements (the counts of one operator would overflow)");
  if (op.kind == OpKind::GroupedGemm) {
    if (static_cast<std::int64_t>(op.group_sizes.size()) != op.dim("groups"))
      fail(fmt::format("group_sizes has {} entries for {} groups", op.group_sizes.size(), op.dim("groups")));
    std::int64_t rows = 0;
    for (auto g : op.group_sizes) {
      if (g < 0) fail("group_sizes must not be negative");
      if (__builtin_add_overflow(rows, g, &rows) || rows > kMaxProduct) fail("group_sizes sum past 2^62 rows");
    }
    if (rows != op.dim("m")) fail(fmt::format("group_sizes sum to {} rows, but m = {}", rows, op.dim("m")));
  } else if (!op.group_sizes.empty()) {
    fail("group_sizes is only for grouped_gemm");
  }
  if (op.kind == OpKind::Attention && op.dim("heads") % op.dim("kv_heads") != 0)
    fail("heads must be a multiple of kv_heads");

  const size_t max_in = info.inputs.size(), min_in = max_in - static_cast<size_t>(info.optional_inputs);
  if (op.inputs.size() < min_in || op.inputs.size() > max_in)
    fail(min_in == max_in ? fmt::format("takes {} inputs, got {}", max_in, op.inputs.size())
                          : fmt::format("takes {} to {} inputs, got {}", min_in, max_in, op.inputs.size()));
  if (op.outputs.size() != info.outputs.size())
    fail(fmt::format("writes {} outputs, got {}", info.outputs.size(), op.outputs.size()));

  auto check_operand = [&](TensorId id, const OperandRule& rule, std::int64_t accessed, const char* side) {
    if (id < 0 || id >= static_cast<TensorId>(tensors_.size())) fail(fmt::format("{} {} is not a tensor", side, rule.role));
    const Tensor& t = tensors_[static_cast<size_t>(id)];
    const std::int64_t have = t.elements();
    if (rule.access == Access::Exact ? have != accessed : have < accessed)
      fail(fmt::format("shape mismatch: {} {} ('{}', {} elements) {} {} elements from the dimensions", side, rule.role,
                       t.name, have, rule.access == Access::Exact ? "must hold" : "is smaller than the", accessed));
  };
  for (size_t i = 0; i < op.inputs.size(); ++i) check_operand(op.inputs[i], info.inputs[i], input_elements(op, i), "input");
  for (size_t i = 0; i < op.outputs.size(); ++i)
    check_operand(op.outputs[i], info.outputs[i], output_elements(op, i), "output");

  op.id = static_cast<OpId>(ops_.size());
  for (TensorId in : op.inputs)
    if (OpId p = producer_[static_cast<size_t>(in)]; p >= 0) op.deps.push_back(p);
  std::sort(op.deps.begin(), op.deps.end());
  op.deps.erase(std::unique(op.deps.begin(), op.deps.end()), op.deps.end());
  if (std::binary_search(op.deps.begin(), op.deps.end(), op.id)) fail("depends on itself");
  for (TensorId out : op.outputs) producer_[static_cast<size_t>(out)] = op.id;
  ops_.push_back(std::move(op));
  return ops_.back().id;
}

void OpGraph::add_dependency(OpId op, OpId dep) {
  auto& deps = ops_.at(static_cast<size_t>(op)).deps;
  if (dep == op) throw std::invalid_argument(fmt::format("operator '{}' cannot depend on itself", ops_[static_cast<size_t>(op)].name));
  auto it = std::lower_bound(deps.begin(), deps.end(), dep);
  if (it == deps.end() || *it != dep) deps.insert(it, dep);
}

void OpGraph::set_device(OpId op, std::int32_t device) { ops_.at(static_cast<size_t>(op)).device = device; }

void OpGraph::check_dependencies() const {
  for (const auto& op : ops_)
    for (OpId d : op.deps)
      if (d < 0 || d >= static_cast<OpId>(ops_.size()))
        throw std::invalid_argument(fmt::format("operator '{}' depends on operator {}, which does not exist", op.name, d));
  topological_order();
}

std::vector<OpId> OpGraph::topological_order() const {
  std::vector<OpId> order;
  if (OpId at = order_or_cycle(order); at >= 0)
    throw std::invalid_argument(fmt::format("operator '{}' is part of a dependency cycle", ops_[static_cast<size_t>(at)].name));
  return order;
}

OpId OpGraph::find_cycle() const {
  std::vector<OpId> order;
  return order_or_cycle(order);
}

OpId OpGraph::order_or_cycle(std::vector<OpId>& order) const {
  // Kahn's algorithm, always taking the lowest ready id, so the order is deterministic and equal
  // to the emission order whenever that order is already valid.
  std::vector<int> pending(ops_.size());
  std::vector<std::vector<OpId>> users(ops_.size());
  for (const auto& op : ops_) {
    pending[static_cast<size_t>(op.id)] = static_cast<int>(op.deps.size());
    for (OpId d : op.deps) users.at(static_cast<size_t>(d)).push_back(op.id);
  }
  std::set<OpId> ready;
  for (const auto& op : ops_)
    if (op.deps.empty()) ready.insert(op.id);
  order.clear();
  order.reserve(ops_.size());
  while (!ready.empty()) {
    const OpId id = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(id);
    for (OpId u : users[static_cast<size_t>(id)])
      if (--pending[static_cast<size_t>(u)] == 0) ready.insert(u);
  }
  if (order.size() != ops_.size()) {
    // Walk unfinished dependencies from an unfinished operator until one repeats: it is on a cycle.
    OpId at = -1;
    for (const auto& op : ops_)
      if (pending[static_cast<size_t>(op.id)] > 0) at = op.id;
    std::vector<bool> seen(ops_.size());
    while (!seen[static_cast<size_t>(at)]) {
      seen[static_cast<size_t>(at)] = true;
      for (OpId d : ops_[static_cast<size_t>(at)].deps)
        if (pending[static_cast<size_t>(d)] > 0) {
          at = d;
          break;
        }
    }
    return at;
  }
  return -1;
}

}  // namespace strata
