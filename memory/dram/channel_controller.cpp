#include "memory/dram/channel_controller.h"

#include <algorithm>

#include "memory/dram/protocol_checker.h"
#include "sim/interrupt.h"

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
      reads_(spec.org.ranks * spec.org.banks_per_rank(), config.read_queue),
      writes_(spec.org.ranks * spec.org.banks_per_rank(), config.write_queue),
      due_(banks_.size()),
      open_banks_(spec.org.ranks, 0),
      active_since_(spec.org.ranks, 0),
      drain_high_(std::max<std::size_t>(
          1, static_cast<std::size_t>(config.write_high * static_cast<double>(config.write_queue)))),
      drain_low_(static_cast<std::size_t>(config.write_low * static_cast<double>(config.write_queue))),
      refresh_due_(spec.org.ranks),
      refresh_owed_(spec.org.ranks, false),
      refresh_bank_(spec.org.ranks, 0),
      separate_buses_(spec.separate_row_column_buses()),
      stream_opened_(spec.org.ranks) {
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
  const int interval = config.refresh == ControllerConfig::Refresh::PerBank ? spec.timing.tREFIpb : spec.timing.tREFI;
  // Stagger the ranks so their refreshes do not all stall the channel at once.
  for (int r = 0; r < spec.org.ranks; ++r)
    refresh_due_[r] = static_cast<std::uint64_t>(interval) * static_cast<std::uint64_t>(r + 1) /
                      static_cast<std::uint64_t>(spec.org.ranks);
  // A channel starts idle, parked at its first refresh: one that gets its first request late
  // has refreshed all along (catch_up issues them at their own cycles), instead of owing them
  // all and issuing them back to back ahead of that request.
  if (config.refresh != ControllerConfig::Refresh::None)
    parked_ = *std::min_element(refresh_due_.begin(), refresh_due_.end());
}

ChannelController::Enqueued ChannelController::enqueue(std::uint64_t tag, const DramAddress& a, bool write,
                                                       std::uint64_t now) {
  catch_up(now);
  const int bi = bank_index(a.rank, a.bank_group, a.bank);
  if (!write) {
    for (std::uint32_t id : writes_.bank(bi)) {
      const DramAddress& w = writes_.at(id).a;
      if (w.row == a.row && w.column == a.column) {
        stats_.forwarded_reads->add();
        stats_.read_latency->sample(0);
        return Enqueued::Forwarded;
      }
    }
  }
  RequestQueue::Request r;
  r.tag = tag;
  r.a = a;
  r.arrival = now;
  r.bank = bi;
  r.write = write;
  const Bank& b = banks_[bi];
  RequestQueue& q = write ? writes_ : reads_;
  const bool hit = b.open && b.row == a.row;
  // A bank's FR-FCFS pick serves its oldest request or its oldest hit, so a younger request
  // changes it only when the bank had none, or had no hit and this one hits (the first hit also
  // decides the other queue's precharge and an adaptive close). FCFS looks at the whole queue.
  const bool changes_pick =
      config_.scheduler == ControllerConfig::Scheduler::Fcfs || q.bank(bi).empty() || (hit && q.hits(bi) == 0);
  q.push(r, hit);
  set_queue_levels(now);
  return changes_pick || drain_mode() != draining_ ? Enqueued::Step : Enqueued::Queued;
}

bool ChannelController::drain_mode() const {
  if (writes_.size() >= drain_high_ || (reads_.empty() && !writes_.empty())) return true;
  if (writes_.size() <= drain_low_ && !reads_.empty()) return false;
  return draining_;
}

void ChannelController::set_queue_levels(std::uint64_t now) {
  const double t = static_cast<double>(now) * spec_.tck_s;
  stats_.read_queue->set(t, static_cast<double>(reads_.size()));
  stats_.write_queue->set(t, static_cast<double>(writes_.size()));
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
      ++ranks_owing_refresh_;
    }
    Candidate c{DramCmd::REF, r, 0, 0, 0, nullptr, RequestQueue::kNone};
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

RequestQueue::BankPick ChannelController::bank_pick(const RequestQueue& q, int bi) const {
  const Bank& b = banks_[bi];
  if (!b.open) return {true, DramCmd::ACT, q.bank(bi).front()};
  if (q.hits(bi) == 0) return {true, DramCmd::PRE, q.bank(bi).front()};
  const std::uint32_t id = q.oldest_hit(bi, b.row);
  return {true, q.at(id).write ? DramCmd::WR : DramCmd::RD, id};
}

