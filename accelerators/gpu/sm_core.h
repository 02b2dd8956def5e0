// The timing of one streaming multiprocessor, free of SystemC so it can be tested and driven on
// its own: four sub-cores (processing blocks), each with its warps, a warp scheduler issuing at
// most one warp instruction per cycle, and its pipes (INT32, FP32, FP64, SFU, a tensor core);
// one shared-memory unit for the SM, with bank conflicts.
//
// Every latency here is known when an instruction issues (a pipe's depth, the tensor core's
// queue, the shared-memory unit's queue), so a warp's next issue cycle is arithmetic: run()
// visits only the cycles at which some warp can issue, and a warp waiting on a dependence
// costs nothing until it resolves. Dependences are tracked either by a per-register
// scoreboard or by the compiler's control bits (stall counts, yield, dependence counters), as
// the SM's `dependences` key says.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/cache/sectored_cache.h"
#include "sim/slot_map.h"
#include "workloads/gpu/warp_program.h"

namespace strata {

struct SmTiming {
  enum class Scheduler { Gto, Lrr, Cggty };
  enum class Dependences { Scoreboard, ControlBits };
  int sub_cores = 4;
  Scheduler scheduler = Scheduler::Gto;
  Dependences dependences = Dependences::Scoreboard;
  // Lanes per sub-core (a warp instruction holds its pipe 32 / lanes cycles) and the cycles
  // from issue to a dependent instruction's issue.
  double int_lanes = 16, fp32_lanes = 32, fp64_lanes = 16, sfu_lanes = 4;
  int int_latency = 4, fp32_latency = 4, fp64_latency = 8, sfu_latency = 21;
  // Shared memory: banks of bank_bytes, one wavefront (one access per bank) per cycle, and
  // the cycles from issue to the data of a conflict-free load.
  int shared_banks = 32, bank_bytes = 4, shared_latency = 30;
  // Wavefronts the shared-memory unit may have queued before a further access stalls at issue
  // (the sub-cores' load/store queues, 4 entries each [Huerta et al.]).
  int shared_queue = 16;
  // Store lines the SM may have on their way to the L2 and not yet acknowledged by their slice
  // (GpuL2); a further store stalls at issue until an acknowledgement comes back. 0: no limit.
  int store_queue = 0;
  // Register file: banks per sub-core (register r in bank r mod banks), each reading one
  // warp-wide operand a cycle; an instruction reads its sources before it goes on, and the
  // sub-core issues nothing else meanwhile (no operand collector). 0: no bank conflicts. With
  // `register_cache`, a source marked .reuse stays in a cache entry per operand slot and bank
  // (3 x banks entries, Huerta et al.) and the next read of it there costs no bank cycle.
  int register_banks = 0;
  bool register_cache = false;
  bool tma = true;  // a TMA unit (Hopper) for bulk copies
  // Tensor core per sub-core: dense MACs per cycle by number format, pipeline cycles after the
  // MACs of a synchronous mma, and of an asynchronous wgmma (0 wgmma_latency: no wgmma).
  std::map<std::string, double> tensor_macs;
  int mma_latency = 24;
  int wgmma_latency = 0;
  int wgmma_issue = 4;  // cycles a wgmma keeps its warp from issuing again
  bool sparsity = true;  // 2:4 structured sparsity: twice the rate
  // L1 data cache (global loads; stores write through without allocating): 128 B lines of
  // four 32 B sectors, the cycles from a load's issue to its data on a hit, and the line
  // lookups it does a cycle (its data path moves four sectors a cycle). 0 bytes: no L1.
  std::uint64_t l1_bytes = 0;
  int l1_ways = 4, l1_latency = 33;
  // Distributed shared memory (clusters): the cycles from a load of another CTA's shared memory
  // in the cluster (ld.shared::cluster on a remote SM) to its data, and the bytes a cycle the
  // SM's port to the SM-to-SM network moves (its own remote loads' data and stores').
  int dsm_latency = 194;
  double dsm_bytes_per_cycle = 32;

