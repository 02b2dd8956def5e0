#include "accelerators/gpu/occupancy.h"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "sim/rounding.h"

namespace strata {

int Occupancy::warps_per_sm() const { return ctas_per_sm * warps_per_cta; }

Occupancy occupancy(const SmLimits& sm, std::uint32_t threads, std::uint32_t regs_per_thread, std::uint64_t shared) {
  if (threads == 0 || static_cast<int>(threads) > sm.max_threads_per_cta)
    throw OccupancyError("threads", fmt::format("{} threads per CTA: the SM takes 1 to {}", threads, sm.max_threads_per_cta));
  if (static_cast<int>(regs_per_thread) > sm.max_registers_per_thread)
    throw OccupancyError("registers",
                         fmt::format("{} registers per thread: at most {}", regs_per_thread, sm.max_registers_per_thread));
  Occupancy o;
  const int warps = static_cast<int>((threads + 31) / 32);
  o.warps_per_cta = warps;
  o.by_warps = sm.max_warps / warps;
  o.by_ctas = sm.max_ctas;

  // Registers: per warp, rounded up to the allocation unit; a sub-core's file holds a whole
  // number of warps. The launch check assumes the CTA's warps spread over every sub-core.
  const std::uint64_t per_warp = round_up(std::uint64_t{regs_per_thread} * 32, static_cast<std::uint64_t>(sm.register_granularity));
  const std::uint64_t assumed = per_warp * round_up(static_cast<std::uint64_t>(warps), static_cast<std::uint64_t>(sm.sub_cores));
  if (assumed > sm.max_registers_per_cta || per_warp * static_cast<std::uint64_t>(warps) > sm.max_registers_per_cta)
    throw OccupancyError("registers", fmt::format("{} registers per thread x {} threads is more than a CTA may hold ({})",
                                                  regs_per_thread, threads, sm.max_registers_per_cta));
  o.registers_per_warp = per_warp;
  if (per_warp == 0) {
    o.by_registers = INT_MAX;
  } else {
    const std::uint64_t per_sub_core = sm.registers / static_cast<std::uint64_t>(sm.sub_cores) / per_warp;
    o.by_registers = static_cast<int>(per_sub_core * static_cast<std::uint64_t>(sm.sub_cores)) / warps;
  }

  // Shared memory, with the system's reserve, in allocation units.
  const std::uint64_t per_cta = round_up(shared + sm.shared_reserved_per_cta, sm.shared_granularity);
  if (shared > sm.max_shared_per_cta || per_cta > sm.shared_bytes)
    throw OccupancyError("shared_memory",
                         fmt::format("{} B of shared memory per CTA: at most {} B", shared, sm.max_shared_per_cta));
  o.shared_per_cta = per_cta;
  o.by_shared = per_cta == 0 ? INT_MAX : static_cast<int>(sm.shared_bytes / per_cta);

  o.ctas_per_sm = std::min({o.by_warps, o.by_ctas, o.by_registers, o.by_shared});
  o.limiter = o.ctas_per_sm == o.by_warps      ? "warps"
              : o.ctas_per_sm == o.by_ctas     ? "ctas"
              : o.ctas_per_sm == o.by_registers ? "registers"
                                               : "shared_memory";
  if (o.ctas_per_sm == 0)
    throw OccupancyError(o.limiter, fmt::format("the kernel's CTA does not fit an SM (limited by {})", o.limiter));
  return o;
}

std::uint64_t waves(std::uint64_t ctas, const Occupancy& o, int sms) {
  const std::uint64_t per_wave = static_cast<std::uint64_t>(o.ctas_per_sm) * static_cast<std::uint64_t>(sms);
  return per_wave == 0 ? 0 : (ctas + per_wave - 1) / per_wave;
}

std::vector<int> gpc_sizes(int sms, int gpcs) {
  if (sms <= 0 || gpcs <= 0 || gpcs > sms)
    throw std::invalid_argument(fmt::format("{} GPCs of {} SMs: 1 to {} GPCs", gpcs, sms, sms));
  const int unit = sms >= 2 * gpcs ? 2 : 1;  // TPCs when every GPC gets at least one
  const int units = sms / unit, base = units / gpcs, extra = units % gpcs;
  std::vector<int> sizes(static_cast<std::size_t>(gpcs));
  for (int g = 0; g < gpcs; ++g) sizes[static_cast<std::size_t>(g)] = (base + (g < extra ? 1 : 0)) * unit;
  sizes.back() += sms - units * unit;  // an odd SM
  return sizes;
}

std::uint64_t max_active_clusters(const std::vector<int>& gpcs, int ctas_per_sm, int cluster) {
  if (cluster <= 0) return 0;
  std::uint64_t n = 0;
  for (int sms : gpcs)
    if (sms >= cluster)
      n += static_cast<std::uint64_t>(sms) * static_cast<std::uint64_t>(ctas_per_sm) /
           static_cast<std::uint64_t>(cluster);
  return n;
}

std::uint64_t active_clusters(const std::vector<int>& gpcs, int max_cluster, std::uint64_t ctas, std::uint32_t cluster,
                              int ctas_per_sm) {
  if (cluster <= 1) return 0;
  if (max_cluster <= 1)
    throw std::invalid_argument(
        fmt::format("a cluster of {} CTAs: this GPU has no thread-block clusters (its "
                    "max_cluster_size is 1; clusters need compute capability 9.0)",
                    cluster));
  if (static_cast<int>(cluster) > max_cluster)
    throw std::invalid_argument(
        fmt::format("a cluster of {} CTAs: at most {} (the gpu's max_cluster_size; 8 is "
                    "the portable limit, 16 the non-portable one)",
                    cluster, max_cluster));
  if (ctas % cluster != 0)
    throw std::invalid_argument(fmt::format("{} CTAs are not a whole number of clusters of {}", ctas, cluster));
  const std::uint64_t n = max_active_clusters(gpcs, ctas_per_sm, static_cast<int>(cluster));
  if (n == 0)
    throw std::invalid_argument(fmt::format("a cluster of {} CTAs fits no GPC (the largest has {} SMs)", cluster,
                                            gpcs.empty() ? 0 : *std::max_element(gpcs.begin(), gpcs.end())));
  return n;
}

std::uint64_t cluster_waves(std::uint64_t clusters, std::uint64_t active) {
  return active == 0 ? 0 : (clusters + active - 1) / active;
}

ClusterPlacer::ClusterPlacer(const std::vector<int>& gpcs, int ctas_per_sm) {
  int sm = 0;
  for (std::size_t g = 0; g < gpcs.size(); ++g) {
    first_.push_back(sm);
    size_.push_back(gpcs[g]);
    for (int i = 0; i < gpcs[g]; ++i, ++sm) {
      gpc_.push_back(static_cast<int>(g));
      room_.push_back(ctas_per_sm);
    }
  }
}

bool ClusterPlacer::place(int cluster, std::vector<int>& sms) {
  int best = -1, best_room = 0;
  for (std::size_t g = 0; g < first_.size(); ++g) {
    int with_room = 0, total = 0;
    for (int s = first_[g]; s < first_[g] + size_[g]; ++s) {
      with_room += room_[static_cast<std::size_t>(s)] > 0;
      total += room_[static_cast<std::size_t>(s)];
    }
    if (with_room >= cluster && total > best_room) {
      best = static_cast<int>(g);
      best_room = total;
    }
  }
  if (best < 0) return false;
  sms.clear();
  for (int s = first_[static_cast<std::size_t>(best)];
       s < first_[static_cast<std::size_t>(best)] + size_[static_cast<std::size_t>(best)]; ++s)
    if (room_[static_cast<std::size_t>(s)] > 0) sms.push_back(s);
  std::stable_sort(sms.begin(), sms.end(), [&](int a, int b) {
    return room_[static_cast<std::size_t>(a)] > room_[static_cast<std::size_t>(b)];
  });
  sms.resize(static_cast<std::size_t>(cluster));
  std::sort(sms.begin(), sms.end());
  for (int s : sms) --room_[static_cast<std::size_t>(s)];
  return true;
}

void ClusterPlacer::release(int sm) { ++room_[static_cast<std::size_t>(sm)]; }

}  // namespace strata
