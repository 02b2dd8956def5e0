#include "memory/pim/pim_program.h"

#include <stdexcept>

namespace strata {

bool PimProgram::peek(DramCommand& c) {
  if (at_ >= segments_.size()) return false;
  const PimSegment& s = segments_[at_];
  c = DramCommand{s.cmd, 0, s.rank, s.bank_group, s.bank, s.row, s.column + within_};
  return true;
}

void PimProgram::pop() {
  if (++within_ >= segments_[at_].count) {
    within_ = 0;
    ++at_;
  }
}

PimProgram interleave_ranks(std::vector<PimProgram> per_rank) {
  if (per_rank.size() == 1) return std::move(per_rank.front());
  PimProgram out;
  std::vector<std::int32_t> offset;
  for (PimProgram& p : per_rank) {
    offset.push_back(static_cast<std::int32_t>(out.payload.size()));
    for (auto& b : p.payload) out.payload.push_back(std::move(b));
    p.rewind();
  }
  for (bool any = true; any;) {
    any = false;
    for (std::size_t r = 0; r < per_rank.size(); ++r) {
      PimProgram& p = per_rank[r];
      const PimSegment* s = p.head();
      if (!s) continue;
      any = true;
      PimSegment one = *s;
      one.column = s->column + p.head_index();
      one.reg = s->reg + p.head_index();
      one.count = 1;
      if (s->payload >= 0) one.payload = offset[r] + s->payload + static_cast<std::int32_t>(p.head_index());
      out.segments_.push_back(one);
      p.pop();
    }
  }
  return out;
}

PimProgramBuilder::PimProgramBuilder(const DramSpec& dram, const PimSpec& pim, bool with_data)
    : dram_(dram),
      pim_(pim),
      cmd_(PimCommands::in(dram.protocol())),
      with_data_(with_data),
      open_row_(static_cast<std::size_t>(dram.org.ranks), -1),
      in_pim_(static_cast<std::size_t>(dram.org.ranks), false) {}

void PimProgramBuilder::add(PimSegment s) {
  if (s.count == 0) return;
  std::vector<PimSegment>& v = program_.segments_;
  // A run continues the previous segment when it is the same command on the next columns.
  if (!v.empty() && s.payload < 0) {
    PimSegment& b = v.back();
    if (b.cmd == s.cmd && b.rank == s.rank && b.row == s.row && b.op == s.op && b.payload < 0 &&
        b.column + b.count == s.column && b.reg + b.count == s.reg && (s.cmd == cmd_.MACAB || s.cmd == cmd_.MOVAB || s.cmd == cmd_.RDMAC)) {
      b.count += s.count;
      return;
    }
  }
  v.push_back(s);
}

void PimProgramBuilder::enter(int rank, int instructions) {
  if (pim_.mode_switch != PimModeSwitch::ReservedRows) return;
  if (instructions > pim_.command_registers)
    throw std::logic_error("a PIM kernel needs more instructions than the units' command registers hold");
  using namespace hbm_pim;
  const int banks[4][2] = {{0, 0}, {0, 1}, {2, 0}, {2, 1}};
  for (const auto& b : banks) add(PimSegment{DramCmd::ACT, rank, b[0], b[1], kEnterAllBankRow});
  for (const auto& b : banks) add(PimSegment{DramCmd::PRE, rank, b[0], b[1], kEnterAllBankRow});
  // The program, 8 instructions of 32 bit per burst.
  add(PimSegment{cmd_.WRGB, rank, 0, 0, kRegisterRow, kCrfColumn, static_cast<std::uint32_t>((instructions + 7) / 8)});
  in_pim_[static_cast<std::size_t>(rank)] = false;
}

void PimProgramBuilder::set_mode_pim(int rank, bool pim) {
  if (pim_.mode_switch != PimModeSwitch::ReservedRows || in_pim_[static_cast<std::size_t>(rank)] == pim) return;
  add(PimSegment{cmd_.WRGB, rank, 0, 0, hbm_pim::kRegisterRow, hbm_pim::kModeColumn});
  in_pim_[static_cast<std::size_t>(rank)] = pim;
}

void PimProgramBuilder::leave(int rank) {
  close_rows(rank);
  if (pim_.mode_switch != PimModeSwitch::ReservedRows) return;
  set_mode_pim(rank, false);
  using namespace hbm_pim;
  for (int b = 0; b < 2; ++b) add(PimSegment{DramCmd::ACT, rank, 0, b, kExitAllBankRow});
  for (int b = 0; b < 2; ++b) add(PimSegment{DramCmd::PRE, rank, 0, b, kExitAllBankRow});
}

void PimProgramBuilder::load_inputs(int rank, int first, const std::vector<std::vector<double>>& bursts, int count) {
  set_mode_pim(rank, false);
  const std::uint32_t base = pim_.mode_switch == PimModeSwitch::ReservedRows ? hbm_pim::kGrfAColumn : 0;
  PimSegment s{cmd_.WRGB,
               rank,
               0,
               0,
               hbm_pim::kRegisterRow,
               base + static_cast<std::uint32_t>(first),
               static_cast<std::uint32_t>(count)};
  if (with_data_) {
    s.payload = static_cast<std::int32_t>(program_.payload.size());
    for (int i = 0; i < count; ++i) program_.payload.push_back(bursts.at(static_cast<std::size_t>(i)));
  }
  add(s);
}

void PimProgramBuilder::columns(int rank, std::uint32_t row, std::uint32_t column, std::uint32_t count, PimUnitOp op,
                                std::uint32_t reg) {
  set_mode_pim(rank, true);
  std::int64_t& open = open_row_[static_cast<std::size_t>(rank)];
  if (open != static_cast<std::int64_t>(row)) {
    close_rows(rank);
    add(PimSegment{cmd_.ACTAB, rank, 0, 0, row});
    open = row;
  }
  const bool write = op == PimUnitOp::Mov || op == PimUnitOp::MovRelu;
  PimSegment s{write ? cmd_.MOVAB : cmd_.MACAB, rank, 0, 0, row, column, count, op};
  s.reg = reg;
  add(s);
}

void PimProgramBuilder::read_results(int rank, std::uint32_t first, std::uint32_t count) {
  set_mode_pim(rank, false);
  add(PimSegment{cmd_.RDMAC, rank, 0, 0, hbm_pim::kRegisterRow, first, count});
}

void PimProgramBuilder::close_rows(int rank) {
  std::int64_t& open = open_row_[static_cast<std::size_t>(rank)];
  if (open < 0) return;
  add(PimSegment{DramCmd::PREA, rank});
  open = -1;
}

PimProgram PimProgramBuilder::take() {
  PimProgram p = std::move(program_);
  program_ = PimProgram{};
  p.rewind();
  return p;
}

}  // namespace strata
