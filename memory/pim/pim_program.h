// A PIM kernel as the command stream of one (pseudo-)channel: runs of commands (an all-bank
// activation, 64 MACs over a row's columns, 8 register writes) kept as segments and expanded one
// command at a time, so a GEMV over gigabytes of weights costs a few bytes per row. The builder
// writes the device's sequences: HBM-PIM's mode switches through reserved rows (pim_protocol.h),
// its command-register program, input loads, row switches and result reads.
#pragma once

#include <cstdint>
#include <vector>

#include "memory/dram/channel_controller.h"
#include "memory/pim/pim_protocol.h"

namespace strata {

// What a unit does with the burst of an MACAB (MAC, FILL, ADD, MUL) or writes with an MOVAB
// (MOV, MOV with ReLU): the instruction class the kernel's command-register program runs.
enum class PimUnitOp : std::uint8_t { Mac, Fill, Add, Mul, Mov, MovRelu, None };

struct PimSegment {
  DramCmd cmd = DramCmd::ACT;
  int rank = 0, bank_group = 0, bank = 0;
  std::uint32_t row = 0;
  std::uint32_t column = 0;  // of the first command; each next one takes the next column
  std::uint32_t count = 1;
  PimUnitOp op = PimUnitOp::None;
  std::int32_t payload = -1;  // WRGB: index of the first burst of its data in PimProgram::payload (functional)
  // MACAB / MOVAB: the register index of the first command, each next one the next (HBM-PIM's
  // address-aligned mode: register = column bits); registers beyond the input registers address
  // the accumulators: index / input_registers.
  std::uint32_t reg = 0;
};

class PimProgram : public CommandStream {
 public:
  bool peek(DramCommand& c) override;
  void pop() override;
  // The segment the next command comes from (the one being issued while the controller reports it).
  const PimSegment* head() const { return at_ < segments_.size() ? &segments_[at_] : nullptr; }
  std::uint32_t head_index() const { return within_; }  // the command's index within its segment
  void rewind() { at_ = within_ = 0; }

  std::vector<PimSegment> segments_;
  // Functional mode: bursts written by WRGB segments, `lanes` values each, in order.
  std::vector<std::vector<double>> payload;

 private:
  std::size_t at_ = 0;
  std::uint32_t within_ = 0;
};

// One stream from the streams of several ranks, a command of each in turn, so that the ranks'
// units work at once (each rank's rules are its own) while the stream stays in order.
PimProgram interleave_ranks(std::vector<PimProgram> per_rank);

class PimProgramBuilder {
 public:
  // `with_data`: WRGB segments carry their bursts (functional mode).
  PimProgramBuilder(const DramSpec& dram, const PimSpec& pim, bool with_data);

  // Into PIM mode with `instructions` in the command registers (HBM-PIM: SB -> AB by four
  // reserved-row activations, the program written, AB -> AB-PIM); nothing for devices without modes.
  void enter(int rank, int instructions);
  void leave(int rank);  // closes the open rows and goes back to single-bank mode
  // Writes `bursts` into every unit's input registers starting at register `first` (HBM-PIM
  // leaves AB-PIM mode for it and comes back).
  void load_inputs(int rank, int first, const std::vector<std::vector<double>>& bursts, int count);
  // RDMAC bursts of the units' results; reading clears what it read for the next tile (HBM-PIM
  // clears GRF_B with the mode write that precedes the read).
  // MACAB or MOVAB over `count` columns of `row` from `column` on, activating the row first
  // when another is open.
  void columns(int rank, std::uint32_t row, std::uint32_t column, std::uint32_t count, PimUnitOp op,
               std::uint32_t reg);
  void read_results(int rank, std::uint32_t first, std::uint32_t count);
  void close_rows(int rank);
  PimProgram take();

 private:
  void add(PimSegment s);
  void set_mode_pim(int rank, bool pim);  // AB <-> AB-PIM for reserved-row devices

  DramSpec dram_;
  PimSpec pim_;
  PimCommands cmd_;
  bool with_data_;
  PimProgram program_;
  std::vector<std::int64_t> open_row_;  // per rank, -1: none
  std::vector<bool> in_pim_;            // per rank: in AB-PIM mode (reserved-row devices)
};

}  // namespace strata
