// Concurrent kernels on CUDA streams: kernels of different streams run at the same time, their
// CTAs sharing the SMs by the per-SM resources; kernels of one stream run one after another.
// Driven through the strata binary with Accel-Sim traces whose kernels carry a stream id.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata {
namespace {

using testing::json_file;
using testing::run_strata;
using testing::TempDir;

// A kernel trace of `ctas` CTAs of one warp, each a chain of `ffmas` dependent FFMAs, on CUDA
// stream `stream`.
std::string streams_test_kernel(const std::string& name, int id, int stream, int ctas, int ffmas, int shmem = 0,
                                int nregs = 16) {
  std::string s = fmt::format(
      "-kernel name = {}\n-kernel id = {}\n-grid dim = ({},1,1)\n-block dim = (32,1,1)\n-shmem = {}\n-nregs = {}\n"
      "-binary version = 86\n-cuda stream id = {}\n-shmem base_addr = 0x00007fff00000000\n"
      "-local mem base_addr = 0x00007fff01000000\n-nvbit version = 1.5.5\n-accelsim tracer version = 4\n"
      "-enable lineinfo = 0\n\n"
      "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
      "[adrrescompress?] [mem_addresses]\n\n",
      name, id, ctas, shmem, nregs, stream);
  for (int c = 0; c < ctas; ++c) {
    s += fmt::format("#BEGIN_TB\n\nthread block = {},0,0\n\nwarp = 0\ninsts = {}\n", c, ffmas + 1);
    for (int i = 0; i < ffmas; ++i) s += fmt::format("{:04x} ffffffff 1 R1 FFMA 3 R1 R2 R1 0\n", i * 16);
    s += fmt::format("{:04x} ffffffff 0 EXIT 0 0\n\n#END_TB\n\n", ffmas * 16);
  }
  return s;
}

struct StreamsTestKernel {
  int stream, ctas;
  int shmem = 0, nregs = 16;  // per CTA, per thread
};

// The completion time (s) of a trace of the kernels `kernels` (one warp a CTA, a chain of 200
// FFMAs) in order, on an RTX A6000 of `sms` SMs with `extra` SM keys.
double streams_test_latency(const TempDir& dir, const std::string& tag, const std::vector<StreamsTestKernel>& kernels,
                            int sms, const std::string& extra = "") {
  std::string list;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const int id = static_cast<int>(i) + 1;
    dir.write(fmt::format("{}/kernel-{}.traceg", tag, id),
              streams_test_kernel(fmt::format("k{}", id), id, kernels[i].stream, kernels[i].ctas, 200, kernels[i].shmem,
                                  kernels[i].nregs));
    list += fmt::format("kernel-{}.traceg\n", id);
  }
  const std::string trace = dir.write(tag + "/kernelslist.g", list);
  const std::string hardware = fmt::format(
      "{{extends: {}, sms: {}, gpcs: 1, sm: {{dependences: scoreboard, register_banks: 0, register_cache: false{}}}}}",
      testing::source_path("configs/hardware/gpu/rtx-a6000.yaml"), sms, extra);
  const std::string experiment = dir.write(
      tag + "/e.yaml", "name: t\nhardware: " + hardware + "\nworkload: {kind: accelsim_trace, path: " + trace + "}\n");
  const testing::CommandResult r = run_strata("run -q '" + experiment + "' -o '" + dir.file(tag + "/out") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return 0;
  const nlohmann::json s = json_file(dir.file(tag + "/out/summary.json"));
  EXPECT_EQ(s["kernels"].get<std::uint64_t>(), kernels.size());
  return s["latency_s"].get<double>();
}

constexpr double kStreamsTestHz = 1.8e9;
constexpr double kStreamsTestLaunch = 5000 / kStreamsTestHz;  // the preset's kernel_launch

class GpuStreams : public ::testing::Test {
 protected:
  void SetUp() override { one = streams_test_latency(dir, "one", {{0, 1}}, 2); }
  TempDir dir;
  double one = 0;  // one one-CTA kernel alone on two SMs: the launch, then its CTA's run
};

TEST_F(GpuStreams, KernelsOfTwoStreamsOverlapAndOfOneStreamDoNot) {
  ASSERT_GT(one, kStreamsTestLaunch);
  // One stream: the second kernel's turn comes at the first's end, then its own launch.
  const double serial = streams_test_latency(dir, "serial", {{0, 1}, {0, 1}}, 2);
  EXPECT_NEAR(serial, 2 * one, 1e-12);
  // Two streams on two SMs: both launch at once and run side by side on SMs of their own, so
  // the pair takes exactly as long as one kernel (worked by hand: launch + one CTA's run).
  const double apart = streams_test_latency(dir, "apart", {{0, 1}, {1, 1}}, 2);
  EXPECT_NEAR(apart, one, 1e-12);
  // Two streams on one SM: both CTAs share it, faster than one after the other. Their warps
  // go to sub-cores of their own (dealt round-robin), and a chain of dependent FFMAs leaves
  // the other sub-core's pipe alone: the pair takes as long as one kernel.
  const double shared = streams_test_latency(dir, "shared", {{0, 1}, {1, 1}}, 1);
  const double alone = streams_test_latency(dir, "alone", {{0, 1}}, 1);
  EXPECT_LT(shared, 2 * alone);
  EXPECT_NEAR(shared, alone, 1e-12);
}

TEST_F(GpuStreams, AKernelFillingEverySmDelaysTheOtherStreamsKernel) {
  // One CTA an SM (max_ctas 1): the second stream's kernel launches at once, but its CTA waits
  // for the first kernel's to complete on the only SM, then runs: launch + two CTA runs, the
  // second launch hidden. Worked by hand from the lone kernel (launch + one run).
  const std::string one_cta = ", max_ctas: 1";
  const double alone = streams_test_latency(dir, "alone1", {{0, 1}}, 1, one_cta);
  const double run = alone - kStreamsTestLaunch;
  const double filled = streams_test_latency(dir, "filled", {{0, 1}, {1, 1}}, 1, one_cta);
  EXPECT_NEAR(filled, kStreamsTestLaunch + 2 * run, 1e-12);
  const double serial = streams_test_latency(dir, "serial1", {{0, 1}, {0, 1}}, 1, one_cta);
  EXPECT_NEAR(serial, 2 * alone, 1e-12);
  // Four CTAs each on two SMs, one CTA an SM: the first kernel's two waves, then the second's,
  // its CTAs taking each SM as the first's last CTAs free them.
  const double wide = streams_test_latency(dir, "wide", {{0, 4}, {1, 4}}, 2, one_cta);
  EXPECT_NEAR(wide, kStreamsTestLaunch + 4 * run, 1e-12);
}

TEST_F(GpuStreams, CtasOfTwoKernelsShareAnSmAsTheOccupancyRulesAllow) {
  const double alone = streams_test_latency(dir, "alone2", {{0, 1, 60 * 1024}}, 1);
  const double run = alone - kStreamsTestLaunch;
  // Shared memory (100 KiB an SM): 60 + 1 KiB and 30 + 1 KiB fit together, side by side; 60 + 1
  // and 40 + 1 do not, so the second kernel's CTA waits for the first's.
  EXPECT_NEAR(streams_test_latency(dir, "fit", {{0, 1, 60 * 1024}, {1, 1, 30 * 1024}}, 1), alone, 1e-12);
  EXPECT_NEAR(streams_test_latency(dir, "nofit", {{0, 1, 60 * 1024}, {1, 1, 40 * 1024}}, 1),
              kStreamsTestLaunch + 2 * run, 1e-12);
  // Registers (16384 a sub-core): a warp of 255 registers a thread takes 8192, so 8 such CTAs
  // of one warp fill the SM's four sub-cores, two each, and the other stream's CTA (512
  // registers) waits for one of them; 7 leave a sub-core room for it.
  const double full = streams_test_latency(dir, "full", {{0, 8, 0, 255}, {1, 1}}, 1);
  const double room = streams_test_latency(dir, "room", {{0, 7, 0, 255}, {1, 1}}, 1);
  EXPECT_GT(full, room + 0.9 * run);
}

TEST_F(GpuStreams, ConcurrentRunsAreDeterministic) {
  const std::vector<StreamsTestKernel> kernels = {{0, 4}, {1, 4}, {0, 1}};
  EXPECT_EQ(streams_test_latency(dir, "a", kernels, 3), streams_test_latency(dir, "b", kernels, 3));
}

}  // namespace
}  // namespace strata
