// The functional model of one channel's PIM units and the data in its banks: the units' input
// registers and accumulators, lanes rounded to the units' format (FP16 or BF16) after every
// multiply and add, as the hardware's separate multiplier and adder arrays round. The rounding
// is given (workloads/formats' numerics emulator: memory/ does not depend on workloads/). execute() is
// called with every command the controller issues from a program, so what is checked against a
// reference computation is the schedule that was timed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "memory/pim/pim_program.h"

namespace strata {

class PimUnits {
 public:
  // `round`: a value rounded to the units' format.
  using Rounding = std::function<double(double)>;
  PimUnits(const DramSpec& dram, const PimSpec& pim, const PimCommands& cmd, Rounding round);

  // Bank (as an index in the rank) `k` of unit `u`.
  int bank_of(int unit, int k) const { return unit * banks_per_unit_ + k; }
  int bursts_per_row() const { return bursts_per_row_; }

  // Stores `values` (rounded to the format) from element `first` of a row of a bank on.
  void store(int rank, int bank, std::uint32_t row, std::uint32_t first, const std::vector<double>& values);
  double load(int rank, int bank, std::uint32_t row, std::uint32_t element) const;

  // Applies command `c`, issued from `segment`'s `index`-th command of `program`.
  void execute(const DramCommand& c, const PimSegment& segment, std::uint32_t index, const PimProgram& program);

  // The RDMAC bursts read so far, in order, per rank; cleared by take_results().
  std::vector<std::vector<double>> take_results(int rank);

 private:
  double round(double x) const { return round_(x); }
  std::vector<double>& row_data(int rank, int bank, std::uint32_t row);
  struct Unit {
    std::vector<std::vector<double>> inputs, acc;  // [register][lane]
  };
  Unit& unit(int rank, int u) { return units_[static_cast<std::size_t>(rank * units_per_rank_ + u)]; }

  PimSpec pim_;
  PimCommands cmd_;
  Rounding round_;
  int units_per_rank_, banks_per_unit_, bursts_per_row_, lanes_;
  std::vector<Unit> units_;
  std::map<std::tuple<int, int, std::uint32_t>, std::vector<double>> rows_;  // (rank, bank, row)
  std::vector<std::vector<std::vector<double>>> results_;  // per rank
};

}  // namespace strata
