// An independent check of every command a controller issues against the standard's timing
// and state rules (sim.check_protocol: true). It keeps its own command history and bank states
// and states each constraint once, by its JEDEC name, instead of sharing TimingTable's rules,
// so that a wrong rule there (or a scheduler bug) shows up here as the first violation, with the
// command, bank and cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory/dram/dram_command.h"
#include "memory/dram/dram_spec.h"

namespace strata {

class ProtocolChecker {
 public:
  // `refresh_required`: also check that every bank is refreshed at least every 9 x tREFI (the
  // standard lets a controller postpone at most 8 refreshes).
  ProtocolChecker(const DramSpec& spec, bool refresh_required);
  // Checks `c` against everything issued before it and records it. Returns the first violated
  // rule as one line, or an empty string.
  std::string check(const DramCommand& c);

 private:
  static constexpr std::int64_t kNever = INT64_MIN / 4;
  struct Bank {
    bool open = false;
    std::uint32_t row = 0;
    std::int64_t act = kNever, pre = kNever, rd = kNever, wr = kNever, refpb = kNever;
    std::int64_t refreshed = 0;  // by REF or REFpb
  };
  struct Group {
    std::int64_t act = kNever, rd = kNever, wr = kNever;
  };
  struct Rank {
    std::int64_t acts[4] = {kNever, kNever, kNever, kNever};  // last four ACTs, oldest first
    std::int64_t pre = kNever, prea = kNever, rd = kNever, wr = kNever, ref = kNever, refpb = kNever;
  };
  // Requires c.cycle - since >= need; records the first failure.
  void require(const char* rule, const char* after, std::int64_t since, int need);
  void fail(const std::string& what);
  std::string where() const;
  Bank& bank(int rank, int group, int b) { return banks_[(rank * spec_.org.bank_groups + group) * spec_.org.banks_per_group + b]; }

  DramSpec spec_;
  bool refresh_required_;
  std::vector<Bank> banks_;
  std::vector<Group> groups_;
  std::vector<Rank> ranks_;
  std::int64_t last_row_cmd_ = kNever, last_col_cmd_ = kNever;
  DramCommand current_;
  std::string error_;
};

}  // namespace strata
