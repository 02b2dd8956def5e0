// SCALE-Sim v2 (scalesim-project/scale-sim-v2 at 22f88b1) reproduced in closed form: for one
// layer on one array it gives the compute cycles, utilisation, mapping efficiency, SRAM and
// DRAM access counts (with their start/stop cycles) and bandwidths that SCALE-Sim's per-cycle
// simulation reports, exactly, without simulating cycle by cycle (its 1024×4096×4096 GEMM on
// 32×32 takes hours there and well under a second here). SystemC-free.
//
// Only CALC interface-bandwidth mode (stall-free, the mode of ../shared/reference/npu/README.md)
// is reproduced: stall cycles are 0.
#pragma once

#include <cstdint>
#include <string>

#include "models/systolic/systolic_timing.h"

namespace strata::scalesim {

// The [architecture_presets] of a SCALE-Sim config. Words are 1 byte.
struct ArrayConfig {
  std::int64_t rows = 32, cols = 32;  // ArrayHeight, ArrayWidth
  Dataflow dataflow = Dataflow::OutputStationary;
  std::int64_t ifmap_sram_kb = 64, filter_sram_kb = 64, ofmap_sram_kb = 64;  // IfmapSramSzkB, ...
  std::int64_t ifmap_offset = 0, filter_offset = 10000000, ofmap_offset = 20000000;
  std::int64_t bandwidth = 10;  // words per cycle (USER mode only)
  std::int64_t memory_banks = 1;
};

// One topology row. A GEMM row (M, N, K) is the convolution with an M×K ifmap (height M,
// width K... as SCALE-Sim converts it), a K×N filter and an M×N ofmap: see gemm_layer().
struct Layer {
  std::string name;
  std::int64_t ifmap_h = 1, ifmap_w = 1, filter_h = 1, filter_w = 1, channels = 1, num_filters = 1, stride = 1;
  std::int64_t stride_w = 0;  // column stride when a topology row gives it apart; 0: same as `stride`
  bool depthwise = false;     // SCALE-Sim: the layer name contains "DP"
  std::int64_t batch = 1;     // v3 topology column; 1 in v2

  // The operand matrices SCALE-Sim builds: ifmap (ofmap_pixels × window), filter (window × filters).
  // Its ofmap size is ⌈(ifmap − filter)/stride⌉ + 1: a last window may hang over the edge, and
  // the addresses it has there are null requests (see simulate_layer).
  std::int64_t ofmap_h() const;
  std::int64_t ofmap_w() const;
  std::int64_t ofmap_pixels() const;  // Sr
  std::int64_t window() const;        // filter_h·filter_w·channels
  std::int64_t col_stride() const { return stride_w > 0 ? stride_w : stride; }
};
// SCALE-Sim's `-i gemm` row (topology_utils.load_arrays_gemm): ifmap M×K (height M, width K),
// filter 1×K, 1 channel, N filters, stride 1; so the ofmap is M×1 pixels × N filters.
Layer gemm_layer(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k);

struct LayerReport {
  // COMPUTE_REPORT.csv
  std::uint64_t total_cycles = 0, stall_cycles = 0;
  double overall_util_pct = 0, mapping_efficiency_pct = 0, compute_util_pct = 0;
  // DETAILED_ACCESS_REPORT.csv (words, and the cycles each stream starts and stops). DRAM
  // read streams start before cycle 0 (SCALE-Sim's initial prefetch), hence the signed cycles.
  std::int64_t sram_ifmap_start = 0, sram_ifmap_stop = 0;
  std::uint64_t sram_ifmap_reads = 0;
  std::int64_t sram_filter_start = 0, sram_filter_stop = 0;
  std::uint64_t sram_filter_reads = 0;
  std::int64_t sram_ofmap_start = 0, sram_ofmap_stop = 0;
  std::uint64_t sram_ofmap_writes = 0;
  std::int64_t dram_ifmap_start = 0, dram_ifmap_stop = 0;
  std::uint64_t dram_ifmap_reads = 0;
  std::int64_t dram_filter_start = 0, dram_filter_stop = 0;
  std::uint64_t dram_filter_reads = 0;
  std::int64_t dram_ofmap_start = 0, dram_ofmap_stop = 0;
  std::uint64_t dram_ofmap_writes = 0;
  // BANDWIDTH_REPORT.csv (words per cycle)
  double avg_ifmap_sram_bw = 0, avg_filter_sram_bw = 0, avg_ofmap_sram_bw = 0;
  double avg_ifmap_dram_bw = 0, avg_filter_dram_bw = 0, avg_ofmap_dram_bw = 0;
};

// Throws std::invalid_argument for non-positive sizes, a filter larger than the ifmap, SRAMs
// under 1 KB or a batch other than 1 (v2 ignores batches).
LayerReport simulate_layer(const ArrayConfig& array, const Layer& layer);

}  // namespace strata::scalesim
