#include "accelerators/gpu/gpu_analytic.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>

#include "sim/interrupt.h"

namespace strata {

namespace {

constexpr std::uint64_t kWavesSummed = 4096;

// What one warp's program asks of its sub-core and of the SM.
struct WarpDemand {
  double chain = 0;                         // cycles of its dependence chain alone
  double issue = 0, pipes = 0, tensor = 0;  // cycles of its sub-core's issue slots, busiest pipe, tensor core
  double shared = 0;                        // wavefronts of the SM's shared-memory unit
  double dsm = 0;                           // bytes through the SM's port to the SM-to-SM network
  double l2_bytes = 0, dram_bytes = 0;      // its global traffic beyond the L1, and beyond the L2
  double store_bytes = 0;                   // stores (they reach the DRAM when they overflow the L2)
  SmCounts counts;
};

// Where a global access's data comes from: the smallest level its footprint fits.
enum class Level { L1, L2, Dram };
Level level_of(const WarpInstruction& in, const MemoryEstimate& m) {
  if (m.loads_from_l2 && (in.footprint == 0 || in.footprint > m.l2_bytes)) return Level::L2;
  if (in.footprint == 0 || in.footprint > m.l2_bytes) return Level::Dram;
  return in.footprint <= m.l1_bytes && in.op != WarpOp::Tma ? Level::L1 : Level::L2;  // TMA skips the L1
}

// The cycles one warp (or one CTA's warps: `programs`) alone takes with every body run
// `iterations` times.
std::uint64_t alone(const std::vector<const WarpProgram*>& programs, std::uint64_t iterations, const SmTiming& timing,
                    const MemoryEstimate& m, int cluster, SmCounts* counts = nullptr) {
  std::vector<WarpProgram> copies;
  copies.reserve(programs.size());
  for (const WarpProgram* p : programs) {
    copies.push_back(*p);
    if (!p->body.empty()) copies.back().iterations = iterations;
  }
  std::vector<const WarpProgram*> q;
  for (const WarpProgram& c : copies) q.push_back(&c);
  SmTiming t = timing;
  t.l1_bytes = 0;  // the pass has no caches: latencies come by level
  SmCore sm(t);
  sm.answer_with([&m](const WarpInstruction& in) {
    const Level l = level_of(in, m);
    return static_cast<std::uint64_t>(l == Level::L1 ? m.l1_latency : l == Level::L2 ? m.l2_latency : m.dram_latency);
  });
  sm.add_cta(q, 0, 0, cluster);
  int id = -1;
  const std::uint64_t end = sm.run(SmCore::kNever, id);
  if (counts) *counts = sm.counts();
  return end;
}

// A dependence chain and the counts of its run: its fixed part from `k` iterations, its slope
// from one more. With three or more iterations k is 2, so the slope is a warm iteration's (the
// first fills the register-file cache).
struct ChainRun {
  double chain = 0;
  SmCounts counts;
};
ChainRun chain_of(const std::vector<const WarpProgram*>& programs, std::uint64_t iterations, bool looped,
                  const SmTiming& t, const MemoryEstimate& m, int cluster) {
  ChainRun r;
  const std::uint64_t k = iterations >= 3 ? 2 : std::min<std::uint64_t>(1, iterations);
  SmCounts one, two;
  const std::uint64_t tk = alone(programs, k, t, m, cluster, &one);
  double slope = 0;
  if (iterations > k && looped)
    slope = static_cast<double>(alone(programs, k + 1, t, m, cluster, &two)) - static_cast<double>(tk);
  r.chain = static_cast<double>(tk) + slope * static_cast<double>(iterations - k);
  // Counts: k iterations', and the further ones as the one more.
  r.counts = one;
  if (iterations > k && looped) {
    const auto scale = [&](std::uint64_t a, std::uint64_t b) {  // a: k iterations, b: k + 1
      return a + (b - a) * (iterations - k);
    };
    r.counts.warp_instructions = scale(one.warp_instructions, two.warp_instructions);
    for (int op = 0; op < kWarpOps; ++op) {
      r.counts.by_op[op] = scale(one.by_op[op], two.by_op[op]);
      r.counts.thread_ops[op] = scale(one.thread_ops[op], two.thread_ops[op]);
    }
    for (const auto& [f, n] : two.tensor_macs)
      r.counts.tensor_macs[f] = scale(one.tensor_macs.count(f) ? one.tensor_macs.at(f) : 0, n);
    r.counts.shared_wavefronts = scale(one.shared_wavefronts, two.shared_wavefronts);
    r.counts.shared_bytes = scale(one.shared_bytes, two.shared_bytes);
    r.counts.dsm_bytes = scale(one.dsm_bytes, two.dsm_bytes);
    r.counts.rf_reads = scale(one.rf_reads, two.rf_reads);
    r.counts.rf_writes = scale(one.rf_writes, two.rf_writes);
  }
  return r;
}

// `alone`: the warp runs on its own (false for a warp-specialized CTA's warps, which wait for
// each other: their CTA's run gives the chain and the counts).
WarpDemand demand(const WarpProgram& p, const SmTiming& t, const MemoryEstimate& m, int cluster, bool alone = true) {
  WarpDemand d;
  if (p.instructions() == 0) return d;
  if (alone) {
    ChainRun r = chain_of({&p}, p.iterations, !p.body.empty(), t, m, cluster);
    d.chain = r.chain;
    d.counts = std::move(r.counts);
  }
  // Resources: per instruction, scaled by the loop.
  SmCore probe(t);
  std::map<int, double> pipe;
  const auto add = [&](const std::vector<WarpInstruction>& part, double times) {
    for (const WarpInstruction& in : part) {
      d.issue += times;
      switch (in.op) {
        case WarpOp::Int:
        case WarpOp::Fp32:
        case WarpOp::Fp64:
        case WarpOp::Sfu: pipe[static_cast<int>(in.op)] += times * t.pipe_cycles(in.op); break;
        case WarpOp::Mma:
        case WarpOp::Wgmma:
          d.tensor += times * static_cast<double>(probe.tensor_cycles(in, probe.tensor_rate(p.formats.at(in.format))));
          break;
        case WarpOp::LdsCluster:
        case WarpOp::StsCluster:
          if (cluster > 1 && in.cluster_peer % cluster != 0) {
            d.dsm += times * probe.distinct_words(in, p.addresses) * t.bank_bytes;
            break;
          }
          [[fallthrough]];
        case WarpOp::Lds:
        case WarpOp::Sts: d.shared += times * probe.wavefronts(in, p.addresses); break;
        case WarpOp::Ldg:
        case WarpOp::Stg:
        case WarpOp::CpAsync:
        case WarpOp::Tma: {
          // Whole sectors of the active lanes' bytes, or of a TMA box's rows.
          const double bytes =
              in.op == WarpOp::Tma
                  ? in.box_rows * std::ceil(static_cast<double>(in.box_row_bytes) / kSectorBytes) * kSectorBytes
                  : std::ceil(__builtin_popcount(in.active_mask) * static_cast<double>(in.width) / kSectorBytes) *
                        kSectorBytes;
          // Asynchronous copies write their data into shared memory, 128 B a wavefront.
          // (a multicast box lands in every receiving CTA's: its siblings' shares land here too).
          if (in.op == WarpOp::CpAsync || in.op == WarpOp::Tma)
            d.shared += times * std::ceil(bytes / kLineBytes) * std::max<std::uint8_t>(1, in.multicast);
          const Level l = in.op == WarpOp::Stg ? Level::L2 : level_of(in, m);
          if (in.op == WarpOp::Stg) d.store_bytes += times * bytes;
          if (l != Level::L1) d.l2_bytes += times * bytes;
          if (l == Level::Dram) d.dram_bytes += times * bytes;
          break;
        }
        default: break;
      }
    }
  };
  const auto iterations = static_cast<double>(p.iterations);
  add(p.prologue, 1);
  add(p.body, iterations);
  add(p.epilogue, 1);
  for (const auto& [unit, cycles] : pipe) d.pipes = std::max(d.pipes, cycles);
  return d;
}

using DemandCache = std::map<const WarpProgram*, WarpDemand>;

// Warp `w` of CTA `c`'s demand, computed once per program.
const WarpDemand& demand_of(DemandCache& cache, const KernelLaunch& k, std::uint64_t c, std::uint32_t w,
                            const SmTiming& t, const MemoryEstimate& m, bool alone) {
  const WarpProgram& p = k.program_of(c, w);
  auto it = cache.find(&p);
  if (it == cache.end()) it = cache.emplace(&p, demand(p, t, m, static_cast<int>(k.cluster), alone)).first;
  return it->second;
}

// Cycles of one wave in which an SM holds `ctas` CTAs starting at CTA `first`.
// `cta_chain`: a warp-specialized CTA's chain (0 for kernels whose warps run alone).
double wave_cycles(const KernelLaunch& k, std::uint64_t first, std::uint64_t ctas, const SmTiming& t,
                   const MemoryEstimate& m, int sms_busy, DemandCache& cache, double cta_chain) {
  const bool alone = cta_chain == 0;
  std::vector<double> issue(static_cast<std::size_t>(t.sub_cores)), pipes(issue.size()), tensor(issue.size());
  double chain = 0, shared = 0, dsm = 0, l2 = 0, dram = 0;
  std::size_t sub = 0;
  for (std::uint64_t c = first; c < first + ctas; ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w, sub = (sub + 1) % issue.size()) {
      const WarpDemand& d = demand_of(cache, k, c, w, t, m, alone);
      chain = std::max({chain, d.chain, cta_chain});
      l2 += d.l2_bytes;
      dram += d.dram_bytes;
      issue[sub] += d.issue;
      pipes[sub] += d.pipes;
      tensor[sub] += d.tensor;
      shared += d.shared;
      dsm += d.dsm;
    }
  // The SMs of the wave share the L2 and the DRAM.
  double bound = std::max({chain, shared, dsm / t.dsm_bytes_per_cycle});
  if (m.l2_bytes_per_cycle > 0) bound = std::max(bound, l2 * sms_busy / m.l2_bytes_per_cycle);
  if (m.dram_bytes_per_cycle > 0) bound = std::max(bound, dram * sms_busy / m.dram_bytes_per_cycle);
  for (std::size_t s = 0; s < issue.size(); ++s) bound = std::max({bound, issue[s], pipes[s], tensor[s]});
  return bound;
}

// The chain of CTA `c` of a warp-specialized kernel: its warps' programs run together, every
// body as many times as the longest.
ChainRun chain_of_cta(const KernelLaunch& k, std::uint64_t c, const SmTiming& t, const MemoryEstimate& m) {
  std::vector<const WarpProgram*> programs;
  std::uint64_t iterations = 1;
  bool looped = false;
  for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
    programs.push_back(&k.program_of(c, w));
    if (!programs.back()->body.empty()) {
      iterations = std::max(iterations, programs.back()->iterations);
      looped = true;
    }
  }
  ChainRun run = chain_of(programs, iterations, looped, t, m, static_cast<int>(k.cluster));
  run.chain = std::max(run.chain, 1.0);
  return run;
}

// A warp-specialized grid whose CTAs' chains differ (a causal attention: a query tile's CTA
// runs as many key tiles as the mask leaves it). The GPU hands each CTA, in grid order, to the
// first of the wave's slots that frees, so the kernel lasts as long as that dispatch of the
// CTAs' chains, or as the grid's work on the SMs' pipes, shared memory, L2 and DRAM, whichever is
// longer. Waves of equal CTAs would hide the short CTAs behind the long ones' slots, or, taking
// the first CTA's chain for all, time the whole grid at its shortest tile.
KernelEstimate estimate_uneven(const KernelLaunch& k, const std::map<std::uint32_t, ChainRun>& set_runs,
                               std::uint64_t per_wave, int sms, const SmTiming& t, const MemoryEstimate& m,
                               KernelEstimate e) {
  std::priority_queue<double, std::vector<double>, std::greater<double>> slots;
  for (std::uint64_t s = 0; s < std::min(per_wave, k.ctas()); ++s) slots.push(0);
  DemandCache cache;
  std::map<std::uint32_t, std::uint64_t> ctas_of_set;
  double makespan = 0, issue = 0, pipes = 0, tensor = 0, shared = 0, dsm = 0, l2 = 0, dram = 0, stores = 0;
  for (std::uint64_t c = 0; c < k.ctas(); ++c) {
    if ((c + 1) % (1u << 20) == 0 && interrupt_flag().load(std::memory_order_relaxed)) return e;
    const std::uint32_t set = k.set_of(c);
    ++ctas_of_set[set];
    const double end = slots.top() + set_runs.at(set).chain;
    slots.pop();
    slots.push(end);
    makespan = std::max(makespan, end);
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      const WarpDemand& d = demand_of(cache, k, c, w, t, m, false);
      issue += d.issue;
      pipes += d.pipes;
      tensor += d.tensor;
      shared += d.shared;
      dsm += d.dsm;
      l2 += d.l2_bytes;
      dram += d.dram_bytes;
      stores += d.store_bytes;
    }
  }
  const double sub_cores = static_cast<double>(sms) * t.sub_cores;
  // The last store's acknowledgement comes back from the L2 a round trip later (GpuL2).
  if (stores > 0) makespan += m.l2_latency;
  double cycles = std::max({makespan, issue / sub_cores, pipes / sub_cores, tensor / sub_cores, shared / sms,
                            dsm / (t.dsm_bytes_per_cycle * sms)});
  if (m.l2_bytes_per_cycle > 0) cycles = std::max(cycles, l2 / m.l2_bytes_per_cycle);
  const double write_back = std::max(0.0, stores - static_cast<double>(m.l2_bytes));
  const double dram_bytes = std::max(dram + write_back, static_cast<double>(k.expected_dram_bytes));
  if (m.dram_bytes_per_cycle > 0) cycles = std::max(cycles, dram_bytes / m.dram_bytes_per_cycle);
  e.cycles = whole_cycles(cycles);
  e.counts.ctas = k.ctas();
  e.counts.busy_cycles = e.cycles * std::min<std::uint64_t>(k.ctas(), static_cast<std::uint64_t>(sms));
  for (const auto& [set, n] : ctas_of_set) e.counts.add(set_runs.at(set).counts, n);
  e.dram_bytes = static_cast<std::uint64_t>(dram_bytes);
  e.l2_bytes = static_cast<std::uint64_t>(l2);
  return e;
}

}  // namespace

