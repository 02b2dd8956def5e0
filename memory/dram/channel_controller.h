// The scheduling logic of one DRAM (pseudo-)channel, free of SystemC so it can be tested and
// driven cycle by cycle: read and write queues, FR-FCFS or FCFS, open / closed / adaptive page
// policy, write drain between watermarks, all-bank or per-bank refresh.
//
// Event-driven: step(now) issues what is legal at `now` (one command per command bus; HBM has
// a row and a column bus) and returns the earliest later cycle at which anything could become
// legal, so the SystemC wrapper sleeps until then and an idle or stalled channel costs nothing
// per cycle. Returning a cycle that is too early only costs a wasted step; it is never late.
// A ready command that another one beat to its bus wakes the channel when the command issued
// lets it go, not at every cycle until then; and an arriving request needs a step only when
// enqueue() says it may change what issues (tests/memory/test_dram_wakeups.cpp holds both to
// issuing exactly what stepping every cycle issues).
// A channel with no requests does not wake up for refresh: it parks, and the refreshes of the
// idle stretch are issued (at their own cycles) when the next request arrives or the run ends,
// so an idle memory neither keeps the simulation alive nor costs events.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <limits>
#include <optional>
#include <vector>

#include "memory/dram/address_mapping.h"
#include "memory/dram/dram_command.h"
#include "memory/dram/dram_protocol.h"
#include "memory/dram/dram_spec.h"
#include "memory/dram/request_queue.h"
#include "memory/dram/timing_table.h"
#include "sim/stats.h"

namespace strata {

class ProtocolChecker;

// An in-order stream of commands that a device issues as a program rather than as requests (a
// PIM kernel: all-bank activations, MACs, register writes). The controller issues each command
// at its earliest legal cycle, in order, under the same timing table, refresh and protocol
// checker as its requests. A refresh that closes the rows the stream had open is followed by
// the stream's last row-opening command again before its next column command (the reopening
// is counted: ChannelStats::stream_reopens).
class CommandStream {
 public:
  virtual ~CommandStream() = default;
  // The next command (its cycle is ignored); false once the stream has ended.
  virtual bool peek(DramCommand& c) = 0;
  virtual void pop() = 0;
};

struct ControllerConfig {
  enum class Scheduler { FrFcfs, Fcfs };
  enum class PagePolicy { Open, Closed, Adaptive };
  enum class Refresh { AllBank, PerBank, None };
  std::size_t read_queue = 32;
  std::size_t write_queue = 32;
  Scheduler scheduler = Scheduler::FrFcfs;
  PagePolicy page_policy = PagePolicy::Open;
  Refresh refresh = Refresh::AllBank;
  double write_high = 0.75;  // start draining writes at this fill of the write queue
  double write_low = 0.25;   // and stop at this one
};

// Statistics of one channel, registered by the owner under the channel's name.
struct ChannelStats {
  std::vector<Counter*> commands;  // by command id (DramProtocol)
  Counter *reads, *writes, *forwarded_reads, *row_hits, *row_misses, *row_conflicts;
  Distribution *read_latency, *write_latency;  // this channel, ns (the owner merges them into its totals)
  TimeAverage *read_queue, *write_queue;
  Counter* stream_reopens = nullptr;  // rows a stream reopened after a refresh closed them (optional)
};

class ChannelController {
 public:
  static constexpr std::uint64_t kIdle = std::numeric_limits<std::uint64_t>::max();
  struct Completion {
    std::uint64_t tag;
    std::uint64_t cycle;  // the cycle the last data beat ends
  };

  ChannelController(const DramSpec& spec, const ControllerConfig& config, const ChannelStats& stats,
                    ProtocolChecker* checker);

  // Free entries in the read or write queue.
  std::size_t room(bool write) const {
    return write ? config_.write_queue - writes_.size() : config_.read_queue - reads_.size();
  }
  // What enqueue() did with a request.
  enum class Enqueued {
    Forwarded,  // a read of data still in the write queue, answered from there: nothing queued
    Queued,     // queued where it changes no bank's pick nor the drain mode: nothing it could
                // issue is due before the controller's own next wake-up, so no step is needed
    Step,       // queued where it may change what issues: step the controller at `now`
  };
  // Queues a request that arrives at `now` (the caller checked room()).
  Enqueued enqueue(std::uint64_t tag, const DramAddress& a, bool write, std::uint64_t now);
  // Issues what is legal at `now`; reads whose data has been scheduled go to `done`.
  std::uint64_t step(std::uint64_t now, std::vector<Completion>& done);
  // Closes residency accounting at the end of the run, after issuing the refreshes of the idle
  // stretch before `end` (not under the analytic fidelity, whose refreshes are counted in
  // closed form: run_idle_steps false).
  void finish(std::uint64_t end, bool run_idle_steps = true);