  // Cycles a warp instruction holds its pipe (1 for ops without one), and the cycles from its
  // issue to a dependent instruction's (0 for ops whose latency is not the pipe's).
  int pipe_cycles(WarpOp op) const;
  int pipe_latency(WarpOp op) const;
};

inline constexpr int kLineBytes = 128, kSectorBytes = 32;

// Cycle counts past kMaxCycles (2^62, so that sums of a few still fit 64 bits) are more
// simulated time than a run can represent (SystemC's 64-bit time at 1 fs is 2^64 fs, about
// 5.1 hours): they are refused, never wrapped or truncated.
inline constexpr std::uint64_t kMaxCycles = std::uint64_t{1} << 62;
class CycleOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};
// `cycles` rounded up; throws CycleOverflow when it is not finite or past kMaxCycles.
std::uint64_t whole_cycles(double cycles);
inline constexpr int kMaxRegisterBanks = 32;

// One line's sectors of a global access that leaves the SM (an L1 miss or a store), for the
// L2 to answer with SmCore::complete(id, cycle) (reads) or SmCore::store_acknowledged(cycle)
// (stores, once their slice has taken them).
struct GlobalAccess {
  int sm = 0;
  std::uint64_t id = 0;       // the SM's own number for it
  std::uint64_t cycle = 0;    // when it leaves the L1
  std::uint64_t line = 0;     // line address
  std::uint64_t sectors = 0;  // mask of the line's sectors
  bool write = false;
};

// The phases of one cluster's barrier (barrier.cluster): phase p completes when every warp of
// the cluster that has not exited has made its (p+1)-th arrive.
struct ClusterBarrier {
  std::uint32_t warps = 0;                         // the cluster's warps not exited
  std::uint32_t phase = 0;                         // phases completed
  std::map<std::uint32_t, std::uint32_t> arrived;  // by phase: the warps that arrived at it
  void arrive(std::uint32_t p) { ++arrived[p]; }
  // A warp exits after `arrivals` arrives: it no longer counts, in its early arrivals either.
  void exit(std::uint32_t arrivals) {
    --warps;
    for (std::uint32_t p = phase; p < arrivals; ++p) --arrived[p];
  }
  // Completes the phases every warp has reached; true when one completed.
  bool advance() {
    bool any = false;
    for (auto it = arrived.find(phase); warps > 0 && it != arrived.end() && it->second >= warps;
         it = arrived.find(phase)) {
      arrived.erase(it);
      ++phase;
      any = true;
    }
    return any;
  }
};

// What an SM counts (the component turns them into statistics).
struct SmCounts {
  std::uint64_t warp_instructions = 0;
  std::uint64_t by_op[kWarpOps] = {};
  std::uint64_t thread_ops[kWarpOps] = {};   // active lanes of those instructions
  std::uint64_t rf_reads = 0, rf_writes = 0;  // warp-wide (32 x 32-bit) register reads and writes
  std::map<std::string, std::uint64_t> tensor_macs;  // by format
  std::uint64_t shared_wavefronts = 0, shared_bytes = 0;
  std::uint64_t dsm_bytes = 0;  // moved over the SM-to-SM network by remote cluster accesses
  std::uint64_t l1_hit_sectors = 0, l1_miss_sectors = 0, store_sectors = 0;
  // Analytic kernels' traffic past the SMs (a simulated kernel's is the L2 model's): sectors
  // between the SMs and the L2, and between the L2 and the DRAM.
  std::uint64_t l2_sectors = 0, dram_sectors = 0;
  std::uint64_t busy_cycles = 0;  // cycles with at least one resident warp
  std::uint64_t ctas = 0;
  // Adds `times` x `c` (the events, not busy_cycles and ctas, which the caller knows).
  void add(const SmCounts& c, double times = 1);
  // What these counts gained since `earlier` (ctas and busy cycles included).
  SmCounts since(const SmCounts& earlier) const;
};

