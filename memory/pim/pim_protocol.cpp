#include "memory/pim/pim_protocol.h"

#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace strata {
namespace {

void add_pim_commands(DramProtocol& p, const DramSpec& spec, const PimTiming& pt) {
  DramCommandInfo actab{"ACTAB", true, true, false, false, false};
  DramCommandInfo macab{"MACAB", true, false, false, true, false};
  DramCommandInfo movab{"MOVAB", true, false, false, true, false};
  DramCommandInfo wrgb{"WRGB", true, false, false, false, false};
  DramCommandInfo rdmac{"RDMAC", true, false, false, false, false};
  const DramCmd ACTAB = p.add_command(actab), MACAB = p.add_command(macab), MOVAB = p.add_command(movab),
                WRGB = p.add_command(wrgb), RDMAC = p.add_command(rdmac);
  const DramTiming& t = spec.timing;
  const int BL = t.tBURST;
  using C = DramCmd;
  const auto rank = [&](DramCmd from, DramCmd to, int latency, const char* name) {
    p.add_rule({from, to, TimingLevel::Rank, latency, name});
  };
  // An all-bank activation is every bank's activation: the row-cycle rules of the standard
  // bind it in every bank, hence at rank level.
  rank(C::ACT, ACTAB, t.tRC, "tRC");
  rank(C::PRE, ACTAB, t.tRP, "tRP");
  rank(C::PREA, ACTAB, t.tRPab, "tRPab");
  rank(C::REF, ACTAB, t.tRFC, "tRFC");
  rank(C::REFpb, ACTAB, t.tRFCpb, "tRFCpb");
  rank(ACTAB, ACTAB, pt.tACTAB, "tACTAB");
  rank(ACTAB, C::ACT, t.tRC, "tRC");
  rank(ACTAB, C::PRE, t.tRAS, "tRAS");
  rank(ACTAB, C::PREA, t.tRAS, "tRAS");
  rank(ACTAB, MACAB, pt.tRCD_MAC, "tRCD_MAC");
  rank(ACTAB, MOVAB, t.tRCDW, "tRCDW");
  rank(ACTAB, C::RD, t.tRCD, "tRCD");
  rank(ACTAB, C::WR, t.tRCDW, "tRCDW");
  // The units' column commands: one instruction per tMAC; a read's tRTP and a write's recovery
  // before the row closes, as for RD and WR.
  rank(MACAB, MACAB, pt.tMAC, "tMAC");
  rank(MACAB, MOVAB, pt.tMAC, "tMAC");
  rank(MOVAB, MACAB, pt.tMAC, "tMAC");
  rank(MOVAB, MOVAB, std::max(pt.tMAC, t.tCCD_L_WR), "tCCD_L_WR");
  rank(MACAB, C::PRE, t.tRTP, "tRTP");
  rank(MACAB, C::PREA, t.tRTP, "tRTP");
  rank(MOVAB, C::PRE, t.CWL + BL + t.tWR, "tWR");
  rank(MOVAB, C::PREA, t.CWL + BL + t.tWR, "tWR");
  // Host writes into the units and reads of their results use the data bus like WR and RD.
  rank(WRGB, WRGB, t.tCCD_L_WR, "tCCD_L_WR");
  rank(C::WR, WRGB, t.tCCD_L_WR, "tCCD_L_WR");
  rank(WRGB, C::WR, t.tCCD_L_WR, "tCCD_L_WR");
  rank(C::RD, WRGB, t.CL + BL + 2 - t.CWL, "tRTW");
  rank(RDMAC, WRGB, t.CL + BL + 2 - t.CWL, "tRTW");
  rank(WRGB, C::RD, t.CWL + BL + t.tWTR_L, "tWTR_L");
  rank(WRGB, RDMAC, t.CWL + BL + t.tWTR_L, "tWTR_L");
  rank(WRGB, MACAB, t.CWL + BL, "tWL_GB");  // the operand is in the registers once its data ended
  rank(MACAB, WRGB, pt.tMAC, "tMAC");
  rank(MACAB, RDMAC, pt.tMAC + pt.tMAC_RD, "tMAC_RD");
  rank(RDMAC, RDMAC, t.tCCD_L, "tCCD_L");
  rank(C::RD, RDMAC, t.tCCD_L, "tCCD_L");
  rank(RDMAC, C::RD, t.tCCD_L, "tCCD_L");
  rank(RDMAC, MACAB, t.tCCD_L, "tCCD_L");
}

// HBM-PIM's modes per rank: single-bank (SB), all-bank (AB) and all-bank-PIM (AB-PIM), moved
// between by the command sequences of PIMSimulator's kernels (pim_protocol.h's reserved rows).
class HbmPimModeRules {
 public:
  HbmPimModeRules(const DramProtocol& protocol, int ranks)
      : protocol_(protocol), cmds_(PimCommands::in(protocol)), ranks_(static_cast<std::size_t>(ranks)) {}

