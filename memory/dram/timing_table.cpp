#include "memory/dram/timing_table.h"

#include <algorithm>

namespace strata {

TimingTable::TimingTable(const DramSpec& spec)
    : ranks_(spec.org.ranks),
      bank_groups_(spec.org.bank_groups),
      banks_per_group_(spec.org.banks_per_group),
      tFAW_(static_cast<std::uint64_t>(spec.timing.tFAW)),
      faw_(spec.org.ranks, std::array<std::uint64_t, 4>{}),
      faw_head_(spec.org.ranks, 0) {
  const DramProtocol protocol = spec.protocol();
  n_ = static_cast<std::size_t>(protocol.size());
  rules_.resize(n_);
  for (const TimingRule& r : protocol.rules()) rules_[idx(r.from)].push_back(Rule{r.to, r.level, r.latency});
  for (std::size_t c = 0; c < n_; ++c) opens_row_.push_back(protocol.info(static_cast<DramCmd>(c)).opens_row);
  rank_.assign(static_cast<std::size_t>(spec.org.ranks) * n_, 0);
  group_.assign(static_cast<std::size_t>(spec.org.ranks * spec.org.bank_groups) * n_, 0);
  bank_.assign(static_cast<std::size_t>(spec.org.ranks * spec.org.banks_per_rank()) * n_, 0);
}

std::uint64_t TimingTable::earliest_prea(int rank) const {
  std::uint64_t t = rank_[static_cast<std::size_t>(rank) * n_ + idx(DramCmd::PREA)];
  const int first = rank * bank_groups_ * banks_per_group_;
  for (int b = first; b < first + bank_groups_ * banks_per_group_; ++b)
    t = std::max(t, bank_[static_cast<std::size_t>(b) * n_ + idx(DramCmd::PRE)]);
  return t;
}

void TimingTable::issue(const DramCommand& c) {
  const int bg = c.rank * bank_groups_ + c.bank_group;
  const int b = bg * banks_per_group_ + c.bank;
  for (const Rule& r : rules_[idx(c.cmd)]) {
    const std::uint64_t at = c.cycle + static_cast<std::uint64_t>(r.latency);
    switch (r.level) {
      case TimingLevel::Rank: raise(rank_, static_cast<std::size_t>(c.rank), r.to, at); break;
      case TimingLevel::Group: raise(group_, static_cast<std::size_t>(bg), r.to, at); break;
      case TimingLevel::Bank: raise(bank_, static_cast<std::size_t>(b), r.to, at); break;
      case TimingLevel::OtherRanks:
        for (int other = 0; other < ranks_; ++other)
          if (other != c.rank) raise(rank_, static_cast<std::size_t>(other), r.to, at);
        break;
    }
  }
  if (opens_row_[idx(c.cmd)]) {
    faw_[c.rank][faw_head_[c.rank]] = c.cycle + tFAW_;
    faw_head_[c.rank] = (faw_head_[c.rank] + 1) % 4;
  }
}

}  // namespace strata