void ChannelController::consider(RequestQueue& q, int bi, std::uint64_t now, std::uint64_t& next,
                                 std::optional<Candidate>& row, std::optional<Candidate>& col) {
  const RequestQueue::BankPick& p = q.pick(bi);
  const DramAddress& a = q.at(p.id).a;
  std::uint64_t& at = q.ready_at(bi);
  if (at <= now) at = timing_.earliest(p.cmd, a.rank, a.bank_group, a.bank);
  if (at > now) {
    next = std::min(next, at);
    return;
  }
  const bool column = protocol_.info(p.cmd).column;
  std::optional<Candidate>& slot = column ? col : row;
  const Candidate c{p.cmd, a.rank, a.bank_group, a.bank, a.row, &q, p.id};
  if (slot) {
    const bool older = slot->queue == &q && q.at(p.id).seq < q.at(slot->id).seq;
    // The oldest ready command, except that an activation goes before a precharge: under
    // tFAW / tRRD a slipped ACT is bandwidth lost for good, a PRE can wait a cycle.
    const bool better = (p.cmd == DramCmd::ACT && slot->cmd == DramCmd::PRE) || (p.cmd == slot->cmd && older);
    passed_over_.push_back(better ? *slot : c);  // ready too: looked at again after this step's issue
    if (!better) return;
  }
  slot = c;
}

bool ChannelController::refreshing(int bi) const {
  const int banks_per_rank = spec_.org.banks_per_rank();
  const int rank = bi / banks_per_rank;
  return refresh_owed_[rank] &&
         (config_.refresh != ControllerConfig::Refresh::PerBank || refresh_bank_[rank] == bi % banks_per_rank);
}

std::optional<RequestQueue::BankPick> ChannelController::fcfs_pick(const RequestQueue& q) const {
  const std::uint32_t id = q.oldest([&](int bi) { return !refreshing(bi); });
  if (id == RequestQueue::kNone) return std::nullopt;
  const RequestQueue::Request& r = q.at(id);
  const Bank& b = banks_[r.bank];
  // Not the bank's FR-FCFS pick, so never valid as one.
  return RequestQueue::BankPick{false,
                                !b.open            ? DramCmd::ACT
                                : b.row != r.a.row ? DramCmd::PRE
                                : r.write          ? DramCmd::WR
                                                   : DramCmd::RD,
                                id};
}

void ChannelController::ensure_pick(RequestQueue& q, int bi) {
  if (!q.pick(bi).valid) set_pick(q, bi, bank_pick(q, bi));
}

void ChannelController::set_pick(RequestQueue& q, int bi, const RequestQueue::BankPick& p) {
  if (p.cmd != q.pick(bi).cmd) q.ready_at(bi) = 0;  // the bound was for another command
  q.pick(bi) = p;
}

bool ChannelController::held_for_other(const RequestQueue& q, int bi) const {
  const Bank& b = banks_[bi];
  return b.open && b.opened_for_write == (&q == &reads_) && other_queue(q).hits(bi) > 0;
}

void ChannelController::active_row_candidates(RequestQueue& other, std::uint64_t now, std::uint64_t& next,
                                              std::optional<Candidate>& row, std::optional<Candidate>& col) {
  if (other.total_hits() == 0) return;
  const bool for_write = &other == &writes_;
  const bool any_refresh_owed = ranks_owing_refresh_ > 0;
  for (const int bi : other.active_banks()) {
    const Bank& b = banks_[bi];
    if (!b.open || b.opened_for_write != for_write || other.hits(bi) == 0) continue;
    if (any_refresh_owed && refreshing(bi)) continue;
    ensure_pick(other, bi);
    consider(other, bi, now, next, row, col);
  }
}

void ChannelController::request_candidates(RequestQueue& q, std::uint64_t now, std::uint64_t& next,
                                           std::optional<Candidate>& row, std::optional<Candidate>& col) {
  if (config_.scheduler == ControllerConfig::Scheduler::Fcfs) {
    const std::optional<RequestQueue::BankPick> p = fcfs_pick(q);
    if (!p) return;
    const int bi = q.at(p->id).bank;
    set_pick(q, bi, *p);
    consider(q, bi, now, next, row, col);
    return;
  }
  // Most banks wait for a known cycle (or have no requests): one pass, free of branches, takes
  // the soonest of those and lists the banks due now, which alone are looked at further.
  const std::vector<std::uint64_t>& ready = q.ready_times();
  const std::size_t banks = ready.size();
  std::uint64_t soonest = next;
  std::size_t n_due = 0;
  for (std::size_t bi = 0; bi < banks; ++bi) {
    const std::uint64_t t = ready[bi];
    due_[n_due] = static_cast<int>(bi);
    n_due += t <= now ? 1 : 0;
    soonest = std::min(soonest, t > now ? t : RequestQueue::kNever);
  }
  next = soonest;
  const bool any_refresh_owed = ranks_owing_refresh_ > 0;
  const bool other_waits = other_queue(q).total_hits() > 0;
  for (std::size_t k = 0; k < n_due; ++k) {
    const int bi = due_[k];
    if (any_refresh_owed && refreshing(bi)) continue;
    ensure_pick(q, bi);
    // Its precharge waits for the other queue's hits on the row (active_row_candidates serves
    // them). No wake-up of its own: the command serving the last of them brings a step.
    if (other_waits && q.pick(bi).cmd == DramCmd::PRE && held_for_other(q, bi)) continue;
    consider(q, bi, now, next, row, col);
  }
}

