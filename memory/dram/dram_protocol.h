// A DRAM device's command set and timing rules, as data: the JEDEC commands (ACT, PRE, PREA,
// RD, WR, REF, REFpb) and the rules between them, to which a device adds its own commands
// (a PIM device's MAC or all-bank activate) and the rules that bind them. The timing table
// (the controller's "when may this go?") applies every rule; the protocol checker applies the
// rules that involve an added command the same generic way, and keeps its own statement of the
// JEDEC rules so that a wrong standard rule here still shows up there.
//
// A rule "from -> to at level, latency" says: after `from` is issued, `to` may not be issued
// to the same bank / bank group / rank (or to any other rank) for `latency` cycles. tFAW (four
// row activations per window) is kept apart: it applies to every command that opens a row.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memory/dram/dram_command.h"

namespace strata {

struct DramTiming;

struct DramCommandInfo {
  std::string name;
  bool rank_scoped = false;  // addresses a rank, not a bank (REF, PREA)
  bool opens_row = false;    // the bank must be precharged; its row is open after (ACT)
  bool closes_row = false;   // the bank (rank_scoped: every open bank) is precharged after (PRE, PREA)
  bool column = false;       // needs its row open; goes on the column bus where there is one (RD, WR)
  bool refreshes = false;    // needs the bank (rank_scoped: every bank) precharged (REF, REFpb)
};

enum class TimingLevel { Bank, Group, Rank, OtherRanks };

struct TimingRule {
  DramCmd from, to;
  TimingLevel level;
  int latency;       // cycles; rules of 0 or less bind nothing
  std::string name;  // the JEDEC parameter (or the device's), for messages
};

class DramProtocol {
 public:
  // The JEDEC command set and rules with `t`'s values (the DDR4/5, LPDDR5 and HBM standards
  // share them; absent parameters are 0 and bind nothing).
  static DramProtocol standard(const DramTiming& t);

  // Adds a device command after the standard ones and returns its id.
  DramCmd add_command(DramCommandInfo info);
  void add_rule(TimingRule rule);

  int size() const { return static_cast<int>(commands_.size()); }
  const DramCommandInfo& info(DramCmd c) const { return commands_[static_cast<std::size_t>(c)]; }
  const std::string& name(DramCmd c) const { return info(c).name; }
  std::optional<DramCmd> find(const std::string& name) const;
  static bool is_standard(DramCmd c) { return static_cast<int>(c) < kStandardDramCmds; }
  const std::vector<TimingRule>& rules() const { return rules_; }

 private:
  std::vector<DramCommandInfo> commands_;
  std::vector<TimingRule> rules_;
};

}  // namespace strata
