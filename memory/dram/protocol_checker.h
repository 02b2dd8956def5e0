// An independent check of every command a controller issues against the standard's timing
// and state rules (sim.check_protocol: true). It keeps its own command history and bank states
// and states each JEDEC constraint once, by its name, instead of sharing the protocol's rule
// table (dram_protocol.h), so that a wrong rule there (or a scheduler bug) shows up here as the
// first violation, with the command, bank and cycle. A device's own commands are checked from
// the protocol: their state by what they do (open, close, use a row, refresh) and every rule
// from or to them, over a generic history of when each command last went to each bank, bank
// group and rank. A rank-scoped device command that opens or uses a row does so in every bank
// of the rank (all-bank activation and MAC). Rules of the device's state beyond that (PIM modes)
// come from DramSpec::device_state_rules.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memory/dram/dram_command.h"
#include "memory/dram/dram_protocol.h"
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
    // A lower bound of its banks' last refresh (refreshes only move forward): the banks are
    // looked at only when this bound is past the deadline.
    std::int64_t refreshed_at_least = 0;
  };
  // Requires c.cycle - since >= need; records the first failure.
  void require(const char* rule, const char* after, std::int64_t since, int need) {
    if (since != kNever && need > 0 && static_cast<std::int64_t>(current_.cycle) - since < need)
      violated(rule, after, since, need);
  }
  void violated(const char* rule, const char* after, std::int64_t since, int need);
  void fail(const std::string& what);
  std::string where() const;
  Bank& bank(int rank, int group, int b) { return banks_[(rank * spec_.org.bank_groups + group) * spec_.org.banks_per_group + b]; }

  // The rules that involve a device's own command, and the generic check of them and of its state.
  void check_device_rules(const DramCommand& c);
  void apply_device_state(const DramCommand& c, Bank& b);
  std::int64_t& last(TimingLevel level, int index, DramCmd cmd) {
    auto& v = level == TimingLevel::Bank ? last_bank_ : level == TimingLevel::Group ? last_group_ : last_rank_;
    return v[static_cast<std::size_t>(index) * static_cast<std::size_t>(protocol_.size()) +
             static_cast<std::size_t>(cmd)];
  }

  DramSpec spec_;
  DramProtocol protocol_;
  std::vector<const TimingRule*> device_rules_;                   // rules from or to a device command
  std::vector<std::int64_t> last_bank_, last_group_, last_rank_;  // by (index, command)
  std::function<std::string(const DramCommand&)> device_state_;   // DramSpec::device_state_rules
  bool refresh_required_;
  std::vector<Bank> banks_;
  std::vector<Group> groups_;
  std::vector<Rank> ranks_;
  std::int64_t last_row_cmd_ = kNever, last_col_cmd_ = kNever;
  DramCommand current_;
  std::string error_;
};

}  // namespace strata
