// The operator kinds of an OpGraph and what each one means: its named dimensions, the element
// counts of its operands (derived from the dimensions, so a graph can be checked for shape
// mismatches and its traffic counted without knowing any hardware), and its FLOPs.
//
// FLOP conventions (one multiply-add = 2 FLOPs; see the kind table in op_kinds.cpp for each kind):
// matrix products count 2 per MAC; attention counts only its two matrix products
// (QKᵀ and PV, over the causal pairs when causal); non-matrix kinds count a fixed number of
// FLOPs per element, named in the table, so figures are comparable with the usual LLM
// accounting (Kaplan et al. 2020; the "2 × parameters per token" rule).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

enum class OpKind {
  Gemm,         // C[m,n] = A[m,k] · B[n,k]ᵀ (weights stored [n,k], PyTorch layout)
  Gemv,         // y[n] = W[n,k] · x[k]
  BatchedGemm,  // batch independent GEMMs of the same shape
  GroupedGemm,  // one GEMM per group with its own rows (MoE experts): rows per group in group_sizes
  SpMM,         // C[rows,n] = S[rows,cols] (nnz nonzeros) · B[cols,n]
  SDDMM,        // C = (U[rows,k] · V[cols,k]ᵀ) sampled at the nnz positions of S
  Attention,    // softmax(Q Kᵀ / √d) V over a KV cache; prefill (q_len > 1) or decode (q_len = 1)
  Softmax,
  LayerNorm,
  RmsNorm,
  Add,
  Mul,
  Gelu,
  Silu,
  Relu,
  Embedding,  // gather `tokens` rows of width `dim` from a table
  TopK,       // per row: the k largest of `cols` values (MoE routing)
  Gather,     // rows of width cols read from scattered places (MoE dispatch)
  Scatter,    // rows of width cols written to scattered places, optionally accumulated (MoE combine)
  AllToAll,   // collective over `devices` devices, `elements` per device
  AllReduce,
  Copy,      // plain data movement (KV-cache append, DMA)
  SendRecv,  // point-to-point transfer between two devices (pipeline stages)
};

// How an operand's accessed elements relate to its tensor's elements: Exact operands must match
// the tensor; Partial operands touch a part of a larger tensor (a KV-cache prefix, embedding rows,
// the experts that received tokens), so their accessed elements may not exceed the tensor's.
enum class Access { Exact, Partial };

using TensorId = std::int32_t;
using OpId = std::int32_t;

// One operator of an OpGraph (workloads/opgraph/op_graph.h): its kind, named dimensions and
// operands; what the kind makes of them is below.
struct Operator {
  OpId id = -1;
  std::string name;
  OpKind kind = OpKind::Copy;
  std::map<std::string, std::int64_t> dims;
  std::vector<std::int64_t> group_sizes;  // GroupedGemm: rows of each group
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  std::vector<OpId> deps;  // operators that must finish first (data dependencies included)
  std::string compute;     // format the arithmetic runs in ("fp16", "int8", ...); empty: n/a
  std::string accumulate;  // accumulation format of matrix products; empty: n/a
  std::int32_t layer = -1;
  std::int32_t device = -1;

  std::int64_t dim(const std::string& name) const;  // throws std::logic_error when absent
};

struct OperandRule {
  const char* role;  // "a", "b", "cache", ... for messages and docs
  Access access;
};

struct OpKindInfo {
  OpKind kind;
  const char* name;  // JSON Lines name, e.g. "grouped_gemm"
  const char* summary;
  std::vector<const char*> dims;                                 // required dimensions
  std::vector<std::pair<const char*, std::int64_t>> optional_dims;  // with defaults
  std::vector<OperandRule> inputs;
  std::vector<OperandRule> outputs;
  int optional_inputs = 0;  // trailing inputs that may be left out (a GEMM's bias)
  const char* flop_rule;    // the FLOP convention, as documented
};

const std::vector<OpKindInfo>& op_kinds();
const OpKindInfo& op_kind_info(OpKind kind);
std::optional<OpKind> find_op_kind(std::string_view name);
const char* op_kind_name(OpKind kind);

// Elements an operator reads from input i / writes to output i, from its dimensions.
std::int64_t input_elements(const Operator& op, std::size_t i);
std::int64_t output_elements(const Operator& op, std::size_t i);
// FLOPs of one execution of the operator (see the conventions above).
double op_flops(const Operator& op);
// Query/key pairs an attention operator scores: q_len·kv_len, or the causal count.
std::int64_t attention_pairs(const Operator& op);
// Whether every count the models form from the operator's dimensions in 64-bit integers (each
// operand's elements, attention's pairs, the multiply-adds) stays within `limit`; evaluated
// without forming them, so a hostile dimension cannot overflow the check itself.
bool op_counts_fit(const Operator& op, double limit);

}  // namespace strata
