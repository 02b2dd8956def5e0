#include "workloads/opgraph/op_kinds.h"

#include <stdexcept>

#include <fmt/format.h>

namespace strata {

namespace {

constexpr Access X = Access::Exact;
constexpr Access P = Access::Partial;

std::vector<OpKindInfo> make_kinds() {
  using K = OpKind;
  // One kind per entry, laid out as a table.
  // clang-format off
  return {
      {K::Gemm, "gemm", "C[m,n] = A[m,k]·B[n,k]^T (+ bias[n])", {"m", "n", "k"}, {},
       {{"a", X}, {"b", X}, {"bias", X}}, {{"c", X}}, 1, "2·m·n·k"},
      {K::Gemv, "gemv", "y[n] = W[n,k]·x[k] (+ bias[n])", {"n", "k"}, {},
       {{"x", X}, {"w", X}, {"bias", X}}, {{"y", X}}, 1, "2·n·k"},
      {K::BatchedGemm, "batched_gemm", "batch GEMMs of one shape: C[b,m,n] = A[b,m,k]·B[b,n,k]^T",
       {"batch", "m", "n", "k"}, {}, {{"a", X}, {"b", X}}, {{"c", X}}, 0, "2·batch·m·n·k"},
      {K::GroupedGemm, "grouped_gemm",
       "one GEMM per group (MoE expert) over its rows: A[m,k] rows split by group_sizes, W[groups,n,k]",
       {"groups", "m", "n", "k"}, {}, {{"a", X}, {"w", P}}, {{"c", X}}, 0,
       "2·m·n·k; only groups with rows read their weights"},
      {K::SpMM, "spmm", "C[rows,n] = S[rows,cols]·B[cols,n], S sparse with nnz nonzeros (a CSR graph, sparse "
                        "features, or a dense tensor of which only the nnz nonzeros are read)",
       {"rows", "cols", "nnz", "n"}, {{"b_nnz", 0}}, {{"s", P}, {"b", X}}, {{"c", X}}, 0,
       "2·nnz·n; b_nnz: the nonzeros of B when it is sparse (an engine that skips zeros reads and multiplies only "
       "those), 0 when dense"},
      {K::SDDMM, "sddmm", "C = (U[rows,k]·V[cols,k]^T) sampled at the nnz positions of S",
       {"rows", "cols", "nnz", "k"}, {}, {{"s", X}, {"u", X}, {"v", X}}, {{"c", X}}, 0, "2·nnz·k"},
      {K::Attention, "attention",
       "softmax(Q·K^T/sqrt(d))·V over q_len queries and kv_len cached keys; without input v the values are the "
       "first v_head_dim of each key (MLA's shared latent)",
       {"batch", "heads", "kv_heads", "head_dim", "q_len", "kv_len"},
       {{"v_head_dim", 0}, {"causal", 0}}, {{"q", X}, {"k", P}, {"v", P}}, {{"o", X}}, 1,
       "2·batch·heads·pairs·(head_dim + v_head_dim); pairs = q_len·kv_len, or the causal count"},
      {K::Softmax, "softmax", "row-wise softmax", {"rows", "cols"}, {}, {{"x", X}}, {{"y", X}}, 0,
       "5 per element (max, subtract, exp, sum, divide)"},
      {K::LayerNorm, "layer_norm", "layer normalization over cols, with gamma and beta", {"rows", "cols"}, {},
       {{"x", X}, {"weight", X}}, {{"y", X}}, 1, "7 per element"},
      {K::RmsNorm, "rms_norm", "RMS normalization over cols, with a gain", {"rows", "cols"}, {},
       {{"x", X}, {"weight", X}}, {{"y", X}}, 1, "4 per element"},
      {K::Add, "add", "element-wise sum (residuals)", {"elements"}, {}, {{"a", X}, {"b", X}}, {{"c", X}}, 0,
       "1 per element"},
      {K::Mul, "mul", "element-wise product (gating)", {"elements"}, {}, {{"a", X}, {"b", X}}, {{"c", X}}, 0,
       "1 per element"},
      {K::Gelu, "gelu", "GELU (tanh form)", {"elements"}, {}, {{"x", X}}, {{"y", X}}, 0, "8 per element"},
      {K::Silu, "silu", "SiLU, x·sigmoid(x)", {"elements"}, {}, {{"x", X}}, {{"y", X}}, 0, "4 per element"},
      {K::Relu, "relu", "ReLU", {"elements"}, {}, {{"x", X}}, {{"y", X}}, 0, "1 per element"},
      {K::Embedding, "embedding",
       "look up `tokens` rows of width `dim` in a table; table_rows: the distinct rows read (0: tokens; learned "
       "positions repeat theirs in every sequence)",
       {"tokens", "dim"}, {{"table_rows", 0}},
       {{"table", P}}, {{"y", X}}, 0, "0"},
      {K::TopK, "top_k", "per row, the k largest of cols values and their indices", {"rows", "cols", "k"}, {},
       {{"x", X}}, {{"y", X}}, 0, "1 per input element (comparisons)"},
      {K::Gather, "gather",
       "read `rows` rows of width cols from src_rows source rows (0: rows), repeats allowed (MoE dispatch)",
       {"rows", "cols"}, {{"src_rows", 0}}, {{"x", P}}, {{"y", X}}, 0, "0"},
      {K::Scatter, "scatter",
       "write `rows` rows of width cols into dst_rows rows (0: rows); accumulate=1 adds them scaled by a "
       "per-row weight (MoE combine)",
       {"rows", "cols"}, {{"dst_rows", 0}, {"accumulate", 0}}, {{"x", X}}, {{"y", P}}, 0,
       "2·rows·cols when accumulating, else 0"},
      {K::AllToAll, "all_to_all", "exchange of a tensor of `elements` elements spread evenly over `devices` devices",
       {"elements", "devices"}, {}, {{"x", X}}, {{"y", X}}, 0, "0"},
      {K::AllReduce, "all_reduce", "sum over `devices` devices of a tensor of `elements` elements, result on all",
       {"elements", "devices"}, {}, {{"x", X}}, {{"y", X}}, 0, "elements·(devices−1)"},
      {K::Copy, "copy", "plain data movement (KV-cache append, DMA); may write part of a larger tensor",
       {"elements"}, {}, {{"x", X}}, {{"y", P}}, 0, "0"},
      {K::SendRecv, "send_recv",
       "a tensor of `elements` elements sent from one device to another (pipeline stages); in a placed graph the "
       "sender's and the receiver's copies of the operator name the same tensor",
       {"elements"}, {}, {{"x", X}}, {{"y", X}}, 0, "0"},
  };
  // clang-format on
}

std::int64_t dim_or(const Operator& op, const char* name, std::int64_t fallback) {
  auto it = op.dims.find(name);
  return it == op.dims.end() ? fallback : it->second;
}

// A row count that defaults to `rows` when given as 0.
std::int64_t rows_or(const Operator& op, const char* name) {
  const std::int64_t v = dim_or(op, name, 0);
  return v > 0 ? v : op.dim("rows");
}

std::int64_t active_groups(const Operator& op) {
  std::int64_t n = 0;
  for (auto rows : op.group_sizes) n += rows > 0;
  return op.group_sizes.empty() ? op.dim("groups") : n;
}

std::int64_t v_dim(const Operator& op) {
  const std::int64_t v = dim_or(op, "v_head_dim", 0);
  return v > 0 ? v : op.dim("head_dim");
}

}  // namespace

const std::vector<OpKindInfo>& op_kinds() {
  static const std::vector<OpKindInfo> kinds = make_kinds();
  return kinds;
}

const OpKindInfo& op_kind_info(OpKind kind) { return op_kinds().at(static_cast<size_t>(kind)); }

std::optional<OpKind> find_op_kind(std::string_view name) {
  for (const auto& k : op_kinds())
    if (name == k.name) return k.kind;
  return std::nullopt;
}

const char* op_kind_name(OpKind kind) { return op_kind_info(kind).name; }

namespace {

// The element counts and pairs below are evaluated twice: in 64-bit integers for the models,
// and in doubles to check, before the integers are ever formed, that none of them overflows
// (op_counts_fit). One template keeps the two evaluations the same formulas.
template <class N>
N attention_pairs_as(const Operator& op) {
  const N q = static_cast<N>(op.dim("q_len")), kv = static_cast<N>(op.dim("kv_len"));
  if (!dim_or(op, "causal", 0)) return q * kv;
  // Query i (of q_len, the last queries of a kv_len sequence) sees kv_len - q_len + i + 1 keys.
  return q * (kv - q) + q * (q + 1) / 2;
}

template <class N>
N input_elements_as(const Operator& op, std::size_t i) {
  auto d = [&](const char* n) { return static_cast<N>(op.dim(n)); };
  switch (op.kind) {
    case OpKind::Gemm: return i == 0 ? d("m") * d("k") : i == 1 ? d("n") * d("k") : d("n");
    case OpKind::Gemv: return i == 0 ? d("k") : i == 1 ? d("n") * d("k") : d("n");
    case OpKind::BatchedGemm: return d("batch") * (i == 0 ? d("m") : d("n")) * d("k");
    case OpKind::GroupedGemm: return i == 0 ? d("m") * d("k") : static_cast<N>(active_groups(op)) * d("n") * d("k");
    case OpKind::SpMM: return i == 0 ? d("nnz") : d("cols") * d("n");
    case OpKind::SDDMM: return i == 0 ? d("nnz") : (i == 1 ? d("rows") : d("cols")) * d("k");
    case OpKind::Attention: {
      const N b = d("batch");
      if (i == 0) return b * d("heads") * d("q_len") * d("head_dim");
      return b * d("kv_heads") * d("kv_len") * (i == 1 ? d("head_dim") : static_cast<N>(v_dim(op)));
    }
    case OpKind::Softmax: return d("rows") * d("cols");
    case OpKind::LayerNorm: return i == 0 ? d("rows") * d("cols") : 2 * d("cols");
    case OpKind::RmsNorm: return i == 0 ? d("rows") * d("cols") : d("cols");
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::Relu:
    case OpKind::AllToAll:
    case OpKind::AllReduce:
    case OpKind::Copy:
    case OpKind::SendRecv: return d("elements");
    case OpKind::Embedding: return (dim_or(op, "table_rows", 0) > 0 ? d("table_rows") : d("tokens")) * d("dim");
    case OpKind::Gather: return static_cast<N>(rows_or(op, "src_rows")) * d("cols");
    case OpKind::TopK:
    case OpKind::Scatter: return d("rows") * d("cols");
  }
  throw std::logic_error("input_elements: unknown kind");
}

template <class N>
N output_elements_as(const Operator& op) {
  auto d = [&](const char* n) { return static_cast<N>(op.dim(n)); };
  switch (op.kind) {
    case OpKind::Gemm:
    case OpKind::GroupedGemm: return d("m") * d("n");
    case OpKind::Gemv: return d("n");
    case OpKind::BatchedGemm: return d("batch") * d("m") * d("n");
    case OpKind::SpMM: return d("rows") * d("n");
    case OpKind::SDDMM: return d("nnz");
    case OpKind::Attention: return d("batch") * d("heads") * d("q_len") * static_cast<N>(v_dim(op));
    case OpKind::TopK: return d("rows") * d("k");
    case OpKind::Embedding: return d("tokens") * d("dim");
    case OpKind::Gather: return d("rows") * d("cols");
    case OpKind::Scatter: return static_cast<N>(rows_or(op, "dst_rows")) * d("cols");
    default: return input_elements_as<N>(op, 0);
  }
}

}  // namespace

std::int64_t attention_pairs(const Operator& op) { return attention_pairs_as<std::int64_t>(op); }
std::int64_t input_elements(const Operator& op, std::size_t i) { return input_elements_as<std::int64_t>(op, i); }
std::int64_t output_elements(const Operator& op, std::size_t) { return output_elements_as<std::int64_t>(op); }

bool op_counts_fit(const Operator& op, double limit) {
  const OpKindInfo& info = op_kind_info(op.kind);
  for (std::size_t i = 0; i < info.inputs.size(); ++i)
    if (!(input_elements_as<double>(op, i) <= limit)) return false;
  if (!(output_elements_as<double>(op) <= limit)) return false;
  if (op.kind == OpKind::Attention && !(attention_pairs_as<double>(op) <= limit)) return false;
  // Multiply-adds (half the FLOPs of a matrix product) are counted in integers too.
  return op_flops(op) / 2 <= limit;
}

double op_flops(const Operator& op) {
  auto d = [&](const char* n) { return static_cast<double>(op.dim(n)); };
  switch (op.kind) {
    case OpKind::Gemm:
    case OpKind::GroupedGemm: return 2 * d("m") * d("n") * d("k");
    case OpKind::Gemv: return 2 * d("n") * d("k");
    case OpKind::BatchedGemm: return 2 * d("batch") * d("m") * d("n") * d("k");
    case OpKind::SpMM: return 2 * d("nnz") * d("n");
    case OpKind::SDDMM: return 2 * d("nnz") * d("k");
    case OpKind::Attention:
      return 2 * d("batch") * d("heads") * attention_pairs_as<double>(op) *
             (d("head_dim") + static_cast<double>(v_dim(op)));
    case OpKind::Softmax: return 5 * d("rows") * d("cols");
    case OpKind::LayerNorm: return 7 * d("rows") * d("cols");
    case OpKind::RmsNorm: return 4 * d("rows") * d("cols");
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Relu: return d("elements");
    case OpKind::Gelu: return 8 * d("elements");
    case OpKind::Silu: return 4 * d("elements");
    case OpKind::TopK: return d("rows") * d("cols");
    case OpKind::Scatter: return dim_or(op, "accumulate", 0) ? 2 * d("rows") * d("cols") : 0;
    case OpKind::AllReduce: return d("elements") * (d("devices") - 1);
    case OpKind::Embedding:
    case OpKind::Gather:
    case OpKind::AllToAll:
    case OpKind::Copy:
    case OpKind::SendRecv: return 0;
  }
  throw std::logic_error("op_flops: unknown kind");
}

std::int64_t Operator::dim(const std::string& n) const {
  auto it = dims.find(n);
  if (it == dims.end()) throw std::logic_error(fmt::format("operator '{}' has no dimension '{}'", name, n));
  return it->second;
}

}  // namespace strata
