// The controller's view of the timing constraints: for each command just issued, the earliest
// cycle at which every later command may follow, kept per bank, bank group and rank. Asking
// "when may this command go?" is then a max over three entries (plus the FAW window), which is
// what lets the controller sleep exactly until the next legal command.
//
// The rules are built once from DramTiming (see timing_table.cpp for the list, each with the
// JEDEC parameter it encodes). The protocol checker re-derives the same constraints a different
// way, so a wrong rule here is caught there.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "memory/dram/dram_command.h"
#include "memory/dram/dram_spec.h"

namespace strata {

class TimingTable {
 public:
  TimingTable(const DramSpec& spec);

  // Earliest cycle at which `cmd` may be issued to the addressed bank (for REF and PREA, to
  // the rank; for PREA this includes every bank's PRE constraint).
  std::uint64_t earliest(DramCmd cmd, int rank, int bank_group, int bank) const {
    const int bg = rank * bank_groups_ + bank_group;
    const int b = bg * banks_per_group_ + bank;
    std::uint64_t t = std::max(rank_[rank][idx(cmd)], std::max(group_[bg][idx(cmd)], bank_[b][idx(cmd)]));
    if (cmd == DramCmd::ACT) t = std::max(t, faw_[rank][faw_head_[rank]]);
    return t;
  }
  std::uint64_t earliest_prea(int rank) const;
  // Records `c` as issued at c.cycle.
  void issue(const DramCommand& c);

 private:
  enum Level : std::uint8_t { kRank, kGroup, kBank, kOtherRanks };
  struct Rule {
    DramCmd to;
    Level level;
    int latency;
  };
  using Row = std::array<std::uint64_t, kDramCmds>;
  static int idx(DramCmd c) { return static_cast<int>(c); }
  void rule(DramCmd from, DramCmd to, Level level, int latency);
  static void raise(Row& row, DramCmd to, std::uint64_t at) {
    std::uint64_t& v = row[idx(to)];
    if (at > v) v = at;
  }

  int ranks_, bank_groups_, banks_per_group_;
  std::uint64_t tFAW_;
  std::array<std::vector<Rule>, kDramCmds> rules_;
  std::vector<Row> rank_, group_, bank_;
  // For the last four ACTs of each rank, their cycle + tFAW, as a ring; faw_head_ is the oldest.
  std::vector<std::array<std::uint64_t, 4>> faw_;
  std::vector<int> faw_head_;
};

}  // namespace strata
