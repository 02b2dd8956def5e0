// Cycle counts of a GNN accelerator's combination engine (X·W, dense or with a sparse X) in
// closed form, for the three engine styles the published designs use:
//   mac_array   `macs` multiply-accumulators fed by an outer product that skips X's zeros
//               (GCNAX: 1 x 16 FP64): cycles = ceil(nonzeros(X) x n / macs)
//   systolic    `modules` weight-stationary systolic arrays of rows x cols (HyGCN: 8 of 4 x 128),
//               X's rows split over the modules, dense (zeros are streamed)
//   bit_serial  `macs` bit-serial engines that take `bits_per_cycle` bits of an operand a cycle
//               (MEGA): the MAC array's count times ceil(operand bits / bits_per_cycle)
// SystemC-free: the cycle-level engine waits once per tile with these figures, and analytic
// estimates and tests use the same functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <optional>

namespace strata {

enum class CombinationStyle { MacArray, Systolic, BitSerial };
std::optional<CombinationStyle> find_combination_style(std::string_view name);

struct CombinationEngineSpec {
  CombinationStyle style = CombinationStyle::MacArray;
  std::int64_t macs = 16;           // mac_array / bit_serial: multiply-accumulators
  std::int64_t modules = 1;         // systolic: arrays
  std::int64_t rows = 4, cols = 128;  // systolic: one array
  int bits_per_cycle = 1;           // bit_serial
  std::int64_t peak_macs() const { return style == CombinationStyle::Systolic ? modules * rows * cols : macs; }
};

// Cycles of C[m,n] = X[m,k]·W[k,n] where X has `nonzeros` nonzeros (m x k when dense) of
// `operand_bits` bits each.
std::uint64_t combination_cycles(const CombinationEngineSpec& e, std::int64_t m, std::int64_t n, std::int64_t k,
                                 std::int64_t nonzeros, int operand_bits);

}  // namespace strata
