// The controller's view of the timing constraints: for each command just issued, the earliest
// cycle at which every later command may follow, kept per bank, bank group and rank. Asking
// "when may this command go?" is then a max over three entries (plus the FAW window), which is
// what lets the controller sleep exactly until the next legal command.
//
// The rules are the device's DramProtocol (dram_protocol.h: the JEDEC rules, each with the
// parameter it encodes, plus a device's own). The protocol checker states the JEDEC rules
// again its own way, so a wrong rule there is caught.
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

  // Earliest cycle at which `cmd` may be issued to the addressed bank (for rank-scoped
  // commands, to the rank; for PREA this includes every bank's PRE constraint).
  std::uint64_t earliest(DramCmd cmd, int rank, int bank_group, int bank) const {
    const int bg = rank * bank_groups_ + bank_group;
    const int b = bg * banks_per_group_ + bank;
    const std::size_t c = idx(cmd);
    std::uint64_t t = std::max(rank_[rank * n_ + c], std::max(group_[bg * n_ + c], bank_[b * n_ + c]));
    if (opens_row_[c]) t = std::max(t, faw_[rank][faw_head_[rank]]);
    return t;
  }
  std::uint64_t earliest_prea(int rank) const;
  // Records `c` as issued at c.cycle.
  void issue(const DramCommand& c);

 private:
  struct Rule {
    DramCmd to;
    TimingLevel level;
    int latency;
  };
  static std::size_t idx(DramCmd c) { return static_cast<std::size_t>(c); }
  void raise(std::vector<std::uint64_t>& rows, std::size_t row, DramCmd to, std::uint64_t at) const {
    std::uint64_t& v = rows[row * n_ + idx(to)];
    if (at > v) v = at;
  }

  int ranks_, bank_groups_, banks_per_group_;
  std::size_t n_;  // commands in the protocol
  std::uint64_t tFAW_;
  std::vector<std::vector<Rule>> rules_;  // by the command issued
  std::vector<std::uint8_t> opens_row_;   // by command: counts in the FAW window
  // Earliest cycle of each command, per rank, bank group and bank (n_ entries each).
  std::vector<std::uint64_t> rank_, group_, bank_;
  // For the last four row activations of each rank, their cycle + tFAW, as a ring; faw_head_
  // is the oldest.
  std::vector<std::array<std::uint64_t, 4>> faw_;
  std::vector<int> faw_head_;
};

}  // namespace strata
