#include "memory/dram/dram_protocol.h"

#include <stdexcept>

#include "memory/dram/dram_timing.h"

namespace strata {

DramProtocol DramProtocol::standard(const DramTiming& t) {
  DramProtocol p;
  // In DramCmd's order.
  p.commands_ = {
      {"ACT", false, true, false, false, false},   {"PRE", false, false, true, false, false},
      {"PREA", true, false, true, false, false},   {"RD", false, false, false, true, false},
      {"WR", false, false, false, true, false},    {"REF", true, false, false, false, true},
      {"REFpb", false, false, false, false, true},
  };
  using C = DramCmd;
  using L = TimingLevel;
  const int BL = t.tBURST;
  const auto rule = [&](C from, C to, L level, int latency, const char* name) {
    p.add_rule({from, to, level, latency, name});
  };
  // Column to column: data-bus occupancy and bank-group I/O (JESD79-4 tCCD_S/L), read-write
  // turnarounds (RL + BL/2 + 2 - WL), write-to-read (WL + BL/2 + tWTR), rank switches (tRTRS).
  rule(C::RD, C::RD, L::Group, t.tCCD_L, "tCCD_L");
  rule(C::RD, C::RD, L::Rank, t.tCCD_S, "tCCD_S");
  rule(C::RD, C::RD, L::OtherRanks, BL + t.tRTRS, "tRTRS");
  rule(C::WR, C::WR, L::Group, t.tCCD_L_WR, "tCCD_L_WR");
  rule(C::WR, C::WR, L::Rank, t.tCCD_S, "tCCD_S");
  rule(C::WR, C::WR, L::OtherRanks, BL + t.tRTRS, "tRTRS");
  rule(C::RD, C::WR, L::Rank, t.CL + BL + 2 - t.CWL, "tRTW");
  rule(C::RD, C::WR, L::OtherRanks, t.CL + BL + t.tRTRS - t.CWL, "tRTRS");
  rule(C::WR, C::RD, L::Group, t.CWL + BL + t.tWTR_L, "tWTR_L");
  rule(C::WR, C::RD, L::Rank, t.CWL + BL + t.tWTR_S, "tWTR_S");
  rule(C::WR, C::RD, L::OtherRanks, t.CWL + BL + t.tRTRS - t.CL, "tRTRS");
  // Row commands.
  rule(C::ACT, C::ACT, L::Bank, t.tRC, "tRC");
  rule(C::ACT, C::ACT, L::Group, t.tRRD_L, "tRRD_L");
  rule(C::ACT, C::ACT, L::Rank, t.tRRD_S, "tRRD_S");
  rule(C::ACT, C::RD, L::Bank, t.tRCD, "tRCD");
  rule(C::ACT, C::WR, L::Bank, t.tRCDW, "tRCDW");
  rule(C::ACT, C::PRE, L::Bank, t.tRAS, "tRAS");
  rule(C::ACT, C::REFpb, L::Rank, t.tRRD_S, "tRRD_S");
  rule(C::RD, C::PRE, L::Bank, t.tRTP, "tRTP");
  rule(C::WR, C::PRE, L::Bank, t.CWL + BL + t.tWR, "tWR");
  rule(C::PRE, C::ACT, L::Bank, t.tRP, "tRP");
  rule(C::PRE, C::PRE, L::Rank, t.tPPD, "tPPD");
  rule(C::PRE, C::PREA, L::Rank, t.tPPD, "tPPD");
  rule(C::PRE, C::REF, L::Rank, t.tRP, "tRP");
  rule(C::PRE, C::REFpb, L::Bank, t.tRP, "tRP");
  rule(C::PREA, C::ACT, L::Rank, t.tRPab, "tRPab");
  rule(C::PREA, C::REF, L::Rank, t.tRPab, "tRPab");
  rule(C::PREA, C::REFpb, L::Rank, t.tRPab, "tRPab");
  // Refresh.
  rule(C::REF, C::ACT, L::Rank, t.tRFC, "tRFC");
  rule(C::REF, C::REF, L::Rank, t.tRFC, "tRFC");
  rule(C::REF, C::REFpb, L::Rank, t.tRFC, "tRFC");
  rule(C::REFpb, C::ACT, L::Bank, t.tRFCpb, "tRFCpb");
  rule(C::REFpb, C::ACT, L::Rank, t.tRRD_S, "tRRD_S");
  rule(C::REFpb, C::REFpb, L::Rank, t.tRREFD, "tRREFD");
  rule(C::REFpb, C::REF, L::Rank, t.tRFCpb, "tRFCpb");
  return p;
}

DramCmd DramProtocol::add_command(DramCommandInfo info) {
  if (find(info.name)) throw std::logic_error("DRAM command defined twice: " + info.name);
  if (commands_.size() >= 255) throw std::logic_error("too many DRAM commands");
  commands_.push_back(std::move(info));
  return static_cast<DramCmd>(commands_.size() - 1);
}

void DramProtocol::add_rule(TimingRule rule) {
  if (static_cast<int>(rule.from) >= size() || static_cast<int>(rule.to) >= size())
    throw std::logic_error("DRAM timing rule " + rule.name + " names a command the protocol does not have");
  if (rule.latency > 0) rules_.push_back(std::move(rule));
}

std::optional<DramCmd> DramProtocol::find(const std::string& name) const {
  for (std::size_t i = 0; i < commands_.size(); ++i)
    if (commands_[i].name == name) return static_cast<DramCmd>(i);
  return std::nullopt;
}

}  // namespace strata