class SmCore {
 public:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  explicit SmCore(const SmTiming& t, int index = 0);
  ~SmCore();
  // Where accesses leaving the SM go (unset: a kernel with global accesses is refused earlier).
  void connect(std::function<void(const GlobalAccess&)> out) { out_ = std::move(out); }
  // Instead, answers every access leaving the SM itself, `latency(instruction)` cycles after
  // its issue (the analytic fidelity's lone-warp pass: no L2 in the loop).
  void answer_with(std::function<std::uint64_t(const WarpInstruction&)> latency) { fixed_ = std::move(latency); }
  // The data of access `id` is in the SM at `cycle` (not earlier than the cycle run() reached).
  void complete(std::uint64_t id, std::uint64_t cycle);
  // The L2 has taken one of the SM's store lines; the acknowledgement is back at `cycle`.
  void store_acknowledged(std::uint64_t cycle);
  // Store lines sent and not yet acknowledged (a kernel is over only once every one is).
  std::uint64_t stores_out() const { return stores_out_; }
  // The latest cycle a store acknowledgement came back (0: none yet).
  std::uint64_t last_store_acknowledged() const { return last_ack_; }

  // Makes a CTA resident from cycle `at`, warp i running *programs[i] (its warps go to the
  // sub-cores round-robin, continuing where the last CTA stopped). Returns its handle.
  // `first_warp` is the kernel-wide number of its warp 0 (global addresses move with it);
  // `cluster` the CTAs of its cluster (its cluster accesses to another rank go to a remote SM).
  // `cluster_id` names its cluster to the cluster barrier; `tile` is its tile coordinates
  // (KernelLaunch::tile_of: global addresses move with them).
  int add_cta(const std::vector<const WarpProgram*>& programs, std::uint64_t at, std::uint64_t first_warp = 0,
              int cluster = 1, std::uint64_t cluster_id = 0, const TileCoord& tile = {0, 0, 0, 0});
  // The same with `warps` warps all running `program`.
  int add_cta(const WarpProgram& program, int warps, std::uint64_t at, std::uint64_t first_warp = 0, int cluster = 1,
              std::uint64_t cluster_id = 0) {
    return add_cta(std::vector<const WarpProgram*>(static_cast<std::size_t>(warps), &program), at, first_warp, cluster,
                   cluster_id);
  }
  // A lower bound on the next cycle at which the SM issues or a CTA of it completes (kNever:
  // no CTA resident, or every warp waits for data from outside), for stepping SMs together.
  std::uint64_t next_event() const { return live_ctas_ == 0 ? kNever : std::max(now_, wake_); }
  // A load's data, or a store's acknowledgement, is outside the SM.
  bool waits_for_memory() const { return !loads_.empty() || stores_out_ > 0; }
  // The sub-core the next CTA's warp 0 goes to (add_cta deals warps round-robin from it).
  int next_sub_core() const { return next_sub_; }
  // Cluster barriers across SMs: `arrive(cluster, phase, cycle)` when a warp of a CTA of cluster
  // `cluster` (add_cta's cluster_id) arrives at `phase`, `exit(cluster, arrivals, cycle)` when
  // such a warp exits after `arrivals` arrives; the GPU answers with cluster_release(). Unset,
  // or for a cluster of one, a CTA's own warps make its cluster barrier.
  void connect_clusters(std::function<void(std::uint64_t, std::uint32_t, std::uint64_t)> arrive,
                        std::function<void(std::uint64_t, std::uint32_t, std::uint64_t)> exit) {
    cluster_arrive_ = std::move(arrive);
    cluster_exit_ = std::move(exit);
  }
  // Cluster `cluster` has completed `phases` phases of its barrier; its waiting warps go on at `cycle`.
  void cluster_release(std::uint64_t cluster, std::uint32_t phases, std::uint64_t cycle);
  // Simulates until the next CTA completes, or `until`; returns the cycle of that completion
  // (the CTA's handle in `finished`), or kNever when no CTA completes before `until`.
  std::uint64_t run(std::uint64_t until, int& finished);
  const SmCounts& counts() const { return counts_; }
  // counts().busy_cycles closes a run of residency when its last CTA leaves; this adds the open
  // one up to the SM's own time, for live power.
  std::uint64_t busy_cycles_live() const {
    return counts_.busy_cycles + (live_ctas_ > 0 && now_ > resident_since_ ? now_ - resident_since_ : 0);
  }
  // Calls `f` at every issue with the cycle, the sub-core, the warp's arrival number (0 for
  // the SM's first warp) and its instruction (tests, timelines); unset, it costs one branch.
  void observe(std::function<void(std::uint64_t, int, std::uint64_t, const WarpInstruction&)> f) {
    on_issue_ = std::move(f);
  }
  // Wavefronts a shared access of this pattern takes (distinct words in its busiest bank);
  // `pool` holds the per-lane addresses of a gathering instruction.
  int wavefronts(const WarpInstruction& in, const std::vector<std::uint64_t>& pool = {}) const;
  // Distinct words (of bank_bytes) the active lanes of an access touch.
  int distinct_words(const WarpInstruction& in, const std::vector<std::uint64_t>& pool = {}) const;
  // Cycles a tensor instruction keeps its sub-core's tensor core busy. Throws
  // std::invalid_argument when the core has no rate for its format.
  std::uint64_t tensor_cycles(const WarpInstruction& in, double dense_rate) const;
  // The tensor core's dense MACs per cycle in `format`; throws std::invalid_argument when it
  // has none.
  double tensor_rate(const std::string& format) const;

