#include "workloads/opgraph/graph_builder.h"

namespace strata {

TensorId GraphBuilder::weight(const std::string& name, std::vector<std::int64_t> shape, const std::string& format) {
  if (TensorId t = g_.find_tensor(name); t >= 0) return t;
  return g_.add_tensor(name, TensorClass::Weights, std::move(shape), format.empty() ? q_.weights : format);
}

TensorId GraphBuilder::activation(const std::string& name, std::vector<std::int64_t> shape) {
  return g_.add_tensor(prefix_ + name, TensorClass::Activations, std::move(shape), q_.activations);
}

TensorId GraphBuilder::mixed_activation(const std::string& name, std::vector<std::int64_t> shape,
                                        std::vector<FormatPart> parts) {
  return g_.add_mixed_tensor(prefix_ + name, TensorClass::Activations, std::move(shape), std::move(parts));
}

TensorId GraphBuilder::kv_cache(const std::string& name, std::vector<std::int64_t> shape) {
  if (TensorId t = g_.find_tensor(name); t >= 0) return t;
  return g_.add_tensor(name, TensorClass::KvCache, std::move(shape), q_.kv_cache);
}

OpId GraphBuilder::emit(OpKind kind, const std::string& name, std::map<std::string, std::int64_t> dims,
                        std::vector<TensorId> inputs, std::vector<TensorId> outputs, bool matrix,
                        std::vector<std::int64_t> group_sizes) {
  Operator op;
  op.name = prefix_ + name;
  op.kind = kind;
  op.dims = std::move(dims);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.group_sizes = std::move(group_sizes);
  op.layer = layer_;
  op.compute = q_.activations;
  if (matrix) op.accumulate = q_.accumulate;
  return g_.add_op(std::move(op));
}

TensorId GraphBuilder::linear(const std::string& name, TensorId x, std::int64_t rows, std::int64_t k, std::int64_t n,
                              const std::string& weight_name, bool bias) {
  std::vector<TensorId> in{x, weight(weight_name, {n, k})};
  if (bias) in.push_back(weight(weight_name + ".bias", {n}));
  const TensorId y = activation(name, {rows, n});
  if (rows == 1)
    emit(OpKind::Gemv, name, {{"n", n}, {"k", k}}, std::move(in), {y}, true);
  else
    emit(OpKind::Gemm, name, {{"m", rows}, {"n", n}, {"k", k}}, std::move(in), {y}, true);
  return y;
}

TensorId GraphBuilder::norm(const std::string& name, bool layer_norm, TensorId x, std::int64_t rows,
                            std::int64_t cols, const std::string& weight_name) {
  const TensorId w = weight(weight_name, {layer_norm ? 2 * cols : cols});
  const TensorId y = activation(name, {rows, cols});
  emit(layer_norm ? OpKind::LayerNorm : OpKind::RmsNorm, name, {{"rows", rows}, {"cols", cols}}, {x, w}, {y});
  return y;
}

TensorId GraphBuilder::unary(OpKind kind, const std::string& name, TensorId x, std::int64_t elements) {
  const TensorId y = activation(name, g_.tensor(x).shape);
  emit(kind, name, {{"elements", elements}}, {x}, {y});
  return y;
}

TensorId GraphBuilder::binary(OpKind kind, const std::string& name, TensorId a, TensorId b, std::int64_t elements) {
  const TensorId y = activation(name, g_.tensor(a).shape);
  emit(kind, name, {{"elements", elements}}, {a, b}, {y});
  return y;
}

}  // namespace strata
