#include "memory/dram/protocol_checker.h"

#include <fmt/format.h>

namespace strata {

ProtocolChecker::ProtocolChecker(const DramSpec& spec, bool refresh_required)
    : spec_(spec),
      protocol_(spec.protocol()),
      refresh_required_(refresh_required),
      banks_(spec.org.ranks * spec.org.banks_per_rank()),
      groups_(spec.org.ranks * spec.org.bank_groups),
      ranks_(spec.org.ranks) {
  for (const TimingRule& r : protocol_.rules())
    if (!DramProtocol::is_standard(r.from) || !DramProtocol::is_standard(r.to)) device_rules_.push_back(&r);
  if (spec.device_state_rules) device_state_ = spec.device_state_rules();
  const auto n = static_cast<std::size_t>(protocol_.size());
  last_bank_.assign(banks_.size() * n, kNever);
  last_group_.assign(groups_.size() * n, kNever);
  last_rank_.assign(ranks_.size() * n, kNever);
}

void ProtocolChecker::check_device_rules(const DramCommand& c) {
  // The times recorded below serve the device's rules alone.
  if (device_rules_.empty()) return;
  const int group = c.rank * spec_.org.bank_groups + c.bank_group;
  const int bank_at = group * spec_.org.banks_per_group + c.bank;
  for (const TimingRule* r : device_rules_) {
    if (r->to != c.cmd) continue;
    const auto check = [&](const char* where, TimingLevel level, int index) {
      require(r->name.c_str(), (protocol_.name(r->from) + where).c_str(), last(level, index, r->from), r->latency);
    };
    switch (r->level) {
      case TimingLevel::Bank: check(" to the same bank", r->level, bank_at); break;
      case TimingLevel::Group: check(" in the same bank group", r->level, group); break;
      case TimingLevel::Rank: check(" in the rank", r->level, c.rank); break;
      case TimingLevel::OtherRanks:
        for (int i = 0; i < spec_.org.ranks; ++i)
          if (i != c.rank) check(" in another rank", TimingLevel::Rank, i);
        break;
    }
  }
  const auto now = static_cast<std::int64_t>(c.cycle);
  last(TimingLevel::Bank, bank_at, c.cmd) = last(TimingLevel::Group, group, c.cmd) =
      last(TimingLevel::Rank, c.rank, c.cmd) = now;
}

void ProtocolChecker::apply_device_state(const DramCommand& c, Bank& b) {
  const DramCommandInfo& info = protocol_.info(c.cmd);
  const int count = spec_.org.banks_per_rank();
  const auto now = static_cast<std::int64_t>(c.cycle);
  if (info.rank_scoped) {
    // Every bank of the rank at once (a PIM device's all-bank activate and column commands).
    for (int i = 0; i < count; ++i) {
      Bank& x = banks_[c.rank * count + i];
      if ((info.refreshes || info.opens_row) && x.open)
        fail(fmt::format("state violated: {} while row {} of bank {} is open", where(), x.row, i));
      if (info.column && !x.open) fail(fmt::format("state violated: {} but bank {} has no open row", where(), i));
      else if (info.column && x.row != c.row)
        fail(fmt::format("state violated: {} but row {} of bank {} is open", where(), x.row, i));
      if (info.opens_row) {
        x.open = true;
        x.row = c.row;
      }
      if (info.closes_row) x.open = false;
      if (info.refreshes) x.refreshed = now;
    }
    return;
  }
  if ((info.opens_row || info.refreshes) && b.open)
    fail(fmt::format("state violated: {} while row {} is open", where(), b.row));
  if (info.column && !b.open) fail(fmt::format("state violated: {} to a bank with no open row", where()));
  else if (info.column && b.row != c.row) fail(fmt::format("state violated: {} but row {} is open", where(), b.row));
  if (info.closes_row && !b.open) fail(fmt::format("state violated: {} to a bank with no open row", where()));
  if (info.opens_row) {
    b.open = true;
    b.row = c.row;
  }
  if (info.closes_row) b.open = false;
  if (info.refreshes) b.refreshed = now;
}

std::string ProtocolChecker::where() const {
  const DramCommand& c = current_;
  const DramCommandInfo& info = protocol_.info(c.cmd);
  std::string s = fmt::format("{} at cycle {} to rank {}", info.name, c.cycle, c.rank);
  if (!info.rank_scoped) s += fmt::format(" bank group {} bank {}", c.bank_group, c.bank);
  if (info.opens_row || info.column) s += fmt::format(" row {}", c.row);
  return s;
}

void ProtocolChecker::fail(const std::string& what) {
  if (error_.empty() && !what.empty()) error_ = what;
}

void ProtocolChecker::violated(const char* rule, const char* after, std::int64_t since, int need) {
  const std::int64_t gap = static_cast<std::int64_t>(current_.cycle) - since;
  fail(fmt::format("{} violated: {} is {} cycles after {} at cycle {} (needs {})", rule, where(), gap, after, since,
                   need));
}

std::string ProtocolChecker::check(const DramCommand& c) {
  current_ = c;
  error_.clear();
  const DramTiming& t = spec_.timing;
  const int BL = t.tBURST;
  const auto now = static_cast<std::int64_t>(c.cycle);
  const int bank_count = spec_.org.banks_per_rank();
  if (static_cast<int>(c.cmd) >= protocol_.size())
    return fmt::format("command id {} is not in the device's protocol", static_cast<int>(c.cmd));
  if (c.rank < 0 || c.rank >= spec_.org.ranks || c.bank_group < 0 || c.bank_group >= spec_.org.bank_groups ||
      c.bank < 0 || c.bank >= spec_.org.banks_per_group || c.row >= spec_.org.rows)
    return fmt::format("{} addresses a bank or row the device does not have", where());

  // One command per cycle on each command bus (HBM has a row and a column bus).
  const bool column_bus = spec_.separate_row_column_buses() && protocol_.info(c.cmd).column;
  std::int64_t& bus = column_bus ? last_col_cmd_ : last_row_cmd_;
  if (now < std::max(last_row_cmd_, last_col_cmd_) && !spec_.separate_row_column_buses())
    fail(fmt::format("command order violated: {} is earlier than the previous command", where()));
  if (bus != kNever && now <= bus)
    fail(fmt::format("command bus conflict: {} shares a cycle with (or precedes) the previous command on its bus",
                     where()));
  bus = now;
  if (!spec_.separate_row_column_buses()) last_col_cmd_ = now;

  Rank& r = ranks_[c.rank];
  Group& g = groups_[c.rank * spec_.org.bank_groups + c.bank_group];
  Bank& b = bank(c.rank, c.bank_group, c.bank);
  const auto other_ranks_last = [&](std::int64_t Rank::*field) {
    std::int64_t last = kNever;
    for (int i = 0; i < spec_.org.ranks; ++i)
      if (i != c.rank) last = std::max(last, ranks_[i].*field);
    return last;
  };
  const auto each_bank_of_rank = [&](auto&& f) {
    for (int i = 0; i < bank_count; ++i) f(banks_[c.rank * bank_count + i]);
  };

  switch (c.cmd) {
    case DramCmd::ACT:
      if (b.open) fail(fmt::format("state violated: {} while row {} is open", where(), b.row));
      require("tRC", "ACT to the same bank", b.act, t.tRC);
      require("tRP", "PRE of the same bank", b.pre, t.tRP);
      require("tRPab", "PREA", r.prea, t.tRPab);
      require("tRRD_L", "ACT in the same bank group", g.act, t.tRRD_L);
      require("tRRD_S", "ACT in the rank", r.acts[3], t.tRRD_S);
      require("tFAW", "the fourth-last ACT in the rank", r.acts[0], t.tFAW);
      require("tRFC", "REF", r.ref, t.tRFC);
      require("tRFCpb", "REFpb of the same bank", b.refpb, t.tRFCpb);
      require("tRRD_S", "REFpb in the rank", r.refpb, t.tRRD_S);
      b.open = true;
      b.row = c.row;
      b.act = g.act = now;
      for (int i = 0; i < 3; ++i) r.acts[i] = r.acts[i + 1];
      r.acts[3] = now;
      break;
    case DramCmd::PRE:
      if (!b.open) fail(fmt::format("state violated: {} to a bank with no open row", where()));
      require("tRAS", "ACT", b.act, t.tRAS);
      require("tRTP", "RD", b.rd, t.tRTP);
      require("tWR", "WR (CWL + burst + tWR)", b.wr, t.CWL + BL + t.tWR);
      require("tPPD", "PRE in the rank", r.pre, t.tPPD);
      b.open = false;
      b.pre = r.pre = now;
      break;
    case DramCmd::PREA:
      require("tPPD", "PRE in the rank", r.pre, t.tPPD);
      each_bank_of_rank([&](Bank& x) {
        if (!x.open) return;
        require("tRAS", "ACT", x.act, t.tRAS);
        require("tRTP", "RD", x.rd, t.tRTP);
        require("tWR", "WR (CWL + burst + tWR)", x.wr, t.CWL + BL + t.tWR);
        x.open = false;
      });
      r.prea = r.pre = now;
      break;
    case DramCmd::RD:
    case DramCmd::WR: {
      const bool rd = c.cmd == DramCmd::RD;
      if (!b.open) fail(fmt::format("state violated: {} to a bank with no open row", where()));
      else if (b.row != c.row) fail(fmt::format("state violated: {} but row {} is open", where(), b.row));
      if (rd) {
        require("tRCD", "ACT", b.act, t.tRCD);
        require("tCCD_L", "RD in the same bank group", g.rd, t.tCCD_L);
        require("tCCD_S", "RD in the rank", r.rd, t.tCCD_S);
        require("tWTR_L", "WR in the same bank group (CWL + burst + tWTR_L)", g.wr, t.CWL + BL + t.tWTR_L);
        require("tWTR_S", "WR in the rank (CWL + burst + tWTR_S)", r.wr, t.CWL + BL + t.tWTR_S);
        require("tRTRS", "RD in another rank (burst + tRTRS)", other_ranks_last(&Rank::rd), BL + t.tRTRS);
        require("tRTRS", "WR in another rank (CWL + burst + tRTRS - CL)", other_ranks_last(&Rank::wr),
                t.CWL + BL + t.tRTRS - t.CL);
        b.rd = g.rd = r.rd = now;
      } else {
        require("tRCDW", "ACT", b.act, t.tRCDW);
        require("tCCD_L_WR", "WR in the same bank group", g.wr, t.tCCD_L_WR);
        require("tCCD_S", "WR in the rank", r.wr, t.tCCD_S);
        require("tRTW", "RD in the rank (CL + burst + 2 - CWL)", r.rd, t.CL + BL + 2 - t.CWL);
        require("tRTRS", "WR in another rank (burst + tRTRS)", other_ranks_last(&Rank::wr), BL + t.tRTRS);
        require("tRTRS", "RD in another rank (CL + burst + tRTRS - CWL)", other_ranks_last(&Rank::rd),
                t.CL + BL + t.tRTRS - t.CWL);
        b.wr = g.wr = r.wr = now;
      }
      break;
    }
    case DramCmd::REF:
      each_bank_of_rank([&](Bank& x) {
        if (x.open) fail(fmt::format("state violated: {} while row {} of a bank is open", where(), x.row));
      });
      require("tRP", "PRE in the rank", r.pre, t.tRP);
      require("tRPab", "PREA", r.prea, t.tRPab);
      require("tRFC", "REF", r.ref, t.tRFC);
      require("tRFCpb", "REFpb", r.refpb, t.tRFCpb);
      r.ref = now;
      each_bank_of_rank([&](Bank& x) { x.refreshed = now; });
      break;
    case DramCmd::REFpb:
      if (b.open) fail(fmt::format("state violated: {} while row {} is open", where(), b.row));
      require("tRP", "PRE of the same bank", b.pre, t.tRP);
      require("tRPab", "PREA", r.prea, t.tRPab);
      require("tRFC", "REF", r.ref, t.tRFC);
      require("tRREFD", "REFpb in the rank", r.refpb, t.tRREFD);
      require("tRRD_S", "ACT in the rank", r.acts[3], t.tRRD_S);
      r.refpb = b.refpb = b.refreshed = now;
      break;
    default:  // a device's own command
      apply_device_state(c, b);
      break;
  }
  check_device_rules(c);
  if (device_state_) fail(device_state_(c));
  const std::int64_t deadline = 9 * static_cast<std::int64_t>(t.tREFI);
  if (refresh_required_ && now - r.refreshed_at_least > deadline) {
    r.refreshed_at_least = now;
    for (int i = 0; i < bank_count && error_.empty(); ++i) {
      const Bank& x = banks_[c.rank * bank_count + i];
      r.refreshed_at_least = std::min(r.refreshed_at_least, x.refreshed);
      if (now - x.refreshed > deadline)
        fail(fmt::format("refresh violated: {} but bank {} of rank {} was last refreshed at cycle {} (more than 9 x "
                         "tREFI = {} cycles ago)",
                         where(), i, c.rank, x.refreshed, deadline));
    }
  }
  return error_;
}

}  // namespace strata
