// Reliability of the GPU family (docs/reliability.md): sizes past what the model's integers or
// SystemC time hold are refused with one line, never wrapped; huge grids stop on SIGTERM and
// at sim.max_time; the mapper returns only kernels its GPU can place, on every preset changed
// within its documented ranges, or says in one line that none fits; inputs the documentation
// refuses are refused where they are parsed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "accelerators/gpu/sm_core.h"
#include "test_util.h"

namespace strata::testing {
namespace {

// An experiment on the H100 preset with `hardware` (YAML flow-mapping entries) changed.
std::string h100_experiment(const TempDir& dir, const std::string& hardware, const std::string& workload,
                            const std::string& sim = "") {
  return dir.write("e.yaml", fmt::format("name: gpu-reliability\n{}hardware: {{extends: {}{}}}\nworkload: {{{}}}\n",
                                         sim.empty() ? "" : "sim: {" + sim + "}\n",
                                         source_path("configs/hardware/gpu/h100-sxm.yaml"),
                                         hardware.empty() ? "" : ", " + hardware, workload));
}

CommandResult run(const TempDir& dir, const std::string& args) {
  return run_strata("run -q --no-progress " + args + " -o '" + dir.file("out") + "'");
}

// Exit 2, one line on stderr naming `key` and saying `what`, and no result.
void expect_refused(const TempDir& dir, const CommandResult& r, const std::string& key, const std::string& what) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_CONTAINS(r.err, key);
  EXPECT_CONTAINS(r.err, what);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/summary.json")));
}

const std::string kGemmExample = source_path("configs/experiments/gpu-gemm.yaml");
const std::string kSmallModel =
    "kind: transformer, phase: prefill, prompt_len: 256, model: {extends: " +
    source_path("configs/models/llama-2-7b.yaml") +
    ", layers: 1, hidden: 1024, heads: 8, kv_heads: 8, ffn_hidden: 2752, vocab: 4096}";

// Class: integer widths. A grid dimension past 32 bits (m = 2^40 is 2^32 tile rows) used to
// wrap to an empty grid that "ran" in microseconds.
TEST(GpuReliability, GridPastThirtyTwoBitsIsRefused) {
  for (const char* fidelity : {"analytic", "cycle"}) {
    TempDir dir;
    const CommandResult r =
        run(dir, "'" + kGemmExample + "' --set workload.m=1099511627776 --set workload.n=64 --set workload.k=64" +
                     " --set sim.fidelity=" + fidelity);
    expect_refused(dir, r, "workload", "tile rows: a grid holds at most 4294967295 CTAs a dimension");
  }
}

// Class: double cycles to integers. A run whose simulated time SystemC cannot represent (2^64
// fs) is refused, not wrapped; cycle counts past kMaxCycles, infinite or NaN are refused.
// At cycle level the refusal comes up front (a lower bound), not after hours of simulation.
TEST(GpuReliability, RunPastRepresentableTimeIsRefused) {
  for (const char* fidelity : {"analytic", "cycle"}) {
    TempDir dir;
    const auto t0 = std::chrono::steady_clock::now();
    // 2^61 MACs (the workload takes up to 2^62) on four SMs: about 18 hours.
    const CommandResult r = run(dir, "'" + kGemmExample + "' --set sim.fidelity=" + fidelity +
                                         " --set hardware.sms=4 --set hardware.gpcs=1 --set workload.m=549755813888"
                                         " --set workload.n=2048 --set workload.k=2048");
    expect_refused(dir, r, "hardware", "of simulated time, past the 18447 s");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
  }
  EXPECT_EQ(whole_cycles(2.5), 3u);
  EXPECT_EQ(whole_cycles(static_cast<double>(kMaxCycles)), kMaxCycles);
  for (const double c : {1e30, std::numeric_limits<double>::infinity(), std::nan("")})
    EXPECT_THROW(whole_cycles(c), CycleOverflow) << c;
}

// A tensor-core rate of 1e-21 made MAC cycles overflow to a faster kernel than rate 1.
TEST(GpuReliability, TensorRateBelowItsRangeIsRefused) {
  for (const char* rate : {"1e-21", "1e-300", "0.0009"}) {
    TempDir dir;
    const CommandResult r =
        run(dir, "'" +
                     h100_experiment(dir, fmt::format("tensor_core: {{rates: [fp16={}, bf16=1]}}", rate),
                                     "kind: gpu_microbenchmark, benchmark: mma_rate, iterations: 16") +
                     "'");
    expect_refused(dir, r, "hardware.tensor_core.rates", "a rate is 1/1024 to 64");
  }
}

// Runs `strata run ARGS` in the background, sends SIGTERM `delay_s` after the run begins
// writing into `out`, and returns the exit code and the seconds from the signal to the exit.
std::pair<int, double> terminated_run(const TempDir& dir, const std::string& args, const std::string& out,
                                      double delay_s) {
  const std::string cmd = fmt::format(
      "cd '{}' && ('{}' run {} --no-progress -o '{}' >/dev/null 2>'{}' & pid=$!; "
      "for i in $(seq 1000); do ls -a '{}' 2>/dev/null | grep -q staging && break; sleep 0.02; done; sleep {}; "
      "date +%s.%N >'{}'; kill -TERM $pid; wait $pid; echo $? >'{}'; date +%s.%N >'{}')",
      STRATA_SOURCE_DIR, STRATA_BINARY, args, out, dir.file("err"), out, delay_s, dir.file("t0"), dir.file("code"),
      dir.file("t1"));
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return {std::stoi(read_file(dir.file("code"))),
          std::stod(read_file(dir.file("t1"))) - std::stod(read_file(dir.file("t0")))};
}

const std::string kHugeGrid = "kind: gpu_microbenchmark, benchmark: ffma_chain, iterations: 64, ctas: 4000000000";

// Class: long placement loops. A compute-only kernel runs ahead of SystemC time in one step:
// its CTA loop polls the interrupt flag, so SIGTERM ends the run as anywhere else.
TEST(GpuReliability, SigtermStopsAHugeGrid) {
  TempDir dir;
  const std::string out = dir.file("out");
  const auto [code, seconds] = terminated_run(dir, "'" + h100_experiment(dir, "", kHugeGrid) + "'", out, 0.5);
  EXPECT_EQ(code, 143) << read_file(dir.file("err"));
  EXPECT_LT(seconds, 10.0);  // "within a second", with room for a loaded machine
  EXPECT_EQ(json_file(out + "/interrupted.json")["status"], "interrupted");
}

// ... and sim.max_time bounds it: the run ends at the limit, status time_limit.
TEST(GpuReliability, MaxTimeBoundsAHugeGrid) {
  TempDir dir;
  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult r = run(dir, "'" + h100_experiment(dir, "", kHugeGrid, "max_time: 20 us") + "'");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = json_file(dir.file("out/summary.json"));
  EXPECT_EQ(summary["status"], "time_limit");
  EXPECT_NEAR(summary["simulated_time_s"].get<double>(), 20e-6, 1e-9);
}

// Class: the mapper's choices. On presets changed within their documented ranges the mapper
// picks kernels the GPU places (occupancy: warp slots, registers, shared memory at its
// granularity; clusters against GPC sizes), at both fidelities.
TEST(GpuReliability, TheMapperPicksKernelsTheGpuCanPlace) {
  const std::vector<std::string> presets = {
      "sms: 1024, gpcs: 1024",  // GPCs of one SM: no cluster of two fits
      "sm: {max_warps: 4}",     // no warp-specialized kernel fits
      "sm: {shared_granularity: 64 KiB}",
      "max_cluster_size: 1",
  };
  const std::vector<std::string> workloads = {
      "kind: gemm, m: 1024, n: 1024, k: 1024",  // GEMM
      "kind: gemm, m: 1, n: 4096, k: 4096",     // GEMV
      kSmallModel,                              // prefill attention, norms, activations
  };
  for (const std::string& preset : presets)
    for (const std::string& workload : workloads)
      for (const char* fidelity : {"analytic", "cycle"}) {
        if (std::string(fidelity) == "cycle" && workload == kSmallModel) continue;  // the GEMM covers cycle level
        TempDir dir;
        const CommandResult r =
            run(dir, "'" + h100_experiment(dir, preset, workload, std::string("fidelity: ") + fidelity) + "'");
        EXPECT_EQ(r.code, 0) << preset << " | " << workload << " | " << fidelity << ": " << r.err;
      }
}

// ... or says in one line that none fits.
TEST(GpuReliability, NoKernelThatFitsIsOneLine) {
  for (const char* fidelity : {"analytic", "cycle"}) {
    TempDir dir;
    const CommandResult r =
        run(dir, "'" +
                     h100_experiment(dir, "sm: {max_warps: 2}", "kind: gemm, m: 1024, n: 1024, k: 1024",
                                     std::string("fidelity: ") + fidelity) +
                     "'");
    expect_refused(dir, r, "workload", "no GEMM tile fits this GPU");
  }
}

// A cluster forced on a GPU without clusters is the user's error (it was SystemC's E549).
TEST(GpuReliability, AForcedClusterWithoutClustersIsRefused) {
  TempDir dir;
  const CommandResult r = run(dir, "'" +
                                       h100_experiment(dir, "max_cluster_size: 1, kernels: {gemm_cluster: 2}",
                                                       "kind: gemm, m: 1024, n: 1024, k: 1024") +
                                       "'");
  expect_refused(dir, r, "hardware.kernels.gemm_cluster", "max_cluster_size is 1");
}

// Class: documented values enforced at parse time: banks and lane loads are powers of two.
TEST(GpuReliability, SharedMemoryWidthsOutsideTheDocumentedOnesAreRefused) {
  {
    TempDir dir;
    const CommandResult r = run(
        dir,
        "'" + h100_experiment(dir, "sm: {bank_width: 3 B}", "kind: gpu_microbenchmark, benchmark: shared_chase") + "'");
    expect_refused(dir, r, "hardware.sm.bank_width", "3 B is not a power of two");
  }
  {
    TempDir dir;
    const CommandResult r =
        run(dir, "'" + h100_experiment(dir, "", "kind: gpu_microbenchmark, benchmark: shared_chase, width: 3 B") + "'");
    expect_refused(dir, r, "workload.width", "a lane loads 4, 8 or 16 B");
  }
}

}  // namespace
}  // namespace strata::testing
