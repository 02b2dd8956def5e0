#include "accelerators/gpu/gpu_mapper.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include <fmt/format.h>

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
    w.writes.erase(std::remove_if(w.writes.begin(), w.writes.end(), [at](const StreamOperand& o) { return o.base == at; }),
                   w.writes.end());
  w.writes.insert(w.writes.end(), next.writes.begin(), next.writes.end());
  w.fp32_per_element = first.fp32_per_element + next.fp32_per_element;
  w.sfu_per_element = first.sfu_per_element + next.sfu_per_element;
  w.flops = first.flops + next.flops;
  w.row = std::max(first.row, next.row);
  w.passes = std::max(first.passes, next.passes);
  return w;
}

}  // namespace

const KindSpec& gpu_kernels_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "kernels";
    s.category = "section";
    s.description =
        "how the mapper lowers operator graphs to kernels (gpu_mapper.h); empty or 0: the tile search's choice";
    s.add(param::string("gemm_tile", "the GEMM CTA tile as MxNxK, e.g. 128x256x64").def(""));
    s.add(param::integer("gemm_stages", "shared-memory stages of the GEMM main loop").def("0").range("0", "8"));
    s.add(param::integer("gemm_split_k", "K slices of a GEMM (parallel split-K)").def("0").range("0", "64"));
    s.add(param::integer("gemm_cluster", "CTAs per cluster along M of a tma_wgmma GEMM (2: B multicast)")
              .def("0")
              .range("0", "2"));
    s.add(param::choice("gemm_main_loop", {"auto", "tma_wgmma", "cp_async_mma"},
                        "auto: the GPU's latest (tma_wgmma with wgmma and TMA, else cp_async_mma)")
              .def("auto"));
    s.add(param::choice("attention", {"auto", "flash2", "flash3"},
                        "prefill attention's kernel (attention_kernel.h): FlashAttention-2's mma.sync kernel or "
                        "FlashAttention-3's TMA and wgmma one; auto: flash3 on a GPU with wgmma and TMA for heads "
                        "of at most 256, else flash2")
              .def("auto"));
    s.add(param::choice("spmm_partition", {"auto", "row_split", "merge"},
                        "how an SpMM's rows are dealt to warps (sparse_kernel.h); auto: merge when the longest row "
                        "exceeds 8x the mean")
              .def("auto"));
    s.add(param::boolean("fuse",
                         "fuse adjacent element-wise and normalisation operators into one kernel, merge "
                         "projections of one input into one product, and apply a product's activation "
                         "(gelu, silu, relu) in its epilogue, as vLLM's fused_add_rms_norm, silu_and_mul, "
                         "qkv_proj and gate_up_proj and cuBLASLt's GELU_BIAS epilogue do")
              .def("true"));
    return s;
  }();
  return spec;
}

GpuKernelChoices read_kernel_choices(const ValidatedNode& kernels) {
  const Params& p = kernels.params;
  GpuKernelChoices choices;
  GemmConstraints& c = choices.gemm;
  const std::string tile = p.string("gemm_tile");
  if (!tile.empty()) {
    char rest = 0;
    if (std::sscanf(tile.c_str(), "%dx%dx%d%c", &c.tile_m, &c.tile_n, &c.tile_k, &rest) != 3 || c.tile_m <= 0 ||
        c.tile_n <= 0 || c.tile_k <= 0 || c.tile_m > 256 || c.tile_n > 256 || c.tile_k > 256)
      throw InputError(p.where("gemm_tile"), kernels.path + ".gemm_tile",
                       fmt::format("'{}': write the tile as MxNxK, each 1 to 256, e.g. 128x256x64", tile));
  }
  c.stages = static_cast<int>(p.integer("gemm_stages"));
  c.split_k = static_cast<int>(p.integer("gemm_split_k"));
  c.cluster_m = static_cast<int>(p.integer("gemm_cluster"));
  if (p.string("gemm_main_loop") != "auto") c.main_loop = p.string("gemm_main_loop");
  const std::string spmm = p.string("spmm_partition");
  choices.spmm = spmm == "row_split" ? SpmmPartition::RowSplit
                 : spmm == "merge"   ? SpmmPartition::Merge
                                     : SpmmPartition::Auto;
  choices.fuse = p.flag("fuse");
  const std::string attention = p.string("attention");
  choices.attention = attention == "flash2"   ? AttentionKernel::Flash2
                      : attention == "flash3" ? AttentionKernel::Flash3
                                              : AttentionKernel::Auto;
  return choices;
}

