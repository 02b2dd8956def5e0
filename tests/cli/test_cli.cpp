// The `strata` binary as users run it: exit codes, one-line errors, result files, determinism
// and no partial results after a failing run.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace fs = std::filesystem;
using nlohmann::json;
using strata::testing::read_file;
using strata::testing::source_path;
using strata::testing::kQuickstart;
using strata::testing::TempDir;

namespace {

using Result = strata::testing::CommandResult;
using strata::testing::run_strata;


bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

}  // namespace

TEST(Cli, RunWritesACompleteResult) {
  TempDir d;
  const Result r = run_strata("run " + kQuickstart + " -o " + d.file("out"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("results: " + d.file("out")), std::string::npos) << r.out;
  for (const char* f : {"config.yaml", "stats.json", "summary.json"}) EXPECT_TRUE(fs::exists(d.file("out/") + f)) << f;
  EXPECT_FALSE(fs::exists(d.file("out/timeline.json")));
  const json s = json::parse(read_file(d.file("out/summary.json")));
  for (const char* key : {"simulated_time_s", "wall_time_s", "latency_s", "energy_j", "area_mm2", "bandwidth_gbps",
                          "avg_latency_ns", "requests", "config_hash"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["status"], "complete");
  EXPECT_EQ(s["requests"], 4096);
  EXPECT_GT(s["energy_j"].get<double>(), 0);
  // The resolved config reproduces the same point.
  const Result again = run_strata("config --hash " + d.file("out/config.yaml"));
  EXPECT_EQ(again.out, s["config_hash"].get<std::string>() + "\n");
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(d.file("out"))) EXPECT_NE(e.path().filename().string()[0], '.');
}

TEST(Cli, DefaultResultDirectoryIsNamedByConfigHash) {
  TempDir d;
  const Result hash = run_strata("config --hash " + kQuickstart);
  ASSERT_EQ(hash.code, 0);
  const Result r = run_strata("run -q " + kQuickstart, d.path().string());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string dir = "results/quickstart/" + hash.out.substr(0, 16);
  EXPECT_EQ(r.out, "results: " + dir + "\n");
  EXPECT_TRUE(fs::exists(d.path() / dir / "summary.json"));
}

TEST(Cli, RunsAreDeterministic) {
  // Twice, and once from another working directory: stats.json byte for byte.
  TempDir a, b;
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o " + a.file("r")).code, 0);
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o " + b.file("r")).code, 0);
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o r", b.path().string() + "/..").code, 0);
  const std::string first = read_file(a.file("r/stats.json"));
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, read_file(b.file("r/stats.json")));
  EXPECT_EQ(first, read_file((b.path().parent_path() / "r/stats.json").string()));
  fs::remove_all(b.path().parent_path() / "r");
}

TEST(Cli, OverridesChangeTheResult) {
  TempDir d;
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o " + d.file("a")).code, 0);
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o " + d.file("b") + " --set hardware.bandwidth=\"12.8 GB/s\"").code, 0);
  const json a = json::parse(read_file(d.file("a/summary.json")));
  const json b = json::parse(read_file(d.file("b/summary.json")));
  EXPECT_NE(a["config_hash"], b["config_hash"]);
  EXPECT_GT(b["latency_s"].get<double>(), a["latency_s"].get<double>());
  EXPECT_NE(read_file(d.file("b/config.yaml")).find("bandwidth: 12.8 GB/s"), std::string::npos);
}

TEST(Cli, TimelineOnRequest) {
  TempDir d;
  ASSERT_EQ(run_strata("run -q --timeline " + kQuickstart + " -o " + d.file("out")).code, 0);
  const json t = json::parse(read_file(d.file("out/timeline.json")));
  EXPECT_GT(t["traceEvents"].size(), 8000u);  // a begin and an end per request
}