  bool idle() const { return reads_.empty() && writes_.empty() && !stream_; }
  // Runs `s` (not owned; it must outlive its run) once the queues are empty; requests that
  // arrive meanwhile wait for it to end, as PIM devices order host and PIM work (AiM). The
  // caller steps the controller from `now` on.
  void start_stream(CommandStream* s, std::uint64_t now);
  bool stream_running() const { return stream_ != nullptr; }
  // The cycle the last command of the last stream was issued at.
  std::uint64_t stream_last_cycle() const { return stream_last_; }
  // Rank-cycles during which at least one bank of the rank was open (active standby).
  std::uint64_t active_rank_cycles() const { return active_cycles_; }
  // The same with the ranks open now counted up to `now` (sim.reuse measures a span with it).
  std::uint64_t active_rank_cycles_at(std::uint64_t now) const;
  void add_active_rank_cycles(std::uint64_t cycles) { active_cycles_ += cycles; }
  // Set when the checker found a violation; the run stops with it.
  const std::string& violation() const { return violation_; }
  // Test hook: issue commands with this (deliberately wrong) timing while the checker keeps
  // the real one; the checker must object (the mutation test).
  void use_timing_for_scheduling(const DramSpec& wrong) { timing_ = TimingTable(wrong); }
  // Calls `f` for every issued command (per-command tracing); unset, it costs one branch.
  void observe(std::function<void(const DramCommand&)> f) { on_command_ = std::move(f); }

 private:
  struct Bank {
    bool open = false;
    std::uint32_t row = 0;
    bool close_pending = false;  // closed / adaptive page: precharge when legal
    bool opened_for_write = false;  // the request the row was activated for was a write
  };
  struct Candidate {
    DramCmd cmd;
    int rank, group, bank;
    std::uint32_t row;
    RequestQueue* queue;
    std::uint32_t id;  // in *queue; RequestQueue::kNone for a refresh, page-policy or stream command
    std::uint32_t column = 0;
    bool from_stream = false;
    bool reopening = false;  // the stream's row reopened after a refresh, not its head
  };
  // What bank `bi` of `q` needs next under FR-FCFS, and the request it serves: ACT for the
  // oldest when the bank is closed, the column command of the oldest hit on the open row, else
  // PRE for the oldest.
  RequestQueue::BankPick bank_pick(const RequestQueue& q, int bi) const;
  // The FCFS pick: the oldest request of `q` whose bank takes requests, and its command.
  std::optional<RequestQueue::BankPick> fcfs_pick(const RequestQueue& q) const;
  // Whether bank `bi` takes no requests now: its rank owes an all-bank refresh, or it owes its
  // per-bank one.
  bool refreshing(int bi) const;

