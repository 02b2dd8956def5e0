// `strata validate` and its catalog: the shipped suites load and every asserted check names a
// test that exists; tolerances are one-sided where they say so; a run writes its tables and
// figures and exits 0, 3 when a check misses, 2 (writing nothing) for bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/validation/validation_catalog.h"
#include "sim/registry.h"
#include "sim/text.h"
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
  EXPECT_EQ(names, (std::vector<std::string>{"chiplet", "dram", "gnn", "gpu", "npu", "pim", "silicon", "tech"}));
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

// Every file under `dir` with its bytes.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path().string());
  return files;
}

// Processes whose command line names `text` (a test's scratch directory): a run left behind.
std::vector<int> processes_naming(const std::string& text) {
  std::vector<int> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_file("/proc/" + pid + "/cmdline").find(text) != std::string::npos) found.push_back(std::stoi(pid));
  }
  return found;
}

// An older report (the quick demo suite, no figures) in `out`; returns its files.
std::map<std::string, std::string> older_report(const TempDir& dir, const std::string& out) {
  suite_file(dir, 4096);
  const CommandResult r = run_strata("validate --quick --no-plots --checks '" + dir.file("checks") + "' -o '" + out + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  const auto files = snapshot(out);
  EXPECT_TRUE(files.count("validation.json"));
  EXPECT_TRUE(files.count("runs/demo/requests/summary.json"));
  return files;
}

// A suite whose one run takes minutes (20 million DRAM requests).
std::string slow_suite(const TempDir& dir) {
  dir.write("slow/slow.yaml", "suite: slow\ntitle: slow\nchecks:\n  - id: stream\n    what: w\n    unit: requests\n"
                              "    source: s\n    experiment: " + source_path("configs/experiments/dram-ddr4-stream.yaml") +
                              "\n    set: {workload.requests: 20000000}\n    metric: requests\n    reference: 1\n"
                              "    tolerance: 5%\n    asserted: false\n");
  return dir.file("slow");
}

// `strata validate` of the slow suite into `out`, stopped by `signals` (one or two, `gap_s`
// apart) once its run is simulating; returns the exit code.
int interrupted_validate(const TempDir& dir, const std::string& out, const std::vector<std::string>& signals,
                         const std::string& gap_s = "0.02") {
  std::string kills;
  for (size_t i = 0; i < signals.size(); ++i) kills += (i ? "sleep " + gap_s + "; " : "") + "kill -" + signals[i] + " $pid; ";
  const std::string cmd = fmt::format(
      "cd '{}' && ('{}' validate --checks '{}' -o '{}' --no-plots -j 1 >/dev/null 2>'{}' & pid=$!; "
      "for i in $(seq 1500); do ls -a '{}'/.staging-*/runs/slow/stream 2>/dev/null | grep -q staging && break; "
      "sleep 0.02; done; sleep 0.3; {}wait $pid; echo $? >'{}')",
      STRATA_SOURCE_DIR, STRATA_BINARY, slow_suite(dir), out, dir.file("err"), out, kills, dir.file("code"));
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return std::stoi(read_file(dir.file("code")));
}

// SIGINT and SIGTERM stop the runs (passed on, waited for), drop the staged report and leave the
// older one byte for byte; no run keeps writing after validate has ended.
TEST(ValidationCli, AnInterruptKeepsTheOlderReportAndLeavesNoRunBehind) {
  for (const auto& [sig, code] : std::vector<std::pair<std::string, int>>{{"INT", 130}, {"TERM", 143}}) {
    TempDir dir;
    const std::string out = dir.file("report");
    const auto before = older_report(dir, out);
    EXPECT_EQ(interrupted_validate(dir, out, {sig}), code) << sig;
    const std::string err = read_file(dir.file("err"));
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_CONTAINS(err, "strata: validate interrupted; the report in " + out + " was left as it was");
    EXPECT_EQ(processes_naming(dir.path().string()), std::vector<int>{}) << sig;
    EXPECT_EQ(snapshot(out), before) << sig;
    EXPECT_EQ(leftovers(out), std::vector<std::string>{}) << sig;
  }
}

// A second signal ends validate at once: its runs are killed and reaped, and its staging
// directory goes too.
TEST(ValidationCli, ASecondSignalLeavesNoStagingAndNoRun) {
  for (const std::string gap : {"0.01", "0.05"}) {
    TempDir dir;
    const std::string out = dir.file("report");
    const auto before = older_report(dir, out);
    EXPECT_EQ(interrupted_validate(dir, out, {"INT", "INT"}, gap), 130) << gap << ": " << read_file(dir.file("err"));
    EXPECT_EQ(processes_naming(dir.path().string()), std::vector<int>{}) << gap;
    EXPECT_EQ(snapshot(out), before) << gap;
    EXPECT_EQ(leftovers(out), std::vector<std::string>{}) << gap;
  }
}

// A write that fails (here `ulimit -f`, as a full disk would; SIGXFSZ is not ignored by the
// shell, strata ignores it) in a run or in the report: exit 1, one line, the older report as it
// was, nothing temporary left.
TEST(ValidationCli, AFailedWriteKeepsTheOlderReport) {
  TempDir dir;
  const std::string out = dir.file("report");
  const auto before = older_report(dir, out);
  for (const char* limit : {"8", "40"}) {
    const std::string cmd = fmt::format(
        "cd '{}' && (ulimit -f {}; exec '{}' validate --checks '{}' -o '{}' -j 1) >/dev/null 2>'{}'", STRATA_SOURCE_DIR,
        limit, STRATA_BINARY, dir.file("checks"), out, dir.file("err"));
    const int status = std::system(cmd.c_str());
    const std::string err = read_file(dir.file("err"));
    ASSERT_TRUE(WIFEXITED(status)) << limit << ": ended by a signal: " << err;
    EXPECT_EQ(WEXITSTATUS(status), 1) << limit << ": " << err;
    // The progress lines of the runs that finished, then the one error line.
    const std::vector<std::string> lines = split(std::string(trim(err)), '\n');
    EXPECT_CONTAINS(lines.back(), "File too large");
    EXPECT_CONTAINS(lines.back(), "nothing was changed in the result directory");
    for (size_t i = 0; i + 1 < lines.size(); ++i) EXPECT_EQ(lines[i].rfind("validate: [", 0), 0u) << err;
    EXPECT_EQ(snapshot(out), before) << limit;
    EXPECT_EQ(leftovers(out), std::vector<std::string>{}) << limit;
  }
}

// Inputs the documentation refuses are refused before the output directory is touched: a suite
// name that is not a directory name (it would write outside the report), a technology node no
// table has, an output directory that cannot be made.
TEST(ValidationCli, BadInputsLeaveTheOlderReportAndEverythingElseAlone) {
  TempDir dir;
  const std::string out = dir.file("report");
  const auto before = older_report(dir, out);
  auto expect_bad = [&](const std::string& args, const std::string& message) {
    const CommandResult r = run_strata("validate " + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_CONTAINS(r.err, message);
    EXPECT_EQ(snapshot(out), before) << args;
  };
  const std::string escape =
      dir.write("escape/e.yaml", "suite: ../../escape\ntitle: t\nchecks:\n  - id: a\n    what: w\n    unit: u\n    source: s\n"
                                 "    experiment: " + kQuickstart + "\n    metric: requests\n    tolerance: 5%\n    reference: 1\n");
  expect_bad("--checks '" + dir.file("escape") + "' -o '" + out + "'", escape + ":1:8: error: suite: must be a name without '/'");
  EXPECT_FALSE(fs::exists(dir.file("escape/a")));
  const std::string tech = dir.write("checks/tech.yaml", "suite: tech2\ntitle: t\nchecks:\n  - id: a\n    what: w\n    unit: pJ\n"
                                                         "    source: s\n    tech: {node: 3nm-nowhere, op: mul.fp32, field: energy_pj}\n"
                                                         "    tolerance: 5%\n    reference: 1\n");
  expect_bad("--checks '" + dir.file("checks") + "' -o '" + out + "'", tech + ":4:5: error: tech.node: unknown technology");
  expect_bad("--checks '" + dir.file("checks") + "' -o '" + out + "'", "tech.node");
  fs::remove(tech);
  // As root too: /proc takes no new directory.
  const CommandResult r = run_strata("validate --quick --no-plots --checks '" + dir.file("checks") + "' -o /proc/strata-report");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_CONTAINS(r.err, "/proc/strata-report: error: -o: cannot create the directory");
}

}  // namespace
}  // namespace strata::testing