TEST(Cli, BadConfigExitsTwoWithOneLineAndWritesNothing) {
  TempDir d;
  d.write("bad.yaml", "name: bad\nhardware:\n  kind: simple_memory\n  latncy: 5 ns\nworkload: {kind: memory_trace, path: x}\n");
  const Result r = run_strata("run " + d.file("bad.yaml") + " -o " + d.file("out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("bad.yaml:4:3: error: hardware.latncy: unknown key 'latncy' for kind simple_memory (did you mean "
                       "'latency'?)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(d.file("out")));
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, MalformedYamlAndMissingFile) {
  TempDir d;
  d.write("broken.yaml", "name: [\n");
  Result r = run_strata("run " + d.file("broken.yaml"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("broken.yaml:2:1: error: malformed YAML"), std::string::npos) << r.err;
  r = run_strata("run " + d.file("absent.yaml"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("absent.yaml: error: no such file"), std::string::npos) << r.err;
}

TEST(Cli, CorruptTraceMidRunLeavesNoPartialResult) {
  TempDir d;
  std::string trace;
  for (int i = 0; i < 3000; ++i) trace += std::to_string(i) + " R " + std::to_string(64 * i) + "\n";
  trace += "3000 X 0x0\n";
  d.write("t.trace", trace);
  d.write("e.yaml", "name: e\nhardware: {kind: simple_memory}\nworkload: {kind: memory_trace, path: t.trace}\n");
  const Result r = run_strata("run --timeline " + d.file("e.yaml") + " -o " + d.file("out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("t.trace:3001:6: error: expected R or W, got \"X\""), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d.file("out")));  // not even the half-written timeline
}

TEST(Cli, FailedRerunKeepsThePreviousCompleteResult) {
  TempDir d;
  d.write("t.trace", "0 R 0x0\n");
  d.write("e.yaml", "name: e\nhardware: {kind: simple_memory}\nworkload: {kind: memory_trace, path: t.trace}\n");
  ASSERT_EQ(run_strata("run -q " + d.file("e.yaml") + " -o " + d.file("out")).code, 0);
  const std::string before = read_file(d.file("out/summary.json"));
  d.write("t.trace", "0 R 0x0\n1 R zz\n");
  EXPECT_EQ(run_strata("run -q " + d.file("e.yaml") + " -o " + d.file("out")).code, 2);
  EXPECT_EQ(read_file(d.file("out/summary.json")), before);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_strata("run").code, 2);
  EXPECT_EQ(run_strata("frobnicate").code, 2);
  EXPECT_EQ(run_strata("run " + kQuickstart + " --bogus").code, 2);
  EXPECT_EQ(run_strata("run " + kQuickstart + " --set nokey").code, 2);
}

TEST(Cli, ListKinds) {
  Result r = run_strata("list");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("simple_memory (component)"), std::string::npos);
  EXPECT_NE(r.out.find("memory_trace (workload)"), std::string::npos);
  EXPECT_NE(r.out.find("stats_window"), std::string::npos);
  r = run_strata("list simple_memory");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("queue_depth"), std::string::npos);
  EXPECT_NE(r.out.find("default 32, range [1, 1048576]"), std::string::npos) << r.out;
  r = run_strata("list dram");  // the keys of fixed sections, prefixed with the section
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("timing.tRCD"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("controller.mapping"), std::string::npos) << r.out;
  r = run_strata("list simple_memroy");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did you mean 'simple_memory'?"), std::string::npos);
}

TEST(Cli, VersionAndHelp) {
  EXPECT_EQ(run_strata("--version").code, 0);
  const Result r = run_strata("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("run"), std::string::npos);
}

namespace {

const std::string kExamples[] = {"llama-decode", "mixtral-moe-layer", "gcn-cora"};

TEST(CliWorkload, InfoJsonHasTheFiguresOfEveryExample) {
  for (const auto& name : kExamples) {
    const Result r = run_strata("workload info --json " + source_path("configs/experiments/" + name + ".yaml"));
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char* key : {"parameters", "active_parameters", "flops", "bytes", "arithmetic_intensity"})
      EXPECT_TRUE(j.contains(key)) << name << " lacks " << key;
    for (const char* cls : {"total", "weights", "activations", "kv_cache", "graph"})
      EXPECT_TRUE(j["bytes"].contains(cls)) << name << " lacks bytes." << cls;
    EXPECT_GT(j["flops"].get<double>(), 0) << name;
  }
}

TEST(CliWorkload, ExportedTracesReadBackUnchanged) {
  TempDir d;
  for (const auto& name : kExamples) {
    const std::string exp = source_path("configs/experiments/" + name + ".yaml");
    ASSERT_EQ(run_strata("trace export " + exp + " -o " + d.file(name + ".jsonl")).code, 0) << name;
    const std::string replay = d.write(name + "-replay.yaml", "workload: {kind: op_trace, path: " + name + ".jsonl}\n");
    ASSERT_EQ(run_strata("trace export " + replay + " -o " + d.file(name + "-again.jsonl")).code, 0) << name;
    EXPECT_EQ(read_file(d.file(name + ".jsonl")), read_file(d.file(name + "-again.jsonl"))) << name;
    const auto a = nlohmann::json::parse(run_strata("workload info --json " + exp).out);
    const auto b = nlohmann::json::parse(run_strata("workload info --json " + replay).out);
    for (const char* key : {"parameters", "active_parameters", "flops", "bytes", "footprint_bytes"})
      EXPECT_EQ(a[key], b[key]) << name << " " << key;
  }
}

TEST(CliWorkload, InfoTextAndOverrides) {
  const std::string exp = source_path("configs/experiments/llama-decode.yaml");
  const Result r = run_strata("workload info " + exp + " --set workload.batch=4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("arithmetic_intensity"), std::string::npos);
  EXPECT_NE(r.out.find("llama-2-7b (transformer)"), std::string::npos);
  const auto one = nlohmann::json::parse(run_strata("workload info --json " + exp).out);
  const auto four = nlohmann::json::parse(run_strata("workload info --json " + exp + " --set workload.batch=4").out);
  EXPECT_GT(four["flops"].get<double>(), 3.9 * one["flops"].get<double>());
}

TEST(CliWorkload, GraphWorkloadsNeedHardwareWithAMapper) {
  TempDir d;
  const Result no_hw = run_strata("run " + source_path("configs/experiments/gcn-cora.yaml") + " -o " + d.file("out"));
  EXPECT_EQ(no_hw.code, 2);
  EXPECT_NE(no_hw.err.find("hardware: missing: `strata run` needs a design"), std::string::npos) << no_hw.err;
  EXPECT_FALSE(std::filesystem::exists(d.file("out")));
  d.write("t.jsonl", "{\"format\":\"strata-opgraph\",\"version\":1}\n");
  d.write("e.yaml", "hardware: {kind: simple_memory}\nworkload: {kind: op_trace, path: t.jsonl}\n");
  const Result r = run_strata("run " + d.file("e.yaml") + " -o " + d.file("out2"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("has no mapper for operator graphs"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(d.file("out2")));
}

// Resource limits end to end: inputs that claim huge sizes stop with exit 2 and one line before
// anything large is allocated (sim/memory_budget.h); the sweep limit is in tests/sweep.
TEST(CliWorkload, HugeClaimsExitTwoBeforeAllocating) {
  TempDir d;
  strata::testing::ScopedEnv limit("STRATA_MEMORY_LIMIT", "2 GiB");
  const std::string gnn = "workload: {kind: gnn, model: gcn, layer_dims: [4, 2], graph: ";
  d.write("big.edges", "0 2147483647\n");
  d.write("edges.yaml", gnn + "{source: edge_list, path: big.edges}}\n");
  d.write("power.yaml", gnn + "{source: power_law, nodes: 1000000000000}}\n");
  d.write("rmat.yaml", gnn + "{source: rmat, scale: 31, edge_factor: 1}}\n");
  d.write("t.trace", "0 R 0x10\n5 R 0x1ffffffffffffffff\n");
  d.write("trace.yaml", "name: t\nhardware: {kind: simple_memory}\nworkload: {kind: memory_trace, path: t.trace}\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"workload info " + d.file("edges.yaml"), "big.edges: error: a CSR graph of 2147483648 nodes and 1 edges needs"},
      {"workload info " + d.file("power.yaml"), "power.yaml:1:89: error: workload.graph.nodes: 1000000000000 is out of range"},
      {"workload info " + d.file("rmat.yaml"), "rmat.yaml:1:55: error: workload.graph.scale: an R-MAT graph of 2^31 nodes"},
      {"run " + d.file("trace.yaml") + " -o " + d.file("out"), "t.trace:2:5: error: address does not fit in 64 bits"},
  };
  for (const auto& [args, expected] : cases) {
    const Result r = run_strata(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_CONTAINS(r.err, expected);
  }
  EXPECT_FALSE(fs::exists(d.file("out")));
}

TEST(CliWorkload, BadTraceExitsTwoWithItsLine) {
  TempDir d;
  d.write("t.jsonl", "{\"format\":\"strata-opgraph\",\"version\":1}\n{\"op\":0,\"kind\":\"gemm\",\"dims\":{}}\n");
  d.write("e.yaml", "workload: {kind: op_trace, path: t.jsonl}\n");
  const Result r = run_strata("workload info " + d.file("e.yaml"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("t.jsonl:2: error: inputs: missing"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_EQ(run_strata("workload info " + source_path("configs/experiments/quickstart.yaml")).code, 2);
  EXPECT_EQ(run_strata("trace export " + source_path("configs/experiments/quickstart.yaml") + " -o " + d.file("q.jsonl")).code, 2);
}

}  // namespace