  int bank_index(int rank, int group, int bank) const { return (rank * spec_.org.bank_groups + group) * spec_.org.banks_per_group + bank; }
  // The oldest ready refresh command, and the earliest cycle of those not ready.
  void refresh_candidates(std::uint64_t now, std::uint64_t& next, std::optional<Candidate>& row);
  // The FR-FCFS (or FCFS) pick of `q`'s ready row and column commands, and the earliest cycle
  // of those not ready.
  void request_candidates(RequestQueue& q, std::uint64_t now, std::uint64_t& next, std::optional<Candidate>& row,
                          std::optional<Candidate>& col);
  // Rows opened for the other queue's requests (reads while writes drain, writes after a drain)
  // whose requests still hit them: those hits are candidates too, and no request of `q` closes
  // the row under them, so an activation is not wasted by a turn of the write drain (the peers'
  // "active buffer"; Ramulator 2 and DRAMsim3 keep such requests ahead of the mode's own).
  void active_row_candidates(RequestQueue& other, std::uint64_t now, std::uint64_t& next, std::optional<Candidate>& row,
                             std::optional<Candidate>& col);
  // Whether bank `bi`'s open row belongs to the requests of the queue other than `q` that hit it.
  bool held_for_other(const RequestQueue& q, int bi) const;
  RequestQueue& other_queue(const RequestQueue& q) { return &q == &reads_ ? writes_ : reads_; }
  const RequestQueue& other_queue(const RequestQueue& q) const { return &q == &reads_ ? writes_ : reads_; }
  // Brings bank `bi`'s pick in `q` up to date; sets it to `p`.
  void ensure_pick(RequestQueue& q, int bi);
  void set_pick(RequestQueue& q, int bi, const RequestQueue::BankPick& p);
  // Offers bank `bi`'s pick in `q` to the row or column slot if it is legal at `now`, else
  // moves `next` to when it may be.
  void consider(RequestQueue& q, int bi, std::uint64_t now, std::uint64_t& next, std::optional<Candidate>& row,
                std::optional<Candidate>& col);
  // When a ready candidate that was not issued may next be, once this step's commands are
  // recorded (its bank's new lower bound); at least `now + 1`.
  std::uint64_t retry_at(const Candidate& c, std::uint64_t now);
  void issue(const Candidate& c, std::uint64_t now, std::vector<Completion>& done, std::uint64_t& next);
  void record(DramCmd cmd, int rank, int group, int bank, std::uint32_t row, std::uint64_t now,
              std::uint32_t column = 0);
  // The stream's head (or the reopening of its rows) when legal at `now`, else when it may be.
  void stream_candidate(std::uint64_t now, std::uint64_t& next, std::optional<Candidate>& row,
                        std::optional<Candidate>& col);
  void stream_issued(const Candidate& c, std::uint64_t now, std::uint64_t& next);
  // Whether the banks `c` needs open (every bank of the rank for a rank-scoped command) are open.
  bool rows_open_for(const DramCommand& c) const;
  // Whether a queued request hits the open row of bank `bi`.
  bool queued_hit(int bi) const { return reads_.hits(bi) > 0 || writes_.hits(bi) > 0; }
  void set_queue_levels(std::uint64_t now);
  // Whether writes drain now: above the high watermark (or when no read waits), until below the
  // low one.
  bool drain_mode() const;
  std::uint64_t schedule(std::uint64_t now, std::vector<Completion>& done);  // one step's work
  void catch_up(std::uint64_t now);  // runs the parked (refresh-only) steps before `now`

  DramSpec spec_;
  ControllerConfig config_;
  ChannelStats stats_;
  ProtocolChecker* checker_;
  DramProtocol protocol_;
  TimingTable timing_;
  std::vector<std::uint64_t> wake_after_;  // by command: cycles until anything may follow it (kIdle: none)
  std::vector<Bank> banks_;
  RequestQueue reads_, writes_;
  std::vector<int> due_;         // scratch: the banks of a queue due at this step
  std::vector<Candidate> passed_over_;  // scratch: ready candidates of this step not chosen
  std::vector<int> closing_;     // banks with close_pending, in the order they were marked
  std::vector<int> open_banks_;  // per rank
  std::vector<std::uint64_t> active_since_;
  std::uint64_t active_cycles_ = 0;
  bool draining_ = false;
  std::size_t drain_high_, drain_low_;  // the watermarks in requests
  std::uint64_t parked_ = kIdle;  // the next refresh-only step of an idle channel

  // Refresh: per rank, when the next one is due, whether it is owed now, and (per-bank) which
  // bank is next.
  std::vector<std::uint64_t> refresh_due_;
  std::vector<bool> refresh_owed_;
  int ranks_owing_refresh_ = 0;  // how many of refresh_owed_ are set
  std::vector<int> refresh_bank_;

  std::uint64_t last_row_cmd_ = kIdle, last_col_cmd_ = kIdle;
  bool separate_buses_;
  std::string violation_;
  std::function<void(const DramCommand&)> on_command_;
  CommandStream* stream_ = nullptr;
  std::uint64_t stream_last_ = 0;
  std::vector<std::optional<DramCommand>> stream_opened_;  // per rank: the stream's last row-opening command
};

}  // namespace strata