 private:
  // cp.asyncs of one commit group: how many are still outside the SM, and when the data of
  // those back (or hitting in the L1) is in shared memory.
  struct AsyncGroup {
    int out = 0;
    std::uint64_t done = 0;
  };
  // A CTA's mbarrier: a phase completes once it has had `arrivals` arrivals and the
  // transaction bytes expected of it (expect_tx) have all landed; `tx` is those still missing
  // (negative while data lands before its expect_tx).
  struct Mbarrier {
    std::uint32_t arrivals = 1, arrived = 0;
    std::int64_t tx = 0;
    std::uint64_t latest = 0;              // the phase's last arrival or landing so far
    std::vector<std::uint64_t> completed;  // the cycle each phase completed
  };
  // A program's number formats, by index: tensor MACs a cycle and bits an element.
  struct FormatCosts {
    std::vector<double> rates, bits;
  };
  struct Warp {
    // What a scheduler's look at the warp reads comes first, in one cache line. The cycle its
    // own dependences (stall, registers or counters, wgmmas) let its next instruction go, and
    // that instruction's class: kept until the warp issues again, so a look at a waiting warp
    // is two loads (its pipe may still hold it back).
    mutable std::uint64_t own_ready = 0;
    mutable WarpOp next_op = WarpOp::Nop;
    mutable bool own_valid = false;
    bool active = false;
    bool at_barrier = false;  // waiting at bar.sync for the rest of its CTA
    bool yielded = false;     // its last instruction set the yield bit (CGGTY)
    std::uint64_t pc = 0, end = 0;
    std::uint64_t age = 0;         // order of arrival (GTO: oldest first; CGGTY: youngest)
    std::uint64_t next_issue = 0;  // stall counts, issue spacing
    const WarpProgram* program = nullptr;
    int cta = -1;
    std::uint64_t done_at = 0;             // latest completion of its issued instructions
    std::vector<std::uint64_t> reg_ready;  // scoreboard: when each register's value is ready
    std::uint64_t barrier_clear[6] = {};   // control bits: when each dependence counter returns to 0
    int barrier_pending[6] = {};           // loads on each counter whose data has not come back
    std::uint64_t global_index = 0;        // its number in the kernel (global addresses move with it)
    TileCoord tile{};                      // its CTA's tile coordinates and cluster rank (and with these)
    std::deque<std::uint64_t> wgmma;       // completion cycles of its wgmmas in flight
    // Its cp.async groups, oldest first; the last is the open one (not yet committed). The
    // front's number is cp_first (a copy names its group by number).
    std::deque<AsyncGroup> cp_groups;
    std::uint64_t cp_first = 0;
    std::vector<std::uint32_t> mbar_waits;       // phases of each of the CTA's mbarriers it has waited for
    const FormatCosts* formats = nullptr;        // its program's, by format index
    std::uint32_t arrivals = 0;                  // its cluster-barrier arrives
  };

