// Workload kind `gpu_microbenchmark`: the unit-level kernels GPU papers measure hardware with,
// as warp programs for the `gpu` kind, and the figure each one measures:
//   ffma_chain        dependent FFMAs in one warp                 latency, cycles
//   issue_rate        independent ops of one pipe, many warps      thread ops per cycle per SM
//   mma_chain         dependent mma.sync in one warp               latency, cycles
//   mma_rate          independent mma.sync, many warps             MACs per cycle per SM
//   wgmma_chain       wgmma + wait_group 0 in one warp group       issue to completion, cycles
//   wgmma_rate        wgmmas kept in flight by one warp group      MACs per cycle per SM
//   shared_chase      dependent shared loads (a pointer chase)     latency, cycles
//   shared_bandwidth  independent shared loads at a lane stride    bytes per cycle per SM
//   global_chase      dependent global loads, `stride` apart in a  latency, cycles
//                     `footprint` (after a warm-up pass)
//   global_copy       a STREAM copy of a `footprint` array over    GB/s, the whole GPU
//                     every SM
//   global_read       a sum over a `footprint` array (loads only)  GB/s, the whole GPU
//   tma_read          a `footprint` array streamed into shared      GB/s, the whole GPU
//                     memory by TMA boxes through `stages` mbarrier-
//                     guarded buffers
//   cp_async_read     the same with cp.async commit groups          GB/s, the whole GPU
//   dsm_chase         dependent ld.shared::cluster into the next   latency, cycles
//                     CTA of a cluster of 2 (`remote: false`: its
//                     own CTA's shared memory)
//   cluster_sync      barrier.cluster arrive + wait, a cluster of 2 cycles per barrier
// By default one CTA runs on one SM. With `ctas` (and the CTA's `registers` and `shared`
// memory) the grid spreads over the SMs under the occupancy rules: a rate then counts every
// CTA's work per SM in use, a latency is per wave. summary.json gets `measured`, `unit`, and
// with a `reference` the `reference` and the relative `error`, plus the kernel's CTAs per SM
// (`ctas_per_sm`) and `waves`.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "accelerators/gpu/warp_program_target.h"
#include "sim/analytic.h"
#include "sim/schema.h"
#include "sim/sim_context.h"
#include "sim/workload.h"

namespace strata {

struct MicrobenchmarkConfig {
  std::string benchmark = "ffma_chain";
  std::string pipe = "fp32";    // issue_rate: int, fp32, fp64, sfu
  std::string format = "fp16";  // tensor benchmarks
  std::string shape = "m16n8k16";  // mma: mMnNkK
  int n = 128;                  // wgmma: N (M = 64; K from the format: 32 bytes of it)
  bool sparse = false;
  std::uint64_t iterations = 4096;
  int warps = 0;                // per CTA; 0: the benchmark's own choice
  int lane_stride = 4;          // shared_bandwidth: bytes between lanes' addresses
  int width = 4;                // shared access bytes per lane
  std::uint64_t footprint = 16 << 10;  // global benchmarks: bytes the chase or the copy covers
  std::uint64_t stride = 128;          // global_chase: bytes between consecutive loads
  bool warm = true;                    // global_chase: a pass over the footprint first
  bool resident = false;               // global_read, tma_read, cp_async_read: a sweep before the timed one
  int stages = 4;                      // tma_read, cp_async_read: buffers in flight per warp
  std::uint64_t box = 4 << 10;         // tma_read, cp_async_read: bytes a stage
  int cluster = 0;                     // CTAs per cluster; 0: the benchmark's own (dsm_chase 2, else 1)
  bool remote = true;                  // dsm_chase: the next CTA's shared memory, not its own
  std::uint64_t ctas = 1;       // the grid
  std::uint32_t registers = 32;  // per thread
  std::uint64_t shared = 0;     // bytes per CTA
};

// The kernel a benchmark runs on an SM of timing `t` (the control bits set for it), and what
// its result counts: the unit and how to turn a run into the measured figure.
struct Microbenchmark {
  std::vector<KernelLaunch> warmup;  // run first, not measured (they fill the caches)
  KernelLaunch kernel;
  std::string unit;
  // measured = count / cycles / SMs in use for rates, cycles / count / waves for latencies;
  // count is one CTA's.
  bool latency = true;
  double count = 1;
  bool device_rate = false;  // count is bytes over the whole device: measured in GB/s
};
// A setting the benchmark cannot run with, and the workload key that holds it.
class MicrobenchmarkError : public std::invalid_argument {
 public:
  MicrobenchmarkError(std::string key, const std::string& what) : std::invalid_argument(what), key(std::move(key)) {}
  std::string key;
};
// Throws MicrobenchmarkError for a shape, format or warp count the benchmark cannot have on an
// SM of timing `t`.
Microbenchmark make_microbenchmark(const MicrobenchmarkConfig& c, const SmTiming& t, int sms = 1);
// The benchmarks make_microbenchmark knows, in the order docs/gpu.md lists them.
std::vector<std::string> microbenchmark_names();

class MicrobenchmarkDriver;

// Under `sim.fidelity: analytic` the kernel is evaluated in closed form (gpu_analytic.h).
class GpuMicrobenchmarkWorkload : public Workload, public AnalyticModel {
 public:
  static KindSpec spec();
  GpuMicrobenchmarkWorkload(const ValidatedNode& cfg, SimContext& ctx);
  ~GpuMicrobenchmarkWorkload() override;
  void bind(Component& hardware) override;
  bool finished() const override;
  double evaluate_analytic() override;

 private:
  const ValidatedNode& cfg_;
  SimContext& ctx_;
  MicrobenchmarkConfig config_;
  std::unique_ptr<MicrobenchmarkDriver> driver_;
};

}  // namespace strata
