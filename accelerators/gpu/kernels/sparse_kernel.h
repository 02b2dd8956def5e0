// Sparse kernels on a CSR matrix S for GNN aggregation and attention-like edge products:
//   SpMM   C[rows, n] = S[rows, cols] · B[cols, n]   (B row-major, n contiguous)
//   SDDMM  C[e] = U[row(e), :] · V[col(e), :]  for each nonzero e of S   (U, V of depth n)
// Each warp's program is generated from S's real rows (SparseStructure: the dataset's graph),
// so irregular row lengths, the load balance between warps and the L2's reuse of gathered rows
// come from the graph itself. Without a structure (a trace, or sparse features whose positions
// the dataset does not give) every row gets nnz/rows nonzeros at evenly spread columns.
//
// The SpMM follows GE-SpMM (Huang et al., SC'20) and cuSPARSE's CSR algorithms: the lanes of a
// warp run along B's row (16 bytes a lane) and, where a row of B is narrower than the warp's
// 512 bytes, 32 / lanes-per-row nonzeros are gathered by one instruction (coalesced row
// reuse). A warp loads 32 column ids (and edge values) at a time, gathers up to four groups of
// B rows before it multiplies (the compiler's unrolling: four gathers in flight), accumulates
// in FP32 (a conversion per two 16-bit elements), reduces the neighbour groups with shuffles
// at the row's end and stores the row of C. Two partitions of the work among warps:
//   row_split  one warp per row (GE-SpMM, cuSPARSE CSR_ALG1): long rows make stragglers;
//   merge      Merrill and Garland's merge-path split (cuSPARSE CSR_ALG2, merge-based SpMM of
//              Yang et al., Euro-Par'18): every warp takes an equal share of rows + nonzeros,
//              and a row cut between warps ends each piece in an atomic add (modelled as a
//              store of the row) [assumption: red.global costs a store].
// `auto` picks merge when the longest row exceeds 8x the mean (power-law graphs), else
// row_split. The SDDMM is row-split: a warp loads U's row once, gathers V's rows like the SpMM,
// reduces each product across its lanes with shuffles and stores 32 results at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "accelerators/gpu/kernels/kernel_target.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

struct SparseProblem {
  std::string name;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t n = 1;  // SpMM: columns of B and C; SDDMM: the depth of U and V
  std::shared_ptr<const SparseStructure> structure;  // null: uniform rows
  double dense_bytes = 2;   // per element of B (SDDMM: of U and V)
  double c_bytes = 2;       // per element of C (SDDMM: per nonzero)
  double value_bytes = 0;   // per nonzero of S; 0: a pattern without values
  // Where the operands start: S's row offsets (int32), column ids (int32) and values; B (SDDMM:
  // U), V (SDDMM only) and C.
  std::uint64_t row_ptr = 0, col_idx = 0, values = 0, b = 0, v = 0, c = 0;
};

enum class SpmmPartition { Auto, RowSplit, Merge };

// Throws std::invalid_argument when the structure disagrees with rows, cols or nnz.
GpuKernel make_spmm(const SparseProblem& p, SpmmPartition partition, const GpuKernelTarget& target);
GpuKernel make_sddmm(const SparseProblem& p, const GpuKernelTarget& target);

}  // namespace strata