void ChannelController::record(DramCmd cmd, int rank, int group, int bank, std::uint32_t row, std::uint64_t now,
                               std::uint32_t column) {
  const DramCommand c{cmd, now, rank, group, bank, row, column};
  timing_.issue(c);
  stats_.commands[static_cast<int>(cmd)]->add();
  if (checker_ && violation_.empty()) violation_ = checker_->check(c);
  if (on_command_) on_command_(c);
  (protocol_.info(cmd).column && separate_buses_ ? last_col_cmd_ : last_row_cmd_) = now;
}

void ChannelController::issue(const Candidate& c, std::uint64_t now, std::vector<Completion>& done,
                              std::uint64_t& next) {
  record(c.cmd, c.rank, c.group, c.bank, c.row, now, c.column);
  const int bi = bank_index(c.rank, c.group, c.bank);
  Bank& b = banks_[bi];
  const DramTiming& t = spec_.timing;
  const auto close = [&](int i, int rank) {
    Bank& x = banks_[i];
    if (!x.open) return;
    x.open = false;
    x.close_pending = false;
    reads_.bank_closed(i);
    writes_.bank_closed(i);
    if (--open_banks_[rank] == 0) active_cycles_ += now - active_since_[rank];
  };
  // What the command does to the banks, from the protocol (a device's own commands included).
  const DramCommandInfo& info = protocol_.info(c.cmd);
  const int first = c.rank * spec_.org.banks_per_rank();
  const auto open = [&](int i) {
    Bank& x = banks_[i];
    x.open = true;
    x.row = c.row;
    x.opened_for_write = c.queue == &writes_;
    reads_.bank_opened(i, c.row);
    writes_.bank_opened(i, c.row);
    if (open_banks_[c.rank]++ == 0) active_since_[c.rank] = now;
  };
  if (info.opens_row && info.rank_scoped)
    for (int i = first; i < first + spec_.org.banks_per_rank(); ++i) open(i);
  else if (info.opens_row) open(bi);
  if (info.closes_row && info.rank_scoped)
    for (int i = first; i < first + spec_.org.banks_per_rank(); ++i) close(i, c.rank);
  else if (info.closes_row) close(bi, c.rank);
  if (info.refreshes) {
    const bool per_bank = !info.rank_scoped;
    if (refresh_owed_[c.rank]) --ranks_owing_refresh_;
    refresh_owed_[c.rank] = false;
    refresh_due_[c.rank] += static_cast<std::uint64_t>(per_bank ? t.tREFIpb : t.tREFI);
    if (per_bank) refresh_bank_[c.rank] = (refresh_bank_[c.rank] + 1) % spec_.org.banks_per_rank();
  }
  if (const std::uint64_t wake = wake_after_[static_cast<std::size_t>(c.cmd)]; wake != kIdle)
    next = std::min(next, now + wake);
  if (c.from_stream) stream_issued(c, now, next);
  if (c.id == RequestQueue::kNone) return;  // a refresh, page-policy or stream command

  RequestQueue& q = *c.queue;
  RequestQueue::Request& r = q.at(c.id);
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
  } else {
    stats_.reads->add();
    stats_.read_latency->sample(ns);
    done.push_back(Completion{r.tag, data_end});
  }
  q.erase_hit(c.id);
  set_queue_levels(now);
  // The request served next (the bank's, or under FCFS the queue's oldest) becomes legal at its
  // own cycle, which no other wake-up covers.
  std::optional<RequestQueue::BankPick> after;
  if (config_.scheduler == ControllerConfig::Scheduler::Fcfs) after = fcfs_pick(q);
  else if (!q.bank(bi).empty()) after = bank_pick(q, bi);
  if (after) {
    const DramAddress& a = q.at(after->id).a;
    next = std::min(next, timing_.earliest(after->cmd, a.rank, a.bank_group, a.bank));
  }
  // The last hit on a row held for this queue lets the other queue's precharge go (it waited in
  // request_candidates with no wake-up of its own).
  if (q.hits(bi) == 0 && !other_queue(q).bank(bi).empty())
    next = std::min(next, timing_.earliest(DramCmd::PRE, c.rank, c.group, c.bank));

  if (config_.page_policy == ControllerConfig::PagePolicy::Closed ||
      (config_.page_policy == ControllerConfig::PagePolicy::Adaptive && !queued_hit(bi))) {
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
  // An idle gap of seconds is millions of refreshes per channel: minutes of replay, so a signal
  // is looked for as it goes. An interrupted replay leaves the channel short of `now`; the run
  // then ends with its interrupted marker, not a result.
  for (std::uint64_t steps = 1; parked_ < now; ++steps) {
    if (steps % 4096 == 0 && interrupt_flag().load()) break;
    const std::uint64_t at = parked_;
    parked_ = schedule(at, none);
  }
  // From `now` on the caller steps the channel (a request came, or it is stepped at `now`): a
  // stale parked cycle would run a second, out-of-order step later.
  parked_ = kIdle;
}

