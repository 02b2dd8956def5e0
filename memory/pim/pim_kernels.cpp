#include "memory/pim/pim_kernels.h"

#include <algorithm>

#include "sim/rounding.h"

namespace strata {
namespace {

// Refresh takes tRFC (and a row switch after it) out of every tREFI.
double with_refresh(const DramSpec& dram, double cycles, double row_switch) {
  const DramTiming& t = dram.timing;
  return cycles / (1.0 - (t.tRFC + row_switch) / t.tREFI);
}

double row_switch_cycles(const DramSpec& dram, const PimSpec& pim) {
  const DramTiming& t = dram.timing;
  return t.tRTP + t.tRPab + pim.timing.tRCD_MAC;
}

// One WRGB of an input load or mode write, one RDMAC of a result read.
double write_cycles(const DramSpec& dram) { return dram.timing.tCCD_L_WR; }

// HBM-PIM's GEMV microkernel (PIMSimulator's PIMCmdGen): MAC even bank / JUMP / MAC odd bank /
// JUMP / NOP / EXIT; the element-wise kernels: FILL / ADD or MUL / MOV / EXIT.
constexpr int kGemvInstructions = 6;
constexpr int kElementwiseInstructions = 4;

// Emits MACAB/MOVAB runs over bursts [first, first + count) of a unit's space starting at
// `base_row`, split where a run crosses into the next row; register = reg0 + offset.
void emit_columns(PimProgramBuilder& b, int rank, std::uint32_t base_row, std::int64_t capacity, std::int64_t first,
                  std::int64_t count, PimUnitOp op, std::uint32_t reg0) {
  std::int64_t p = first;
  while (p < first + count) {
    const std::int64_t col = p % capacity;
    const std::int64_t n = std::min(first + count - p, capacity - col);
    b.columns(rank, base_row + static_cast<std::uint32_t>(p / capacity), static_cast<std::uint32_t>(col),
              static_cast<std::uint32_t>(n), op, reg0 + static_cast<std::uint32_t>(p - first));
    p += n;
  }
}

}  // namespace

PimUnitSpace::PimUnitSpace(const DramSpec& dram, const PimSpec& pim)
    : org(dram.org),
      units(pim.units_per_rank(dram.org)),
      banks_per_unit(pim.banks_per_unit(dram.org)),
      total_units(static_cast<std::int64_t>(dram.org.controllers()) * dram.org.ranks * units),
      capacity(static_cast<std::int64_t>(banks_per_unit) * dram.org.bursts_per_row()) {}

PimPlace PimUnitSpace::place(std::int64_t unit, std::int64_t burst, std::int64_t lane, std::uint32_t base_row) const {
  const std::int64_t col = burst % capacity;
  const int bpr = org.bursts_per_row();
  const std::int64_t lanes = static_cast<std::int64_t>(org.access_bytes()) / 2;
  PimPlace w;
  w.rank = static_cast<int>((unit / units) % org.ranks);
  w.channel = static_cast<int>(unit / (static_cast<std::int64_t>(units) * org.ranks));
  w.bank = static_cast<int>(unit % units) * banks_per_unit + static_cast<int>(col / bpr);
  w.row = base_row + static_cast<std::uint32_t>(burst / capacity);
  w.element = static_cast<std::uint32_t>((col % bpr) * lanes + lane);
  return w;
}

PimGemvLayout::PimGemvLayout(const DramSpec& dram, const PimSpec& pim, std::int64_t outputs, std::int64_t inputs,
                             std::uint32_t base_row)
    : dram_(dram), pim_(pim), space_(dram, pim), outputs_(outputs), inputs_(inputs), base_row_(base_row) {
  per_unit_ = ceil_div(outputs, space_.total_units);
  tiles_ = ceil_div(per_unit_, pim.accumulators);
  chunks_ = ceil_div(inputs, pim.input_elements(dram.org));
  block_ = static_cast<std::int64_t>(pim.accumulators) * pim.input_registers;
  rows_used_ = static_cast<std::uint32_t>(ceil_div(tiles_ * chunks_ * block_, space_.capacity));
}

PimPlace PimGemvLayout::where(std::int64_t o, std::int64_t k) const {
  const std::int64_t l = o % per_unit_;
  const std::int64_t t = l / pim_.accumulators, a = l % pim_.accumulators;
  const std::int64_t C = pim_.input_elements(dram_.org);
  const std::int64_t c = k / C, i = (k % C) / pim_.lanes;
  const std::int64_t p = (t * chunks_ + c) * block_ + a * pim_.input_registers + i;
  return space_.place(o / per_unit_, p, k % pim_.lanes, base_row_);
}

PimProgram PimGemvLayout::program(const std::vector<double>* x) const {
  const int R = pim_.input_registers, lanes = pim_.lanes;
  const std::int64_t C = pim_.input_elements(dram_.org);
  std::vector<std::vector<double>> bursts;
  std::vector<PimProgram> ranks;
  for (int rank = 0; rank < dram_.org.ranks; ++rank) {
    PimProgramBuilder b(dram_, pim_, x != nullptr);
    b.enter(rank, kGemvInstructions);
    const auto load = [&](std::int64_t c) {
      const int regs = static_cast<int>(std::min<std::int64_t>(R, ceil_div(inputs_ - c * C, lanes)));
      bursts.assign(static_cast<std::size_t>(regs), std::vector<double>(static_cast<std::size_t>(lanes), 0.0));
      if (x)
        for (int i = 0; i < regs; ++i)
          for (int l = 0; l < lanes; ++l) {
            const std::int64_t k = c * C + static_cast<std::int64_t>(i) * lanes + l;
            if (k < inputs_)
              bursts[static_cast<std::size_t>(i)][static_cast<std::size_t>(l)] = (*x)[static_cast<std::size_t>(k)];
          }
      b.load_inputs(rank, 0, bursts, regs);
      return regs;
    };
    // An input that fits the registers is loaded once for every tile.
    const int whole = chunks_ == 1 ? load(0) : 0;
    for (std::int64_t t = 0; t < tiles_; ++t) {
      for (std::int64_t c = 0; c < chunks_; ++c) {
        const int regs = chunks_ == 1 ? whole : load(c);
        const std::int64_t block = (t * chunks_ + c) * block_;
        for (int a = 0; a < pim_.accumulators; ++a)
          emit_columns(b, rank, base_row_, space_.capacity, block + static_cast<std::int64_t>(a) * R, regs,
                       PimUnitOp::Mac, static_cast<std::uint32_t>(a * R));
      }
      b.read_results(rank, 0, static_cast<std::uint32_t>(pim_.result_bursts(space_.units * pim_.accumulators)));
    }
    b.leave(rank);
    ranks.push_back(b.take());
  }
  return interleave_ranks(std::move(ranks));
}

std::vector<double> PimGemvLayout::outputs_from(
    const std::vector<std::vector<std::vector<std::vector<double>>>>& results) const {
  std::vector<double> y(static_cast<std::size_t>(outputs_), 0.0);
  const std::int64_t A = pim_.accumulators, per_tile = space_.units * A;
  const std::int64_t bursts_per_tile = pim_.result_bursts(static_cast<int>(per_tile));
  for (std::size_t ch = 0; ch < results.size(); ++ch)
    for (std::size_t r = 0; r < results[ch].size(); ++r) {
      const auto& bursts = results[ch][r];
      for (std::size_t q = 0; q < bursts.size(); ++q) {
        const std::int64_t t = static_cast<std::int64_t>(q) / bursts_per_tile;
        // Each value of the burst: a whole output (adder tree), or one output's lanes.
        const std::int64_t values = pim_.adder_tree ? pim_.lanes : 1;
        for (std::int64_t l = 0; l < values; ++l) {
          const std::int64_t v = pim_.adder_tree ? (static_cast<std::int64_t>(q) % bursts_per_tile) * pim_.lanes + l
                                                 : static_cast<std::int64_t>(q) % bursts_per_tile;
          if (v >= per_tile) break;
          const std::int64_t u = v / A, a = v % A;
          const std::int64_t g =
              (static_cast<std::int64_t>(ch) * dram_.org.ranks + static_cast<std::int64_t>(r)) * space_.units + u;
          const std::int64_t o = g * per_unit_ + t * A + a;
          if (t * A + a >= per_unit_ || o >= outputs_) continue;
          double sum = 0;
          if (pim_.adder_tree) sum = bursts[q][static_cast<std::size_t>(l)];
          else
            for (double x : bursts[q]) sum += x;
          y[static_cast<std::size_t>(o)] = sum;
        }
      }
    }
  return y;
}

std::uint64_t PimGemvLayout::bytes_per_channel() const {
  const auto bytes = static_cast<std::uint64_t>(outputs_ * inputs_ * pim_.element_bytes());
  const std::uint64_t n = static_cast<std::uint64_t>(dram_.org.controllers());
  return (bytes + n - 1) / n;
}

PimEstimate PimGemvLayout::estimate() const {
  const DramTiming& t = dram_.timing;
  const PimTiming& pt = pim_.timing;
  const bool modes = pim_.mode_switch == PimModeSwitch::ReservedRows;
  const double input_bursts = static_cast<double>(ceil_div(inputs_, pim_.lanes));
  const double tiles = static_cast<double>(tiles_);
  PimEstimate e;
  // MACs: every weight burst of a unit, once per tile's input bursts.
  e.macab = tiles * pim_.accumulators * input_bursts;
  double cycles = e.macab * pt.tMAC;
  // Per (tile, chunk): its input bursts (and, with modes, the two mode writes), the data's write
  // latency; an input that fits is loaded once.
  const double blocks = static_cast<double>(tiles_ * chunks_);
  const double load_count = chunks_ == 1 ? 1 : blocks;
  e.wrgb = (chunks_ == 1 ? input_bursts : tiles * input_bursts) + (modes ? 2 * load_count + 2 * tiles : 0);
  cycles += e.wrgb * write_cycles(dram_) + load_count * (t.CWL + t.tBURST);
  // Row switches: every row of the unit's space once, or every block's rows when a block spans rows.
  e.actab = block_ >= space_.capacity ? blocks * static_cast<double>(ceil_div(block_, space_.capacity))
                                      : static_cast<double>(rows_used_);
  cycles += e.actab * row_switch_cycles(dram_, pim_);
  // Per tile: the results (a burst per unit and accumulator, or per `lanes` of them through the
  // adder tree), after the pipeline.
  e.rdmac = tiles * pim_.result_bursts(space_.units * pim_.accumulators);
  cycles += e.rdmac * t.tCCD_L + tiles * pt.tMAC_RD;
  e.cycles = with_refresh(dram_, cycles, row_switch_cycles(dram_, pim_));
  e.ref = e.cycles / t.tREFI;
  return e;
}

PimVectorLayout::PimVectorLayout(const DramSpec& dram, const PimSpec& pim, std::int64_t elements,
                                 std::uint32_t base_row)
    : dram_(dram), pim_(pim), space_(dram, pim), base_row_(base_row) {
  per_unit_ = ceil_div(elements, space_.total_units);
  bursts_ = ceil_div(per_unit_, pim.lanes);
  rows_per_vector_ = static_cast<std::uint32_t>(ceil_div(bursts_, space_.capacity));
}

PimPlace PimVectorLayout::where(int vector, std::int64_t e) const {
  const std::int64_t q = e % per_unit_;
  return space_.place(e / per_unit_, q / pim_.lanes, q % pim_.lanes,
                      base_row_ + static_cast<std::uint32_t>(vector) * rows_per_vector_);
}

PimProgram PimVectorLayout::program(PimElementwise op) const {
  const int R = pim_.input_registers;
  const auto base = [&](int v) { return base_row_ + static_cast<std::uint32_t>(v) * rows_per_vector_; };
  const int out = op == PimElementwise::Relu ? 1 : 2;
  std::vector<PimProgram> ranks;
  for (int rank = 0; rank < dram_.org.ranks; ++rank) {
    PimProgramBuilder b(dram_, pim_, false);
    b.enter(rank, kElementwiseInstructions);
    for (std::int64_t g = 0; g < bursts_; g += R) {
      const std::int64_t n = std::min<std::int64_t>(R, bursts_ - g);
      emit_columns(b, rank, base(0), space_.capacity, g, n, PimUnitOp::Fill, 0);
      if (op != PimElementwise::Relu)
        emit_columns(b, rank, base(1), space_.capacity, g, n,
                     op == PimElementwise::Add ? PimUnitOp::Add : PimUnitOp::Mul, 0);
      emit_columns(b, rank, base(out), space_.capacity, g, n,
                   op == PimElementwise::Relu ? PimUnitOp::MovRelu : PimUnitOp::Mov, 0);
    }
    b.leave(rank);
    ranks.push_back(b.take());
  }
  return interleave_ranks(std::move(ranks));
}

PimEstimate PimVectorLayout::estimate(PimElementwise op) const {
  const int passes = op == PimElementwise::Relu ? 2 : 3;  // rows read and written per group
  const double groups = static_cast<double>(ceil_div(bursts_, pim_.input_registers));
  PimEstimate e;
  e.macab = static_cast<double>(bursts_) * (passes - 1);
  e.movab = static_cast<double>(bursts_);
  e.actab = groups * passes;
  const double cycles = (e.macab + e.movab) * pim_.timing.tMAC + e.actab * row_switch_cycles(dram_, pim_);
  e.cycles = with_refresh(dram_, cycles, row_switch_cycles(dram_, pim_));
  e.ref = e.cycles / dram_.timing.tREFI;
  return e;
}

double host_stream_cycles(const DramSpec& dram, std::uint64_t bytes) {
  const double bursts = static_cast<double>(ceil_div(static_cast<std::int64_t>(bytes), dram.org.access_bytes()));
  return with_refresh(dram, bursts * dram.timing.tBURST, dram.timing.tRCD);
}

PimProgram host_stream_program(const DramSpec& dram, std::uint64_t bytes, std::uint32_t base_row) {
  PimProgram p;
  const DramOrganization& org = dram.org;
  const std::int64_t bursts = ceil_div(static_cast<std::int64_t>(bytes), org.access_bytes());
  const int bpr = org.bursts_per_row(), groups = org.bank_groups;
  // A set: one bank in each bank group, the same row; reads go round the bank groups (tCCD_S).
  const std::int64_t per_set = static_cast<std::int64_t>(groups) * bpr;
  const std::int64_t sets = ceil_div(bursts, per_set);
  const auto set_bank = [&](std::int64_t s) { return static_cast<int>(s % org.banks_per_group); };
  const auto set_row = [&](std::int64_t s) {
    return base_row + static_cast<std::uint32_t>(s / (org.banks_per_group * org.ranks));
  };
  const auto set_rank = [&](std::int64_t s) { return static_cast<int>((s / org.banks_per_group) % org.ranks); };
  // In order, so spread out: the next set's activations one per bank group through the second
  // half of this set's reads, the previous set's precharges among this set's first reads (each
  // then costs a free row-bus cycle, not a stall).
  const auto act = [&](std::int64_t s, int g) {
    p.segments_.push_back(PimSegment{DramCmd::ACT, set_rank(s), g, set_bank(s), set_row(s)});
  };
  const auto pre = [&](std::int64_t s, int g) {
    p.segments_.push_back(PimSegment{DramCmd::PRE, set_rank(s), g, set_bank(s), set_row(s)});
  };
  for (int g = 0; g < groups; ++g) act(0, g);
  std::int64_t left = bursts;
  for (std::int64_t s = 0; s < sets; ++s) {
    const std::int64_t n = std::min(left, per_set);
    const std::int64_t spacing = std::max<std::int64_t>(1, n / 2 / groups);
    for (std::int64_t i = 0; i < n; ++i) {
      const int g = static_cast<int>(i % groups);
      if (s > 0 && i >= 2 * groups && i < 3 * groups) pre(s - 1, g);
      if (s + 1 < sets && i >= n / 2 && (i - n / 2) % spacing == 0 && (i - n / 2) / spacing < groups)
        act(s + 1, static_cast<int>((i - n / 2) / spacing));
      p.segments_.push_back(PimSegment{DramCmd::RD, set_rank(s), g, set_bank(s), set_row(s),
                                       static_cast<std::uint32_t>(i / groups)});
    }
    left -= n;
  }
  for (int g = 0; g < groups; ++g) pre(sets - 1, g);
  p.rewind();
  return p;
}

}  // namespace strata
