#include "accelerators/gpu/gpu_analytic.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace strata {

namespace {

// What one warp's program asks of its sub-core and of the SM.
struct WarpDemand {
  double chain = 0;  // cycles of its dependence chain alone
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
  if (in.footprint == 0 || in.footprint > m.l2_bytes) return Level::Dram;
  return in.footprint <= m.l1_bytes && in.op != WarpOp::Tma ? Level::L1 : Level::L2;  // TMA skips the L1
}

// The cycles one warp alone takes for `p` run `iterations` times.
std::uint64_t alone(const WarpProgram& p, std::uint64_t iterations, const SmTiming& timing, const MemoryEstimate& m,
                    int cluster, SmCounts* counts = nullptr) {
  WarpProgram q = p;
  q.iterations = iterations;
  SmTiming t = timing;
  t.l1_bytes = 0;  // the pass has no caches: latencies come by level
  SmCore sm(t);
  sm.answer_with([&m](const WarpInstruction& in) {
    const Level l = level_of(in, m);
    return static_cast<std::uint64_t>(l == Level::L1 ? m.l1_latency : l == Level::L2 ? m.l2_latency : m.dram_latency);
  });
  sm.add_cta(q, 1, 0, 0, cluster);
  int id = -1;
  const std::uint64_t end = sm.run(SmCore::kNever, id);
  if (counts) *counts = sm.counts();
  return end;
}

WarpDemand demand(const WarpProgram& p, const SmTiming& t, const MemoryEstimate& m, int cluster) {
  WarpDemand d;
  if (p.instructions() == 0) return d;
  // The chain: its fixed part from `k` iterations, its slope from one more. With three or more
  // iterations k is 2, so the slope is a warm iteration's (the first fills the register-file
  // cache).
  const std::uint64_t k = p.iterations >= 3 ? 2 : std::min<std::uint64_t>(1, p.iterations);
  SmCounts one, two;
  const std::uint64_t tk = alone(p, k, t, m, cluster, &one);
  double slope = 0;
  if (p.iterations > k && !p.body.empty())
    slope = static_cast<double>(alone(p, k + 1, t, m, cluster, &two)) - static_cast<double>(tk);
  d.chain = static_cast<double>(tk) + slope * static_cast<double>(p.iterations - k);
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
          if (in.op == WarpOp::CpAsync || in.op == WarpOp::Tma) d.shared += times * std::ceil(bytes / kLineBytes);
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
  // Counts: k iterations', and the further ones as the one more.
  d.counts = one;
  if (p.iterations > k) {
    const auto scale = [&](std::uint64_t a, std::uint64_t b) {  // a: k iterations, b: k + 1
      return a + (b - a) * (p.iterations - k);
    };
    d.counts.warp_instructions = scale(one.warp_instructions, two.warp_instructions);
    for (int op = 0; op < kWarpOps; ++op) {
      d.counts.by_op[op] = scale(one.by_op[op], two.by_op[op]);
      d.counts.thread_ops[op] = scale(one.thread_ops[op], two.thread_ops[op]);
    }
    for (const auto& [f, n] : two.tensor_macs) d.counts.tensor_macs[f] = scale(one.tensor_macs.count(f) ? one.tensor_macs.at(f) : 0, n);
    d.counts.shared_wavefronts = scale(one.shared_wavefronts, two.shared_wavefronts);
    d.counts.shared_bytes = scale(one.shared_bytes, two.shared_bytes);
    d.counts.dsm_bytes = scale(one.dsm_bytes, two.dsm_bytes);
    d.counts.rf_reads = scale(one.rf_reads, two.rf_reads);
    d.counts.rf_writes = scale(one.rf_writes, two.rf_writes);
  }
  return d;
}

// Cycles of one wave in which an SM holds `ctas` CTAs starting at CTA `first`.
double wave_cycles(const KernelLaunch& k, std::uint64_t first, std::uint64_t ctas, const SmTiming& t,
                   const MemoryEstimate& m, int sms_busy, std::map<const WarpProgram*, WarpDemand>& cache) {
  std::vector<double> issue(static_cast<std::size_t>(t.sub_cores)), pipes(issue.size()), tensor(issue.size());
  double chain = 0, shared = 0, dsm = 0, l2 = 0, dram = 0;
  std::size_t sub = 0;
  for (std::uint64_t c = first; c < first + ctas; ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w, sub = (sub + 1) % issue.size()) {
      const WarpProgram& p = k.program_of(c, w);
      auto it = cache.find(&p);
      if (it == cache.end()) it = cache.emplace(&p, demand(p, t, m, static_cast<int>(k.cluster))).first;
      const WarpDemand& d = it->second;
      chain = std::max(chain, d.chain);
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

}  // namespace

KernelEstimate estimate_kernel(const KernelLaunch& k, const Occupancy& occ, const SmTiming& t, int sms,
                               const MemoryEstimate& m, std::uint64_t ctas_per_wave) {
  KernelEstimate e;
  std::map<const WarpProgram*, WarpDemand> cache;
  const std::uint64_t per_wave =
      ctas_per_wave > 0 ? ctas_per_wave : static_cast<std::uint64_t>(occ.ctas_per_sm) * static_cast<std::uint64_t>(sms);
  e.waves = (k.ctas() + per_wave - 1) / per_wave;
  double cycles = 0;
  for (std::uint64_t first = 0; first < k.ctas(); first += per_wave) {
    // A wave's SMs hold the CTAs spread evenly; the busiest SM (the most CTAs) sets its time.
    const std::uint64_t in_wave = std::min(per_wave, k.ctas() - first);
    const std::uint64_t on_busiest = (in_wave + static_cast<std::uint64_t>(sms) - 1) / static_cast<std::uint64_t>(sms);
    const int busy = static_cast<int>(std::min<std::uint64_t>(in_wave, static_cast<std::uint64_t>(sms)));
    cycles += wave_cycles(k, first, on_busiest, t, m, busy, cache);
  }
  // The grid's stores beyond what the L2 holds are written back to the DRAM: a bound on the
  // whole kernel (write-back happens as later lines evict them).
  double stores = 0, reads = 0;
  for (const auto& [program, d] : cache) {
    (void)program;
    stores = std::max(stores, d.store_bytes);
    reads = std::max(reads, d.dram_bytes);
  }
  const double warps = static_cast<double>(k.ctas() * k.warps_per_cta());
  const double write_back = std::max(0.0, stores * warps - static_cast<double>(m.l2_bytes));
  if (m.dram_bytes_per_cycle > 0) cycles = std::max(cycles, (reads * warps + write_back) / m.dram_bytes_per_cycle);
  e.cycles = static_cast<std::uint64_t>(std::ceil(cycles));
  e.counts.ctas = k.ctas();
  e.counts.busy_cycles = e.cycles * std::min<std::uint64_t>(k.ctas(), static_cast<std::uint64_t>(sms));
  for (std::uint64_t c = 0; c < k.ctas(); ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      const WarpProgram& p = k.program_of(c, w);
      auto it = cache.find(&p);
      if (it == cache.end()) it = cache.emplace(&p, demand(p, t, m, static_cast<int>(k.cluster))).first;
      if (k.warp_programs.empty()) {  // every warp the same: count once, times the grid
        e.counts.add(it->second.counts, k.ctas() * k.warps_per_cta());
        e.dram_bytes = static_cast<std::uint64_t>(it->second.dram_bytes) * k.ctas() * k.warps_per_cta() +
                       static_cast<std::uint64_t>(write_back);
        return e;
      }
      e.counts.add(it->second.counts);
      e.dram_bytes += static_cast<std::uint64_t>(it->second.dram_bytes);
    }
  return e;
}

}  // namespace strata
