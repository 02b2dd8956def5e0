// Reliability end to end (issue 18, docs/reliability.md): hostile inputs end with one line and
// exit 2, runs never hang on idle gaps, a failing write never destroys or mixes a result, two
// runs into one directory do not mix, and SIGINT/SIGTERM leave what the docs say at every
// phase. Hostile inputs are small and made here.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata {
namespace {

using testing::CommandResult;
using testing::read_file;
using testing::run_strata;
using testing::TempDir;
using testing::leftovers;
namespace fs = std::filesystem;

// A memory experiment over `trace` (canonical format, cycles of a 2 GHz clock).
std::string trace_experiment(const std::string& name, const std::string& trace, const std::string& sim = "") {
  return fmt::format(
      "name: {}\n{}hardware:\n  kind: simple_memory\n  latency: 50 ns\n  bandwidth: 25.6 GB/s\n"
      "workload:\n  kind: memory_trace\n  path: {}\n  clock: 2 GHz\n",
      name, sim.empty() ? "" : "sim:\n" + sim, trace);
}

void expect_one_line_error(const CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_CONTAINS(r.err, needle);
}

// Every file in `dir` with its bytes.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path().string());
  return files;
}

TEST(Reliability, SelfReferentialAliasExitsTwoInEveryCommand) {
  TempDir dir;
  const std::string bad = dir.write("loop.yaml", "a: &x [*x]\n");
  for (const std::string cmd : {"run", "config", "sweep", "rtl-check"}) {
    const CommandResult r = run_strata(cmd + " '" + bad + "'");
    expect_one_line_error(r, "a YAML alias refers to a node that contains it");
  }
  expect_one_line_error(run_strata("config " + testing::kQuickstart + " --set 'hardware.latency=&l [*l]'"),
                        "a YAML alias refers to a node that contains it");
}

