#include "memory/pim/pim_units.h"

#include <algorithm>
#include <stdexcept>

namespace strata {

PimUnits::PimUnits(const DramSpec& dram, const PimSpec& pim, const PimCommands& cmd, Rounding round)
    : pim_(pim),
      cmd_(cmd),
      round_(std::move(round)),
      units_per_rank_(pim.units_per_rank(dram.org)),
      banks_per_unit_(pim.banks_per_unit(dram.org)),
      bursts_per_row_(dram.org.bursts_per_row()),
      lanes_(pim.lanes),
      results_(static_cast<std::size_t>(dram.org.ranks)) {
  Unit u;
  u.inputs.assign(static_cast<std::size_t>(pim.input_registers), std::vector<double>(static_cast<std::size_t>(lanes_), 0.0));
  u.acc.assign(static_cast<std::size_t>(pim.accumulators), std::vector<double>(static_cast<std::size_t>(lanes_), 0.0));
  units_.assign(static_cast<std::size_t>(dram.org.ranks * units_per_rank_), u);
}

std::vector<double>& PimUnits::row_data(int rank, int bank, std::uint32_t row) {
  std::vector<double>& v = rows_[{rank, bank, row}];
  if (v.empty()) v.assign(static_cast<std::size_t>(bursts_per_row_ * lanes_), 0.0);
  return v;
}

void PimUnits::store(int rank, int bank, std::uint32_t row, std::uint32_t first, const std::vector<double>& values) {
  std::vector<double>& v = row_data(rank, bank, row);
  if (first + values.size() > v.size()) throw std::logic_error("PIM functional store past the end of a row");
  for (std::size_t i = 0; i < values.size(); ++i) v[first + i] = round(values[i]);
}

double PimUnits::load(int rank, int bank, std::uint32_t row, std::uint32_t element) const {
  auto it = rows_.find({rank, bank, row});
  return it == rows_.end() ? 0.0 : it->second.at(element);
}

void PimUnits::execute(const DramCommand& c, const PimSegment& s, std::uint32_t index, const PimProgram& program) {
  const auto lanes = static_cast<std::size_t>(lanes_);
  if (c.cmd == cmd_.WRGB) {
    if (s.payload < 0) return;  // a mode or command-register write
    const std::vector<double>& burst = program.payload.at(static_cast<std::size_t>(s.payload) + index);
    const std::uint32_t base = pim_.mode_switch == PimModeSwitch::ReservedRows ? hbm_pim::kGrfAColumn : 0;
    const std::size_t reg = c.column - base;
    for (int u = 0; u < units_per_rank_; ++u)
      for (std::size_t l = 0; l < lanes; ++l) unit(c.rank, u).inputs.at(reg)[l] = round(burst.at(l));
    return;
  }
  if (c.cmd == cmd_.RDMAC) {
    const auto A = static_cast<std::uint32_t>(pim_.accumulators);
    if (!pim_.adder_tree) {
      std::vector<double>& acc = unit(c.rank, static_cast<int>(c.column / A)).acc.at(c.column % A);
      results_[static_cast<std::size_t>(c.rank)].push_back(acc);
      std::fill(acc.begin(), acc.end(), 0.0);  // read and cleared
      return;
    }
    // The adder tree: each value a whole output, summed at full precision and rounded once.
    std::vector<double> burst(lanes, 0.0);
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::uint32_t v = c.column * static_cast<std::uint32_t>(lanes) + static_cast<std::uint32_t>(l);
      if (v / A >= static_cast<std::uint32_t>(units_per_rank_)) break;
      std::vector<double>& acc = unit(c.rank, static_cast<int>(v / A)).acc.at(v % A);
      double sum = 0;
      for (double x : acc) sum += x;
      burst[l] = round(sum);
      std::fill(acc.begin(), acc.end(), 0.0);
    }
    results_[static_cast<std::size_t>(c.rank)].push_back(burst);
    return;
  }
  if (c.cmd != cmd_.MACAB && c.cmd != cmd_.MOVAB) return;
  // Column j of the open row: bank j / bursts_per_row of each unit, burst j % bursts_per_row.
  const auto k = static_cast<int>(c.column) / bursts_per_row_;
  const auto first = static_cast<std::uint32_t>((static_cast<int>(c.column) % bursts_per_row_) * lanes_);
  const std::uint32_t reg = s.reg + index;
  const auto in = static_cast<std::size_t>(reg % static_cast<std::uint32_t>(pim_.input_registers));
  const auto acc = static_cast<std::size_t>(reg / static_cast<std::uint32_t>(pim_.input_registers)) %
                   static_cast<std::size_t>(pim_.accumulators);
  for (int u = 0; u < units_per_rank_; ++u) {
    Unit& x = unit(c.rank, u);
    std::vector<double>& row = row_data(c.rank, bank_of(u, k), c.row);
    std::vector<double>& r = x.inputs[in];
    for (std::size_t l = 0; l < lanes; ++l) {
      double& cell = row[first + l];
      switch (s.op) {
        case PimUnitOp::Mac: x.acc[acc][l] = round(x.acc[acc][l] + round(cell * r[l])); break;
        case PimUnitOp::Fill: r[l] = cell; break;
        case PimUnitOp::Add: r[l] = round(r[l] + cell); break;
        case PimUnitOp::Mul: r[l] = round(r[l] * cell); break;
        case PimUnitOp::Mov: cell = r[l]; break;
        case PimUnitOp::MovRelu: cell = std::max(0.0, r[l]); break;
        case PimUnitOp::None: break;
      }
    }
  }
}

std::vector<std::vector<double>> PimUnits::take_results(int rank) {
  std::vector<std::vector<double>> r = std::move(results_.at(static_cast<std::size_t>(rank)));
  results_[static_cast<std::size_t>(rank)].clear();
  return r;
}

}  // namespace strata
