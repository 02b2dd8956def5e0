// `strata validate` and its catalog: the shipped suites load and every asserted check names a
// test that exists; tolerances are one-sided where they say so; a run writes its tables and
// figures and exits 0, 3 when a check misses, 2 (writing nothing) for bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/registry.h"
#include "sim/text.h"
#include "sim/validation/validation_catalog.h"
#include "test_util.h"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

// Every test source's text, to find the tests a check names.
std::string all_test_sources() {
  std::string text;
  for (const auto& e : fs::recursive_directory_iterator(source_path("tests")))
    if (e.path().extension() == ".cpp") text += read_file(e.path().string());
  return text;
}

TEST(ValidationCatalog, ShippedSuitesLoadAndEveryAssertedCheckNamesItsTest) {
  const auto suites = load_validation_suites(source_path("configs/validation"));
  std::vector<std::string> names;
  for (const auto& s : suites) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"chiplet", "dram", "gnn", "gpu", "npu", "pim", "tech"}));
  const std::string sources = all_test_sources();
  int asserted = 0, quick = 0;
  for (const auto& s : suites)
    for (const auto& c : s.checks) {
      SCOPED_TRACE(s.name + "/" + c.id);
      EXPECT_FALSE(c.source.empty());
      quick += c.quick;
      if (!c.asserted) continue;
      ++asserted;
      // "Suite.Name" or "Prefix/Suite.Name" (a parameterised test): TEST(Suite, Name) or TEST_P.
      const std::smatch m = [&] {
        std::smatch out;
        std::regex_match(c.test, out, std::regex(R"((?:\w+/)?(\w+)\.(\w+))"));
        return out;
      }();
      ASSERT_EQ(m.size(), 3u) << "an asserted check names the test that asserts it: \"" << c.test << "\"";
      EXPECT_TRUE(std::regex_search(sources, std::regex("TEST(_P)?\\(" + m[1].str() + ", " + m[2].str() + "\\)")))
          << c.test << " is not a test";
    }
  EXPECT_GE(asserted, 75);
  EXPECT_GE(quick, 60);
}

TEST(ValidationCatalog, TolerancesAreOneSidedWhereTheySaySo) {
  ValidationCheck c;
  c.reference = 100, c.below = 0.10, c.above = 0;
  EXPECT_TRUE(c.within(100));
  EXPECT_TRUE(c.within(90));
  EXPECT_FALSE(c.within(89.9));
  EXPECT_FALSE(c.within(100.01));
  EXPECT_NEAR(c.error(95), -0.05, 1e-12);
  c.below = c.above = 0;  // exact
  EXPECT_TRUE(c.within(100));
  EXPECT_FALSE(c.within(100.001));
}

// A suite of its own: two checks on the quickstart example (one passes, one of which the test
// makes fail), a baseline run, a tech check.
std::string suite_file(const TempDir& dir, double requests_reference) {
  return dir.write("checks/demo.yaml", fmt::format(R"(suite: demo
title: A demonstration
checks:
  - id: requests
    what: quickstart, requests
    experiment: {0}
    metric: requests
    unit: requests
    reference: {1}
    tolerance: exact
    source: the trace's length
    test: ValidationCli.WritesTablesAndFiguresAndExitsThreeWhenACheckMisses
    quick: true
  - id: bytes-per-request
    what: quickstart, bytes a request, against a run with twice the latency
    experiment: {0}
    baseline: {{set: {{hardware.latency: 60 ns}}}}
    metric: bytes / requests + 0 * baseline.requests
    unit: B
    reference: 64
    tolerance: {{below: 1%, above: 0%}}
    source: the trace's request size
    test: ValidationCli.WritesTablesAndFiguresAndExitsThreeWhenACheckMisses
  - id: horowitz
    what: 45 nm mul.fp32
    tech: {{node: 45nm, op: mul.fp32, field: energy_pj}}
    unit: pJ
    reference: 3.7
    tolerance: exact
    source: Horowitz
    test: ValidationCli.WritesTablesAndFiguresAndExitsThreeWhenACheckMisses
    quick: true
  - id: reported
    what: a figure reported without a tolerance
    tech: {{node: 45nm, op: add.fp32, field: energy_pj}}
    unit: pJ
    reference: 2
    tolerance: exact
    asserted: false
    source: nowhere
)",
                                                   kQuickstart, requests_reference));
}