std::uint64_t ChannelController::schedule(std::uint64_t now, std::vector<Completion>& done) {
  // Already issued on every bus this cycle (a second wake-up in the same cycle).
  const bool row_busy = last_row_cmd_ == now;
  const bool col_busy = separate_buses_ ? last_col_cmd_ == now : row_busy;
  if (row_busy && col_busy) return now + 1;

  std::uint64_t next = kIdle;
  std::optional<Candidate> row, col;
  refresh_candidates(now, next, row);

  draining_ = drain_mode();
  if (reads_.empty() && writes_.empty()) {
    if (stream_) stream_candidate(now, next, row, col);
  } else {
    request_candidates(draining_ ? writes_ : reads_, now, next, row, col);
    if (config_.scheduler != ControllerConfig::Scheduler::Fcfs)
      active_row_candidates(draining_ ? reads_ : writes_, now, next, row, col);
  }

  // Closed / adaptive page: precharge the banks marked for closing once legal, unless a queued
  // request (adaptive) now hits the row.
  // Every marked bank is looked at, so that its precharge has a wake-up even while a request's
  // row command goes first.
  for (std::size_t k = 0; k < closing_.size();) {
    const int i = closing_[k];
    Bank& b = banks_[i];
    const int rank = i / spec_.org.banks_per_rank();
    const int group = (i / spec_.org.banks_per_group) % spec_.org.bank_groups;
    const int bank = i % spec_.org.banks_per_group;
    if (!b.open || !b.close_pending ||
        (config_.page_policy == ControllerConfig::PagePolicy::Adaptive && queued_hit(i))) {
      b.close_pending = false;
      closing_.erase(closing_.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    const std::uint64_t at = timing_.earliest(DramCmd::PRE, rank, group, bank);
    if (at > now) next = std::min(next, at);
    else if (row) next = now + 1;  // behind another row command
    else row = Candidate{DramCmd::PRE, rank, group, bank, b.row, nullptr, RequestQueue::kNone};
    ++k;
  }

  // One command per bus: a column command first (it moves data), else the row command; HBM's
  // separate buses take one of each, the younger request's command first when both come
  // from one queue (the order the commands are recorded and traced in).
  bool issued_row = false, issued_col = false;
  const bool same_bank = row && col && row->rank == col->rank && row->group == col->group && row->bank == col->bank;
  if (separate_buses_ && row && col && !row_busy && !col_busy && !same_bank) {
    const bool row_first =
        row->queue == col->queue && row->queue && row->queue->at(row->id).seq > col->queue->at(col->id).seq;
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
  // Ready but not issued (its bus was taken, or an older command went first): each may issue
  // once the commands just issued allow it. The drain mode flipped: look again next cycle.
  if (row && !issued_row) passed_over_.push_back(*row);
  if (col && !issued_col) passed_over_.push_back(*col);
  for (const Candidate& c : passed_over_) next = std::min(next, retry_at(c, now));
  passed_over_.clear();
  if (drain_mode() != draining_) next = now + 1;
  if (next <= now) next = now + 1;
  if (next == kIdle && idle()) return kIdle;
  return next;
}

void ChannelController::start_stream(CommandStream* s, std::uint64_t now) {
  catch_up(now);
  stream_ = s;
  std::fill(stream_opened_.begin(), stream_opened_.end(), std::nullopt);
}

bool ChannelController::rows_open_for(const DramCommand& c) const {
  const DramCommandInfo& info = protocol_.info(c.cmd);
  if (!info.rank_scoped) {
    const Bank& b = banks_[bank_index(c.rank, c.bank_group, c.bank)];
    return b.open && b.row == c.row;
  }
  const int first = c.rank * spec_.org.banks_per_rank();
  for (int i = first; i < first + spec_.org.banks_per_rank(); ++i)
    if (!banks_[i].open || banks_[i].row != c.row) return false;
  return true;
}

void ChannelController::stream_candidate(std::uint64_t now, std::uint64_t& next, std::optional<Candidate>& row,
                                         std::optional<Candidate>& col) {
  DramCommand h;
  // A precharge of a bank a refresh already closed has nothing left to do.
  while (stream_->peek(h) && h.cmd == DramCmd::PRE && !banks_[bank_index(h.rank, h.bank_group, h.bank)].open)
    stream_->pop();
  if (!stream_->peek(h)) {
    stream_ = nullptr;
    return;
  }
  // A refresh owed by the rank goes first (refresh_candidates offers it and wakes the channel).
  if (refresh_owed_[h.rank]) return;
  Candidate c{h.cmd, h.rank, h.bank_group, h.bank, h.row, nullptr, RequestQueue::kNone, h.column, true};
  const DramCommandInfo& info = protocol_.info(h.cmd);
  if (info.column && !rows_open_for(h)) {
    // Reopen what a refresh closed: the bank's row, or the stream's last all-bank activation.
    if (!info.rank_scoped)
      c = Candidate{DramCmd::ACT, h.rank, h.bank_group, h.bank, h.row, nullptr, RequestQueue::kNone, 0, true, true};
    else if (const auto& o = stream_opened_[h.rank])
      c = Candidate{o->cmd,    o->rank, o->bank_group, o->bank, o->row, nullptr, RequestQueue::kNone,
                    o->column, true,    true};
  }
  const std::uint64_t at =
      c.cmd == DramCmd::PREA ? timing_.earliest_prea(c.rank) : timing_.earliest(c.cmd, c.rank, c.group, c.bank);
  if (at > now) {
    next = std::min(next, at);
    return;
  }
  std::optional<Candidate>& slot = protocol_.info(c.cmd).column ? col : row;
  if (slot) {
    next = now + 1;  // its bus is taken by a refresh command this cycle
    return;
  }
  slot = c;
}

void ChannelController::stream_issued(const Candidate& c, std::uint64_t now, std::uint64_t& next) {
  stream_last_ = now;
  const DramCommandInfo& info = protocol_.info(c.cmd);
  if (info.opens_row) stream_opened_[c.rank] = DramCommand{c.cmd, now, c.rank, c.group, c.bank, c.row, c.column};
  if (info.closes_row) stream_opened_[c.rank].reset();  // closed on purpose: nothing to reopen
  if (c.reopening) {
    if (stats_.stream_reopens) stats_.stream_reopens->add();
  } else {
    stream_->pop();
  }
  next = std::min(next, now + 1);  // the next command of the stream may be legal at once
}

std::uint64_t ChannelController::retry_at(const Candidate& c, std::uint64_t now) {
  // Refresh and page-policy commands, FCFS picks (never kept as a bank's pick), and picks the
  // issue changed are looked at again next cycle.
  if (c.queue == nullptr) return now + 1;
  const int bi = bank_index(c.rank, c.group, c.bank);
  const RequestQueue::BankPick& p = c.queue->pick(bi);
  if (!p.valid || p.id != c.id || p.cmd != c.cmd) return now + 1;
  // Constraints only grow, so this stays a lower bound while the bank's pick stands; the
  // wake-up it gives skips the cycles at which the bank could not issue anyway.
  const std::uint64_t at = timing_.earliest(c.cmd, c.rank, c.group, c.bank);
  c.queue->ready_at(bi) = at;
  return std::max(at, now + 1);
}

std::uint64_t ChannelController::active_rank_cycles_at(std::uint64_t now) const {
  std::uint64_t cycles = active_cycles_;
  for (int r = 0; r < spec_.org.ranks; ++r)
    if (open_banks_[r] > 0 && now > active_since_[r]) cycles += now - active_since_[r];
  return cycles;
}

void ChannelController::finish(std::uint64_t end, bool run_idle_steps) {
  if (run_idle_steps) catch_up(end);
  for (int r = 0; r < spec_.org.ranks; ++r)
    if (open_banks_[r] > 0) active_cycles_ += end - active_since_[r];
  std::fill(active_since_.begin(), active_since_.end(), end);
  set_queue_levels(end);
}

}  // namespace strata
