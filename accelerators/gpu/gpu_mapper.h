// The GPU's mapper: lowers an operator graph to kernel launches (accelerators/gpu/kernels/),
// one or more per operator, run in the graph's order on one stream, as a framework without
// graph capture launches them.
//
//   gemm, batched_gemm        CUTLASS-style tensor-core GEMM (gemm_kernel.h), its tile chosen
//                             by choose_gemm; m <= kGemvMaxRows (decode) goes to the GEMV
//   gemv                      the batched GEMV (gemv_kernel.h)
//   attention (decode)        split-KV decode over the KV cache as a stream of K and V
//                             (Flash-Decoding's memory-bound regime): the scores' FMAs, one exp
//                             a score, and the output
//   softmax, layer_norm,      row-wise streaming kernels; add, mul, gelu, silu, relu, copy,
//   rms_norm, top_k, ...      embedding, gather, scatter: element-wise streaming kernels
//                             (streaming_kernel.h)
// Operators of other kinds (prefill attention, SpMM, SDDMM, grouped GEMM, collectives) are
// refused with an error naming the operator: their kernels are still to come (issue 22).
//
// Tensors get global addresses in graph order, each 4 KiB aligned; split-K partial sums share
// one workspace after them.
#pragma once

#include <string>
#include <vector>

#include "accelerators/gpu/kernels/gemm_kernel.h"
#include "sim/schema.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

struct GpuLoweredOp {
  OpId op = -1;
  std::string name;
  std::vector<GpuKernel> kernels;
  std::string config;  // the tile choice, for GEMMs
  double flops = 0;
  std::uint64_t min_bytes = 0;
};

struct GpuProgram {
  std::vector<GpuLoweredOp> ops;
  std::uint64_t memory_bytes = 0;  // the tensors' and the workspace's
  int candidates = 0;              // GEMM configurations the tile search estimated
};

// The gpu kind's `kernels` section: what the configuration fixes of the GEMM tile search.
const KindSpec& gpu_kernels_spec();
GemmConstraints read_gemm_constraints(const ValidatedNode& kernels);

// Throws InputError (no location) naming an operator the GPU cannot run.
GpuProgram lower_graph_to_gpu(const OpGraph& graph, const GpuKernelTarget& target, const GemmConstraints& gemm = {});

}  // namespace strata