TEST(Reliability, AnIdleGapLongerThanAChunkIsCrossed) {
  TempDir dir;
  // Two requests 2.2 s apart (4.4e9 cycles of 2 GHz): the runner's chunk tops out at 1 s.
  dir.write("gap.trace", "0 R 0x0\n4400000000 R 0x40\n");
  const std::string exp = dir.write("gap.yaml", trace_experiment("gap", "gap.trace"));
  const CommandResult r = run_strata("run '" + exp + "' -o '" + dir.file("out") + "' --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = testing::json_file(dir.file("out/summary.json"));
  EXPECT_EQ(s["status"], "complete");
  EXPECT_NEAR(s["simulated_time_s"].get<double>(), 2.2, 1e-6);
  EXPECT_EQ(s["requests"], 2);

  // sim.max_time stops a run inside such a gap.
  const std::string limited = dir.write("limited.yaml", trace_experiment("limited", "gap.trace", "  max_time: 1 s\n"));
  const CommandResult l = run_strata("run '" + limited + "' -o '" + dir.file("limited") + "' --no-progress");
  ASSERT_EQ(l.code, 0) << l.err;
  const auto ls = testing::json_file(dir.file("limited/summary.json"));
  EXPECT_EQ(ls["status"], "time_limit");
  EXPECT_NEAR(ls["simulated_time_s"].get<double>(), 1.0, 1e-9);
}

TEST(Reliability, CrOnlyLineEndingsAreLines) {
  TempDir dir;
  dir.write("cr.trace", "0 R 0x0\r10 R 0x40\r20 W 0x80\r");
  const std::string exp = dir.write("cr.yaml", trace_experiment("cr", "cr.trace"));
  const CommandResult r = run_strata("run '" + exp + "' -o '" + dir.file("out") + "' --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::json_file(dir.file("out/summary.json"))["requests"], 3);
}

TEST(Reliability, BadOutputPlacesExitTwoBeforeAnyWork) {
  TempDir dir;
  const std::string file = dir.write("a-file", "x");
  expect_one_line_error(run_strata("run " + testing::kQuickstart + " -o '" + file + "'"), "-o: names a file");
  expect_one_line_error(run_strata("run " + testing::kQuickstart + " -o /dev/null"), "-o: names a special file");
  expect_one_line_error(run_strata("run " + testing::kQuickstart + " -o '" + file + "/sub'"), "Not a directory");
  expect_one_line_error(run_strata("run " + testing::kQuickstart + " -o '" + dir.file(std::string(300, 'd')) + "'"),
                        "File name too long");
  // A place nobody may create a directory in (as root too).
  expect_one_line_error(run_strata("run " + testing::kQuickstart + " -o /proc/strata-result"), "-o: cannot create the directory");
  EXPECT_EQ(read_file(file), "x");
}

// A failure while writing (here the file-size limit, as a full disk would) leaves the older
// result byte for byte and no staging directory. SIGXFSZ is not ignored by the shell here:
// strata ignores it itself, so the write fails with EFBIG instead of the signal killing it.
TEST(Reliability, AFailedWriteLeavesTheOlderResultAsItWas) {
  TempDir dir;
  const std::string out = dir.file("out");
  ASSERT_EQ(run_strata("run " + testing::kQuickstart + " -o '" + out + "' -q").code, 0);
  const auto before = snapshot(out);
  ASSERT_TRUE(before.count("summary.json"));
  const std::string cmd = fmt::format(
      "cd '{}' && (ulimit -f 8; exec '{}' run {} --set hardware.latency='60 ns' -o '{}' -q) >'{}' 2>'{}'",
      STRATA_SOURCE_DIR, STRATA_BINARY, testing::kQuickstart, out, dir.file("o"), dir.file("e"));
  const int status = std::system(cmd.c_str());
  const std::string err = testing::without_asan_notice(read_file(dir.file("e")));
  ASSERT_TRUE(WIFEXITED(status)) << "ended by a signal: " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_CONTAINS(err, "File too large");
  EXPECT_EQ(snapshot(out), before);
  EXPECT_EQ(leftovers(out), std::vector<std::string>{});
}

// Memory running out while the result is written (here inside the statistics' JSON, the largest
// thing a run writes: support/alloc_limit.cpp starts a limit once config.yaml is staged) is one
// line and exit 2, never an abort trace, and leaves the older result and no staging directory.
TEST(Reliability, OutOfMemoryWhileWritingIsOneLineAndKeepsTheOlderResult) {
#if defined(__SANITIZE_ADDRESS__) || !defined(STRATA_ALLOC_LIMIT_LIB)
  GTEST_SKIP() << "the allocation limit is an LD_PRELOAD library, which the sanitizers' runtime does not allow";
#else
  TempDir dir;
  const std::string out = dir.file("out");
  ASSERT_EQ(run_strata("run " + testing::kQuickstart + " -o '" + out + "' -q").code, 0);
  const auto before = snapshot(out);
  // Slack from none to some: the limit strikes at different allocations of the writing.
  for (const char* slack : {"0", "4096", "65536"}) {
    const std::string cmd = fmt::format(
        "cd '{}' && LD_PRELOAD='{}' STRATA_TEST_ALLOC_ARM=/config.yaml STRATA_TEST_ALLOC_SLACK={} '{}' run {} "
        "--set hardware.latency='60 ns' -o '{}' -q >'{}' 2>'{}'",
        STRATA_SOURCE_DIR, STRATA_ALLOC_LIMIT_LIB, slack, STRATA_BINARY, testing::kQuickstart, out, dir.file("o"),
        dir.file("e"));
    const int status = std::system(cmd.c_str());
    const std::string err = read_file(dir.file("e"));
    ASSERT_TRUE(WIFEXITED(status)) << "slack " << slack << ": ended by signal "
                                   << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ": " << err;
    EXPECT_EQ(WEXITSTATUS(status), 2) << slack << ": " << err;
    EXPECT_EQ(err, "strata: error: out of memory: the input needs more memory than this process may use\n") << slack;
    EXPECT_EQ(snapshot(out), before) << slack;
    EXPECT_EQ(leftovers(out), std::vector<std::string>{}) << slack;
  }
#endif
}

TEST(Reliability, TwoRunsIntoOneDirectoryDoNotMix) {
  TempDir dir;
  const std::string out = dir.file("out");
  const std::string slow = "configs/experiments/dram-ddr4-stream.yaml --set workload.requests=400000";
  // The first run holds the directory while it simulates; the second is refused at once.
  const std::string cmd = fmt::format(
      "cd '{}' && ('{}' run {} -o '{}' -q --no-progress >/dev/null 2>'{}' & a=$!; "
      "for i in $(seq 200); do ls -a '{}' 2>/dev/null | grep -q staging && break; sleep 0.02; done; "
      "'{}' run {} --set workload.requests=1000 -o '{}' -q >/dev/null 2>'{}'; echo $? >'{}'; wait $a; echo $? >'{}')",
      STRATA_SOURCE_DIR, STRATA_BINARY, slow, out, dir.file("err_a"), out, STRATA_BINARY,
      "configs/experiments/dram-ddr4-stream.yaml", out, dir.file("err_b"), dir.file("code_b"), dir.file("code_a"));
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(std::stoi(read_file(dir.file("code_a"))), 0) << read_file(dir.file("err_a"));
  EXPECT_EQ(std::stoi(read_file(dir.file("code_b"))), 2);
  EXPECT_CONTAINS(read_file(dir.file("err_b")), "another strata process is writing a result into this directory");
  // What is there is the first run's, whole.
  const auto summary = testing::json_file(out + "/summary.json");
  EXPECT_CONTAINS(read_file(out + "/config.yaml"), summary["config_hash"].get<std::string>());
  EXPECT_CONTAINS(read_file(out + "/config.yaml"), "requests: 400000");
}

// Runs `strata run ARGS` in the background, sends `sig` after `delay_s` (counted, when
// `writing_into` is given, from when the run's staging directory appears there: the run has begun
// writing however slowly it started), and returns the exit code.
int interrupted_run(const TempDir& dir, const std::string& args, const char* sig, double delay_s,
                    const std::string& writing_into = "") {
  const std::string wait_for_writing =
      writing_into.empty() ? ""
                           : fmt::format("for i in $(seq 1000); do ls -a '{}' 2>/dev/null | grep -q staging && break; "
                                         "sleep 0.02; done; ",
                                         writing_into);
  const std::string cmd = fmt::format(
      "cd '{}' && ('{}' run {} >/dev/null 2>'{}' & pid=$!; {}sleep {}; kill -{} $pid; wait $pid; echo $? >'{}')",
      STRATA_SOURCE_DIR, STRATA_BINARY, args, dir.file("err"), wait_for_writing, delay_s, sig, dir.file("code"));
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return std::stoi(read_file(dir.file("code")));
}

// A second signal soon after the first ends the run at once (sim/interrupt.h): whenever it comes,
// no staging directory is left behind (the immediate exit removes it).
TEST(Reliability, ASecondSignalLeavesNoStagingDirectory) {
  for (const char* gap : {"0.01", "0.03", "0.05"}) {
    TempDir dir;
    const std::string out = dir.file("out");
    const std::string cmd = fmt::format(
        "cd '{}' && ('{}' run configs/experiments/dram-ddr4-stream.yaml --set workload.requests=20000000 --no-progress "
        "-o '{}' >/dev/null 2>'{}' & pid=$!; "
        "for i in $(seq 1000); do ls -a '{}' 2>/dev/null | grep -q staging && break; sleep 0.02; done; sleep 0.2; "
        "kill -INT $pid; sleep {}; kill -INT $pid; wait $pid; echo $? >'{}')",
        STRATA_SOURCE_DIR, STRATA_BINARY, out, dir.file("err"), out, gap, dir.file("code"));
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(std::stoi(read_file(dir.file("code"))), 130) << gap << ": " << read_file(dir.file("err"));
    EXPECT_EQ(leftovers(out), std::vector<std::string>{}) << gap;
    const std::string err = testing::without_asan_notice(read_file(dir.file("err")));
    EXPECT_LE(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

TEST(Reliability, SigtermLeavesTheMarkerAndExits143) {
  TempDir dir;
  const std::string out = dir.file("out");
  const int code = interrupted_run(
      dir, "configs/experiments/dram-ddr4-stream.yaml --set workload.requests=20000000 --no-progress -o '" + out + "'",
      "TERM", 0.2, out);
  EXPECT_EQ(code, 143) << read_file(dir.file("err"));
  EXPECT_EQ(testing::json_file(out + "/interrupted.json")["status"], "interrupted");
}

TEST(Reliability, SigintWithATimelineLeavesOnlyTheMarker) {
  TempDir dir;
  const std::string out = dir.file("out");
  // An older complete result there: none of its files may stay beside the marker.
  ASSERT_EQ(run_strata("run " + testing::kQuickstart + " --timeline -o '" + out + "' -q").code, 0);
  const int code = interrupted_run(
      dir,
      "configs/experiments/dram-ddr4-stream.yaml --set workload.requests=20000000 --timeline --no-progress -o '" + out + "'",
      "INT", 0.2, out);
  EXPECT_EQ(code, 130) << read_file(dir.file("err"));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(out)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"interrupted.json"});
}

// During setup nothing is written yet: the process ends at once, and an older result is kept.
TEST(Reliability, SigintDuringSetupEndsAtOnceAndKeepsTheOlderResult) {
  TempDir dir;
  // A topology large enough that reading and mapping it takes seconds.
  std::string topo = "Layer, M, N, K,\n";
  for (int i = 0; i < 60000; ++i) topo += fmt::format("l{}, 64, 64, 64,\n", i);
  const std::string csv = dir.write("big.csv", topo);
  const std::string cfg = testing::source_path("configs/scalesim/scalesim_32x32_os.cfg");
  const std::string out = dir.file("out");
  fs::create_directories(out);
  std::ofstream(out + "/summary.json") << "{\"status\": \"complete\"}\n";
  const auto t0 = std::chrono::steady_clock::now();
  const int code = interrupted_run(dir, "--scalesim-config '" + cfg + "' --scalesim-topology '" + csv + "' -o '" + out + "'", "INT", 0.5);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(code, 130) << read_file(dir.file("err"));
  EXPECT_LT(s, 5.0);
  EXPECT_EQ(read_file(out + "/summary.json"), "{\"status\": \"complete\"}\n");
  EXPECT_FALSE(fs::exists(out + "/interrupted.json"));
}

TEST(Reliability, ScaleSimRunLeavesNoTemporaryFileAndErrorsNameTheUsersFiles) {
  TempDir dir;
  const std::string cfg = testing::source_path("configs/scalesim/scalesim_32x32_os.cfg");
  const std::string topo = testing::source_path("configs/scalesim/gemm_topology.csv");
  const CommandResult r =
      run_strata("run --scalesim-config " + cfg + " --scalesim-topology " + topo + " --set hardware.clock=fast -o '" + dir.file("o") + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_CONTAINS(r.err, "--set hardware.clock=fast");
  EXPECT_EQ(r.err.find("/tmp/strata-scalesim"), std::string::npos) << r.err;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_EQ(e.path().filename().string().rfind("strata-scalesim-", 0), std::string::npos) << e.path();
}

// Hostile files that once ended in "internal error", a crash or minutes of work: each is now
// one line naming the file (and line) and exit 2, in well under a second.
TEST(Reliability, HostileFilesExitTwoWithOneLine) {
  TempDir dir;
  const std::string cfg = testing::source_path("configs/scalesim/scalesim_32x32_os.cfg");
  auto scalesim = [&](const std::string& name, const std::string& rows) {
    const std::string csv = dir.write(name, "Layer, M, N, K,\n" + rows);
    return run_strata("run --scalesim-config " + cfg + " --scalesim-topology '" + csv + "' -o '" + dir.file("o-" + name) + "'");
  };
  expect_one_line_error(scalesim("dup.csv", "l0, 64, 64, 64,\nl0, 32, 32, 32,\n"),
                        "dup.csv:3:1: error: Layer: layer name 'l0' is used twice (first on line 2)");
  expect_one_line_error(scalesim("big.csv", "l0, 9223372036854775000, 64, 64,\n"), "is above the largest dimension");
  expect_one_line_error(scalesim("wide.csv", "l0, 4294967296, 64, 64,\n"), "is above the largest dimension");
  // Each dimension fits, but the work does not: refused by the GEMM's size, then by the tiles
  // the mapper would make (about 10^20 and 10^11), before either is built.
  expect_one_line_error(scalesim("cube.csv", "l0, 1000000000, 1000000000, 1000000000,\n"), "multiply-adds exceed 2^62 elements");
  expect_one_line_error(scalesim("tiles.csv", "l0, 2000000000, 2000000, 64,\n"), "tiles, reached at operator 'l0'");
  expect_one_line_error(scalesim("latin1.csv", "caf\xe9, 64, 64, 64,\n"), "latin1.csv:2:4: error: not UTF-8 text (byte 0xE9");

  const std::string header = "{\"format\":\"strata-opgraph\",\"version\":1}\n";
  auto op_trace = [&](const std::string& name, const std::string& lines) {
    dir.write(name + ".jsonl", header + lines);
    return run_strata("workload info '" + dir.write(name + ".yaml", "workload: {kind: op_trace, path: " + name + ".jsonl}\n") + "'");
  };
  expect_one_line_error(op_trace("dims", "{\"tensor\":\"a\",\"class\":\"activations\",\"shape\":[1],\"format\":\"int8\"}\n"
                                         "{\"tensor\":\"c\",\"class\":\"activations\",\"shape\":[1],\"format\":\"int8\"}\n"
                                         "{\"op\":0,\"kind\":\"gemm\",\"dims\":{\"m\":2147483648,\"n\":2147483648,\"k\":"
                                         "2147483648},\"inputs\":[\"a\",\"a\"],\"outputs\":[\"c\"]}\n"),
                        "dims.jsonl:4: error: operator 'gemm0' (gemm): its operands or multiply-adds exceed 2^62 elements");
  expect_one_line_error(
      op_trace("shape", "{\"tensor\":\"a\",\"class\":\"activations\",\"shape\":[4294967296,4294967296],\"format\":\"int8\"}\n"),
      "shape.jsonl:2: error: tensor 'a': shape [4294967296, 4294967296] holds more than 2^62 elements");

  dir.write("empty.edges", "# no edges\n");
  expect_one_line_error(
      run_strata("workload info '" +
                 dir.write("e.yaml", "workload: {kind: gnn, model: gcn, layer_dims: [4, 2], graph: {source: edge_list, path: empty.edges}}\n") +
                 "'"),
      "empty.edges: error: the edge list holds no edges");
}

// The DRAM replays the refreshes of an idle stretch when the next request comes (or at the end):
// 1000 s of DDR4 is ~10^8 refresh steps, minutes of work that a signal must still stop at once.
TEST(Reliability, ASignalStopsTheReplayOfALongIdleDramGap) {
  TempDir dir;
  dir.write("gap.trace", "0 R 0x0\n2000000000000 R 0x40\n");  // 1000 s apart at 2 GHz
  const std::string exp = dir.write(
      "gap.yaml", fmt::format("name: gap\nhardware:\n  extends: {}\nworkload:\n  kind: memory_trace\n  path: gap.trace\n"
                              "  clock: 2 GHz\n",
                              testing::source_path("configs/hardware/memory/ddr4-3200.yaml")));
  const std::string out = dir.file("out");
  const auto t0 = std::chrono::steady_clock::now();
  const int code = interrupted_run(dir, "'" + exp + "' --no-progress -o '" + out + "'", "TERM", 1.0, out);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(code, 143) << read_file(dir.file("err"));
  EXPECT_LT(s, 30.0);  // the replay alone is minutes
  EXPECT_EQ(testing::json_file(out + "/interrupted.json")["status"], "interrupted");
  EXPECT_FALSE(fs::exists(out + "/summary.json"));
}

// The size guard counts what the models hold (operands, multiply-adds), not the product of
// every dimension: a Reddit-sized SpMM (rows x cols x nnz x n is about 4e21) is a fine operator,
// and so is the shipped ogbn-arxiv stand-in used as its header says.
TEST(Reliability, GraphSizedSparseOperatorsAreNotRefused) {
  TempDir dir;
  const std::string header = "{\"format\":\"strata-opgraph\",\"version\":1}\n";
  dir.write("reddit.jsonl",
            header +
                "{\"tensor\":\"a\",\"class\":\"graph\",\"shape\":[114615892],\"format\":\"fp32\"}\n"
                "{\"tensor\":\"x\",\"class\":\"activations\",\"shape\":[232965,602],\"format\":\"fp16\"}\n"
                "{\"tensor\":\"y\",\"class\":\"activations\",\"shape\":[232965,602],\"format\":\"fp16\"}\n"
                "{\"op\":0,\"kind\":\"spmm\",\"dims\":{\"rows\":232965,\"cols\":232965,\"nnz\":114615892,\"n\":602},"
                "\"inputs\":[\"a\",\"x\"],\"outputs\":[\"y\"]}\n");
  const CommandResult r =
      run_strata("workload info '" + dir.write("reddit.yaml", "workload: {kind: op_trace, path: reddit.jsonl}\n") + "'");
  EXPECT_EQ(r.code, 0) << r.err;

  const std::string arxiv = dir.write(
      "arxiv.yaml", fmt::format("seed: 1\nworkload:\n  kind: gnn\n  layer_dims: [128, 256, 256, 40]\n"
                                "  feature_density: [1, 1, 1]\n  graph:\n    extends: {}\n",
                                testing::source_path("configs/datasets/synthetic/ogbn-arxiv.yaml")));
  const CommandResult a = run_strata("workload info '" + arxiv + "'");
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_CONTAINS(a.out, "spmm");
}

// A file that opens but cannot be read (/proc/self/mem fails its first read with EIO) is a bad
// input like a missing one, wherever a file is read or hashed; a directory is no file.
TEST(Reliability, UnreadableInputFilesExitTwoWithOneLine) {
  TempDir dir;
  fs::create_directories(dir.file("folder"));
  const std::vector<std::pair<std::string, std::string>> files = {
      {"/proc/self/mem", "/proc/self/mem: error: cannot read file: Input/output error"},
      {dir.file("folder"), "is not a regular file"}};
  for (const auto& [path, needle] : files) {
    SCOPED_TRACE(path);
    expect_one_line_error(
        run_strata("run '" + dir.write("t.yaml", trace_experiment("t", path)) + "' -o '" + dir.file("out") + "'"), needle);
    expect_one_line_error(
        run_strata("workload info configs/experiments/gcn-cora.yaml --set workload.graph.source=edge_list "
                   "--set 'workload.graph.path=" + path + "'"),
        needle);
    expect_one_line_error(
        run_strata("workload info configs/experiments/gpu-accelsim-trace.yaml --set 'workload.path=" + path + "'"), needle);
    expect_one_line_error(
        run_strata("workload info '" + dir.write("op.yaml", "workload: {kind: op_trace, path: '" + path + "'}\n") + "'"),
        needle);
    expect_one_line_error(run_strata("run '" + path + "'"), path == "/proc/self/mem" ? needle : "not a regular file");
  }
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

// Work whose own data cannot fit is refused before it is made, with one line naming what would
// not fit: an NPU attention of 2^31 heads (2^31 tiles), a GPU SpMM of 2^26 rows (a program a
// warp), a package of many devices (measured on its first device, so under a small
// STRATA_MEMORY_LIMIT).
TEST(Reliability, WorkThatCannotFitIsRefusedUpFront) {
  TempDir dir;
  const std::string header = "{\"format\":\"strata-opgraph\",\"version\":1}\n";
  dir.write("att.jsonl",
            header +
                "{\"tensor\":\"q\",\"class\":\"activations\",\"shape\":[2147483648,128],\"format\":\"fp16\"}\n"
                "{\"tensor\":\"k\",\"class\":\"kv_cache\",\"shape\":[2147483648,128],\"format\":\"fp16\"}\n"
                "{\"tensor\":\"v\",\"class\":\"kv_cache\",\"shape\":[2147483648,128],\"format\":\"fp16\"}\n"
                "{\"tensor\":\"o\",\"class\":\"activations\",\"shape\":[2147483648,128],\"format\":\"fp16\"}\n"
                "{\"op\":0,\"kind\":\"attention\",\"dims\":{\"batch\":1,\"heads\":2147483648,\"kv_heads\":2147483648,"
                "\"head_dim\":128,\"q_len\":1,\"kv_len\":1},\"inputs\":[\"q\",\"k\",\"v\"],\"outputs\":[\"o\"]}\n");
  dir.write("spmm.jsonl",
            header +
                "{\"tensor\":\"a\",\"class\":\"graph\",\"shape\":[268435456],\"format\":\"fp32\"}\n"
                "{\"tensor\":\"x\",\"class\":\"activations\",\"shape\":[67108864,64],\"format\":\"fp16\"}\n"
                "{\"tensor\":\"y\",\"class\":\"activations\",\"shape\":[67108864,64],\"format\":\"fp16\"}\n"
                "{\"op\":0,\"kind\":\"spmm\",\"dims\":{\"rows\":67108864,\"cols\":67108864,\"nnz\":268435456,\"n\":64},"
                "\"inputs\":[\"a\",\"x\"],\"outputs\":[\"y\"]}\n");
  const auto on = [&](const std::string& name, const std::string& preset, const std::string& trace) {
    return dir.write(name + ".yaml", fmt::format("name: {}\nhardware:\n  extends: {}\nworkload: {{kind: op_trace, path: {}}}\n",
                                                 name, testing::source_path("configs/hardware/" + preset), trace));
  };
  for (const std::string fidelity : {"cycle", "analytic"}) {
    const std::string set = " --set sim.fidelity=" + fidelity + " -o '" + dir.file("out") + "'";
    expect_one_line_error(run_strata("run '" + on("att", "npu/tpuv4i.yaml", "att.jsonl") + "'" + set),
                          "the mapped program (2.15e+09 tiles, reached at operator 'attention0') needs");
    expect_one_line_error(run_strata("run '" + on("spmm", "gpu/h100-sxm.yaml", "spmm.jsonl") + "'" + set),
                          "the sparse kernel of 'spmm0' (67108864 rows, 268435456 nonzeros, written out warp by warp) needs");
  }
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the package's measure of its first device reads malloc's counters, which ASan replaces";
#endif
  ::setenv("STRATA_MEMORY_LIMIT", "200 MiB", 1);  // each test runs in a process of its own
  const CommandResult p = run_strata(
      "run configs/experiments/gpu-llama70b-tp4.yaml --set hardware.devices=64 --set hardware.placement.tensor=64 "
      "--set workload.model.layers=1 -o '" + dir.file("out") + "'");
  ::unsetenv("STRATA_MEMORY_LIMIT");
  expect_one_line_error(p, "hardware.devices: a package of 64 devices (");
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

}  // namespace
}  // namespace strata
