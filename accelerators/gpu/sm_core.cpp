#include "accelerators/gpu/sm_core.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/number_format.h"
#include "sim/stats.h"

namespace strata {

namespace {

std::uint64_t div_up(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// The output rows a warp computes: a wgmma's warp group spreads its 64 over its four warps.
std::uint64_t warp_rows(const WarpInstruction& in) { return in.op == WarpOp::Wgmma ? in.m / 4u : in.m; }
std::uint64_t warp_macs(const WarpInstruction& in) { return warp_rows(in) * in.n * in.k; }

}  // namespace

void SmCounts::add(const SmCounts& c, double times) {
  const auto times_of = [times](std::uint64_t n) { return scaled_count(n, times); };
  warp_instructions += times_of(c.warp_instructions);
  for (int op = 0; op < kWarpOps; ++op) {
    by_op[op] += times_of(c.by_op[op]);
    thread_ops[op] += times_of(c.thread_ops[op]);
  }
  for (const auto& [f, n] : c.tensor_macs) tensor_macs[f] += times_of(n);
  shared_wavefronts += times_of(c.shared_wavefronts);
  shared_bytes += times_of(c.shared_bytes);
  dsm_bytes += times_of(c.dsm_bytes);
  l1_hit_sectors += times_of(c.l1_hit_sectors);
  l1_miss_sectors += times_of(c.l1_miss_sectors);
  store_sectors += times_of(c.store_sectors);
  l2_sectors += times_of(c.l2_sectors);
  dram_sectors += times_of(c.dram_sectors);
  rf_reads += times_of(c.rf_reads);
  rf_writes += times_of(c.rf_writes);
}

SmCounts SmCounts::since(const SmCounts& then) const {
  const SmCounts& now = *this;
  SmCounts d;
  d.warp_instructions = now.warp_instructions - then.warp_instructions;
  for (int op = 0; op < kWarpOps; ++op) {
    d.by_op[op] = now.by_op[op] - then.by_op[op];
    d.thread_ops[op] = now.thread_ops[op] - then.thread_ops[op];
  }
  for (const auto& [f, n] : now.tensor_macs)
    d.tensor_macs[f] = n - (then.tensor_macs.count(f) ? then.tensor_macs.at(f) : 0);
  d.shared_wavefronts = now.shared_wavefronts - then.shared_wavefronts;
  d.shared_bytes = now.shared_bytes - then.shared_bytes;
  d.dsm_bytes = now.dsm_bytes - then.dsm_bytes;
  d.l1_hit_sectors = now.l1_hit_sectors - then.l1_hit_sectors;
  d.l1_miss_sectors = now.l1_miss_sectors - then.l1_miss_sectors;
  d.store_sectors = now.store_sectors - then.store_sectors;
  d.l2_sectors = now.l2_sectors - then.l2_sectors;
  d.dram_sectors = now.dram_sectors - then.dram_sectors;
  d.rf_reads = now.rf_reads - then.rf_reads;
  d.rf_writes = now.rf_writes - then.rf_writes;
  d.busy_cycles = now.busy_cycles - then.busy_cycles;
  d.ctas = now.ctas - then.ctas;
  return d;
}

std::uint64_t whole_cycles(double cycles) {
  if (!(cycles <= static_cast<double>(kMaxCycles)))  // NaN and infinity too
    throw CycleOverflow(fmt::format("{} cycles: more than the {} a run can represent", cycles, kMaxCycles));
  return cycles <= 0 ? 0 : static_cast<std::uint64_t>(std::ceil(cycles));
}

int SmTiming::pipe_cycles(WarpOp op) const {
  const auto per = [](double lanes) { return static_cast<int>(std::ceil(32.0 / lanes - 1e-9)); };
  switch (op) {
    case WarpOp::Int: return per(int_lanes);
    case WarpOp::Fp32: return per(fp32_lanes);
    case WarpOp::Fp64: return per(fp64_lanes);
    case WarpOp::Sfu: return per(sfu_lanes);
    default: return 1;
  }
}

int SmTiming::pipe_latency(WarpOp op) const {
  switch (op) {
    case WarpOp::Int: return int_latency;
    case WarpOp::Fp32: return fp32_latency;
    case WarpOp::Fp64: return fp64_latency;
    case WarpOp::Sfu: return sfu_latency;
    default: return 0;
  }
}

SmCore::SmCore(const SmTiming& t, int index) : t_(t), subs_(static_cast<std::size_t>(t.sub_cores)), index_(index) {
  for (int op = 0; op < kWarpOps; ++op)
    pipe_cycles_[op] = static_cast<std::uint64_t>(t.pipe_cycles(static_cast<WarpOp>(op)));
  if (t.l1_bytes > 0) l1_ = std::make_unique<SectoredCache>(t.l1_bytes, t.l1_ways, kLineBytes, kSectorBytes);
}

SmCore::~SmCore() = default;

double SmCore::tensor_rate(const std::string& format) const {
  const auto it = t_.tensor_macs.find(format);
  if (it == t_.tensor_macs.end() || it->second <= 0)
    throw std::invalid_argument(fmt::format("the tensor core has no rate for {}", format));
  return it->second;
}

std::uint64_t SmCore::tensor_cycles(const WarpInstruction& in, double dense_rate) const {
  const std::uint64_t macs = warp_macs(in);
  const double rate = dense_rate * (in.sparse ? 2.0 : 1.0);
  return std::max<std::uint64_t>(1, whole_cycles(static_cast<double>(macs) / rate));
}

std::vector<std::uint64_t> SmCore::words(const WarpInstruction& in, const std::vector<std::uint64_t>& pool) const {
  std::vector<std::uint64_t> out;
  const std::uint64_t per_lane =
      std::max<std::uint64_t>(1, div_up(in.width, static_cast<std::uint64_t>(t_.bank_bytes)));
  for (int lane = 0; lane < 32; ++lane) {
    if (!(in.active_mask >> lane & 1u)) continue;
    const std::uint64_t first = in.address(lane, pool) / static_cast<std::uint64_t>(t_.bank_bytes);
    for (std::uint64_t w = 0; w < per_lane; ++w) out.push_back(first + w);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int SmCore::distinct_words(const WarpInstruction& in, const std::vector<std::uint64_t>& pool) const {
  return static_cast<int>(words(in, pool).size());
}

int SmCore::wavefronts(const WarpInstruction& in, const std::vector<std::uint64_t>& pool) const {
  // Lanes reading the same word share it (broadcast); distinct words in one bank take one
  // wavefront each.
  std::vector<int> per_bank(static_cast<std::size_t>(t_.shared_banks), 0);
  int most = 1;
  for (std::uint64_t w : words(in, pool))
    most = std::max(most, ++per_bank[w % static_cast<std::uint64_t>(t_.shared_banks)]);
  return most;
}

std::uint64_t SmCore::pipe_free(const SubCore& s, WarpOp op) const {
  switch (op) {
    case WarpOp::Int: return s.int_free;
    case WarpOp::Fp32: return s.fp32_free;
    case WarpOp::Fp64: return s.fp64_free;
    case WarpOp::Sfu: return s.sfu_free;
    case WarpOp::Mma:
    case WarpOp::Wgmma: return s.tensor_free;
    default: return 0;
  }
}

std::uint64_t& SmCore::pipe(SubCore& s, WarpOp op) {
  switch (op) {
    case WarpOp::Int: return s.int_free;
    case WarpOp::Fp32: return s.fp32_free;
    case WarpOp::Fp64: return s.fp64_free;
    case WarpOp::Sfu: return s.sfu_free;
    default: return s.tensor_free;
  }
}

std::uint64_t SmCore::register_reads(SubCore& s, int wi, const WarpInstruction& in) {
  const auto banks = static_cast<std::size_t>(t_.register_banks);
  if (s.cached.empty()) s.cached.assign(3 * banks, -1);
  // The banks of the sources read (at most four): the most reads of one bank is the cycles.
  std::array<std::size_t, 4> read{};
  std::size_t n = 0;
  std::uint64_t most = 1;
  for (std::size_t slot = 0; slot < in.src.size(); ++slot) {
    const std::uint8_t r = in.src[slot];
    if (r == kNoReg) continue;
    const std::size_t bank = r % banks;
    if (t_.register_cache && slot < 3) {
      // The read goes through its slot's cache entry for the bank: a hit costs no bank cycle,
      // and the entry keeps this value only if the instruction marks it .reuse.
      std::int64_t& entry = s.cached[slot * banks + bank];
      const std::int64_t key = static_cast<std::int64_t>(wi) * 256 + r;
      const bool hit = entry == key;
      entry = (in.reuse >> slot & 1u) ? key : -1;
      if (hit) continue;
    }
    read[n++] = bank;
    most = std::max<std::uint64_t>(most, static_cast<std::uint64_t>(std::count(read.begin(), read.begin() + n, bank)));
    ++counts_.rf_reads;
  }
  return most;
}

int SmCore::add_cta(const std::vector<const WarpProgram*>& programs, std::uint64_t at, std::uint64_t first_warp,
                    int cluster, std::uint64_t cluster_id, const TileCoord& tile) {
  if (live_ctas_ == 0) {
    now_ = std::max(now_, at);
    resident_since_ = now_;
  }
  int id;
  if (!free_ctas_.empty()) {
    id = free_ctas_.back();
    free_ctas_.pop_back();
  } else {
    id = static_cast<int>(ctas_.size());
    ctas_.emplace_back();
  }
  const int warps = static_cast<int>(programs.size());
  ctas_[static_cast<std::size_t>(id)] = Cta{warps, 0, 0, std::max(1, cluster), cluster_id, 0, 0, at, true, {}};
  wake_ = std::min(wake_, std::max(now_, at));
  ++live_ctas_;
  ++counts_.ctas;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const WarpProgram* program = programs[i];
    auto [formats, fresh] = formats_.try_emplace(program);
    if (fresh)
      for (const std::string& f : program->formats) {
        formats->second.rates.push_back(t_.tensor_macs.count(f) ? t_.tensor_macs.at(f) : 0);
        const NumberFormat* format = find_number_format(f);
        if (!format) throw std::invalid_argument(fmt::format("a warp program names an unknown number format {}", f));
        formats->second.bits.push_back(format->bits_per_element());
      }
    std::size_t max_reg = 0;
    for (const auto* part : {&program->prologue, &program->body, &program->epilogue})
      for (const WarpInstruction& in : *part) {
        for (std::uint8_t r : in.dst)
          if (r != kNoReg) max_reg = std::max<std::size_t>(max_reg, r + 1u);
        for (std::uint8_t r : in.src)
          if (r != kNoReg) max_reg = std::max<std::size_t>(max_reg, r + 1u);
      }
    int wi;
    if (!free_warps_.empty()) {
      wi = free_warps_.back();
      free_warps_.pop_back();
    } else {
      wi = static_cast<int>(warps_.size());
      warps_.emplace_back();
    }
    Warp& w = warps_[static_cast<std::size_t>(wi)];
    w = Warp{};
    w.program = program;
    w.formats = &formats->second;
    w.end = program->instructions();
    w.cta = id;
    w.age = age_++;
    w.next_issue = at;
    w.global_index = first_warp + i;
    w.tile = tile;
    w.reg_ready.assign(max_reg, 0);
    w.cp_groups.assign(1, AsyncGroup{});
    w.active = true;
    subs_[static_cast<std::size_t>(next_sub_)].warps.push_back(wi);
    subs_[static_cast<std::size_t>(next_sub_)].earliest = 0;
    next_sub_ = (next_sub_ + 1) % t_.sub_cores;
    if (w.end == 0) retire(wi, at);
  }
  return id;
}

std::uint64_t SmCore::ready_at(const Warp& w, const SubCore& s) const {
  if (!w.active || w.pc >= w.end || w.at_barrier) return kNever;
  if (!w.own_valid) {
    const WarpInstruction& in = w.program->at(w.pc);
    std::uint64_t t = w.next_issue;
    if (t_.dependences == SmTiming::Dependences::Scoreboard) {
      for (std::uint8_t r : in.src)
        if (r != kNoReg) t = std::max(t, w.reg_ready[r]);
      for (std::uint8_t r : in.dst)
        if (r != kNoReg) t = std::max(t, w.reg_ready[r]);
    } else {
      for (int b = 0; b < 6; ++b)
        if (in.wait_mask >> b & 1u) t = std::max(t, w.barrier_pending[b] > 0 ? kNever : w.barrier_clear[b]);
    }
    if (in.op == WarpOp::WgmmaWait && w.wgmma.size() > in.pending)
      t = std::max(t, w.wgmma[w.wgmma.size() - in.pending - 1]);
    if (in.op == WarpOp::CpAsyncWait) {
      // The committed groups beyond `pending` must all be in.
      const std::size_t committed = w.cp_groups.size() - 1;
      for (std::size_t g = 0; g + in.pending < committed; ++g)
        t = std::max(t, w.cp_groups[g].out > 0 ? kNever : w.cp_groups[g].done);
    }
    if (in.op == WarpOp::MbarWait) {
      const Cta& c = ctas_[static_cast<std::size_t>(w.cta)];
      const std::uint32_t phase = in.mbarrier < w.mbar_waits.size() ? w.mbar_waits[in.mbarrier] : 0;
      const bool done = in.mbarrier < c.mbarriers.size() && phase < c.mbarriers[in.mbarrier].completed.size();
      t = std::max(t, done ? c.mbarriers[in.mbarrier].completed[phase] : kNever);
    }
    if (in.op == WarpOp::BarClusterWait) {
      const Cta& c = ctas_[static_cast<std::size_t>(w.cta)];
      t = c.phases < w.arrivals ? kNever : std::max(t, c.phases_at);
    }
    w.own_ready = t;
    w.next_op = in.op;
    w.own_valid = true;
  }
  std::uint64_t t = std::max({w.own_ready, pipe_free(s, w.next_op), s.read_free});
  const auto queue = static_cast<std::uint64_t>(t_.shared_queue);
  if ((w.next_op == WarpOp::Lds || w.next_op == WarpOp::Sts) && shared_free_ > queue) t = std::max(t, shared_free_ - queue);
  // A store waits for room among the lines on their way to the L2: the first acknowledgement
  // already known, or one still to come.
  if (w.next_op == WarpOp::Stg && store_queue_full())
    t = std::max(t, acks_ahead_.empty() ? kNever : acks_ahead_.front());
  // A cluster access to its own CTA's shared memory queues as a shared one.
  if ((w.next_op == WarpOp::LdsCluster || w.next_op == WarpOp::StsCluster) && shared_free_ > queue &&
      !remote(w.program->at(w.pc), w.cta))
    t = std::max(t, shared_free_ - queue);
  return t;
}

int SmCore::pick(SubCore& s, std::uint64_t now, std::uint64_t& soonest) const {
  // Nothing issues before the earliest ready warp, nor while the register read stage is busy.
  if (now < s.earliest || now < s.read_free) {
    soonest = std::min(soonest, std::max(s.earliest, s.read_free));
    return -1;
  }
  int best = -1;
  const std::size_t n = s.warps.size();
  // LRR starts after the warp issued last; GTO and CGGTY keep it while it can issue.
  std::size_t start = 0;
  if (s.last >= 0) {
    const auto it = std::find(s.warps.begin(), s.warps.end(), s.last);
    if (it != s.warps.end()) {
      const std::size_t pos = static_cast<std::size_t>(it - s.warps.begin());
      const Warp& last = warps_[static_cast<std::size_t>(s.last)];
      const bool greedy = t_.scheduler == SmTiming::Scheduler::Gto ||
                          (t_.scheduler == SmTiming::Scheduler::Cggty && !last.yielded);
      if (greedy) {
        // A warp that issues needs no bound on the others: the SM looks again next cycle.
        if (ready_at(last, s) <= now) return s.last;
      }
      start = t_.scheduler == SmTiming::Scheduler::Lrr ? pos + 1 : 0;
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    const int wi = s.warps[(start + k) % n];
    const Warp& w = warps_[static_cast<std::size_t>(wi)];
    const std::uint64_t r = ready_at(w, s);
    if (r > now) {
      soonest = std::min(soonest, r);
      continue;
    }
    if (best < 0) {
      best = wi;
      if (t_.scheduler == SmTiming::Scheduler::Lrr) return best;  // the first ready one in turn
      continue;
    }
    const std::uint64_t age = w.age, best_age = warps_[static_cast<std::size_t>(best)].age;
    // GTO: the oldest ready warp; CGGTY: the youngest.
    if (t_.scheduler == SmTiming::Scheduler::Gto ? age < best_age : age > best_age) best = wi;
  }
  return best;
}

void SmCore::issue(int wi, SubCore& s, std::uint64_t now) {
  Warp& w = warps_[static_cast<std::size_t>(wi)];
  const WarpInstruction& in = w.program->at(w.pc);
  if (on_issue_) on_issue_(now, static_cast<int>(&s - subs_.data()), w.age, in);
  ++counts_.warp_instructions;
  ++counts_.by_op[static_cast<int>(in.op)];
  counts_.thread_ops[static_cast<int>(in.op)] += static_cast<std::uint64_t>(__builtin_popcount(in.active_mask));
  for (std::uint8_t r : in.dst) counts_.rf_writes += r != kNoReg;
  // Sources that share a bank are read one a cycle; the instruction goes on after the last.
  // The register-file cache's hits cost no bank read (nor its energy).
  std::uint64_t reads = 1;
  if (t_.register_banks > 0) {
    reads = register_reads(s, wi, in);
  } else {
    for (std::uint8_t r : in.src) counts_.rf_reads += r != kNoReg;
  }
  s.read_free = now + reads;
  std::uint64_t done = now + 1;
  switch (in.op) {
    case WarpOp::Int:
    case WarpOp::Fp32:
    case WarpOp::Fp64:
    case WarpOp::Sfu:
      pipe(s, in.op) = now + pipe_cycles_[static_cast<int>(in.op)];
      done = now + static_cast<std::uint64_t>(t_.pipe_latency(in.op));
      break;
    case WarpOp::Mma:
    case WarpOp::Wgmma: {
      const double rate = w.formats->rates[in.format];
      if (rate <= 0) tensor_rate(w.program->formats[in.format]);  // throws, naming the format
      if (in.sparse && !t_.sparsity) throw std::invalid_argument("the tensor core has no 2:4 structured sparsity");
      const std::uint64_t busy = tensor_cycles(in, rate);
      s.tensor_free = now + busy;
      const bool async = in.op == WarpOp::Wgmma;
      done = now + busy + static_cast<std::uint64_t>(async ? t_.wgmma_latency : t_.mma_latency);
      counts_.tensor_macs[w.program->formats[in.format]] += warp_macs(in);
      // The accumulators are registers: each MMA reads its warp's share of C and writes D
      // (32-bit accumulators, 32 a warp-wide register).
      const std::uint64_t accumulators = warp_rows(in) * in.n / 32u;
      counts_.rf_reads += accumulators;
      counts_.rf_writes += accumulators;
      if (async) {
        // A wgmma's operands come from shared memory: each warp's tensor core reads its rows
        // of A and all of B (B is read once for each of the warp group's four sub-cores). An A
        // in registers (a source register) is a register read instead.
        const double a_rows = in.src[0] != kNoReg ? 0.0 : static_cast<double>(warp_rows(in));
        const double bytes = (a_rows + in.n) * in.k * w.formats->bits[in.format] / 8;
        counts_.shared_wavefronts += static_cast<std::uint64_t>(std::ceil(bytes / kLineBytes));
        w.wgmma.push_back(done);
        w.next_issue = std::max(w.next_issue, now + static_cast<std::uint64_t>(t_.wgmma_issue));
      }
      break;
    }
    case WarpOp::WgmmaWait:
      while (w.wgmma.size() > in.pending) w.wgmma.pop_front();
      break;
    case WarpOp::LdsCluster:
    case WarpOp::StsCluster:
      if (remote(in, w.cta)) {
        // Over the SM-to-SM network: the port moves the distinct words' bytes at its rate, and
        // a load's data comes back dsm_latency cycles after it starts (a store is posted).
        auto [it, fresh] = dsm_bytes_.try_emplace(&in, 0);
        if (fresh) it->second = static_cast<std::uint64_t>(distinct_words(in, w.program->addresses)) * t_.bank_bytes;
        const auto busy =
            static_cast<std::uint64_t>(std::ceil(static_cast<double>(it->second) / t_.dsm_bytes_per_cycle - 1e-9));
        const std::uint64_t start = std::max(now, dsm_free_);
        dsm_free_ = start + std::max<std::uint64_t>(1, busy);
        done = in.op == WarpOp::LdsCluster ? start + static_cast<std::uint64_t>(t_.dsm_latency) + busy - 1 : dsm_free_;
        counts_.dsm_bytes += it->second;
        break;
      }
      [[fallthrough]];  // its own CTA's shared memory: the local path
    case WarpOp::Lds:
    case WarpOp::Sts: {
      auto [it, fresh] = wavefronts_.try_emplace(&in, 0);
      if (fresh) it->second = wavefronts(in, w.program->addresses);
      const auto wf = static_cast<std::uint64_t>(it->second);
      const std::uint64_t start = std::max(now, shared_free_);
      shared_free_ = start + wf;
      done = start + static_cast<std::uint64_t>(t_.shared_latency) + wf - 1;
      counts_.shared_wavefronts += wf;
      counts_.shared_bytes += static_cast<std::uint64_t>(__builtin_popcount(in.active_mask)) * in.width;
      break;
    }
    case WarpOp::Bar: {
      // The last warp to arrive releases the CTA's waiting warps the next cycle.
      Cta& c = ctas_[static_cast<std::size_t>(w.cta)];
      if (++c.at_barrier < c.warps_left) w.at_barrier = true;
      else release_barrier(w.cta, now);
      break;
    }
    case WarpOp::BarClusterArrive: {
      // The arrive reaches the cluster's other SMs, and their release comes back, over the
      // SM-to-SM network: the phase completes dsm_latency after the last arrive [E].
      const std::uint32_t phase = w.arrivals++;
      if (shared_cluster(w.cta)) {
        cluster_arrive_(ctas_[static_cast<std::size_t>(w.cta)].cluster_id, phase, now);
      } else {
        auto [b, fresh] = own_barriers_.try_emplace(w.cta);
        if (fresh) b->second.warps = static_cast<std::uint32_t>(ctas_[static_cast<std::size_t>(w.cta)].warps_left);
        b->second.arrive(phase);
        if (b->second.advance())
          cluster_phases(w.cta, b->second.phase, now + static_cast<std::uint64_t>(t_.dsm_latency));
      }
      break;
    }
    case WarpOp::BarClusterWait: break;  // issues once its phase is complete (ready_at)
    case WarpOp::Ldg:
    case WarpOp::Stg: done = global_access(w, wi, in, std::max(now, shared_free_)); break;
    case WarpOp::CpAsync:
    case WarpOp::Tma: {
      if (in.op == WarpOp::Tma && !t_.tma) throw std::invalid_argument("the SM has no TMA unit for a bulk copy");
      // No register waits for the data: its group or mbarrier does.
      const std::uint64_t at =
          global_access(w, wi, in, in.op == WarpOp::Tma ? std::max(now, tma_free_) : std::max(now, shared_free_));
      if (at != kNever) async_done(w, in, at, w.cp_first + w.cp_groups.size() - 1);
      else if (in.op == WarpOp::CpAsync) ++w.cp_groups.back().out;
      break;
    }
    case WarpOp::CpAsyncCommit: w.cp_groups.emplace_back(); break;
    case WarpOp::CpAsyncWait:
      while (w.cp_groups.size() - 1 > in.pending) {  // ready_at saw them all in
        w.cp_groups.pop_front();
        ++w.cp_first;
      }
      break;
    case WarpOp::MbarInit: mbarrier(w.cta, in.mbarrier).arrivals = std::max<std::uint32_t>(1, in.arrivals); break;
    case WarpOp::MbarArrive:
      mbarrier_update(w.cta, in.mbarrier, 1, -static_cast<std::int64_t>(in.tx_bytes), now + 1);
      break;
    case WarpOp::MbarWait:
      if (w.mbar_waits.size() <= in.mbarrier) w.mbar_waits.resize(in.mbarrier + 1u, 0);
      ++w.mbar_waits[in.mbarrier];
      break;
    case WarpOp::Nop: break;
  }
  // A load whose data is outside the SM (done = kNever) holds its registers, or its counter,
  // until complete() brings it.
  const bool outside = done == kNever;
  done = outside ? now + 1 : std::max(done + reads - 1, now + 1);
  if (t_.dependences == SmTiming::Dependences::Scoreboard) {
    // A wgmma's accumulators are the tensor core's until wgmma.wait_group: wgmmas into the
    // same accumulators follow each other in its pipeline without waiting.
    if (in.op != WarpOp::Wgmma)
      for (std::uint8_t r : in.dst)
        if (r != kNoReg) w.reg_ready[r] = outside ? kNever : done;
    w.next_issue = std::max(w.next_issue, now + 1);
  } else {
    if (in.write_barrier >= 0) {
      std::uint64_t& b = w.barrier_clear[in.write_barrier];
      b = std::max(b, done);
      if (outside) ++w.barrier_pending[in.write_barrier];
    }
    w.next_issue = std::max(w.next_issue, now + std::max<std::uint64_t>(1, in.stall));
  }
  w.yielded = in.yield;
  w.own_valid = false;
  w.done_at = std::max(w.done_at, done);
  s.last = wi;
  if (++w.pc == w.end) retire(wi, now);
}

void SmCore::retire(int wi, std::uint64_t at) {
  Warp& w = warps_[static_cast<std::size_t>(wi)];
  Cta& c = ctas_[static_cast<std::size_t>(w.cta)];
  c.done_at = std::max({c.done_at, w.done_at, at + 1});
  --c.warps_left;
  // An exited warp no longer holds a barrier up: the warps waiting there go on.
  if (c.at_barrier > 0 && c.at_barrier >= c.warps_left) release_barrier(w.cta, at);
  if (shared_cluster(w.cta)) {
    cluster_exit_(c.cluster_id, w.arrivals, at);
  } else if (const auto b = own_barriers_.find(w.cta); b != own_barriers_.end()) {
    b->second.exit(w.arrivals);
    if (b->second.advance()) cluster_phases(w.cta, b->second.phase, at + static_cast<std::uint64_t>(t_.dsm_latency));
  }
  check_cta(w.cta);
}

void SmCore::release_barrier(int cta, std::uint64_t now) {
  ctas_[static_cast<std::size_t>(cta)].at_barrier = 0;
  for (SubCore& x : subs_) x.earliest = 0;  // released warps may sit on any sub-core
  for (Warp& o : warps_)
    if (o.active && o.cta == cta && o.at_barrier) {
      o.at_barrier = false;
      o.next_issue = std::max(o.next_issue, now + 1);
      o.own_valid = false;
    }
}

void SmCore::cluster_phases(int cta, std::uint32_t phases, std::uint64_t cycle) {
  Cta& c = ctas_[static_cast<std::size_t>(cta)];
  c.phases = phases;
  c.phases_at = cycle;
  for (Warp& o : warps_)
    if (o.active && o.cta == cta) o.own_valid = false;
  for (SubCore& x : subs_) x.earliest = 0;
  wake_ = std::min(wake_, std::max(now_, cycle));
}

void SmCore::cluster_release(std::uint64_t cluster, std::uint32_t phases, std::uint64_t cycle) {
  for (std::size_t i = 0; i < ctas_.size(); ++i)
    if (ctas_[i].live && ctas_[i].cluster > 1 && ctas_[i].cluster_id == cluster)
      cluster_phases(static_cast<int>(i), phases, cycle);
}

void SmCore::check_cta(int cta) {
  const Cta& c = ctas_[static_cast<std::size_t>(cta)];
  if (c.warps_left == 0 && c.loads_out == 0) completing_.emplace_back(c.done_at, cta);
}

std::uint64_t SmCore::global_access(Warp& w, int wi, const WarpInstruction& in, std::uint64_t start) {
  const WarpProgram& p = *w.program;
  const std::uint64_t iteration = w.pc >= p.prologue.size() && !p.body.empty()
                                      ? std::min(p.iterations - 1, (w.pc - p.prologue.size()) / p.body.size())
                                      : 0;
  // The lines and sectors the active lanes touch, in address order so accesses leave that way.
  // Neighbouring lanes mostly share a line, so the last line is tried first.
  lines_.clear();
  std::uint64_t sectors = 0;
  // A TMA box's rows, or the active lanes' bytes.
  const bool box = in.op == WarpOp::Tma;
  const int spans = box ? static_cast<int>(in.box_rows) : 32;
  const std::uint64_t corner = box ? in.address(0, p.addresses, iteration, w.global_index, w.tile) : 0;
  for (int lane = 0; lane < spans; ++lane) {
    if (!box && !(in.active_mask >> lane & 1u)) continue;
    const std::uint64_t first = box ? corner + static_cast<std::uint64_t>(in.box_pitch * lane)
                                    : in.address(lane, p.addresses, iteration, w.global_index, w.tile);
    const std::uint64_t last = first + std::max<std::uint64_t>(1, box ? in.box_row_bytes : in.width) - 1;
    for (std::uint64_t sector = first / kSectorBytes; sector <= last / kSectorBytes; ++sector) {
      const std::uint64_t line = sector * kSectorBytes / kLineBytes * kLineBytes;
      auto entry = lines_.rbegin();
      while (entry != lines_.rend() && entry->first != line) ++entry;
      if (entry == lines_.rend()) {
        lines_.emplace_back(line, 0);
        entry = lines_.rbegin();
      }
      const std::uint64_t bit = std::uint64_t{1} << (sector % (kLineBytes / kSectorBytes));
      sectors += (entry->second & bit) ? 0 : 1;
      entry->second |= bit;
    }
  }
  std::sort(lines_.begin(), lines_.end());
  const auto& lines = lines_;
  if (box) {
    // The TMA unit sends the box's lines to the L2 one a cycle, past the L1.
    tma_free_ = start + lines.size();
  } else {
    // The L1's data path: one line looked up and four sectors moved a cycle.
    shared_free_ = start + std::max<std::uint64_t>(lines.size(), (sectors + 3) / 4);
  }
  if (in.op == WarpOp::CpAsync || box) {  // the data is written into shared memory, 128 B a wavefront
    counts_.shared_wavefronts += (sectors + 3) / 4;
    counts_.shared_bytes += sectors * kSectorBytes;
  }
  if (fixed_) {  // no L1, no L2: the data comes back after a fixed latency
    if (in.op == WarpOp::Stg) {
      counts_.store_sectors += sectors;
      return start + 1;
    }
    counts_.l1_miss_sectors += sectors;
    return start + fixed_(in);
  }
  if (in.op == WarpOp::Stg) {
    counts_.store_sectors += sectors;
    stores_out_ += lines.size();
    for (const auto& [line, mask] : lines) {
      if (l1_) l1_->write(line, mask);  // write-through: update a present line, allocate nothing
      out_(GlobalAccess{index_, 0, start, line, mask, true});
    }
    return start + 1;
  }
  const std::uint64_t load = loads_.acquire();
  int waiting = 0;
  std::uint64_t leaves = start;
  for (const auto& [line, mask] : lines) {
    const std::uint64_t present = l1_ && !box ? l1_->lookup(line, mask) : 0;
    const std::uint64_t missing = mask & ~present;
    counts_.l1_hit_sectors += static_cast<std::uint64_t>(__builtin_popcountll(present));
    if (!box) counts_.l1_miss_sectors += static_cast<std::uint64_t>(__builtin_popcountll(missing));
    if (!missing) continue;
    ++waiting;
    // A miss of the same sectors already out: wait for it rather than ask again.
    if (const auto m = missing_lines_.find(line);
        !box && m != missing_lines_.end() && (misses_[m->second].sectors & missing) == missing) {
      misses_[m->second].waiters.emplace_back(load, missing);
      continue;
    }
    const std::uint64_t id = misses_.acquire();
    Miss& miss = misses_[id];
    miss.line = line;
    miss.sectors = missing;
    miss.l1_fill = !box;
    miss.waiters.clear();
    miss.waiters.emplace_back(load, missing);
    if (!box) missing_lines_[line] = id;
    out_(GlobalAccess{index_, id, box ? leaves++ : start, line, missing, false});
  }
  const std::uint64_t hit_data = start + static_cast<std::uint64_t>(t_.l1_latency);
  if (waiting == 0) {
    loads_.release(load);
    return box ? start + 1 : hit_data;
  }
  loads_[load] = Load{wi, &in, waiting, hit_data, w.cp_first + w.cp_groups.size() - 1};
  ++ctas_[static_cast<std::size_t>(w.cta)].loads_out;
  return kNever;
}

void SmCore::complete(std::uint64_t id, std::uint64_t cycle) {
  const Miss& m = misses_.at(id);
  if (const auto l = missing_lines_.find(m.line); l != missing_lines_.end() && l->second == id) missing_lines_.erase(l);
  if (l1_ && m.l1_fill) {
    std::uint64_t victim = 0, dirty = 0;
    l1_->fill(m.line, m.sectors, false, victim, dirty);
  }
  // The slot is released last: nothing below acquires one, so `m` stays valid.
  for (const auto& [load, need] : m.waiters) {
    Load& l = loads_[load];
    l.latest = std::max(l.latest, cycle);
    if (--l.waiting == 0) {
      load_done(l.warp, *l.in, l.latest, l.tag);
      loads_.release(load);
    }
  }
  misses_.release(id);
}

void SmCore::store_acknowledged(std::uint64_t cycle) {
  if (stores_out_ == 0) throw std::logic_error("a store acknowledged that the SM never sent");
  const bool was_full = store_queue_full();
  --stores_out_;
  last_ack_ = std::max(last_ack_, cycle);
  if (t_.store_queue == 0) return;
  if (cycle > now_) {
    acks_ahead_.push_back(cycle);
    std::push_heap(acks_ahead_.begin(), acks_ahead_.end(), std::greater<>());
  }
  if (was_full) {  // a store held at issue may go from then on
    for (SubCore& s : subs_) s.earliest = std::min(s.earliest, std::max(cycle, now_));
    wake_ = std::min(wake_, std::max(cycle, now_));
  }
}

void SmCore::load_done(int wi, const WarpInstruction& in, std::uint64_t cycle, std::uint64_t tag) {
  Warp& w = warps_[static_cast<std::size_t>(wi)];
  if (in.op == WarpOp::CpAsync || in.op == WarpOp::Tma) {
    async_done(w, in, cycle, tag);
    if (in.op == WarpOp::CpAsync) --w.cp_groups[tag - w.cp_first].out;
  } else if (t_.dependences == SmTiming::Dependences::Scoreboard) {
    for (std::uint8_t r : in.dst)
      if (r != kNoReg) w.reg_ready[r] = std::max(w.reg_ready[r] == kNever ? 0 : w.reg_ready[r], cycle);
  } else if (in.write_barrier >= 0) {
    --w.barrier_pending[in.write_barrier];
    w.barrier_clear[in.write_barrier] = std::max(w.barrier_clear[in.write_barrier], cycle);
  }
  w.done_at = std::max(w.done_at, cycle);
  w.own_valid = false;
  for (SubCore& s : subs_) s.earliest = std::min(s.earliest, cycle);
  wake_ = std::min(wake_, cycle);
  Cta& c = ctas_[static_cast<std::size_t>(w.cta)];
  c.done_at = std::max(c.done_at, cycle);
  --c.loads_out;
  check_cta(w.cta);
}

void SmCore::async_done(Warp& w, const WarpInstruction& in, std::uint64_t cycle, std::uint64_t tag) {
  if (in.op == WarpOp::Tma) {
    // A multicast box's sibling shares are taken to land with it (WarpInstruction::multicast).
    mbarrier_update(w.cta, in.mbarrier, 0,
                    static_cast<std::int64_t>(in.box_bytes() * std::max<std::uint8_t>(1, in.multicast)), cycle);
    return;
  }
  AsyncGroup& g = w.cp_groups[tag - w.cp_first];
  g.done = std::max(g.done, cycle);
  w.done_at = std::max(w.done_at, cycle);
  w.own_valid = false;
}

SmCore::Mbarrier& SmCore::mbarrier(int cta, int index) {
  auto& all = ctas_[static_cast<std::size_t>(cta)].mbarriers;
  if (all.size() <= static_cast<std::size_t>(index)) all.resize(static_cast<std::size_t>(index) + 1);
  return all[static_cast<std::size_t>(index)];
}

void SmCore::mbarrier_update(int cta, int index, std::uint32_t arrivals, std::int64_t landed, std::uint64_t cycle) {
  Mbarrier& m = mbarrier(cta, index);
  m.arrived += arrivals;
  m.tx -= landed;
  m.latest = std::max(m.latest, cycle);
  if (m.arrived < m.arrivals || m.tx != 0) return;
  // The phase completes: the warps waiting on it may go on from its last contribution.
  m.completed.push_back(m.latest);
  m.arrived -= m.arrivals;
  m.latest = 0;
  for (SubCore& s : subs_) s.earliest = std::min(s.earliest, m.completed.back());
  for (Warp& o : warps_)
    if (o.active && o.cta == cta) o.own_valid = false;
}

std::uint64_t SmCore::run(std::uint64_t until, int& finished) {
  for (;;) {
    // A CTA that completes at `now_` is reported before anything issues at `now_`, so its
    // successor's warps may issue in that cycle.
    if (!completing_.empty()) {
      const auto first = std::min_element(completing_.begin(), completing_.end());
      if (first->first <= now_) {
        const auto [cycle, id] = *first;
        completing_.erase(first);
        for (SubCore& s : subs_) {
          auto& ws = s.warps;
          for (std::size_t k = 0; k < ws.size();) {
            if (warps_[static_cast<std::size_t>(ws[k])].cta == id) {
              warps_[static_cast<std::size_t>(ws[k])].active = false;
              free_warps_.push_back(ws[k]);
              if (s.last == ws[k]) s.last = -1;
              ws.erase(ws.begin() + static_cast<std::ptrdiff_t>(k));
            } else {
              ++k;
            }
          }
        }
        ctas_[static_cast<std::size_t>(id)].live = false;
        own_barriers_.erase(id);
        free_ctas_.push_back(id);
        if (--live_ctas_ == 0) counts_.busy_cycles += cycle - resident_since_;
        wake_ = now_;  // another CTA may complete, or a warp issue, in this cycle
        finished = id;
        return cycle;
      }
    }
    if (now_ >= until || live_ctas_ == 0) return kNever;
    while (!acks_ahead_.empty() && acks_ahead_.front() <= now_) {
      std::pop_heap(acks_ahead_.begin(), acks_ahead_.end(), std::greater<>());
      acks_ahead_.pop_back();
    }
    std::uint64_t next = kNever;
    bool issued = false;
    for (SubCore& s : subs_) {
      std::uint64_t soonest = kNever;
      const int wi = pick(s, now_, soonest);
      if (wi >= 0) {
        issue(wi, s, now_);
        issued = true;
      } else {
        s.earliest = soonest;
      }
      next = std::min(next, soonest);
    }
    if (issued) next = now_ + 1;
    for (const auto& c : completing_) next = std::min(next, c.first);
    wake_ = next;
    if (next == kNever) {
      // Every warp waits for data from outside the SM, complete() coming before `until`'s
      // window is simulated, or for a cluster barrier that other SMs' warps release.
      const bool cluster_wait = std::any_of(ctas_.begin(), ctas_.end(),
                                            [&](const Cta& c) { return c.live && c.cluster > 1 && cluster_arrive_; });
      if (loads_.empty() && stores_out_ == 0 && !cluster_wait)
        throw std::logic_error(
            "every resident warp of an SM waits for something nothing will bring (a barrier, an mbarrier phase or a "
            "cp.async group that cannot complete): the kernel deadlocks");
      now_ = until;
      continue;
    }
    now_ = std::min(next, until);
  }
}

}  // namespace strata