GpuProgram lower_graph_to_gpu(const OpGraph& graph, const GpuKernelTarget& target,
                              const GpuKernelChoices& kernel_choices) {
  const GemmConstraints& gemm = kernel_choices.gemm;
  GpuProgram out;
  const std::vector<OpId> order = graph.topological_order();
  // Projections that read the same input, one after the other (Q, K and V; gate and up), run as
  // one product over their weights side by side, as vLLM's qkv_proj and gate_up_proj do: their
  // weights, and their results, are laid out one after the other.
  std::map<OpId, std::vector<OpId>> merged;  // first projection -> the group
  std::map<OpId, OpId> merged_into;          // a later projection -> the first
  std::vector<int> pack_of(graph.tensors().size(), -1);
  std::vector<std::vector<TensorId>> packs;
  if (kernel_choices.fuse) {
    const auto mergeable = [&](const Operator& a, const Operator& b) {
      const auto same = [&](TensorId x, TensorId y) { return graph.tensor(x).format == graph.tensor(y).format; };
      return (b.kind == OpKind::Gemm || b.kind == OpKind::Gemv) && b.kind == a.kind && b.inputs.size() == 2 &&
             b.inputs[0] == a.inputs[0] && b.dims.at("k") == a.dims.at("k") &&
             (b.kind == OpKind::Gemv || b.dims.at("m") == a.dims.at("m")) && b.compute == a.compute &&
             same(b.inputs[1], a.inputs[1]) && same(b.outputs[0], a.outputs[0]) && b.device == a.device;
    };
    for (std::size_t i = 0; i < order.size();) {
      const Operator& first = graph.op(order[i]);
      std::size_t j = i + 1;
      if ((first.kind == OpKind::Gemm || first.kind == OpKind::Gemv) && first.inputs.size() == 2)
        while (j < order.size() && mergeable(first, graph.op(order[j]))) ++j;
      if (j - i >= 2) {
        std::vector<OpId>& group = merged[order[i]];
        std::vector<TensorId> weights, results;
        for (std::size_t g = i; g < j; ++g) {
          group.push_back(order[g]);
          if (g > i) merged_into[order[g]] = order[i];
          weights.push_back(graph.op(order[g]).inputs[1]);
          results.push_back(graph.op(order[g]).outputs[0]);
        }
        for (const auto& pack : {weights, results}) {
          for (const TensorId t : pack) pack_of[static_cast<std::size_t>(t)] = static_cast<int>(packs.size());
          packs.push_back(pack);
        }
      }
      i = j;
    }
  }
  std::vector<std::uint64_t> address(graph.tensors().size());
  std::vector<bool> placed(graph.tensors().size(), false);
  std::uint64_t next = kAlign;
  for (const Tensor& t : graph.tensors()) {
    if (placed[static_cast<std::size_t>(t.id)]) continue;
    const int pack = pack_of[static_cast<std::size_t>(t.id)];
    for (const TensorId m : pack >= 0 ? packs[static_cast<std::size_t>(pack)] : std::vector<TensorId>{t.id}) {
      address[static_cast<std::size_t>(m)] = next;
      placed[static_cast<std::size_t>(m)] = true;
      next += std::max<std::uint64_t>(graph.tensor(m).bytes, 1);
    }
    next = align(next);
  }
  const std::uint64_t workspace = next;
  std::uint64_t workspace_bytes = 0;
  const auto bpe = [&](TensorId id) { return graph.tensor(id).bytes_per_element(); };
  const auto at = [&](TensorId id) { return address[static_cast<std::size_t>(id)]; };
  std::map<std::string, GemmChoice> choices;  // by shape: a model's layers repeat theirs
  // A product's A (input 0), B (input 1) and C (output 0): where they are, their bytes per
  // element, and the format it computes in.
  const auto product_operands = [&](const Operator& op, GemmProblem& p) {
    const TensorId a = op.inputs[0], b = op.inputs[1], c = op.outputs[0];
    p.a_bytes = bpe(a);
    p.b_bytes = bpe(b);
    p.c_bytes = bpe(c);
    p.a = at(a);
    p.b = at(b);
    p.c = at(c);
    p.compute = op.compute.empty() ? graph.tensor(a).format : op.compute;
  };
  std::vector<int> readers(graph.tensors().size(), 0);
  for (const Operator& op : graph.ops())
    for (const TensorId t : op.inputs) ++readers[static_cast<std::size_t>(t)];
  std::optional<FusionCandidate> open;  // the streaming kernel later operators may fuse into
  std::optional<EpilogueCandidate> product;  // the product an activation may join

  for (const OpId id : order) {
    const Operator& op = graph.op(id);
    GpuLoweredOp lowered;
    lowered.op = id;
    lowered.name = op.name;
    lowered.flops = op_flops(op);
    if (const auto into = merged_into.find(id); into != merged_into.end()) {
      lowered.config = "merged into " + graph.op(into->second).name;
      out.ops.push_back(std::move(lowered));
      open.reset();
      continue;
    }
    const auto refuse = [&](const std::string& why) {
      throw InputError(SourceLoc{}, "",
                       fmt::format("operator '{}' ({}): {}", op.name, op_kind_name(op.kind), why));
    };
    try {
      switch (op.kind) {
        case OpKind::Gemm:
        case OpKind::Gemv:
        case OpKind::BatchedGemm: {
          const bool gemv = op.kind == OpKind::Gemv;
          GemmProblem p;
          p.name = op.name;
          p.m = gemv ? 1 : op.dim("m");
          p.n = op.dim("n");
          p.k = op.dim("k");
          p.batch = op.kind == OpKind::BatchedGemm ? op.dim("batch") : 1;
          const auto group = merged.find(id);
          if (group != merged.end())
            for (std::size_t g = 1; g < group->second.size(); ++g) p.n += graph.op(group->second[g]).dim("n");
          product_operands(op, p);
          // A linear layer's bias is added in the epilogue (merged projections have none).
          if (op.kind != OpKind::BatchedGemm && op.inputs.size() > 2) {
            p.epilogue.bias = at(op.inputs[2]);
            p.epilogue.bias_bytes = bpe(op.inputs[2]);
            p.epilogue.flops = static_cast<double>(p.m) * static_cast<double>(p.n);
          }
          std::optional<GemmConfig> config;
          if (p.m <= kGemvMaxRows && p.batch == 1) {
            lowered.kernels = make_gemv(p, target, workspace);
            lowered.config = "gemv";
          } else {
            const std::string key = fmt::format("{} {} {} {} {} {} {} {}", p.m, p.n, p.k, p.batch, p.compute, p.a_bytes,
                                                p.b_bytes, p.c_bytes);
            auto it = choices.find(key);
            if (it == choices.end()) {
              it = choices.emplace(key, choose_gemm(p, target, gemm)).first;
              out.candidates += it->second.candidates;
            }
            lowered.kernels = make_gemm(p, it->second.config, target, workspace);
            lowered.config = it->second.config.label();
            config = it->second.config;
          }
          if (group == merged.end() && op.kind != OpKind::BatchedGemm)  // one result: an activation may join
            product = EpilogueCandidate{out.ops.size(), out.ops.size() + 1, p, config};
          if (group != merged.end())
            lowered.kernels.front().choices["merged_ops"] = static_cast<double>(group->second.size());
          if (lowered.kernels.size() > 1)
            workspace_bytes = std::max(workspace_bytes, lowered.kernels.back().launch.expected_dram_bytes);  // the partials, and C
          break;
        }
        case OpKind::Attention: {
          if (op.dim("q_len") > 1) {
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
            a.compute = op.compute.empty() ? graph.tensor(op.inputs[0]).format : op.compute;
            a.q_bytes = bpe(op.inputs[0]);
            a.kv_bytes = bpe(op.inputs[1]);
            a.o_bytes = bpe(op.outputs[0]);
            a.q = at(op.inputs[0]);
            a.k = at(op.inputs[1]);
            a.v = op.inputs.size() > 2 ? at(op.inputs[2]) : a.k;  // MLA: the latent serves as the values
            a.o = at(op.outputs[0]);
            AttentionKernel kind = choose_attention_kernel(a, target, kernel_choices.attention);
            GpuKernel kernel = make_flash_attention(a, target, kind);
            if (kernel_choices.attention == AttentionKernel::Auto && kind == AttentionKernel::Flash3) {
              try {  // FlashAttention-3's three warp groups need an SM that holds them; else FA2's four warps
                target.fit(kernel.launch);
              } catch (const std::invalid_argument&) {
                kind = AttentionKernel::Flash2;
                kernel = make_flash_attention(a, target, kind);
              }
            }
            lowered.kernels.push_back(std::move(kernel));
            lowered.config = attention_kernel_name(kind);
            break;
          }
          StreamingWork w;
          w.name = op.name;
          const double scores = static_cast<double>(op.dim("batch") * op.dim("heads") * op.dim("kv_len"));
          w.elements = static_cast<double>(input_elements(op, 1) + input_elements(op, 2));
          for (std::size_t i = 0; i < op.inputs.size(); ++i)
            w.reads.push_back({at(op.inputs[i]), static_cast<std::uint64_t>(static_cast<double>(input_elements(op, i)) * bpe(op.inputs[i]))});
          w.writes.push_back({at(op.outputs[0]), static_cast<std::uint64_t>(static_cast<double>(output_elements(op, 0)) * bpe(op.outputs[0]))});
          w.flops = lowered.flops;
          w.fp32_per_element = std::max(1.0, lowered.flops / 2 / w.elements);
          w.sfu_per_element = scores / w.elements;
          lowered.kernels.push_back(make_streaming(w, target));
          lowered.kernels.back().generator = "attention.split_kv_decode";
          lowered.config = "split_kv_decode";
          break;
        }
        case OpKind::SpMM:
        case OpKind::SDDMM: {
          const bool spmm = op.kind == OpKind::SpMM;
          const Tensor& s = graph.tensor(op.inputs[0]);
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
          lowered.kernels.push_back(spmm ? make_spmm(p, kernel_choices.spmm, target) : make_sddmm(p, target));
          lowered.config = lowered.kernels.back().generator;
          break;
        }
        case OpKind::GroupedGemm: {
          GemmProblem p;
          p.name = op.name;
          p.n = op.dim("n");
          p.k = op.dim("k");
          product_operands(op, p);
          const GemmChoice choice = choose_grouped_gemm(p, op.group_sizes, target, gemm);
          out.candidates += choice.candidates;
          lowered.kernels.push_back(make_grouped_gemm(p, op.group_sizes, choice.config, target));
          lowered.config = choice.config.label();
          break;
        }
        case OpKind::AllToAll:
        case OpKind::AllReduce:
        case OpKind::SendRecv:
          if (!kernel_choices.external_collectives) refuse("a collective needs several GPUs: put the gpu in a package");
          lowered.external = true;
          lowered.config = "collective";
          break;
        default: {
          StreamingWork w;
          w.name = op.name;
          const StreamShape shape = stream_shape(op.kind);
          double elements = 0;
          for (std::size_t i = 0; i < op.outputs.size(); ++i) elements = std::max(elements, static_cast<double>(output_elements(op, i)));
          for (std::size_t i = 0; i < op.inputs.size(); ++i) elements = std::max(elements, static_cast<double>(input_elements(op, i)));
          w.elements = elements;
          const std::int64_t row = shape.passes > 0 ? op.dim("cols") : 0;
          for (std::size_t i = 0; i < op.inputs.size(); ++i) {
            StreamOperand o{at(op.inputs[i]), static_cast<std::uint64_t>(static_cast<double>(input_elements(op, i)) * bpe(op.inputs[i]))};
            if (static_cast<double>(input_elements(op, i)) < elements) o.per_element = bpe(op.inputs[i]);  // a broadcast
            w.reads.push_back(o);
          }
          for (std::size_t i = 0; i < op.outputs.size(); ++i)
            w.writes.push_back({at(op.outputs[i]), static_cast<std::uint64_t>(static_cast<double>(output_elements(op, i)) * bpe(op.outputs[i]))});
          w.flops = lowered.flops;
          w.fp32_per_element = std::max(1.0, lowered.flops / std::max(1.0, elements));
          w.sfu_per_element = shape.sfu;
          w.row = row;
          w.passes = std::max(1, shape.passes);
          // An activation of the product just lowered, which nothing else reads, joins its epilogue.
          if (product && kernel_choices.fuse && epilogue_fusible(op.kind) && product->next == out.ops.size() &&
              op.inputs.size() == 1 && at(op.inputs[0]) == product->problem.c &&
              readers[static_cast<std::size_t>(op.inputs[0])] == 1) {
            GemmProblem& p = product->problem;
            p.epilogue.fp32 += w.fp32_per_element;
            p.epilogue.sfu += w.sfu_per_element;
            p.epilogue.flops += lowered.flops;
            ++p.epilogue.ops;
            p.c = at(op.outputs[0]);
            p.c_bytes = bpe(op.outputs[0]);
            GpuLoweredOp& into = out.ops[product->op];
            into.kernels =
                product->config ? make_gemm(p, *product->config, target, workspace) : make_gemv(p, target, workspace);
            into.min_bytes = 0;
            for (const GpuKernel& k : into.kernels) into.min_bytes += k.min_bytes;
            lowered.config = "fused into " + into.name + "'s epilogue";
            product->next = out.ops.size() + 1;
            break;
          }
          // Fused into the kernel just emitted when this reads its result.
          if (open && kernel_choices.fuse && fusible(op.kind) && open->op + 1 == out.ops.size()) {
            for (const TensorId t : op.inputs) {
              const auto it = std::find(open->outputs.begin(), open->outputs.end(), at(t));
              if (it == open->outputs.end()) continue;
              auto merged = fuse(open->work, w, at(t), readers[static_cast<std::size_t>(t)] > 1);
              if (!merged) break;
              // The kernel moves to this operator (and its layer: a residual add fused with the
              // next layer's norm runs at that layer's start, as in vLLM).
              GpuLoweredOp& before = out.ops[open->op];
              before.kernels.clear();
              before.min_bytes = 0;
              before.config = "fused into " + op.name;
              open->work = *merged;
              open->work.name = op.name;
              open->op = out.ops.size();
              ++open->fused;
              for (const TensorId o : op.outputs) open->outputs.push_back(at(o));
              lowered.kernels = {make_streaming(open->work, target)};
              lowered.kernels.back().choices["fused_ops"] = open->fused;
              lowered.config = fmt::format("fused {} operators", open->fused);
              break;
            }
            if (!lowered.kernels.empty()) break;
          }
          lowered.kernels.push_back(make_streaming(w, target));
          if (fusible(op.kind)) {
            open = FusionCandidate{out.ops.size(), w, {}, 1};
            for (const TensorId o : op.outputs) open->outputs.push_back(at(o));
          }
          break;
        }
      }
    } catch (const std::invalid_argument& e) {
      refuse(e.what());
    }
    for (const GpuKernel& k : lowered.kernels) {
      try {
        target.fit(k.launch);
      } catch (const std::invalid_argument& e) {
        refuse(fmt::format("its {} kernel cannot run on this gpu: {}", k.generator, e.what()));
      }
      lowered.min_bytes += k.min_bytes;
    }
    if (!(fusible(op.kind) && open && open->op == out.ops.size())) open.reset();
    if (product && product->next != out.ops.size() + 1) product.reset();  // neither the product nor its activation
    out.ops.push_back(std::move(lowered));
  }
  out.memory_bytes = workspace + workspace_bytes;
  return out;
}

}  // namespace strata
