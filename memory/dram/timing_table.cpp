#include "memory/dram/timing_table.h"

#include <algorithm>

namespace strata {

void TimingTable::rule(DramCmd from, DramCmd to, Level level, int latency) {
  if (latency > 0) rules_[idx(from)].push_back(Rule{to, level, latency});
}

TimingTable::TimingTable(const DramSpec& spec)
    : ranks_(spec.org.ranks),
      bank_groups_(spec.org.bank_groups),
      banks_per_group_(spec.org.banks_per_group),
      tFAW_(static_cast<std::uint64_t>(spec.timing.tFAW)),
      rank_(spec.org.ranks, Row{}),
      group_(spec.org.ranks * spec.org.bank_groups, Row{}),
      bank_(spec.org.ranks * spec.org.banks_per_rank(), Row{}),
      faw_(spec.org.ranks, std::array<std::uint64_t, 4>{}),
      faw_head_(spec.org.ranks, 0) {
  using C = DramCmd;
  const DramTiming& t = spec.timing;
  const int BL = t.tBURST;
  // Column to column: data-bus occupancy and bank-group I/O (JESD79-4 tCCD_S/L), read-write
  // turnarounds (RL + BL/2 + 2 - WL), write-to-read (WL + BL/2 + tWTR), rank switches (tRTRS).
  rule(C::RD, C::RD, kGroup, t.tCCD_L);
  rule(C::RD, C::RD, kRank, t.tCCD_S);
  rule(C::RD, C::RD, kOtherRanks, BL + t.tRTRS);
  rule(C::WR, C::WR, kGroup, t.tCCD_L_WR);
  rule(C::WR, C::WR, kRank, t.tCCD_S);
  rule(C::WR, C::WR, kOtherRanks, BL + t.tRTRS);
  rule(C::RD, C::WR, kRank, t.CL + BL + 2 - t.CWL);
  rule(C::RD, C::WR, kOtherRanks, t.CL + BL + t.tRTRS - t.CWL);
  rule(C::WR, C::RD, kGroup, t.CWL + BL + t.tWTR_L);
  rule(C::WR, C::RD, kRank, t.CWL + BL + t.tWTR_S);
  rule(C::WR, C::RD, kOtherRanks, t.CWL + BL + t.tRTRS - t.CL);
  // Row commands.
  rule(C::ACT, C::ACT, kBank, t.tRC);
  rule(C::ACT, C::ACT, kGroup, t.tRRD_L);
  rule(C::ACT, C::ACT, kRank, t.tRRD_S);
  rule(C::ACT, C::RD, kBank, t.tRCD);
  rule(C::ACT, C::WR, kBank, t.tRCDW);
  rule(C::ACT, C::PRE, kBank, t.tRAS);
  rule(C::ACT, C::REFpb, kRank, t.tRRD_S);
  rule(C::RD, C::PRE, kBank, t.tRTP);
  rule(C::WR, C::PRE, kBank, t.CWL + BL + t.tWR);
  rule(C::PRE, C::ACT, kBank, t.tRP);
  rule(C::PRE, C::PRE, kRank, t.tPPD);
  rule(C::PRE, C::PREA, kRank, t.tPPD);
  rule(C::PRE, C::REF, kRank, t.tRP);
  rule(C::PRE, C::REFpb, kBank, t.tRP);
  rule(C::PREA, C::ACT, kRank, t.tRPab);
  rule(C::PREA, C::REF, kRank, t.tRPab);
  rule(C::PREA, C::REFpb, kRank, t.tRPab);
  // Refresh.
  rule(C::REF, C::ACT, kRank, t.tRFC);
  rule(C::REF, C::REF, kRank, t.tRFC);
  rule(C::REF, C::REFpb, kRank, t.tRFC);
  rule(C::REFpb, C::ACT, kBank, t.tRFCpb);
  rule(C::REFpb, C::ACT, kRank, t.tRRD_S);
  rule(C::REFpb, C::REFpb, kRank, t.tRREFD);
  rule(C::REFpb, C::REF, kRank, t.tRFCpb);
}

std::uint64_t TimingTable::earliest_prea(int rank) const {
  std::uint64_t t = rank_[rank][idx(DramCmd::PREA)];
  const int first = rank * bank_groups_ * banks_per_group_;
  for (int b = first; b < first + bank_groups_ * banks_per_group_; ++b) t = std::max(t, bank_[b][idx(DramCmd::PRE)]);
  return t;
}

void TimingTable::issue(const DramCommand& c) {
  const int bg = c.rank * bank_groups_ + c.bank_group;
  const int b = bg * banks_per_group_ + c.bank;
  for (const Rule& r : rules_[idx(c.cmd)]) {
    const std::uint64_t at = c.cycle + static_cast<std::uint64_t>(r.latency);
    switch (r.level) {
      case kRank: raise(rank_[c.rank], r.to, at); break;
      case kGroup: raise(group_[bg], r.to, at); break;
      case kBank: raise(bank_[b], r.to, at); break;
      case kOtherRanks:
        for (int other = 0; other < ranks_; ++other)
          if (other != c.rank) raise(rank_[other], r.to, at);
        break;
    }
  }
  if (c.cmd == DramCmd::ACT) {
    faw_[c.rank][faw_head_[c.rank]] = c.cycle + tFAW_;
    faw_head_[c.rank] = (faw_head_[c.rank] + 1) % 4;
  }
}

}  // namespace strata