  std::string operator()(const DramCommand& c) {
    Rank& r = ranks_[static_cast<std::size_t>(c.rank)];
    const auto bad = [&](const char* why) {
      return fmt::format("PIM mode violated: {} at cycle {} to rank {} in {} mode: {}", protocol_.name(c.cmd), c.cycle,
                         c.rank, mode_name(r.mode), why);
    };
    using namespace hbm_pim;
    if (c.cmd == DramCmd::ACT) {
      const bool bank01 = c.bank < 2;
      if (r.mode == Mode::SB && c.row == kEnterAllBankRow && bank01 && (c.bank_group == 0 || c.bank_group == 2)) {
        r.enter |= 1u << ((c.bank_group / 2) * 2 + c.bank);
        if (r.enter == 0xf) r = Rank{Mode::AB};
      } else if (r.mode == Mode::AB && c.row == kExitAllBankRow && bank01 && c.bank_group == 0) {
        r.exit |= 1u << c.bank;
        if (r.exit == 0x3) r = Rank{Mode::SB};
      } else if (r.mode != Mode::SB) {
        return bad("only the reserved rows may be activated bank by bank; all-bank mode activates with ACTAB");
      }
    } else if (c.cmd == DramCmd::RD || c.cmd == DramCmd::WR) {
      if (r.mode != Mode::SB) return bad("ordinary reads and writes need single-bank mode");
    } else if (c.cmd == cmds_.ACTAB) {
      if (r.mode == Mode::SB) return bad("all-bank activation needs all-bank mode (ACT row 0x17ff of four banks)");
    } else if (c.cmd == cmds_.MACAB || c.cmd == cmds_.MOVAB) {
      if (r.mode != Mode::ABPIM) return bad("the units run only in all-bank-PIM mode (WRGB to column 0 of row 0x3fff)");
    } else if (c.cmd == cmds_.WRGB) {
      if (r.mode == Mode::SB) return bad("the units' registers are written in all-bank mode");
      if (c.column == kModeColumn) r.mode = r.mode == Mode::AB ? Mode::ABPIM : Mode::AB;
      else if (r.mode == Mode::ABPIM) return bad("a register write in all-bank-PIM mode would run an instruction");
    } else if (c.cmd == cmds_.RDMAC) {
      if (r.mode != Mode::AB) return bad("the units' results are read in all-bank mode");
    }
    return {};
  }

 private:
  enum class Mode { SB, AB, ABPIM };
  static const char* mode_name(Mode m) { return m == Mode::SB ? "single-bank" : m == Mode::AB ? "all-bank" : "all-bank-PIM"; }
  struct Rank {
    Mode mode = Mode::SB;
    unsigned enter = 0, exit = 0;  // reserved-row activations seen, by bank
  };
  DramProtocol protocol_;
  PimCommands cmds_;
  std::vector<Rank> ranks_;
};

}  // namespace

PimCommands PimCommands::in(const DramProtocol& protocol) {
  const auto id = [&](const char* name) {
    const auto c = protocol.find(name);
    if (!c) throw std::logic_error(std::string("the DRAM protocol has no PIM command ") + name);
    return *c;
  };
  return PimCommands{id("ACTAB"), id("MACAB"), id("MOVAB"), id("WRGB"), id("RDMAC")};
}

DramSpec make_pim_dram(DramSpec dram, const PimSpec& pim) {
  const PimTiming timing = pim.timing;
  dram.extend_protocol = [timing](DramProtocol& p, const DramSpec& s) { add_pim_commands(p, s, timing); };
  if (pim.mode_switch == PimModeSwitch::ReservedRows) {
    const DramSpec plain = dram;
    dram.device_state_rules = [plain]() -> std::function<std::string(const DramCommand&)> {
      auto rules = std::make_shared<HbmPimModeRules>(plain.protocol(), plain.org.ranks);
      return [rules](const DramCommand& c) { return (*rules)(c); };
    };
  }
  return dram;
}

}  // namespace strata
