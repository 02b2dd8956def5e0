// The GPU's mapper: lowers an operator graph to kernel launches (accelerators/gpu/kernels/),
// one or more per operator, run in the graph's order on one stream, as a framework without
// graph capture launches them.
//
//   gemm, batched_gemm        CUTLASS-style tensor-core GEMM (gemm_kernel.h), its tile chosen
//                             by choose_gemm; m <= kGemvMaxRows (decode) goes to the GEMV
//   gemv                      the batched GEMV (gemv_kernel.h)
//   grouped_gemm              one grouped launch, each CTA a tile of one group's (expert's)
//                             product (grouped_gemm_kernel.h)
//   attention (prefill)       FlashAttention-2 or -3 (attention_kernel.h)
//   attention (decode)        FlashAttention-2's split-KV kernel and its combine
//                             (make_split_kv_decode); where it does not run (MLA's heads), a
//                             stream over the K and V cache
//   spmm, sddmm               CSR kernels generated from the graph's real rows (sparse_kernel.h):
//                             row-split or merge-path SpMM, row-split SDDMM
//   softmax, layer_norm,      row-wise streaming kernels; add, mul, gelu, silu, relu, copy,
//   rms_norm, top_k, ...      embedding, gather, scatter: element-wise streaming kernels
//                             (streaming_kernel.h)
//   all_reduce, all_to_all,   in a package (package.h), ops the package times over its links
//   send_recv                 while the GPU's stream waits; refused on a GPU alone
//
// With `fuse`, adjacent element-wise and norm operators share one streaming kernel, and
// projections that read the same input one after the other run as one product over their
// weights side by side (docs/gpu.md, Fusion).
//
// Tensors get global addresses in graph order, each 4 KiB aligned (merged projections' weights,
// and their results, one after the other); split-K partial sums share
// one workspace after them. A sparse operand S holds, from its address on, its row offsets
// (int32, rows + 1), its column ids (int32, nnz) and its values (the rest of its bytes); a
// dense operand of an SpMM is read as B[cols, n], n contiguous (the layout the kernel wants,
// whatever the OpGraph's weight convention).
#pragma once

#include <string>
#include <vector>

#include "accelerators/gpu/kernels/attention_kernel.h"
#include "accelerators/gpu/kernels/gemm_kernel.h"
#include "accelerators/gpu/kernels/sparse_kernel.h"
#include "sim/schema.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

struct GpuLoweredOp {
  OpId op = -1;
  std::string name;
  std::vector<GpuKernel> kernels;
  std::string config;  // the tile choice, for GEMMs
  // A collective (all-reduce, all-to-all, send/recv) the package the GPU sits in times over its
  // links: no kernels; the stream waits for it.
  bool external = false;
  double flops = 0;
  std::uint64_t min_bytes = 0;
};

struct GpuProgram {
  std::vector<GpuLoweredOp> ops;
  std::uint64_t memory_bytes = 0;  // the tensors' and the workspace's
  int candidates = 0;              // GEMM configurations the tile search estimated
};

// How the host launches a graph's kernels (`kernels.launch`).
enum class GpuLaunchMode { Stream, Graph, Eager };

// What the configuration fixes of the generators' choices, and how the kernels are launched.
struct GpuKernelChoices {
  GemmConstraints gemm;
  SpmmPartition spmm = SpmmPartition::Auto;
  AttentionKernel attention = AttentionKernel::Auto;
  bool fuse = true;                   // fused streaming kernels and merged projections
  bool external_collectives = false;  // in a package: collectives become external ops
  GpuLaunchMode launch = GpuLaunchMode::Stream;
  double host_dispatch_s = 0;  // eager: host time a kernel launch
};

// The gpu kind's `kernels` section.
const KindSpec& gpu_kernels_spec();
GpuKernelChoices read_kernel_choices(const ValidatedNode& kernels);

// Throws InputError (no location) naming an operator the GPU cannot run.
GpuProgram lower_graph_to_gpu(const OpGraph& graph, const GpuKernelTarget& target,
                              const GpuKernelChoices& choices = {});

}  // namespace strata
