// Sweep files: parsing, axes (lists, labelled values, ranges), grid/zip/random/LHS expansion,
// constraints, expressions and the Pareto front, without running any point.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "accelerators/builtin_kinds.h"
#include "sim/app/experiment.h"
#include "sim/app/sweep/expansion.h"
#include "sim/app/sweep/expression.h"
#include "sim/app/sweep/pareto.h"
#include "sim/registry.h"
#include "test_util.h"

namespace strata {
namespace {

using testing::TempDir;

class SweepSpecTest : public ::testing::Test {
 protected:
  SweepSpecTest() { register_builtin_kinds(registry); }
  // A sweep over the quickstart experiment (a trace through a simple memory).
  std::string sweep_file(const std::string& sweep_section) {
    return dir.write("s.yaml", "extends: " + testing::source_path("configs/experiments/quickstart.yaml") +
                                   "\nname: s\nsweep:\n" + sweep_section);
  }
  // Expands, keeping each point's file text (as the driver writes it) in `yamls`.
  Expansion expand(const std::string& sweep_section) {
    yamls.clear();
    ExpandOptions options;
    options.sink = [&](const SweepPoint& p) { yamls.push_back(p.yaml); };
    return expand_sweep(load_sweep(sweep_file(sweep_section)), registry, "", options);
  }
  std::vector<std::string> yamls;
  std::string error_of(const std::string& sweep_section) {
    try {
      expand(sweep_section);
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      return msg;
    }
    ADD_FAILURE() << "no error";
    return "";
  }
  Registry registry;
  TempDir dir;
};

std::vector<std::string> column(const Expansion& e, size_t axis) {
  std::vector<std::string> out;
  for (const auto& p : e.points) out.push_back(p.labels[axis]);
  return out;
}

TEST_F(SweepSpecTest, GridIsTheProductInAxisOrderWithDistinctHashes) {
  const Expansion e = expand(
      "  axes:\n"
      "    hardware.queue_depth: [8, 16, 32]\n"
      "    hardware.latency: [\"20 ns\", \"40 ns\"]\n");
  ASSERT_EQ(e.points.size(), 6u);
  EXPECT_EQ(column(e, 0), (std::vector<std::string>{"8", "8", "16", "16", "32", "32"}));
  EXPECT_EQ(column(e, 1), (std::vector<std::string>{"20 ns", "40 ns", "20 ns", "40 ns", "20 ns", "40 ns"}));
  std::set<std::string> hashes;
  for (const auto& p : e.points) hashes.insert(p.hash);
  EXPECT_EQ(hashes.size(), 6u);
  // The point file names the trace absolutely, so it runs from the sweep directory.
  EXPECT_CONTAINS(yamls.at(0), testing::source_path("configs/traces/quickstart.trace"));
  EXPECT_CONTAINS(yamls.at(0), "queue_depth: 8");
  EXPECT_TRUE(e.points[0].yaml.empty());  // kept only until written
}

TEST_F(SweepSpecTest, PointHashIsTheHashStrataRunComputes) {
  const Expansion e = expand("  axes:\n    hardware.queue_depth: [8]\n");
  const std::string point = dir.write("p/point.yaml", yamls.at(0));
  EXPECT_EQ(resolve_experiment(point, {}, registry).hash, e.points[0].hash);
}

TEST_F(SweepSpecTest, ZippedAxesVaryTogether) {
  const Expansion e = expand(
      "  axes:\n"
      "    hardware.queue_depth: [8, 16]\n"
      "    hardware.latency: [\"20 ns\", \"40 ns\"]\n"
      "    hardware.bandwidth: [\"12.8 GB/s\", \"25.6 GB/s\", \"51.2 GB/s\"]\n"
      "  zip: [[hardware.queue_depth, hardware.latency]]\n");
  ASSERT_EQ(e.points.size(), 6u);
  for (const auto& p : e.points) EXPECT_EQ(p.labels[0] == "8", p.labels[1] == "20 ns");
}

TEST_F(SweepSpecTest, RangesLinearLogAndStep) {
  const Expansion lin = expand("  axes:\n    hardware.latency: {range: [\"10 ns\", \"30 ns\"], steps: 3}\n");
  EXPECT_EQ(column(lin, 0), (std::vector<std::string>{"10 ns", "20 ns", "30 ns"}));
  const Expansion log = expand("  axes:\n    hardware.queue_depth: {range: [4, 64], steps: 5, scale: log}\n");
  EXPECT_EQ(column(log, 0), (std::vector<std::string>{"4", "8", "16", "32", "64"}));
  const Expansion step = expand("  axes:\n    hardware.queue_depth: {range: [8, 32], step: 8}\n");
  EXPECT_EQ(column(step, 0), (std::vector<std::string>{"8", "16", "24", "32"}));
}

TEST_F(SweepSpecTest, ConstraintsDropCombinationsAndSeeTextsAndQuantities) {
  const Expansion e = expand(
      "  axes:\n"
      "    hardware.queue_depth: [8, 16, 32]\n"
      "    hardware.latency: [\"20 ns\", \"40 ns\"]\n"
      "    workload.format:\n"
      "      name: fmt\n"
      "      values: {canon: canonical}\n"
      "  constraints:\n"
      "    - \"hardware.queue_depth * hardware.latency <= 400e-9\"\n"
      "    - 'fmt == \"canon\" && hardware.bandwidth > 1e9'\n");
  // 8*20, 8*40, 16*20 ns fit under 400 ns; 16*40, 32*20 (=640) and 32*40 do not.
  EXPECT_EQ(e.points.size(), 3u);
  EXPECT_EQ(e.dropped, 3);
}

// `--set sweep.<key>=...` overrides the sweep section itself (a smoke run's constraints); other
// keys still override the swept experiment.
TEST_F(SweepSpecTest, OverridesReachTheSweepSectionToo) {
  const std::string file = sweep_file(
      "  axes:\n"
      "    hardware.queue_depth: [8, 16, 32]\n"
      "  constraints: [\"hardware.queue_depth < 100\"]\n");
  const Expansion all = expand_sweep(load_sweep(file), registry, "", {});
  EXPECT_EQ(all.points.size(), 3u);
  ExpandOptions keep;
  keep.sink = [&](const SweepPoint& p) { yamls.push_back(p.yaml); };
  const Expansion one = expand_sweep(
      load_sweep(file, {"sweep.constraints=[hardware.queue_depth==16]", "hardware.latency=30 ns"}), registry, "", keep);
  ASSERT_EQ(one.points.size(), 1u);
  EXPECT_EQ(one.dropped, 2);
  EXPECT_EQ(one.points[0].labels[0], "16");
  ASSERT_EQ(yamls.size(), 1u);
  EXPECT_NE(yamls[0].find("30 ns"), std::string::npos) << yamls[0];
}

TEST_F(SweepSpecTest, RandomAndLatinHypercubeAreSeededAndStayInRange) {
  const std::string section =
      "  method: lhs\n  samples: 8\n  seed: 7\n"
      "  axes:\n"
      "    hardware.latency: {range: [\"10 ns\", \"80 ns\"], scale: log}\n"
      "    hardware.queue_depth: {range: [1, 64]}\n";
  const Expansion a = expand(section), b = expand(section);
  ASSERT_EQ(a.points.size(), 8u);
  for (size_t i = 0; i < a.points.size(); ++i) EXPECT_EQ(a.points[i].hash, b.points[i].hash);
  // Latin hypercube: each eighth of the queue-depth range holds exactly one sample.
  std::set<int> strata_used;
  for (const auto& p : a.points) {
    const double q = std::stod(p.labels[1]);
    EXPECT_GE(q, 1);
    EXPECT_LE(q, 64);
    strata_used.insert(std::min(7, static_cast<int>((q - 1) / (63.0 / 8))));
    const double ns = std::stod(p.labels[0]);
    EXPECT_GE(ns, 10);
    EXPECT_LE(ns, 80);
  }
  EXPECT_GE(strata_used.size(), 7u);  // rounding to integers may merge two neighbours
  const Expansion other_seed = expand(
      "  method: random\n  samples: 8\n  seed: 8\n"
      "  axes:\n    hardware.latency: {range: [\"10 ns\", \"80 ns\"]}\n    hardware.queue_depth: [4, 8, 16]\n");
  EXPECT_EQ(other_seed.points.size(), 8u);
}

TEST_F(SweepSpecTest, DuplicateConfigurationsRunOnce) {
  // sim.progress does not affect results, so both values resolve to the same point.
  const Expansion e = expand("  axes:\n    sim.progress: [on, off]\n    hardware.queue_depth: [8, 16]\n");
  EXPECT_EQ(e.points.size(), 2u);
  EXPECT_EQ(e.duplicates, 2);
}

TEST_F(SweepSpecTest, BadSweepFilesNameFileLineAndKey) {
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: [8]\n  bogus: 1\n"), "s.yaml:6:10: error: sweep.bogus: unknown key");
  EXPECT_CONTAINS(error_of("  method: grid\n"), "sweep.axes: missing");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: [8, eight]\n"), "hardware.queue_depth: expected an integer");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: {range: [8, 4], steps: 2}\n"), "low bound must be below");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.latency: {range: [\"1 ns\", 4], steps: 2}\n"), "same unit");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: [8]\n  constraints: [\"hardware.queue_depth <= \"]\n"),
                  "sweep.constraints: in \"hardware.queue_depth <= \"");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: [8]\n  constraints: [\"nosuch.key > 1\"]\n"),
                  "unknown name 'nosuch.key'");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: [8, 16]\n    hardware.latency: [\"1 ns\"]\n"
                           "  zip: [[hardware.queue_depth, hardware.latency]]\n"),
                  "as many values");
  EXPECT_CONTAINS(error_of("  method: lhs\n  axes:\n    hardware.queue_depth: [8]\n"), "needs samples");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: [8]\n  objectives: {latency_s: lowest}\n"),
                  "is not one of min, max");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: [8]\n  constraints: [\"hardware.queue_depth > 100\"]\n"),
                  "no point is left");
}

