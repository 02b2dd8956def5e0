// The PIM kernels as command streams, and where their data lives: the GEMV (y = W x) and the
// element-wise operations (y = a + b, a * b, ReLU(a)) of HBM-PIM's kernel set, placed so that
// every unit of every channel works at once and each row is read whole while open (PIM-GPT's
// and AttAcc's placement: a unit's weights for one output tile and one input chunk fill its
// banks' rows consecutively). All channels run the same stream; the data differ.
//
// GEMV: the outputs are split evenly over every unit of the device (channels x ranks x units);
// a unit computes `accumulators` outputs at a time (a tile), loading the input vector one chunk
// of `input_registers` bursts at a time; for each (tile, chunk) its weights are `accumulators x
// input_registers` bursts, output-major, at consecutive columns of its banks' rows (bank k of a
// unit holds columns k x bursts_per_row on). Each MACAB reads one burst per unit: register
// index = position in the block, input register = index % input_registers, accumulator =
// index / input_registers. A tile's results are read with one RDMAC per unit and accumulator
// (the lanes' partial sums; the host adds the lanes, as HBM-PIM's plain GEMV leaves them).
#pragma once

#include <cstdint>
#include <vector>

#include "memory/pim/pim_program.h"

namespace strata {

struct PimPlace {
  int channel = 0, rank = 0, bank = 0;  // bank: index in the rank
  std::uint32_t row = 0, element = 0;   // element: in the row
};

// The units of a device as one space: unit g (channel-major, then rank, then unit in the rank)
// and its bursts, numbered over its banks' rows from a base row on (bank k of a unit holds
// columns k x bursts_per_row on of each row).
struct PimUnitSpace {
  PimUnitSpace(const DramSpec& dram, const PimSpec& pim);
  // Where lane `lane` of burst `burst` of unit `unit` lives, from `base_row` on.
  PimPlace place(std::int64_t unit, std::int64_t burst, std::int64_t lane, std::uint32_t base_row) const;
  DramOrganization org;
  int units = 0;  // per rank
  int banks_per_unit = 0;
  std::int64_t total_units = 0;  // in the device
  std::int64_t capacity = 0;     // bursts of one unit's banks in one row
};

// A kernel in closed form (the analytic fidelity): its length in cycles and the commands one
// rank of one channel issues.
struct PimEstimate {
  double cycles = 0;
  double macab = 0, movab = 0, actab = 0, wrgb = 0, rdmac = 0, ref = 0;
};

class PimGemvLayout {
 public:
  PimGemvLayout(const DramSpec& dram, const PimSpec& pim, std::int64_t outputs, std::int64_t inputs,
                std::uint32_t base_row);
  PimPlace where(std::int64_t output, std::int64_t input) const;
  // Every rank of a channel runs this stream (the input vector only in functional runs).
  PimProgram program(const std::vector<double>* x) const;
  // y from the RDMAC bursts each channel's units returned (per channel, per rank).
  std::vector<double> outputs_from(const std::vector<std::vector<std::vector<std::vector<double>>>>& results) const;
  // The weight bytes one (pseudo-)channel streams: the baseline without PIM reads these.
  std::uint64_t bytes_per_channel() const;
  // The stream in closed form: MACs at tMAC, plus per (tile, chunk) the input load and the row
  // switches, plus per tile the result reads, stretched by the refresh's share of time.
  PimEstimate estimate() const;

 private:
  DramSpec dram_;
  PimSpec pim_;
  PimUnitSpace space_;
  std::int64_t outputs_, inputs_;
  std::uint32_t base_row_;
  std::int64_t per_unit_;  // outputs per unit
  std::int64_t tiles_, chunks_;
  std::int64_t block_;  // bursts per (tile, chunk)
  std::uint32_t rows_used_;
};

enum class PimElementwise { Add, Mul, Relu };

class PimVectorLayout {
 public:
  // Vectors of `elements` each, vector v from row base_row + v x (its rows per unit) on.
  PimVectorLayout(const DramSpec& dram, const PimSpec& pim, std::int64_t elements, std::uint32_t base_row);
  PimPlace where(int vector, std::int64_t element) const;
  // y (vector 2; vector 1 for ReLU) = a (vector 0) op b (vector 1).
  PimProgram program(PimElementwise op) const;
  PimEstimate estimate(PimElementwise op) const;  // closed form, as PimGemvLayout's

 private:
  DramSpec dram_;
  PimSpec pim_;
  PimUnitSpace space_;
  std::uint32_t base_row_;
  std::int64_t per_unit_, bursts_;
  std::uint32_t rows_per_vector_;
};

// The baseline of the same DRAM without PIM: `bytes` of one channel read to the host with
// ordinary commands at the channel's best (bank groups interleaved, the next banks activated
// while the current ones are read), from `base_row` on.
PimProgram host_stream_program(const DramSpec& dram, std::uint64_t bytes, std::uint32_t base_row);
double host_stream_cycles(const DramSpec& dram, std::uint64_t bytes);  // its closed form

}  // namespace strata
