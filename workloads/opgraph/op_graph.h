// The operator graph (OpGraph): the one form every workload takes before a mapper lowers it onto
// a design. Operators carry named dimensions (see op_kinds.h), read and write tensors, and depend
// on earlier operators. Tensors carry a class (where they live), a shape, a number format and
// their storage bytes, scales included.
//
// For mappers (NPU, GPU, PIM, GNN accelerators, chiplets):
//   - walk `topological_order()` (or `ops()`, which generators emit in a valid order);
//   - read an operator's shape with `op.dim("m")`, its operands with `graph.tensor(op.inputs[i])`,
//     and the elements each operand touches with input_elements()/output_elements();
//   - bytes per element of an operand, scales included, is tensor.bytes / tensor.elements();
//   - `op.device` is the device an operator is placed on in multi-device designs (-1: any).
// Layout convention: the last dimension of a tensor is its contiguous, reduction axis
// (weights are [n, k] as in PyTorch's Linear), which is also the axis integer groups and block
// scales run along.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/graph/csr_graph.h"
#include "workloads/opgraph/op_kinds.h"

namespace strata {

enum class TensorClass { Weights, Activations, KvCache, Graph };
inline constexpr int kTensorClasses = 4;
const char* tensor_class_name(TensorClass c);  // "weights", "activations", "kv_cache", "graph"
std::optional<TensorClass> find_tensor_class(std::string_view name);

// Part of a tensor stored in one format (mixed precision: degree-aware GNN features).
struct FormatPart {
  std::string format;
  std::int64_t elements = 0;
};

// The nonzero structure of a sparse Graph-class tensor where its workload knows it (the GNN
// generator's adjacency): the rows and column ids of `graph`, with every row's diagonal entry
// held (`diagonal`: A + I) or left out, whatever self loops the graph itself stores. Mappers
// that model irregular accesses (the GPU's SpMM) read it; the JSON Lines form does not carry it.
struct SparseStructure {
  CsrGraph graph;
  bool diagonal = false;
  std::int64_t rows() const { return graph.num_nodes(); }
  std::int64_t nnz() const;
  // Row v's column ids, ascending, into `out` (cleared first).
  void row(std::int64_t v, std::vector<std::int32_t>& out) const;
};

struct Tensor {
  TensorId id = -1;
  std::string name;
  TensorClass cls = TensorClass::Activations;
  std::vector<std::int64_t> shape;
  // A quantization name (parse_quant_spec: "fp16", "mxfp4", "int4_g128"), "mixed" with `parts`,
  // or "index" for integer graph structure (CSR offsets and indices, whose bytes are given).
  std::string format;
  std::vector<FormatPart> parts;
  std::uint64_t bytes = 0;
  std::shared_ptr<const SparseStructure> structure;  // Graph tensors only; may be null

  std::int64_t elements() const;
  double bytes_per_element() const;
};

class OpGraph {
 public:
  std::string name;
  nlohmann::json provenance = nlohmann::json::object();  // who made it, from what
  // Model parameters and those active per token (MoE); generators set them, traces may carry them.
  std::int64_t parameters = -1;
  std::int64_t active_parameters = -1;

  // Adds a tensor; its bytes are computed from shape and format unless `bytes` is given (and
  // checked against them when the format is a number format). Names must be unique.
  TensorId add_tensor(std::string name, TensorClass cls, std::vector<std::int64_t> shape, std::string format,
                      std::uint64_t bytes = 0);
  TensorId add_mixed_tensor(std::string name, TensorClass cls, std::vector<std::int64_t> shape,
                            std::vector<FormatPart> parts);
  TensorId add_tensor(Tensor t);  // as read from a trace; computes or checks bytes

  // Adds an operator; missing optional dims get their defaults, and a dependency on the producer
  // of every input is added. The operator is checked (dims, operand counts and elements).
  OpId add_op(Operator op);
  // An ordering the data flow does not show (an accumulating writer, a routing decision).
  void add_dependency(OpId op, OpId dep);
  void set_device(OpId op, std::int32_t device);

  const std::vector<Tensor>& tensors() const { return tensors_; }
  const std::vector<Operator>& ops() const { return ops_; }
  const Tensor& tensor(TensorId id) const { return tensors_.at(static_cast<size_t>(id)); }
  const Operator& op(OpId id) const { return ops_.at(static_cast<size_t>(id)); }
  TensorId find_tensor(const std::string& name) const;  // -1 when absent
  OpId producer(TensorId t) const;                      // last operator writing t, or -1

  // Checks what add_op cannot: every dependency exists and the graph has no cycle. Throws
  // std::invalid_argument naming the operator.
  void check_dependencies() const;
  std::vector<OpId> topological_order() const;
  // An operator on a dependency cycle, or -1 when there is none.
  OpId find_cycle() const;

 private:
  OpId order_or_cycle(std::vector<OpId>& order) const;
  std::vector<Tensor> tensors_;
  std::vector<Operator> ops_;
  std::map<std::string, TensorId> tensor_ids_;
  std::vector<OpId> producer_;
};

// Storage bytes of a tensor in a number-format quantization (scales included).
std::uint64_t tensor_storage_bytes(const std::string& format, const std::vector<std::int64_t>& shape);

}  // namespace strata