TEST(ValidationCli, WritesTablesAndFiguresAndExitsThreeWhenACheckMisses) {
  TempDir dir;
  suite_file(dir, 4096);
  const std::string checks = dir.file("checks"), out = dir.file("report");
  CommandResult r = run_strata("validate --checks '" + checks + "' -o '" + out + "' -j 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "demo");
  const auto j = json_file(out + "/validation.json");
  ASSERT_EQ(j["suites"].size(), 1u);
  const auto& demo = j["suites"][0];
  EXPECT_EQ(demo["summary"]["checks"], 4);
  EXPECT_EQ(demo["summary"]["passed"], 3);
  EXPECT_EQ(demo["summary"]["reported"], 1);
  EXPECT_EQ(demo["checks"][0]["model"], 4096);
  EXPECT_EQ(demo["checks"][1]["model"], 64);
  EXPECT_EQ(demo["checks"][3]["status"], "reported");
  EXPECT_NEAR(demo["checks"][3]["error"].get<double>(), (0.9 - 2) / 2, 1e-12);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_TRUE(fs::exists(out + "/runs/demo/requests/summary.json"));
  EXPECT_TRUE(fs::exists(out + "/runs/demo/bytes-per-request-baseline/summary.json"));
  const std::string csv = read_file(out + "/validation.csv");
  EXPECT_EQ(split(csv, '\n')[0], "suite,id,what,model,reference,unit,error,tolerance_below,tolerance_above,status,source,test");
  EXPECT_CONTAINS(csv, "demo,requests,\"quickstart, requests\",4096,4096,requests,0,0,0,pass");
  const std::string md = read_file(out + "/report.md");
  EXPECT_CONTAINS(md, "| [demo](#demo) | 4 | 3 | 0 | 1 | 0 |");
  for (const char* f : {"demo-scatter.png", "demo-scatter.pdf", "demo-error.png", "demo-error.pdf"})
    EXPECT_GT(fs::file_size(out + "/plots/" + f), 1000u) << f;

  // --quick leaves out the baseline check; a reference the run misses exits 3, naming it.
  suite_file(dir, 4000);
  r = run_strata("validate --quick --no-plots --checks '" + checks + "' -o '" + out + "'");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_CONTAINS(r.err, "FAILED demo/requests: 4096 requests against 4000 requests (+2.40%");
  const auto q = json_file(out + "/validation.json");
  EXPECT_EQ(q["suites"][0]["summary"]["checks"], 2);
  EXPECT_EQ(q["suites"][0]["summary"]["failed"], 1);
  EXPECT_FALSE(q["passed"].get<bool>());
  // The earlier report was replaced whole: no figures, no run of the check left out.
  EXPECT_FALSE(fs::exists(out + "/plots"));
  EXPECT_FALSE(fs::exists(out + "/runs/demo/bytes-per-request-baseline"));
  EXPECT_TRUE(fs::exists(out + "/runs/demo/requests/summary.json"));
}

TEST(ValidationCli, BadInputExitsTwoWithOneLineAndWritesNothing) {
  TempDir dir;
  const std::string out = dir.file("report");
  auto expect_bad = [&](const std::string& args, const std::string& message) {
    const CommandResult r = run_strata("validate " + args + " -o '" + out + "'");
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_CONTAINS(r.err, message);
    EXPECT_FALSE(fs::exists(out)) << args;
  };
  expect_bad("--suite drm", "--suite: no suite \"drm\"");
  const std::string checks = dir.file("checks");
  const std::string file = dir.write("checks/bad.yaml", "suite: bad\ntitle: t\nchecks:\n  - id: a\n    what: w\n    unit: u\n"
                                                        "    source: s\n    tech: {node: 45nm, op: mul.fp32, field: energy_pj}\n"
                                                        "    tolerance: 5 percent\n    reference: 1\n");
  expect_bad("--checks '" + checks + "'", file + ":9:16: error: checks[0].tolerance: expected a fraction");
  dir.write("checks/bad.yaml", "suite: bad\ntitle: t\nchecks:\n  - id: a\n    what: w\n    unit: u\n    source: s\n"
                               "    experiment: nowhere.yaml\n    metric: x\n    tolerance: 5%\n    reference: 1\n");
  expect_bad("--checks '" + checks + "'", file + ":8:17: error: checks[0].experiment: no file");
  dir.write("checks/bad.yaml", "suite: bad\ntitle: t\nchecks:\n  - id: a\n    what: w\n    unit: u\n    source: s\n"
                               "    experiment: " + kQuickstart + "\n    metric: requests +\n    tolerance: 5%\n    reference: 1\n");
  expect_bad("--checks '" + checks + "'", file + ":9:13: error: checks[0].metric: in \"requests +\"");
  dir.write("checks/bad.yaml", "suite: bad\ntitle: t\nchecks:\n  - id: a\n    what: w\n    unit: u\n    source: s\n"
                               "    experiment: " + kQuickstart + "\n    metric: requests\n    tolerance: 5%\n    referenc: 1\n");
  expect_bad("--checks '" + checks + "'", "unknown key");
}

}  // namespace
}  // namespace strata::testing
