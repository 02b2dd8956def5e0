// The NPU mapper: lowers every operator of an OpGraph to per-core tiles (npu_program.h).
//
//   gemm, gemv, batched_gemm   split across cores by output columns (N; by rows when N is too
//                              narrow, by batch for batched), each core's part tiled by the
//                              search of accelerators/mapping/gemm_tiling.h; a GEMV is a GEMM with m = 1
//   grouped_gemm (MoE experts) experts dealt to cores (largest first, to the least loaded), each
//                              expert's GEMM tiled like a GEMM; experts without rows cost nothing
//   attention                  split by (batch, KV head); keys and values stream through the
//                              scratchpad in chunks (QKᵀ on the engine, softmax on the vector
//                              unit, PV on the engine per chunk, flash-decoding style)
//   spmm, sddmm (GNN)          rows split across cores (graph partitions of equal rows, nonzeros
//                              in proportion); CSR rows stream through the vector unit, the
//                              gathered feature rows modelled as rows spread over the source
//   softmax, norms, activations,
//   add, mul, top_k, scatter   rows or elements split across cores, chunked through the vector unit
//   embedding, gather, copy    DMA only
// Tensors live in memory at 4 KiB-aligned addresses in tensor order; operators exchange data
// through memory.
#pragma once

#include "accelerators/mapping/mapper_target.h"
#include "accelerators/npu/npu_program.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

// Throws InputError (no location: the caller names the workload) for operators the NPU cannot
// run (collectives across devices) or whose smallest tile does not fit.
NpuProgram map_graph(const OpGraph& graph, const MapperTarget& target);

// The number format an operator's arithmetic runs in (its `compute`, or its first input's
// format), as a base number format name ("int8", "fp16"): group suffixes dropped.
std::string compute_format(const OpGraph& graph, const Operator& op);

}  // namespace strata
