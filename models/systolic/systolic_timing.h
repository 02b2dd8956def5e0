// Cycle counts of matrix products on a systolic array (rows × cols processing elements), in
// closed form: the array component waits once per tile with these figures, so simulation does
// a handful of events per fold while the cycle count is exact. SystemC-free, shared by the
// cycle-level components, the mapper's tile search and analytic estimates.
//
// A GEMM is C[M,N] = A[M,K]·B[K,N] (A: inputs/ifmap, B: weights/filter, C: outputs/ofmap).
// Dataflows map two dimensions onto the array and stream the third through it:
//   output stationary (os): M on rows, N on columns, K streamed  (folds = ⌈M/R⌉·⌈N/C⌉)
//   weight stationary (ws): K on rows, N on columns, M streamed  (folds = ⌈K/R⌉·⌈N/C⌉)
//   input stationary  (is): K on rows, M on columns, N streamed  (folds = ⌈K/R⌉·⌈M/C⌉)
//
// Timing modes:
//   real (the default): what real arrays do. The stationary operand of the next fold is
//     preloaded while the current fold computes (`double_buffer`), and the next fold's inputs
//     enter right behind the current fold's (`overlap_folds`), so the skew, fill and drain of
//     the array are paid once per tile instead of once per fold. Turning both options off
//     gives the straightforward count: every fold pays preload + fill + stream + drain.
//   scalesim_compat: SCALE-Sim v2's count (folds never overlap, a full preload per fold in
//     ws/is, one cycle less than the straightforward count overall); see scalesim_compat.h for
//     its access counts.
//
// Number formats run at a rate relative to INT8 (`rate`): rate r ≥ 1 packs r products into one
// PE per cycle along K (INT4 at 2 halves K); rate r < 1 means a PE needs 1/r cycles per MAC
// (FP16 at ½ doubles every cycle count).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

enum class Dataflow { OutputStationary, WeightStationary, InputStationary };
std::optional<Dataflow> find_dataflow(std::string_view name);  // "os", "ws", "is"
const char* dataflow_name(Dataflow d);                          // "os", "ws", "is"

enum class SystolicMode { Real, ScaleSimCompat };

struct SystolicConfig {
  std::int64_t rows = 128, cols = 128;
  Dataflow dataflow = Dataflow::WeightStationary;
  SystolicMode mode = SystolicMode::Real;
  bool double_buffer = true;  // real mode: preload the next fold's stationary operand while computing
  bool overlap_folds = true;  // real mode: the next fold's inputs follow the current fold's without a gap
};

struct SystolicTiming {
  std::uint64_t cycles = 0;          // first operand in to last result out
  std::uint64_t folds = 0;           // array-sized pieces of the stationary mapping
  std::uint64_t preload_cycles = 0;  // stationary-operand loading not hidden behind compute
  std::uint64_t stream_cycles = 0;   // cycles spent streaming operands (the useful part)
  std::uint64_t fill_drain_cycles = 0;  // skew, fill and drain not hidden behind compute
  std::uint64_t macs = 0;            // useful multiply-accumulates, M·N·K
  double utilization = 0;            // macs / (rows·cols·rate·cycles), never above 1
  double mapping_efficiency = 0;     // mean fraction of the PEs a fold maps work to
  // Operand traffic between the array and its SRAM buffers, in elements (words): every element
  // read into the array edge and every result written out (partial sums of K folds included).
  std::uint64_t a_reads = 0, b_reads = 0, c_writes = 0, c_reads = 0;
};

// One GEMM tile, m×n×k ≥ 1, on the array at `rate` (see above). Throws std::invalid_argument
// for non-positive sizes or rate.
SystolicTiming systolic_gemm(const SystolicConfig& cfg, std::int64_t m, std::int64_t n, std::int64_t k,
                             double rate = 1.0);

}  // namespace strata
