#include "memory/dram/channel_controller.h"

#include <algorithm>

#include "memory/dram/protocol_checker.h"

namespace strata {

ChannelController::ChannelController(const DramSpec& spec, const ControllerConfig& config, const ChannelStats& stats,
                                     ProtocolChecker* checker)
    : spec_(spec),
      config_(config),
      stats_(stats),
      checker_(checker),
      protocol_(spec.protocol()),
      timing_(spec),
      banks_(spec.org.ranks * spec.org.banks_per_rank()),
      hit_stamp_(banks_.size(), 0),
      open_banks_(spec.org.ranks, 0),
      active_since_(spec.org.ranks, 0),
      refresh_due_(spec.org.ranks),
      refresh_owed_(spec.org.ranks, false),
      refresh_bank_(spec.org.ranks, 0),
      separate_buses_(spec.separate_row_column_buses()) {
  // The soonest anything can follow each command (a wake-up hint: early only costs a step).
  const DramTiming& t = spec.timing;
  wake_after_.assign(static_cast<std::size_t>(protocol_.size()), kIdle);
  const auto at = [&](DramCmd c, int cycles) {
    wake_after_[static_cast<std::size_t>(c)] = static_cast<std::uint64_t>(cycles);
  };
  at(DramCmd::ACT, std::min(t.tRCD, t.tRCDW));
  at(DramCmd::PRE, t.tRP);
  at(DramCmd::PREA, t.tRPab);
  at(DramCmd::REF, t.tRFC);
  at(DramCmd::REFpb, std::min(t.tRFCpb, t.tRREFD));
  for (const TimingRule& r : protocol_.rules())
    if (!DramProtocol::is_standard(r.from))
      wake_after_[static_cast<std::size_t>(r.from)] =
          std::min(wake_after_[static_cast<std::size_t>(r.from)], static_cast<std::uint64_t>(r.latency));
  reads_.reserve(config.read_queue);
  writes_.reserve(config.write_queue);
  const int interval = config.refresh == ControllerConfig::Refresh::PerBank ? spec.timing.tREFIpb : spec.timing.tREFI;
  // Stagger the ranks so their refreshes do not all stall the channel at once.
  for (int r = 0; r < spec.org.ranks; ++r)
    refresh_due_[r] = static_cast<std::uint64_t>(interval) * static_cast<std::uint64_t>(r + 1) /
                      static_cast<std::uint64_t>(spec.org.ranks);
}

bool ChannelController::enqueue(std::uint64_t tag, const DramAddress& a, bool write, std::uint64_t now) {
  catch_up(now);
  if (!write) {
    for (const Request& w : writes_)
      if (w.a.row == a.row && w.a.column == a.column && w.a.bank == a.bank && w.a.bank_group == a.bank_group &&
          w.a.rank == a.rank) {
        stats_.forwarded_reads->add();
        stats_.read_latency->sample(0);
        stats_.total_read_latency->sample(0);
        return true;
      }
  }
  (write ? writes_ : reads_).push_back(Request{tag, a, now, bank_index(a.rank, a.bank_group, a.bank), write});
  set_queue_levels(now);
  return false;
}

void ChannelController::set_queue_levels(std::uint64_t now) {
  const double t = static_cast<double>(now) * spec_.tck_s;
  stats_.read_queue->set(t, static_cast<double>(reads_.size()));
  stats_.write_queue->set(t, static_cast<double>(writes_.size()));
}

bool ChannelController::queued_hit(int rank, int group, int bank, std::uint32_t row) const {
  const auto hits = [&](const std::vector<Request>& q) {
    for (const Request& r : q)
      if (r.a.row == row && r.a.bank == bank && r.a.bank_group == group && r.a.rank == rank) return true;
    return false;
  };
  return hits(reads_) || hits(writes_);
}

void ChannelController::refresh_candidates(std::uint64_t now, std::uint64_t& next, std::optional<Candidate>& row) {
  if (config_.refresh == ControllerConfig::Refresh::None) return;
  const bool per_bank = config_.refresh == ControllerConfig::Refresh::PerBank;
  for (int r = 0; r < spec_.org.ranks; ++r) {
    if (!refresh_owed_[r]) {
      if (now < refresh_due_[r]) {
        next = std::min(next, refresh_due_[r]);
        continue;
      }
      refresh_owed_[r] = true;
    }
    Candidate c{DramCmd::REF, r, 0, 0, 0, nullptr, SIZE_MAX};
    std::uint64_t at;
    if (per_bank) {
      const int b = refresh_bank_[r];
      c.group = b / spec_.org.banks_per_group;
      c.bank = b % spec_.org.banks_per_group;
      c.cmd = banks_[bank_index(r, c.group, c.bank)].open ? DramCmd::PRE : DramCmd::REFpb;
      at = timing_.earliest(c.cmd, r, c.group, c.bank);
    } else if (open_banks_[r] > 0) {
      c.cmd = DramCmd::PREA;
      at = timing_.earliest_prea(r);
    } else {
      at = timing_.earliest(DramCmd::REF, r, 0, 0);
    }
    if (at > now) {
      next = std::min(next, at);
    } else if (!row) {
      row = c;
    } else {
      next = now + 1;  // a second rank's refresh waits for the row bus
    }
  }
}

void ChannelController::request_candidates(std::vector<Request>& q, std::uint64_t now, std::uint64_t& next,
                                           std::optional<Candidate>& row, std::optional<Candidate>& col) {
  const bool fcfs = config_.scheduler == ControllerConfig::Scheduler::Fcfs;
  const bool per_bank = config_.refresh == ControllerConfig::Refresh::PerBank;
  const int banks_per_rank = spec_.org.banks_per_rank();
  // Banks whose open row some request in `q` hits: their other requests wait (no PRE).
  ++stamp_;
  if (!fcfs)
    for (const Request& r : q) {
      const Bank& b = banks_[r.bank];
      if (b.open && b.row == r.a.row) hit_stamp_[r.bank] = stamp_;
    }
  for (std::size_t i = 0; i < q.size(); ++i) {
    Request& r = q[i];
    const DramAddress& a = r.a;
    if (refresh_owed_[a.rank] && (!per_bank || refresh_bank_[a.rank] == r.bank % banks_per_rank)) continue;
    const Bank& b = banks_[r.bank];
    DramCmd cmd;
    if (!b.open) cmd = DramCmd::ACT;
    else if (b.row == a.row) cmd = r.write ? DramCmd::WR : DramCmd::RD;
    else if (!fcfs && hit_stamp_[r.bank] == stamp_) {  // serve the open row's hits first
      waits_for_hits_ = true;
      continue;
    }
    else cmd = DramCmd::PRE;
    // Constraints only ever grow, so an earlier answer for the same command is a lower bound:
    // while it lies in the future the request cannot be ready, and it is a safe wake-up time.
    if (cmd != r.cached_cmd || r.cached_at <= now) {
      r.cached_cmd = cmd;
      r.cached_at = timing_.earliest(cmd, a.rank, a.bank_group, a.bank);
    }
    const std::uint64_t at = r.cached_at;
    const bool column = protocol_.info(cmd).column;
    std::optional<Candidate>& slot = column ? col : row;
    if (at > now) {
      next = std::min(next, at);
    } else if (!slot || (cmd == DramCmd::ACT && slot->cmd == DramCmd::PRE)) {
      // The oldest ready command, except that an activation goes before a precharge: under
      // tFAW / tRRD a slipped ACT is bandwidth lost for good, a PRE can wait a cycle.
      if (slot) next = now + 1;
      slot = Candidate{cmd, a.rank, a.bank_group, a.bank, a.row, &q, i};
    } else {
      next = now + 1;  // ready too, behind an older one: next cycle at the earliest
    }
    if (fcfs) break;  // FCFS serves the oldest request only
  }
}

void ChannelController::record(DramCmd cmd, int rank, int group, int bank, std::uint32_t row, std::uint64_t now) {
  const DramCommand c{cmd, now, rank, group, bank, row};
  timing_.issue(c);
  stats_.commands[static_cast<int>(cmd)]->add();
  if (checker_ && violation_.empty()) violation_ = checker_->check(c);
  if (on_command_) on_command_(c);
  (protocol_.info(cmd).column && separate_buses_ ? last_col_cmd_ : last_row_cmd_) = now;
}

void ChannelController::issue(const Candidate& c, std::uint64_t now, std::vector<Completion>& done,
                              std::uint64_t& next) {
  record(c.cmd, c.rank, c.group, c.bank, c.row, now);
  const int bi = bank_index(c.rank, c.group, c.bank);
  Bank& b = banks_[bi];
  const DramTiming& t = spec_.timing;
  const auto close = [&](Bank& x, int rank) {
    if (!x.open) return;
    x.open = false;
    x.close_pending = false;
    if (--open_banks_[rank] == 0) active_cycles_ += now - active_since_[rank];
  };
  // What the command does to the banks, from the protocol (a device's own commands included).
  const DramCommandInfo& info = protocol_.info(c.cmd);
  const int first = c.rank * spec_.org.banks_per_rank();
  if (info.opens_row) {
    b.open = true;
    b.row = c.row;
    if (open_banks_[c.rank]++ == 0) active_since_[c.rank] = now;
  }
  if (info.closes_row && info.rank_scoped)
    for (int i = first; i < first + spec_.org.banks_per_rank(); ++i) close(banks_[i], c.rank);
  else if (info.closes_row) close(b, c.rank);
  if (info.refreshes) {
    const bool per_bank = !info.rank_scoped;
    refresh_owed_[c.rank] = false;
    refresh_due_[c.rank] += static_cast<std::uint64_t>(per_bank ? t.tREFIpb : t.tREFI);
    if (per_bank) refresh_bank_[c.rank] = (refresh_bank_[c.rank] + 1) % spec_.org.banks_per_rank();
  }
  if (const std::uint64_t wake = wake_after_[static_cast<std::size_t>(c.cmd)]; wake != kIdle)
    next = std::min(next, now + wake);
  if (c.index == SIZE_MAX) return;  // a refresh or page-policy command

  std::vector<Request>& q = *c.queue;
  Request& r = q[c.index];
  if (c.cmd == DramCmd::PRE) r.needed_pre = true;
  if (c.cmd == DramCmd::ACT) r.needed_act = true;
  if (!info.column) return;

  (r.needed_pre ? stats_.row_conflicts : r.needed_act ? stats_.row_misses : stats_.row_hits)->add();
  const bool write = c.cmd == DramCmd::WR;
  const std::uint64_t data_end = now + static_cast<std::uint64_t>((write ? t.CWL : t.CL) + t.tBURST);
  const double ns = static_cast<double>(data_end - r.arrival) * spec_.tck_s * 1e9;
  if (write) {
    stats_.writes->add();
    stats_.write_latency->sample(ns);
    stats_.total_write_latency->sample(ns);
  } else {
    stats_.reads->add();
    stats_.read_latency->sample(ns);
    stats_.total_read_latency->sample(ns);
    done.push_back(Completion{r.tag, data_end});
  }
  q.erase(q.begin() + static_cast<std::ptrdiff_t>(c.index));
  set_queue_levels(now);

  if (config_.page_policy == ControllerConfig::PagePolicy::Closed ||
      (config_.page_policy == ControllerConfig::PagePolicy::Adaptive && !queued_hit(c.rank, c.group, c.bank, c.row))) {
    if (!b.close_pending) closing_.push_back(bi);
    b.close_pending = true;
    next = std::min(next, timing_.earliest(DramCmd::PRE, c.rank, c.group, c.bank));
  }
}

std::uint64_t ChannelController::step(std::uint64_t now, std::vector<Completion>& done) {
  catch_up(now);
  const std::uint64_t next = schedule(now, done);
  if (idle() && next != kIdle) {
    parked_ = next;  // only refresh is left: done in catch_up when a request comes (or at the end)
    return kIdle;
  }
  return next;
}

void ChannelController::catch_up(std::uint64_t now) {
  std::vector<Completion> none;
  while (parked_ < now) {
    const std::uint64_t at = parked_;
    parked_ = schedule(at, none);
  }
}

std::uint64_t ChannelController::schedule(std::uint64_t now, std::vector<Completion>& done) {
  // Already issued on every bus this cycle (a second wake-up in the same cycle).
  const bool row_busy = last_row_cmd_ == now;
  const bool col_busy = separate_buses_ ? last_col_cmd_ == now : row_busy;
  if (row_busy && col_busy) return now + 1;

  std::uint64_t next = kIdle;
  std::optional<Candidate> row, col;
  refresh_candidates(now, next, row);

  // Write drain: switch to writes above the high watermark (or when no read waits) and back
  // below the low one.
  const std::size_t high =
      std::max<std::size_t>(1, static_cast<std::size_t>(config_.write_high * static_cast<double>(config_.write_queue)));
  const std::size_t low = static_cast<std::size_t>(config_.write_low * static_cast<double>(config_.write_queue));
  const auto drain_mode = [&] {
    if (writes_.size() >= high || (reads_.empty() && !writes_.empty())) return true;
    if (writes_.size() <= low && !reads_.empty()) return false;
    return draining_;
  };
  draining_ = drain_mode();
  waits_for_hits_ = false;
  request_candidates(draining_ ? writes_ : reads_, now, next, row, col);

  // Closed / adaptive page: precharge the banks marked for closing once legal, unless a queued
  // request (adaptive) now hits the row.
  for (std::size_t k = 0; k < closing_.size() && !row;) {
    const int i = closing_[k];
    Bank& b = banks_[i];
    const int rank = i / spec_.org.banks_per_rank();
    const int group = (i / spec_.org.banks_per_group) % spec_.org.bank_groups;
    const int bank = i % spec_.org.banks_per_group;
    if (!b.open || !b.close_pending ||
        (config_.page_policy == ControllerConfig::PagePolicy::Adaptive && queued_hit(rank, group, bank, b.row))) {
      b.close_pending = false;
      closing_.erase(closing_.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    const std::uint64_t at = timing_.earliest(DramCmd::PRE, rank, group, bank);
    if (at <= now) {
      row = Candidate{DramCmd::PRE, rank, group, bank, b.row, nullptr, SIZE_MAX};
    } else {
      next = std::min(next, at);
    }
    ++k;
  }

  // One command per bus: a column command first (it moves data), else the row command; HBM's
  // separate buses take one of each. When both come from one queue, issue the later one
  // first, so the column command's erase does not shift the other's index.
  bool issued_row = false, issued_col = false;
  const bool same_bank = row && col && row->rank == col->rank && row->group == col->group && row->bank == col->bank;
  if (separate_buses_ && row && col && !row_busy && !col_busy && !same_bank) {
    const bool row_first = row->queue == col->queue && row->index > col->index;
    issue(row_first ? *row : *col, now, done, next);
    issue(row_first ? *col : *row, now, done, next);
    issued_row = issued_col = true;
  } else if (col && !col_busy) {
    issue(*col, now, done, next);
    issued_col = true;
  } else if (row && !row_busy) {
    issue(*row, now, done, next);
    issued_row = true;
  }
  // Ready but not issued (its bus was taken), the drain mode flipped, or a request that waited
  // for the open row's hits may have lost the last of them: look again next cycle.
  if ((row && !issued_row) || (col && !issued_col) || drain_mode() != draining_ || (issued_col && waits_for_hits_))
    next = now + 1;
  if (next <= now) next = now + 1;
  if (next == kIdle && idle()) return kIdle;
  return next;
}

void ChannelController::finish(std::uint64_t end) {
  catch_up(end);
  for (int r = 0; r < spec_.org.ranks; ++r)
    if (open_banks_[r] > 0) active_cycles_ += end - active_since_[r];
  std::fill(active_since_.begin(), active_since_.end(), end);
  set_queue_levels(end);
}

}  // namespace strata
