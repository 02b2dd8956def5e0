// The GPU mapper's lowering (gpu_mapper.h): tensors placed in global memory, then each operator
// lowered by its family (products, attention, sparse, grouped, collectives, streaming), with
// the fusions `fuse` allows.
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "accelerators/gpu/gpu_mapper.h"
#include "accelerators/gpu/kernels/attention_kernel.h"
#include "accelerators/gpu/kernels/gemv_kernel.h"
#include "accelerators/gpu/kernels/grouped_gemm_kernel.h"
#include "accelerators/gpu/kernels/streaming_kernel.h"
#include "sim/input_error.h"

namespace strata {

namespace {

constexpr std::uint64_t kAlign = 4096;

std::uint64_t align(std::uint64_t a) { return (a + kAlign - 1) / kAlign * kAlign; }

// Special-function instructions per element, and passes over a row, of the streaming kinds.
struct StreamShape {
  double sfu = 0;
  int passes = 0;  // 0: element-wise
};
StreamShape stream_shape(OpKind k) {
  switch (k) {
    case OpKind::Softmax: return {1, 3};  // max, sum of exps, scale
    case OpKind::LayerNorm: return {0, 2};
    case OpKind::RmsNorm: return {0, 1};
    case OpKind::TopK: return {0, 1};
    case OpKind::Gelu:
    case OpKind::Silu: return {1, 0};
    default: return {0, 0};
  }
}

// Element-wise and normalisation kinds that fuse with their neighbours (fused kernels).
bool fusible(OpKind k) {
  switch (k) {
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::Relu:
    case OpKind::RmsNorm:
    case OpKind::LayerNorm:
    case OpKind::Softmax: return true;
    default: return false;
  }
}

// The streaming kernel the mapper emitted last, while later operators may still fuse into it.
struct FusionCandidate {
  std::size_t op = 0;  // index in GpuProgram::ops
  StreamingWork work;
  std::vector<std::uint64_t> outputs;  // where its results start
  int fused = 1;
};

// Element-wise operators a product's epilogue applies to its result (GemmEpilogue).
bool epilogue_fusible(OpKind k) { return k == OpKind::Gelu || k == OpKind::Silu || k == OpKind::Relu; }

// The product the mapper lowered last, while an activation reading its result may still join
// its epilogue.
struct EpilogueCandidate {
  std::size_t op = 0;    // index in GpuProgram::ops
  std::size_t next = 0;  // the index the next fused operator must have (op + 1 + those fused)
  GemmProblem problem;
  std::optional<GemmConfig> config;  // empty: a GEMV
};

// `next` reading `first`'s result `at` merged into one kernel: the result stays in registers
// unless `keep` (another operator reads it too: written as well, as vLLM's fused_add_rms_norm
// writes the residual). Nothing when their row shapes differ.
std::optional<StreamingWork> fuse(const StreamingWork& first, const StreamingWork& next, std::uint64_t at, bool keep) {
  if (first.row > 0 && next.row > 0 && first.row != next.row) return std::nullopt;
  StreamingWork w = first;
  w.elements = std::max(first.elements, next.elements);
  for (const StreamOperand& o : next.reads)
    if (o.base != at) w.reads.push_back(o);
  if (!keep)
    w.writes.erase(
        std::remove_if(w.writes.begin(), w.writes.end(), [at](const StreamOperand& o) { return o.base == at; }),
        w.writes.end());
  w.writes.insert(w.writes.end(), next.writes.begin(), next.writes.end());
  w.fp32_per_element = first.fp32_per_element + next.fp32_per_element;
  w.sfu_per_element = first.sfu_per_element + next.sfu_per_element;
  w.flops = first.flops + next.flops;
  w.row = std::max(first.row, next.row);
  w.passes = std::max(first.passes, next.passes);
  return w;
}

// One graph's lowering: the tensors' addresses, then each operator in graph order, by family.
class GraphLowering {
 public:
  GraphLowering(const OpGraph& graph, const GpuKernelTarget& target, const GpuKernelChoices& choices)
      : graph_(graph), target_(target), choices_(choices), order_(graph.topological_order()) {}
  GpuProgram run();