  struct SubCore {
    std::vector<int> warps;  // indices into warps_
    int last = -1;           // the warp issued last (GTO, LRR, CGGTY)
    // No warp of this sub-core can issue before this cycle (a lower bound: a look is needed
    // only from then on); reset when one of its warps may have become ready sooner.
    std::uint64_t earliest = 0;
    std::uint64_t int_free = 0, fp32_free = 0, fp64_free = 0, sfu_free = 0, tensor_free = 0;
    std::uint64_t read_free = 0;  // the register read stage holds the issue until then
    // The register-file cache: per operand slot (3) and bank, the warp and register it holds
    // (-1: none), a warp's registers as warp x 256 + register.
    std::vector<std::int64_t> cached;
  };
  struct Cta {
    int warps_left = 0;
    int at_barrier = 0;  // warps waiting at bar.sync
    int loads_out = 0;   // global loads, cp.asyncs and TMA copies of its warps not yet back
    int cluster = 1;     // CTAs in its cluster
    std::uint64_t cluster_id = 0;
    std::uint32_t phases = 0;     // cluster-barrier phases completed
    std::uint64_t phases_at = 0;  // from when its waiting warps go on
    std::uint64_t done_at = 0;
    bool live = false;
    std::vector<Mbarrier> mbarriers;
  };

  // When warp `w`'s next instruction may issue (kNever: the warp has finished).
  std::uint64_t ready_at(const Warp& w, const SubCore& s) const;
  std::uint64_t& pipe(SubCore& s, WarpOp op);
  std::uint64_t pipe_free(const SubCore& s, WarpOp op) const;
  // Cycles warp `wi`'s sources of `in` take to read from the register banks (1 without
  // conflicts), updating the register-file cache and counting the bank reads.
  std::uint64_t register_reads(SubCore& s, int wi, const WarpInstruction& in);
  void issue(int wi, SubCore& s, std::uint64_t now);
  // Picks the warp sub-core `s` issues at `now`; with none ready (-1), `soonest` gets the
  // earliest later cycle one of its warps may.
  int pick(SubCore& s, std::uint64_t now, std::uint64_t& soonest) const;
  void retire(int wi, std::uint64_t at);
  void release_barrier(int cta, std::uint64_t now);  // the CTA's waiting warps go on after `now`
  // A global load or store: L1 lookups, misses and stores out through out_. Returns when the
  // load's data is all in, or kNever while some is outside the SM.
  // cp.async and TMA copies go the same way; a TMA box bypasses the L1.
  std::uint64_t global_access(Warp& w, int wi, const WarpInstruction& in, std::uint64_t start);
  // A load's (cp.async's, TMA copy's) data is all in at `cycle`; `tag` is its cp.async group.
  void load_done(int wi, const WarpInstruction& in, std::uint64_t cycle, std::uint64_t tag);
  // A cp.async's or TMA copy's data is in shared memory at `cycle`.
  void async_done(Warp& w, const WarpInstruction& in, std::uint64_t cycle, std::uint64_t tag);
  // A CTA's mbarrier gets arrivals and transaction bytes at `cycle`; completes its phase when due.
  void mbarrier_update(int cta, int index, std::uint32_t arrivals, std::int64_t landed, std::uint64_t cycle);
  Mbarrier& mbarrier(int cta, int index);
  // A load whose data is outside the SM: its warp, the instruction, the accesses still out.
  struct Load {
    int warp;
    const WarpInstruction* in;
    int waiting;
    std::uint64_t latest;
    std::uint64_t tag;  // a cp.async's group
  };
  // A line's sectors asked of the L2 and the loads waiting on them.
  struct Miss {
    std::uint64_t line, sectors;
    bool l1_fill;                                                  // a TMA copy's lines do not allocate in the L1
    std::vector<std::pair<std::uint64_t, std::uint64_t>> waiters;  // (load, sectors it needs)
  };
  void check_cta(int cta);