KernelEstimate estimate_kernel(const KernelLaunch& k, const Occupancy& occ, const SmTiming& t, int sms,
                               const MemoryEstimate& memory, std::uint64_t ctas_per_wave) {
  KernelEstimate e;
  if (k.ctas() == 0) return e;
  MemoryEstimate m = memory;
  m.loads_from_l2 = m.loads_from_l2 || k.expected_dram_bytes > 0;
  DemandCache cache;
  const std::uint64_t per_wave =
      ctas_per_wave > 0 ? ctas_per_wave : static_cast<std::uint64_t>(occ.ctas_per_sm) * static_cast<std::uint64_t>(sms);
  e.waves = (k.ctas() + per_wave - 1) / per_wave;
  // A warp-specialized kernel's warps wait for each other: its CTA runs alone for the chain.
  // When every CTA set's chain is the same, the first CTA's stands for all, wave by wave; when
  // they differ (a causal attention's query tiles, a grouped GEMM's groups), the grid is
  // dispatched CTA by CTA (estimate_uneven).
  const bool specialized = k.warp_programs.empty() && !k.cta_programs.empty();
  std::map<std::uint32_t, ChainRun> set_runs;
  if (specialized) {
    for (std::uint64_t c = 0; c < k.ctas(); ++c) {
      if (!set_runs.count(k.set_of(c))) set_runs.emplace(k.set_of(c), chain_of_cta(k, c, t, m));
      if (k.cta_sets.empty()) break;
    }
  }
  const ChainRun cta = specialized ? set_runs.at(k.set_of(0)) : ChainRun{};
  const bool uneven =
      std::any_of(set_runs.begin(), set_runs.end(), [&](const auto& run) { return run.second.chain != cta.chain; });
  if (uneven) return estimate_uneven(k, set_runs, per_wave, sms, t, m, e);
  double cycles = 0;
  std::uint64_t first = 0;
  // CTAs that all run the same programs make every full wave alike: a grid of many waves
  // counts one for them all (few waves are summed one by one, as they always were).
  const std::uint64_t full = k.ctas() / per_wave;
  if (k.warp_programs.empty() && k.cta_sets.empty() && full > kWavesSummed) {
    const std::uint64_t on_busiest = (per_wave + static_cast<std::uint64_t>(sms) - 1) / static_cast<std::uint64_t>(sms);
    const int busy = static_cast<int>(std::min<std::uint64_t>(per_wave, static_cast<std::uint64_t>(sms)));
    cycles = static_cast<double>(full) * wave_cycles(k, 0, on_busiest, t, m, busy, cache, cta.chain);
    first = full * per_wave;
  }
  for (std::uint64_t waves = 0; first < k.ctas(); first += per_wave) {
    // The runner leaves its marker.
    if (++waves % 1024 == 0 && interrupt_flag().load(std::memory_order_relaxed)) return e;
    // A wave's SMs hold the CTAs spread evenly; the busiest SM (the most CTAs) sets its time.
    const std::uint64_t in_wave = std::min(per_wave, k.ctas() - first);
    const std::uint64_t on_busiest = (in_wave + static_cast<std::uint64_t>(sms) - 1) / static_cast<std::uint64_t>(sms);
    const int busy = static_cast<int>(std::min<std::uint64_t>(in_wave, static_cast<std::uint64_t>(sms)));
    cycles += wave_cycles(k, first, on_busiest, t, m, busy, cache, cta.chain);
  }
  // The grid's stores beyond what the L2 holds are written back to the DRAM: a bound on the
  // whole kernel (write-back happens as later lines evict them).
  double stores = 0, reads = 0;
  for (const auto& [program, d] : cache) {
    (void)program;
    stores = std::max(stores, d.store_bytes);
    reads = std::max(reads, d.dram_bytes);
  }
  // The last store's acknowledgement comes back from the L2 a round trip after the last wave's.
  if (stores > 0) cycles += m.l2_latency;
  const double warps = static_cast<double>(k.ctas()) * k.warps_per_cta();
  const double write_back = std::max(0.0, stores * warps - static_cast<double>(m.l2_bytes));
  if (m.dram_bytes_per_cycle > 0)
    cycles = std::max(cycles, std::max((reads * warps + write_back), static_cast<double>(k.expected_dram_bytes)) /
                                  m.dram_bytes_per_cycle);
  e.cycles = whole_cycles(cycles);
  e.counts.ctas = k.ctas();
  e.counts.busy_cycles = e.cycles * std::min<std::uint64_t>(k.ctas(), static_cast<std::uint64_t>(sms));
  const auto at_least_expected = [&] { e.dram_bytes = std::max(e.dram_bytes, k.expected_dram_bytes); };
  if (specialized) {  // every CTA the same: its run's counts, times the grid
    e.counts.add(cta.counts, k.ctas());
    double per_cta = 0, l2_per_cta = 0;
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      per_cta += cache.at(&k.program_of(0, w)).dram_bytes;
      l2_per_cta += cache.at(&k.program_of(0, w)).l2_bytes;
    }
    e.dram_bytes = static_cast<std::uint64_t>(per_cta) * k.ctas() + static_cast<std::uint64_t>(write_back);
    e.l2_bytes = static_cast<std::uint64_t>(l2_per_cta) * k.ctas();
    at_least_expected();
    return e;
  }
  for (std::uint64_t c = 0; c < k.ctas(); ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      const WarpDemand& d = demand_of(cache, k, c, w, t, m, true);
      if (k.warp_programs.empty()) {  // every warp the same: count once, times the grid
        e.counts.add(d.counts, k.ctas() * k.warps_per_cta());
        e.dram_bytes = static_cast<std::uint64_t>(d.dram_bytes) * k.ctas() * k.warps_per_cta() +
                       static_cast<std::uint64_t>(write_back);
        e.l2_bytes = static_cast<std::uint64_t>(d.l2_bytes) * k.ctas() * k.warps_per_cta();
        at_least_expected();
        return e;
      }
      e.counts.add(d.counts);
      e.dram_bytes += static_cast<std::uint64_t>(d.dram_bytes);
      e.l2_bytes += static_cast<std::uint64_t>(d.l2_bytes);
    }
  at_least_expected();
  return e;
}

}  // namespace strata