 private:
  void merge_projections();
  void place_tensors();
  void lower(OpId id);
  void lower_family(const Operator& op, GpuLoweredOp& lowered);
  void lower_product(const Operator& op, GpuLoweredOp& lowered);
  void lower_attention(const Operator& op, GpuLoweredOp& lowered);
  void lower_decode_attention(const Operator& op, GpuLoweredOp& lowered);
  AttentionProblem attention_problem(const Operator& op) const;
  void lower_sparse(const Operator& op, GpuLoweredOp& lowered);
  void lower_grouped(const Operator& op, GpuLoweredOp& lowered);
  void lower_streaming(const Operator& op, GpuLoweredOp& lowered);
  StreamingWork streaming_work(const Operator& op, double flops) const;
  bool join_epilogue(const Operator& op, const StreamingWork& w, GpuLoweredOp& lowered);
  bool fuse_into_open(const Operator& op, const StreamingWork& w, GpuLoweredOp& lowered);
  // A product's A (input 0), B (input 1) and C (output 0): where they are, their bytes per
  // element, and the format it computes in.
  void product_operands(const Operator& op, GemmProblem& p) const;
  [[noreturn]] static void refuse(const Operator& op, const std::string& why) {
    throw InputError(SourceLoc{}, "", fmt::format("operator '{}' ({}): {}", op.name, op_kind_name(op.kind), why));
  }
  double bpe(TensorId id) const { return graph_.tensor(id).bytes_per_element(); }
  std::uint64_t at(TensorId id) const { return address_[static_cast<std::size_t>(id)]; }