TEST(SweepExpression, ArithmeticLogicAndTexts) {
  Expression e("a * b.c <= 16 && m == \"int8\"", SourceLoc{"f"}, "k");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"a", "b.c", "m"}));
  auto eval = [&](double a, double bc, const std::string& m) {
    return e.eval([&](const std::string& n) -> std::optional<ExprValue> {
      if (n == "a") return a;
      if (n == "b.c") return bc;
      return m;
    });
  };
  EXPECT_EQ(eval(4, 4, "int8"), 1);
  EXPECT_EQ(eval(4, 5, "int8"), 0);
  EXPECT_EQ(eval(4, 4, "fp8"), 0);
  Expression edp("latency_s * energy_j", SourceLoc{"f"}, "k");
  EXPECT_DOUBLE_EQ(edp.eval([](const std::string& n) -> std::optional<ExprValue> { return n == "latency_s" ? 2.0 : 3.0; }), 6.0);
}

TEST(SweepPareto, NonDominatedPointsWithTiesAndMaximisation) {
  // (latency min, throughput max)
  const std::vector<std::vector<double>> v = {{1, 10}, {2, 20}, {2, 15}, {3, 20}, {1, 10}, {0.5, 1}};
  EXPECT_EQ(pareto_front(v, {true, false}), (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(pareto_front({{1, 1}}, {true, true}), (std::vector<int>{0}));
  EXPECT_EQ(pareto_front({{1, 2}, {2, 1}, {2, 2}}, {true, true}), (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// The expansion's bookkeeping is checked against the memory budget before the first point.
TEST_F(SweepSpecTest, ASweepLargerThanTheMemoryBudgetIsRefusedBeforeExpanding) {
  const testing::ScopedEnv limit("STRATA_MEMORY_LIMIT", "1 MiB");
  EXPECT_CONTAINS(error_of("  axes:\n    hardware.queue_depth: {range: [1, 100], step: 1}\n"
                           "    hardware.latency: {range: [\"10 ns\", \"109 ns\"], step: \"1 ns\"}\n"),
                  "s.yaml: error: sweep: a sweep of 10000 points needs");
  EXPECT_TRUE(yamls.empty());
}

}  // namespace
}  // namespace strata
