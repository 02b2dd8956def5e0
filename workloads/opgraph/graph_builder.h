// A small helper for generators: creates weights once (decode steps share them), names
// activations uniquely, and emits the common operator patterns (a linear layer that becomes a
// GEMV for one token, norms, element-wise ops) in the workload's number formats.
#pragma once

#include <string>
#include <vector>

#include "workloads/opgraph/op_graph.h"
#include "workloads/quant_section.h"

namespace strata {

class GraphBuilder {
 public:
  GraphBuilder(OpGraph& graph, QuantChoice quant) : g_(graph), q_(std::move(quant)) {}

  OpGraph& graph() { return g_; }
  const QuantChoice& quant() const { return q_; }
  // The layer operators are tagged with, and the prefix of activation names ("s3.l7.").
  void at(std::int32_t layer, std::string prefix) {
    layer_ = layer;
    prefix_ = std::move(prefix);
  }

  // A weight tensor, created on first use; `format` empty means quant.weights.
  TensorId weight(const std::string& name, std::vector<std::int64_t> shape, const std::string& format = "");
  TensorId activation(const std::string& name, std::vector<std::int64_t> shape);
  TensorId mixed_activation(const std::string& name, std::vector<std::int64_t> shape, std::vector<FormatPart> parts);
  TensorId kv_cache(const std::string& name, std::vector<std::int64_t> shape);

  // `matrix` marks matrix products (they get the accumulate format).
  OpId emit(OpKind kind, const std::string& name, std::map<std::string, std::int64_t> dims,
            std::vector<TensorId> inputs, std::vector<TensorId> outputs, bool matrix = false,
            std::vector<std::int64_t> group_sizes = {});

  // y[rows, n] = x[rows, k]·W[n, k]^T (+ b): a GEMV when rows is 1.
  TensorId linear(const std::string& name, TensorId x, std::int64_t rows, std::int64_t k, std::int64_t n,
                  const std::string& weight_name, bool bias = false);
  TensorId norm(const std::string& name, bool layer_norm, TensorId x, std::int64_t rows, std::int64_t cols,
                const std::string& weight_name);
  TensorId unary(OpKind kind, const std::string& name, TensorId x, std::int64_t elements);
  TensorId binary(OpKind kind, const std::string& name, TensorId a, TensorId b, std::int64_t elements);

 private:
  OpGraph& g_;
  QuantChoice q_;
  std::int32_t layer_ = -1;
  std::string prefix_;
};

}  // namespace strata