  const OpGraph& graph_;
  const GpuKernelTarget& target_;
  const GpuKernelChoices& choices_;
  const std::vector<OpId> order_;
  GpuProgram out_;
  // Projections that read the same input, one after the other (Q, K and V; gate and up), run as
  // one product over their weights side by side, as vLLM's qkv_proj and gate_up_proj do: their
  // weights, and their results, are laid out one after the other.
  std::map<OpId, std::vector<OpId>> merged_;  // first projection -> the group
  std::map<OpId, OpId> merged_into_;          // a later projection -> the first
  std::vector<int> pack_of_;
  std::vector<std::vector<TensorId>> packs_;
  std::vector<std::uint64_t> address_;
  std::uint64_t workspace_ = 0, workspace_bytes_ = 0;
  std::map<std::string, GemmChoice> gemm_choices_;  // by shape: a model's layers repeat theirs
  std::vector<int> readers_;
  std::optional<FusionCandidate> open_;       // the streaming kernel later operators may fuse into
  std::optional<EpilogueCandidate> product_;  // the product an activation may join
};

void GraphLowering::merge_projections() {
  pack_of_.assign(graph_.tensors().size(), -1);
  if (!choices_.fuse) return;
  const auto mergeable = [&](const Operator& a, const Operator& b) {
    const auto same = [&](TensorId x, TensorId y) { return graph_.tensor(x).format == graph_.tensor(y).format; };
    return (b.kind == OpKind::Gemm || b.kind == OpKind::Gemv) && b.kind == a.kind && b.inputs.size() == 2 &&
           b.inputs[0] == a.inputs[0] && b.dims.at("k") == a.dims.at("k") &&
           (b.kind == OpKind::Gemv || b.dims.at("m") == a.dims.at("m")) && b.compute == a.compute &&
           same(b.inputs[1], a.inputs[1]) && same(b.outputs[0], a.outputs[0]) && b.device == a.device;
  };
  for (std::size_t i = 0; i < order_.size();) {
    const Operator& first = graph_.op(order_[i]);
    std::size_t j = i + 1;
    if ((first.kind == OpKind::Gemm || first.kind == OpKind::Gemv) && first.inputs.size() == 2)
      while (j < order_.size() && mergeable(first, graph_.op(order_[j]))) ++j;
    if (j - i >= 2) {
      std::vector<OpId>& group = merged_[order_[i]];
      std::vector<TensorId> weights, results;
      for (std::size_t g = i; g < j; ++g) {
        group.push_back(order_[g]);
        if (g > i) merged_into_[order_[g]] = order_[i];
        weights.push_back(graph_.op(order_[g]).inputs[1]);
        results.push_back(graph_.op(order_[g]).outputs[0]);
      }
      for (const auto& pack : {weights, results}) {
        for (const TensorId t : pack) pack_of_[static_cast<std::size_t>(t)] = static_cast<int>(packs_.size());
        packs_.push_back(pack);
      }
    }
    i = j;
  }
}

void GraphLowering::place_tensors() {
  address_.assign(graph_.tensors().size(), 0);
  std::vector<bool> placed(graph_.tensors().size(), false);
  std::uint64_t next = kAlign;
  for (const Tensor& t : graph_.tensors()) {
    if (placed[static_cast<std::size_t>(t.id)]) continue;
    const int pack = pack_of_[static_cast<std::size_t>(t.id)];
    for (const TensorId m : pack >= 0 ? packs_[static_cast<std::size_t>(pack)] : std::vector<TensorId>{t.id}) {
      address_[static_cast<std::size_t>(m)] = next;
      placed[static_cast<std::size_t>(m)] = true;
      next += std::max<std::uint64_t>(graph_.tensor(m).bytes, 1);
    }
    next = align(next);
  }
  workspace_ = next;
}

void GraphLowering::product_operands(const Operator& op, GemmProblem& p) const {
  const TensorId a = op.inputs[0], b = op.inputs[1], c = op.outputs[0];
  p.a_bytes = bpe(a);
  p.b_bytes = bpe(b);
  p.c_bytes = bpe(c);
  p.a = at(a);
  p.b = at(b);
  p.c = at(c);
  p.compute = op.compute.empty() ? graph_.tensor(a).format : op.compute;
}

GpuProgram GraphLowering::run() {
  merge_projections();
  place_tensors();
  readers_.assign(graph_.tensors().size(), 0);
  for (const Operator& op : graph_.ops())
    for (const TensorId t : op.inputs) ++readers_[static_cast<std::size_t>(t)];
  for (const OpId id : order_) lower(id);
  out_.memory_bytes = workspace_ + workspace_bytes_;
  return std::move(out_);
}

void GraphLowering::lower(OpId id) {
  const Operator& op = graph_.op(id);
  GpuLoweredOp lowered;
  lowered.op = id;
  lowered.name = op.name;
  lowered.flops = op_flops(op);
  if (const auto into = merged_into_.find(id); into != merged_into_.end()) {
    lowered.config = "merged into " + graph_.op(into->second).name;
    out_.ops.push_back(std::move(lowered));
    open_.reset();
    return;
  }
  try {
    lower_family(op, lowered);
  } catch (const std::invalid_argument& e) {
    refuse(op, e.what());
  }
  for (const GpuKernel& k : lowered.kernels) {
    try {
      target_.fit(k.launch);
    } catch (const std::invalid_argument& e) {
      refuse(op, fmt::format("its {} kernel cannot run on this gpu: {}", k.generator, e.what()));
    }
    lowered.min_bytes += k.min_bytes;
  }
  if (!(fusible(op.kind) && open_ && open_->op == out_.ops.size())) open_.reset();
  if (product_ && product_->next != out_.ops.size() + 1) product_.reset();  // neither the product nor its activation
  out_.ops.push_back(std::move(lowered));
}

void GraphLowering::lower_family(const Operator& op, GpuLoweredOp& lowered) {
  switch (op.kind) {
    case OpKind::Gemm:
    case OpKind::Gemv:
    case OpKind::BatchedGemm: return lower_product(op, lowered);
    case OpKind::Attention:
      return op.dim("q_len") > 1 ? lower_attention(op, lowered) : lower_decode_attention(op, lowered);
    case OpKind::SpMM:
    case OpKind::SDDMM: return lower_sparse(op, lowered);
    case OpKind::GroupedGemm: return lower_grouped(op, lowered);
    case OpKind::AllToAll:
    case OpKind::AllReduce:
    case OpKind::SendRecv:
      if (!choices_.external_collectives) refuse(op, "a collective needs several GPUs: put the gpu in a package");
      lowered.external = true;
      lowered.config = "collective";
      return;
    default: return lower_streaming(op, lowered);
  }
}

void GraphLowering::lower_product(const Operator& op, GpuLoweredOp& lowered) {
  const bool gemv = op.kind == OpKind::Gemv;
  GemmProblem p;
  p.name = op.name;
  p.m = gemv ? 1 : op.dim("m");
  p.n = op.dim("n");
  p.k = op.dim("k");
  p.batch = op.kind == OpKind::BatchedGemm ? op.dim("batch") : 1;
  const auto group = merged_.find(op.id);
  if (group != merged_.end())
    for (std::size_t g = 1; g < group->second.size(); ++g) p.n += graph_.op(group->second[g]).dim("n");
  product_operands(op, p);
  // A linear layer's bias is added in the epilogue (merged projections have none).
  if (op.kind != OpKind::BatchedGemm && op.inputs.size() > 2) {
    p.epilogue.bias = at(op.inputs[2]);
    p.epilogue.bias_bytes = bpe(op.inputs[2]);
    p.epilogue.flops = static_cast<double>(p.m) * static_cast<double>(p.n);
  }
  std::optional<GemmConfig> config;
  if (p.m <= kGemvMaxRows && p.batch == 1) {
    lowered.kernels = make_gemv(p, target_, workspace_);
    lowered.config = "gemv";
  } else {
    const std::string key =
        fmt::format("{} {} {} {} {} {} {} {}", p.m, p.n, p.k, p.batch, p.compute, p.a_bytes, p.b_bytes, p.c_bytes);
    auto it = gemm_choices_.find(key);
    if (it == gemm_choices_.end()) {
      it = gemm_choices_.emplace(key, choose_gemm(p, target_, choices_.gemm)).first;
      out_.candidates += it->second.candidates;
    }
    lowered.kernels = make_gemm(p, it->second.config, target_, workspace_);
    lowered.config = it->second.config.label();
    config = it->second.config;
  }
  if (group == merged_.end() && op.kind != OpKind::BatchedGemm)  // one result: an activation may join
    product_ = EpilogueCandidate{out_.ops.size(), out_.ops.size() + 1, p, config};
  if (group != merged_.end()) lowered.kernels.front().choices["merged_ops"] = static_cast<double>(group->second.size());
  if (lowered.kernels.size() > 1)  // the partials, and C
    workspace_bytes_ = std::max(workspace_bytes_, lowered.kernels.back().launch.expected_dram_bytes);
}

AttentionProblem GraphLowering::attention_problem(const Operator& op) const {
  AttentionProblem a;
  a.name = op.name;
  a.batch = op.dim("batch");
  a.heads = op.dim("heads");
  a.kv_heads = op.dim("kv_heads");
  a.q_len = op.dim("q_len");
  a.kv_len = op.dim("kv_len");
  a.head_dim = op.dim("head_dim");
  a.v_dim = op.dims.count("v_head_dim") && op.dim("v_head_dim") > 0 ? op.dim("v_head_dim") : a.head_dim;
  a.causal = op.dims.count("causal") && op.dim("causal") != 0;
  a.compute = op.compute.empty() ? graph_.tensor(op.inputs[0]).format : op.compute;
  a.q_bytes = bpe(op.inputs[0]);
  a.kv_bytes = bpe(op.inputs[1]);
  a.o_bytes = bpe(op.outputs[0]);
  a.q = at(op.inputs[0]);
  a.k = at(op.inputs[1]);
  a.v = op.inputs.size() > 2 ? at(op.inputs[2]) : a.k;  // MLA: the latent serves as the values
  a.o = at(op.outputs[0]);
  return a;
}

void GraphLowering::lower_attention(const Operator& op, GpuLoweredOp& lowered) {
  const AttentionProblem a = attention_problem(op);
  AttentionKernel kind = choose_attention_kernel(a, target_, choices_.attention);
  GpuKernel kernel = make_flash_attention(a, target_, kind);
  if (choices_.attention == AttentionKernel::Auto && kind == AttentionKernel::Flash3) {
    try {  // FlashAttention-3's three warp groups need an SM that holds them; else FA2's four warps
      target_.fit(kernel.launch);
    } catch (const std::invalid_argument&) {
      kind = AttentionKernel::Flash2;
      kernel = make_flash_attention(a, target_, kind);
    }
  }
  lowered.kernels.push_back(std::move(kernel));
  lowered.config = attention_kernel_name(kind);
}

// FlashAttention-2's split-KV path where it runs (tensor cores, heads of at most 256 with values
// as wide); else (MLA's 576-wide latent heads, GPUs without tensor cores) a stream over the
// K and V cache with the scores' FMAs and an exp a score.
void GraphLowering::lower_decode_attention(const Operator& op, GpuLoweredOp& lowered) {
  try {
    SplitKvDecode d = make_split_kv_decode(attention_problem(op), target_, workspace_);
    target_.fit(d.kernels.front().launch);
    workspace_bytes_ = std::max(workspace_bytes_, d.workspace_bytes);
    lowered.config = "split_kv";
    lowered.kernels = std::move(d.kernels);
    return;
  } catch (const std::invalid_argument&) {
  }
  StreamingWork w;
  w.name = op.name;
  const double scores = static_cast<double>(op.dim("batch") * op.dim("heads") * op.dim("kv_len"));
  w.elements = static_cast<double>(input_elements(op, 1) + input_elements(op, 2));
  for (std::size_t i = 0; i < op.inputs.size(); ++i)
    w.reads.push_back(
        {at(op.inputs[i]), static_cast<std::uint64_t>(static_cast<double>(input_elements(op, i)) * bpe(op.inputs[i]))});
  w.writes.push_back({at(op.outputs[0]),
                      static_cast<std::uint64_t>(static_cast<double>(output_elements(op, 0)) * bpe(op.outputs[0]))});
  w.flops = lowered.flops;
  w.fp32_per_element = std::max(1.0, lowered.flops / 2 / w.elements);
  w.sfu_per_element = scores / w.elements;
  lowered.kernels.push_back(make_streaming(w, target_));
  lowered.kernels.back().generator = "attention.kv_stream";
  lowered.config = "kv_stream";
}

void GraphLowering::lower_sparse(const Operator& op, GpuLoweredOp& lowered) {
  const bool spmm = op.kind == OpKind::SpMM;
  const Tensor& s = graph_.tensor(op.inputs[0]);
  SparseProblem p;
  p.name = op.name;
  p.rows = op.dim("rows");
  p.cols = op.dim("cols");
  p.nnz = op.dim("nnz");
  p.n = op.dim(spmm ? "n" : "k");
  p.structure = s.structure;
  const double index_bytes = static_cast<double>(p.rows + 1) * 4 + static_cast<double>(p.nnz) * 4;
  p.value_bytes =
      p.nnz > 0 ? std::max(0.0, (static_cast<double>(s.bytes) - index_bytes) / static_cast<double>(p.nnz)) : 0;
  p.dense_bytes = bpe(op.inputs[1]);
  p.c_bytes = bpe(op.outputs[0]);
  p.row_ptr = at(op.inputs[0]);
  p.col_idx = p.row_ptr + static_cast<std::uint64_t>(p.rows + 1) * 4;
  p.values = p.col_idx + static_cast<std::uint64_t>(p.nnz) * 4;
  p.b = at(op.inputs[1]);
  if (!spmm) p.v = at(op.inputs[2]);
  p.c = at(op.outputs[0]);
  lowered.kernels.push_back(spmm ? make_spmm(p, choices_.spmm, target_) : make_sddmm(p, target_));
  lowered.config = lowered.kernels.back().generator;
}

void GraphLowering::lower_grouped(const Operator& op, GpuLoweredOp& lowered) {
  GemmProblem p;
  p.name = op.name;
  p.n = op.dim("n");
  p.k = op.dim("k");
  product_operands(op, p);
  const GemmChoice choice = choose_grouped_gemm(p, op.group_sizes, target_, choices_.gemm);
  out_.candidates += choice.candidates;
  lowered.kernels.push_back(make_grouped_gemm(p, op.group_sizes, choice.config, target_));
  lowered.config = choice.config.label();
}

StreamingWork GraphLowering::streaming_work(const Operator& op, double flops) const {
  StreamingWork w;
  w.name = op.name;
  const StreamShape shape = stream_shape(op.kind);
  double elements = 0;
  for (std::size_t i = 0; i < op.outputs.size(); ++i)
    elements = std::max(elements, static_cast<double>(output_elements(op, i)));
  for (std::size_t i = 0; i < op.inputs.size(); ++i)
    elements = std::max(elements, static_cast<double>(input_elements(op, i)));
  w.elements = elements;
  const std::int64_t row = shape.passes > 0 ? op.dim("cols") : 0;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    StreamOperand o{at(op.inputs[i]),
                    static_cast<std::uint64_t>(static_cast<double>(input_elements(op, i)) * bpe(op.inputs[i]))};
    if (static_cast<double>(input_elements(op, i)) < elements) o.per_element = bpe(op.inputs[i]);  // a broadcast
    w.reads.push_back(o);
  }
  for (std::size_t i = 0; i < op.outputs.size(); ++i)
    w.writes.push_back({at(op.outputs[i]),
                        static_cast<std::uint64_t>(static_cast<double>(output_elements(op, i)) * bpe(op.outputs[i]))});
  w.flops = flops;
  w.fp32_per_element = std::max(1.0, flops / std::max(1.0, elements));
  w.sfu_per_element = shape.sfu;
  w.row = row;
  w.passes = std::max(1, shape.passes);
  return w;
}

// An activation of the product just lowered, which nothing else reads, joins its epilogue.
bool GraphLowering::join_epilogue(const Operator& op, const StreamingWork& w, GpuLoweredOp& lowered) {
  if (!(product_ && choices_.fuse && epilogue_fusible(op.kind) && product_->next == out_.ops.size() &&
        op.inputs.size() == 1 && at(op.inputs[0]) == product_->problem.c &&
        readers_[static_cast<std::size_t>(op.inputs[0])] == 1))
    return false;
  GemmProblem& p = product_->problem;
  p.epilogue.fp32 += w.fp32_per_element;
  p.epilogue.sfu += w.sfu_per_element;
  p.epilogue.flops += lowered.flops;
  ++p.epilogue.ops;
  p.c = at(op.outputs[0]);
  p.c_bytes = bpe(op.outputs[0]);
  GpuLoweredOp& into = out_.ops[product_->op];
  into.kernels =
      product_->config ? make_gemm(p, *product_->config, target_, workspace_) : make_gemv(p, target_, workspace_);
  into.min_bytes = 0;
  for (const GpuKernel& k : into.kernels) into.min_bytes += k.min_bytes;
  lowered.config = "fused into " + into.name + "'s epilogue";
  product_->next = out_.ops.size() + 1;
  return true;
}

// Fused into the kernel just emitted when this reads its result.
bool GraphLowering::fuse_into_open(const Operator& op, const StreamingWork& w, GpuLoweredOp& lowered) {
  if (!(open_ && choices_.fuse && fusible(op.kind) && open_->op + 1 == out_.ops.size())) return false;
  for (const TensorId t : op.inputs) {
    const auto it = std::find(open_->outputs.begin(), open_->outputs.end(), at(t));
    if (it == open_->outputs.end()) continue;
    auto merged = fuse(open_->work, w, at(t), readers_[static_cast<std::size_t>(t)] > 1);
    if (!merged) return false;
    // The kernel moves to this operator (and its layer: a residual add fused with the next
    // layer's norm runs at that layer's start, as in vLLM).
    GpuLoweredOp& before = out_.ops[open_->op];
    before.kernels.clear();
    before.min_bytes = 0;
    before.config = "fused into " + op.name;
    open_->work = *merged;
    open_->work.name = op.name;
    open_->op = out_.ops.size();
    ++open_->fused;
    for (const TensorId o : op.outputs) open_->outputs.push_back(at(o));
    lowered.kernels = {make_streaming(open_->work, target_)};
    lowered.kernels.back().choices["fused_ops"] = open_->fused;
    lowered.config = fmt::format("fused {} operators", open_->fused);
    return true;
  }
  return false;
}

void GraphLowering::lower_streaming(const Operator& op, GpuLoweredOp& lowered) {
  const StreamingWork w = streaming_work(op, lowered.flops);
  if (join_epilogue(op, w, lowered) || fuse_into_open(op, w, lowered)) return;
  lowered.kernels.push_back(make_streaming(w, target_));
  if (fusible(op.kind)) {
    open_ = FusionCandidate{out_.ops.size(), w, {}, 1};
    for (const TensorId o : op.outputs) open_->outputs.push_back(at(o));
  }
}

}  // namespace

GpuProgram lower_graph_to_gpu(const OpGraph& graph, const GpuKernelTarget& target,
                              const GpuKernelChoices& kernel_choices) {
  return GraphLowering(graph, target, kernel_choices).run();
}

}  // namespace strata
