// How many CTAs of a kernel an SM holds at once, by the CUDA occupancy rules (the CUDA
// occupancy calculator, cuda_occupancy.h): the least of the warp-slot, CTA-slot, register and
// shared-memory limits. Registers are allocated per warp in units of `register_granularity`
// and per sub-core (a warp's registers live in its sub-core's file); shared memory per CTA in
// units of `shared_granularity`, plus the CTA's reserved shared memory. Waves: how many rounds
// of `ctas_per_sm x sms` the grid takes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata {

struct SmLimits {
  int sub_cores = 4;
  int max_warps = 64;
  int max_ctas = 32;
  int max_threads_per_cta = 1024;
  std::uint32_t registers = 65536;  // 32-bit registers per SM
  std::uint32_t max_registers_per_cta = 65536;
  int max_registers_per_thread = 255;
  int register_granularity = 256;  // registers per warp are allocated in units of this
  std::uint64_t shared_bytes = 228 * 1024;  // the shared-memory carve-out per SM
  std::uint64_t max_shared_per_cta = 227 * 1024;
  std::uint64_t shared_reserved_per_cta = 1024;  // taken by the system in every CTA (CUDA 11+, sm_80+)
  std::uint64_t shared_granularity = 128;
};

struct Occupancy {
  int ctas_per_sm = 0;  // 0: the kernel cannot launch
  int by_warps = 0, by_ctas = 0, by_registers = 0, by_shared = 0;
  std::string limiter;  // "warps", "ctas", "registers", "shared_memory" (the first that binds)
  int warps_per_sm() const;  // active warps at full occupancy
  int warps_per_cta = 0;
  // What one CTA is allocated: registers per warp (at the register granularity, in a sub-core's
  // file) and shared memory (with the reserve, at the shared granularity).
  std::uint64_t registers_per_warp = 0, shared_per_cta = 0;
};

// Why a kernel cannot run on an SM at all: `limit` is "threads", "registers" or
// "shared_memory", the resource one CTA asks too much of.
class OccupancyError : public std::invalid_argument {
 public:
  OccupancyError(std::string limit, const std::string& what) : std::invalid_argument(what), limit(std::move(limit)) {}
  std::string limit;
};

// Throws OccupancyError when the kernel cannot run on the SM at all.
Occupancy occupancy(const SmLimits& sm, std::uint32_t threads_per_cta, std::uint32_t registers_per_thread,
                    std::uint64_t shared_bytes_per_cta);

// Rounds of ctas_per_sm x sms CTAs the grid needs.
std::uint64_t waves(std::uint64_t ctas, const Occupancy& o, int sms);

// Thread-block clusters (Hopper). The SMs of a GPU are numbered GPC by GPC; gpc_sizes(sms,
// gpcs) spreads `sms` SMs over `gpcs` GPCs as evenly as whole TPCs (pairs of SMs) allow, the
// larger GPCs first: H100 SXM 132 over 8 is 18, 18, 16, 16, 16, 16, 16, 16. Single SMs are
// dealt instead when there are fewer than two a GPC.
std::vector<int> gpc_sizes(int sms, int gpcs);

// Clusters of `cluster` CTAs an SM holding `ctas_per_sm` lets co-reside, as
// cudaOccupancyMaxActiveClusters counts them: a cluster's CTAs go to distinct SMs of one GPC,
// so a GPC of n SMs holds floor(n x ctas_per_sm / cluster) clusters when n >= cluster, none
// otherwise. 0: the cluster fits no GPC.
std::uint64_t max_active_clusters(const std::vector<int>& gpcs, int ctas_per_sm, int cluster);

// The clusters of `cluster` CTAs of a grid of `ctas` that co-reside on GPCs `gpcs` (0: a grid
// without clusters). Throws std::invalid_argument when the GPU has no clusters (`max_cluster`
// 1), the cluster is larger than `max_cluster` or fits no GPC, or the grid is not a whole
// number of clusters.
std::uint64_t active_clusters(const std::vector<int>& gpcs, int max_cluster, std::uint64_t ctas, std::uint32_t cluster,
                              int ctas_per_sm);

// Rounds of `active` clusters a grid of `clusters` needs.
std::uint64_t cluster_waves(std::uint64_t clusters, std::uint64_t active);

// Where the GPU places clusters: into the GPC with the most free CTA slots among those with
// `cluster` SMs that have room (ties: the lower GPC), on its SMs with the most room (ties: the
// lower SM). A cluster that fits no GPC waits until enough CTAs complete.
class ClusterPlacer {
 public:
  ClusterPlacer(const std::vector<int>& gpcs, int ctas_per_sm);
  // The SMs, ascending (rank i on sms[i]), of one more cluster, marked taken; false when none fits.
  bool place(int cluster, std::vector<int>& sms);
  void release(int sm);  // a CTA on `sm` completed
  int gpc_of(int sm) const { return gpc_[static_cast<std::size_t>(sm)]; }
  int room(int sm) const { return room_[static_cast<std::size_t>(sm)]; }

 private:
  std::vector<int> first_, size_;  // per GPC: its first SM and its SMs
  std::vector<int> gpc_, room_;    // per SM: its GPC and the CTAs it may still take
};

}  // namespace strata
