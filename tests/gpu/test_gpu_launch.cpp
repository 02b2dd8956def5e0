// How the host launches an operator graph's kernels (hardware.kernels.launch): stream charges
// every kernel the GPU's kernel_launch after its turn, graph only the first, and eager makes the
// GPU wait for a host that dispatches a kernel every host_dispatch (host-bound time).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

struct LaunchRun {
  nlohmann::json summary, stats;
  double latency() const { return summary.value("latency_s", 0.0); }
  double host_bound() const { return summary.value("host_bound_s", -1.0); }
  double kernels() const { return stats["hardware"]["kernels"]["value"].get<double>(); }
};

// A three-layer Llama-like decode step on the H100 preset (its example's smoke settings): 36
// kernels (attention's split-KV kernel and its combine among them), most of them a few
// microseconds long. The clock is pinned (dvfs: fixed, the preset's
// 1830 MHz), so that the launch path's cycles take kLaunchS whatever each kernel's power.
LaunchRun decode(const std::string& sets) {
  const std::string exp = "configs/experiments/gpu-llama-decode.yaml";
  TempDir dir;
  const CommandResult r = run_strata("run -q " + exp + " " + smoke_settings(exp) + " --set hardware.dvfs=fixed " +
                                     sets + " -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {};
  return LaunchRun{json_file(dir.file("out/summary.json")), json_file(dir.file("out/stats.json"))};
}

constexpr double kLaunchS = 8700 / 1.83e9;  // the H100 preset's kernel_launch at its clock
constexpr double kDispatchS = 7.6e-6;       // host_dispatch's default

// A CUDA graph's replay saves the launch path of every kernel but the first, at either fidelity
// (at cycle level within 0.2%: back to back, a kernel's stores meet its predecessor's
// write-backs at the L2, where a stream's launch gap let them drain).
TEST(GpuLaunch, AGraphReplayChargesTheLaunchPathOnce) {
  for (const char* fidelity : {"cycle", "analytic"}) {
    const std::string f = std::string(" --set sim.fidelity=") + fidelity;
    const LaunchRun stream = decode(f), graph = decode(f + " --set hardware.kernels.launch=graph");
    ASSERT_EQ(stream.kernels(), 36) << fidelity;
    EXPECT_NEAR(stream.latency() - graph.latency(), (stream.kernels() - 1) * kLaunchS, 2e-3 * stream.latency())
        << fidelity;
    EXPECT_EQ(stream.host_bound(), 0) << fidelity;
    EXPECT_EQ(graph.host_bound(), 0) << fidelity;
  }
}

// Eager: the host submits a kernel every 7.6 us, longer than most of these kernels take, so the
// step takes at least the host's dispatches and the GPU's idle wait for them (about a fifth of
// the step) is reported. The
// kernels themselves are the stream's: the step is the stream's plus that wait (exactly in
// closed form; at cycle level the DRAM's state at each start differs a little).
TEST(GpuLaunch, EagerDispatchMakesASmallKernelsStepHostBound) {
  for (const char* fidelity : {"cycle", "analytic"}) {
    const std::string f = std::string(" --set sim.fidelity=") + fidelity;
    const LaunchRun stream = decode(f), eager = decode(f + " --set hardware.kernels.launch=eager");
    const double kernels = stream.kernels();
    EXPECT_GT(eager.latency(), kernels * kDispatchS) << fidelity;
    EXPECT_GT(eager.host_bound(), 0.15 * eager.latency()) << fidelity;
    const double tolerance = std::string(fidelity) == "analytic" ? 1e-9 * eager.latency() : 0.01 * eager.latency();
    EXPECT_NEAR(eager.latency(), stream.latency() + eager.host_bound(), tolerance) << fidelity;
  }
  // A host that dispatches in no time leaves the stream's step as it was.
  const LaunchRun stream = decode("--set sim.fidelity=analytic");
  const LaunchRun instant = decode(
      "--set sim.fidelity=analytic --set hardware.kernels.launch=eager "
      "--set hardware.kernels.host_dispatch=0s");
  EXPECT_DOUBLE_EQ(instant.latency(), stream.latency());
  EXPECT_EQ(instant.host_bound(), 0);
}

// One long kernel: the host's one dispatch comes before it, and that is all the host costs.
TEST(GpuLaunch, EagerAddsOneDispatchBeforeALongKernel) {
  const auto gemm = [](const std::string& sets) {
    TempDir dir;
    const CommandResult r = run_strata("run -q configs/experiments/gpu-gemm.yaml --set sim.fidelity=analytic " + sets +
                                       " -o '" + dir.file("out") + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json_file(dir.file("out/summary.json")) : nlohmann::json::object();
  };
  const nlohmann::json stream = gemm(""), eager = gemm("--set hardware.kernels.launch=eager");
  EXPECT_NEAR(eager["host_bound_s"].get<double>(), kDispatchS, 1e-9);
  EXPECT_NEAR(eager["latency_s"].get<double>() - stream["latency_s"].get<double>(), kDispatchS, 1e-9);
}

TEST(GpuLaunch, BadLaunchKeysAreOneLineErrors) {
  const CommandResult mode =
      run_strata("config configs/experiments/gpu-llama-decode.yaml --set hardware.kernels.launch=async");
  EXPECT_EQ(mode.code, 2);
  EXPECT_CONTAINS(mode.err, "hardware.kernels.launch");
  EXPECT_CONTAINS(mode.err, "stream|graph|eager");
  const CommandResult dispatch =
      run_strata("config configs/experiments/gpu-llama-decode.yaml --set 'hardware.kernels.host_dispatch=-1 us'");
  EXPECT_EQ(dispatch.code, 2);
  EXPECT_CONTAINS(dispatch.err, "hardware.kernels.host_dispatch");
}

// Naming the defaults changes no config hash: results made before these keys keep their folders.
TEST(GpuLaunch, TheDefaultsLeaveTheConfigHashAlone) {
  const auto hash = [](const std::string& sets) { return config_hash_of("configs/experiments/gpu-gemm.yaml " + sets); };
  const std::string plain = hash("");
  EXPECT_EQ(plain.size(), 32u);
  EXPECT_EQ(hash("--set hardware.kernels.launch=stream --set 'hardware.kernels.host_dispatch=7.6 us'"), plain);
  EXPECT_NE(hash("--set hardware.kernels.launch=graph"), plain);
}

}  // namespace
}  // namespace strata::testing