  SmTiming t_;
  std::uint64_t pipe_cycles_[kWarpOps] = {};  // t_.pipe_cycles by op, worked out once
  std::vector<Warp> warps_;
  std::vector<int> free_warps_;
  std::vector<SubCore> subs_;
  std::vector<Cta> ctas_;
  std::vector<int> free_ctas_;
  int live_ctas_ = 0;
  int next_sub_ = 0;
  std::uint64_t age_ = 0;
  std::uint64_t now_ = 0;
  std::uint64_t shared_free_ = 0;
  std::uint64_t tma_free_ = 0;  // the SM's TMA unit: one line a cycle
  std::uint64_t dsm_free_ = 0;  // the SM-to-SM port is busy until then
  // Store lines sent and not acknowledged; acknowledgements delivered for a later cycle than
  // the SM has reached (a min-heap); the latest acknowledgement.
  std::uint64_t stores_out_ = 0;
  std::vector<std::uint64_t> acks_ahead_;
  std::uint64_t last_ack_ = 0;
  bool store_queue_full() const {
    return t_.store_queue > 0 && stores_out_ + acks_ahead_.size() >= static_cast<std::uint64_t>(t_.store_queue);
  }
  std::uint64_t wake_ = 0;      // next_event()'s bound
  std::function<void(std::uint64_t, std::uint32_t, std::uint64_t)> cluster_arrive_, cluster_exit_;
  std::map<int, ClusterBarrier> own_barriers_;  // by CTA: cluster barriers the SM keeps itself
  bool shared_cluster(int cta) const {          // its cluster barrier is the GPU's
    return cluster_arrive_ && ctas_[static_cast<std::size_t>(cta)].cluster > 1;
  }
  void cluster_phases(int cta, std::uint32_t phases, std::uint64_t cycle);
  // The distinct words (of bank_bytes), ascending, the active lanes of an access touch.
  std::vector<std::uint64_t> words(const WarpInstruction& in, const std::vector<std::uint64_t>& pool) const;
  // A cluster access of the CTA's goes to another SM.
  bool remote(const WarpInstruction& in, int cta) const {
    const int c = ctas_[static_cast<std::size_t>(cta)].cluster;
    return c > 1 && in.cluster_peer % c != 0;
  }
  std::uint64_t resident_since_ = 0;
  // CTAs whose last warp retired, by completion cycle (a warp retires when it issues its last
  // instruction; its CTA completes when every result is in).
  std::vector<std::pair<std::uint64_t, int>> completing_;
  SmCounts counts_;
  std::map<const WarpProgram*, FormatCosts> formats_;          // per program
  std::map<const WarpInstruction*, int> wavefronts_;           // per shared-memory instruction
  std::map<const WarpInstruction*, std::uint64_t> dsm_bytes_;  // per remote cluster access: distinct words' bytes
  std::function<void(std::uint64_t, int, std::uint64_t, const WarpInstruction&)> on_issue_;
  int index_;
  std::unique_ptr<SectoredCache> l1_;
  std::function<void(const GlobalAccess&)> out_;
  std::function<std::uint64_t(const WarpInstruction&)> fixed_;
  SlotMap<Load> loads_;                                             // by load number
  SlotMap<Miss> misses_;                                            // by access id
  std::unordered_map<std::uint64_t, std::uint64_t> missing_lines_;  // line -> access id of its miss in flight
  std::vector<std::pair<std::uint64_t, std::uint64_t>> lines_;      // (line, sectors) of one access, reused
};

}  // namespace strata
