// `strata sweep` and `strata collect` end to end with the local executor: the store, reruns
// that do no work, crashed and timed-out points, a driver killed mid-way and resumed, and bad
// sweep files that fail before any point runs. Points run the quickstart experiment (~20 ms).
#include <csignal>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "test_util.h"

namespace strata {
namespace {

using testing::read_file;
using testing::run_strata;
using testing::source_path;
using testing::TempDir;
namespace fs = std::filesystem;

std::string sweep_text(const std::string& extra = "") {
  return "extends: " + source_path("configs/experiments/quickstart.yaml") +
         "\nname: qs\nsweep:\n"
         "  axes:\n"
         "    hardware.queue_depth: [4, 8, 16, 32]\n"
         "    hardware.latency: [\"20 ns\", \"40 ns\"]\n"
         "  objectives: {simulated_time_s: min, energy_j: min}\n"
         "  outputs: {edp: \"simulated_time_s * energy_j\"}\n" +
         extra;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

std::vector<std::string> split_csv_simple(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else cur += c;
  }
  out.push_back(cur);
  return out;
}

// Rows of results.csv by column name.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& path) {
  const auto ls = lines(read_file(path));
  std::vector<std::map<std::string, std::string>> rows;
  if (ls.empty()) return rows;
  const auto head = split_csv_simple(ls[0]);
  for (size_t i = 1; i < ls.size(); ++i) {
    const auto cells = split_csv_simple(ls[i]);
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < head.size() && c < cells.size(); ++c) row[head[c]] = cells[c];
    rows.push_back(row);
  }
  return rows;
}

int sqlite_count(const std::string& db_path, const std::string& where = "") {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  const std::string q = "SELECT COUNT(*) FROM points" + (where.empty() ? "" : " WHERE " + where);
  EXPECT_EQ(sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

// A wrapper run instead of strata for each point ($STRATA_EXECUTABLE): it logs the point it
// starts to `log`, then runs `body` (bash, with $yaml the point file), then strata itself.
std::string wrapper(const TempDir& dir, const std::string& body) {
  const std::string path = dir.write("wrap.sh", "#!/bin/bash\nyaml=\"$2\"\necho \"$(basename \"$(dirname \"$yaml\")\")\" >> " +
                                                    dir.file("starts.log") + "\n" + body + "\nexec '" +
                                                    std::string(STRATA_BINARY) + "' \"$@\"\n");
  fs::permissions(path, fs::perms::owner_all);
  ::setenv("STRATA_EXECUTABLE", path.c_str(), 1);
  return path;
}

TEST(SweepCli, DryRunListsPointsAndHashesAndWritesNothing) {
  TempDir dir;
  const std::string sweep = dir.write("s.yaml", sweep_text());
  const auto r = run_strata("sweep " + sweep + " --dry-run -o " + dir.file("out"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "qs: 8 points (grid over 2 axes)");
  EXPECT_EQ(lines(r.out).size(), 10u);  // summary, header, 8 points
  EXPECT_FALSE(fs::exists(dir.file("out")));
  // The hashes are those `strata run` gives each point.
  const auto cfg = run_strata("config " + source_path("configs/experiments/quickstart.yaml") +
                              " --hash --set name=qs --set hardware.queue_depth=4 --set 'hardware.latency=20 ns'");
  EXPECT_CONTAINS(r.out, lines(cfg.out).at(0));
}

TEST(SweepCli, RunWritesTheStoreAndAnUnchangedRerunDoesNoWork) {
  TempDir dir;
  wrapper(dir, "");
  const std::string sweep = dir.write("s.yaml", sweep_text());
  const std::string out = dir.file("out");
  const auto r = run_strata("sweep " + sweep + " -o " + out + " --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "8 ok, 0 failed");
  const auto rows = csv_rows(out + "/results.csv");
  ASSERT_EQ(rows.size(), 8u);
  std::set<std::string> hashes;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("status"), "ok");
    EXPECT_EQ(row.at("fidelity"), "cycle");
    EXPECT_TRUE(fs::exists(out + "/" + row.at("path") + "/summary.json"));
    EXPECT_DOUBLE_EQ(std::stod(row.at("edp")), std::stod(row.at("simulated_time_s")) * std::stod(row.at("energy_j")));
    hashes.insert(row.at("hash"));
  }
  EXPECT_EQ(hashes.size(), 8u);
  EXPECT_EQ(rows[0].at("hardware.queue_depth"), "4");
  EXPECT_EQ(rows[1].at("hardware.latency"), "40 ns");
  EXPECT_EQ(sqlite_count(out + "/results.sqlite"), 8);
  EXPECT_EQ(sqlite_count(out + "/results.sqlite", "status = 'ok' AND energy_j > 0"), 8);
  EXPECT_GE(csv_rows(out + "/pareto.csv").size(), 1u);
  EXPECT_EQ(lines(read_file(dir.file("starts.log"))).size(), 8u);

  const std::string csv = read_file(out + "/results.csv");
  const auto again = run_strata("sweep " + sweep + " -o " + out);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(lines(read_file(dir.file("starts.log"))).size(), 8u) << "a rerun started points";
  EXPECT_EQ(read_file(out + "/results.csv"), csv);

  // The store is rebuilt from the per-point files alone.
  for (const char* f : {"results.csv", "results.sqlite", "pareto.csv"}) fs::remove(out + "/" + f);
  const auto c = run_strata("collect " + out);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(read_file(out + "/results.csv"), csv);
  EXPECT_EQ(sqlite_count(out + "/results.sqlite"), 8);
}

TEST(SweepCli, CrashedAndTimedOutPointsAreRetriedThenReportedAndTheRestComplete) {
  TempDir dir;
  wrapper(dir,
          "grep -q 'queue_depth: 8$' \"$yaml\" && grep -q 'latency: 20 ns' \"$yaml\" && kill -SEGV $$\n"
          "grep -q 'queue_depth: 16$' \"$yaml\" && grep -q 'latency: 40 ns' \"$yaml\" && sleep 30\n");
  // 3 s: long for a good point even under the sanitizers on a loaded 2-core machine (at 1 s one
  // was timed out and retried there), short for the one that sleeps 30 s.
  const std::string sweep = dir.write("s.yaml", sweep_text("  timeout: 3 s\n  retries: 1\n"));
  const std::string out = dir.file("out");
  const auto r = run_strata("sweep " + sweep + " -o " + out + " --jobs 2");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "6 ok, 2 failed");
  int failed = 0;
  for (const auto& row : csv_rows(out + "/results.csv")) {
    if (row.at("status") == "ok") continue;
    ++failed;
    const std::string& err = row.at("error");
    if (row.at("hardware.queue_depth") == "8") EXPECT_CONTAINS(err, "killed by signal 11");
    else EXPECT_CONTAINS(err, "timed out");
    EXPECT_EQ(row.at("energy_j"), "");
    const std::string failed_json = read_file(out + "/" + row.at("path") + "/failed.json");
    EXPECT_CONTAINS(failed_json, "\"attempts\": 2");
  }
  EXPECT_EQ(failed, 2);
  // 6 good points once, 2 bad ones twice (one retry each).
  EXPECT_EQ(lines(read_file(dir.file("starts.log"))).size(), 10u);
  // A plain rerun keeps the failures; --resume tries them again.
  EXPECT_EQ(run_strata("sweep " + sweep + " -o " + out).code, 3);
  EXPECT_EQ(lines(read_file(dir.file("starts.log"))).size(), 10u);
  ::setenv("STRATA_EXECUTABLE", STRATA_BINARY, 1);
  const auto resumed = run_strata("sweep " + sweep + " -o " + out + " --resume");
  EXPECT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_CONTAINS(resumed.out, "8 ok, 0 failed");
}

TEST(SweepCli, ADriverKilledMidwayAndResumedRunsEveryPointExactlyOnce) {
  TempDir dir;
  wrapper(dir, "sleep 0.3\n");
  const std::string sweep = dir.write("s.yaml", sweep_text());
  const std::string out = dir.file("out");
  // Start the driver in the background and SIGKILL it once some points are done.
  const std::string cmd = "'" + std::string(STRATA_BINARY) + "' sweep " + sweep + " -o " + out +
                          " --jobs 2 >/dev/null 2>&1 & echo $! > " + dir.file("pid");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const pid_t pid = std::stoi(read_file(dir.file("pid")));
  auto done = [&] {
    int n = 0;
    if (fs::exists(out))
      for (const auto& e : fs::directory_iterator(out)) n += fs::exists(e.path() / "summary.json");
    return n;
  };
  for (int i = 0; i < 400 && done() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(done(), 3);
  ASSERT_LT(done(), 8) << "the sweep finished before it could be killed";
  ::kill(pid, SIGKILL);
  const auto r = run_strata("sweep " + sweep + " -o " + out + " --resume --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "8 ok, 0 failed");
  // Every point started exactly once: those the killed driver left running were waited for.
  const auto starts = lines(read_file(dir.file("starts.log")));
  EXPECT_EQ(starts.size(), 8u);
  EXPECT_EQ(std::set<std::string>(starts.begin(), starts.end()).size(), 8u);
  const auto rows = csv_rows(out + "/results.csv");
  ASSERT_EQ(rows.size(), 8u);
  std::set<std::string> hashes;
  for (const auto& row : rows) hashes.insert(row.at("hash"));
  EXPECT_EQ(hashes.size(), 8u);
  EXPECT_EQ(sqlite_count(out + "/results.sqlite"), 8);
  // No temporary files are left behind.
  for (const auto& e : fs::recursive_directory_iterator(out))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(SweepCli, MalformedSweepFilesFailBeforeAnyPointRuns) {
  TempDir dir;
  wrapper(dir, "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {sweep_text("  methd: grid\n"), "s.yaml:9:10: error: sweep.methd: unknown key"},
      {sweep_text("  constraints: [\"hardware.queue_depth >< 3\"]\n"), "sweep.constraints"},
      {"extends: " + source_path("configs/experiments/quickstart.yaml") +
           "\nsweep:\n  axes:\n    hardware.queue_depth: [8, -1]\n",
       "hardware.queue_depth"},
      {"extends: " + source_path("configs/experiments/quickstart.yaml") + "\n", "sweep: missing"},
      {"extends: " + source_path("configs/experiments/quickstart.yaml") +
           "\nsweep:\n  axes:\n    hardware.queue_depth: [8]\n  outputs: {bad: \"energy_j *\"}\n",
       "sweep.outputs.bad"},
      // Names that would collide with the results' own columns, and labels that are not one line.
      {"extends: " + source_path("configs/experiments/quickstart.yaml") +
           "\nsweep:\n  axes:\n    hardware.queue_depth: {values: [8], name: status}\n",
       "'status' is a column of every sweep's results"},
      {"extends: " + source_path("configs/experiments/quickstart.yaml") +
           "\nsweep:\n  axes:\n    hardware.queue_depth: [8]\n  outputs: {energy_j: \"latency_s * 2\"}\n",
       "sweep.outputs.energy_j: 'energy_j' is a column of every sweep's results"},
      {"extends: " + source_path("configs/experiments/quickstart.yaml") +
           "\nsweep:\n  axes:\n    hardware.queue_depth: {values: {\"a\\nb\": 8}}\n",
       "holds a control character (byte 0x0A)"},
      // A later point fails: the points already expanded are removed again.
      {"extends: " + source_path("configs/experiments/quickstart.yaml") +
           "\nsweep:\n  axes:\n    hardware.queue_depth: [8, 16, 32, -1]\n",
       "hardware.queue_depth"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string sweep = dir.write("s.yaml", text);
    const auto r = run_strata("sweep " + sweep + " -o " + dir.file("out"));
    EXPECT_EQ(r.code, 2) << text;
    EXPECT_CONTAINS(r.err, expected);
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_FALSE(fs::exists(dir.file("out"))) << text;
  }
  EXPECT_FALSE(fs::exists(dir.file("starts.log")));
}

TEST(SweepCli, RandomSampleIsReproducibleFromItsSeed) {
  TempDir dir;
  const std::string text = "extends: " + source_path("configs/experiments/quickstart.yaml") +
                           "\nname: r\nsweep:\n  method: random\n  samples: 5\n  seed: 3\n  axes:\n"
                           "    hardware.latency: {range: [\"10 ns\", \"100 ns\"], scale: log}\n"
                           "    hardware.queue_depth: [4, 8, 16]\n";
  const std::string sweep = dir.write("s.yaml", text);
  const auto a = run_strata("sweep " + sweep + " --dry-run");
  const auto b = run_strata("sweep " + sweep + " --dry-run");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(lines(a.out).size(), 7u);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

TEST(SweepCli, TwoStageScreensAnalyticallyThenRunsTheBestAtCycleLevel) {
  TempDir dir;
  ::setenv("STRATA_EXECUTABLE", STRATA_BINARY, 1);
  const std::string out = dir.file("out");
  const auto r = run_strata("sweep " + source_path("configs/sweeps/npu-array-quant.yaml") +
                            " --set workload.prompt_len=16 --set workload.model.layers=1 --jobs 2 -o " + out);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "screened points go on to cycle level");
  EXPECT_CONTAINS(r.out, "Kendall tau");
  const auto rows = csv_rows(out + "/results.csv");
  int analytic = 0, cycle = 0;
  for (const auto& row : rows) (row.at("fidelity") == "analytic" ? analytic : cycle)++;
  EXPECT_EQ(analytic, 12);
  EXPECT_GE(cycle, 4);  // the top 4 by latency, and the analytic front
  EXPECT_LT(cycle, 12);
  for (const auto& row : csv_rows(out + "/pareto.csv")) EXPECT_EQ(row.at("fidelity"), "cycle");
  // ranking.csv: one row per cycle-level point and objective, ranks 1..n.
  const auto ranking = csv_rows(out + "/ranking.csv");
  EXPECT_EQ(static_cast<int>(ranking.size()), cycle * 3);
  for (const auto& row : ranking) {
    EXPECT_GE(std::stoi(row.at("analytic_rank")), 1);
    EXPECT_LE(std::stoi(row.at("cycle_rank")), cycle);
  }
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// A summary.json damaged after the point ran is no result: the next run of the sweep runs the
// point again instead of reporting it failed for good.
TEST(SweepCli, ADamagedSummaryIsRunAgain) {
  TempDir dir;
  const std::string sweep = dir.write("s.yaml", sweep_text());
  const std::string out = dir.file("out");
  ASSERT_EQ(run_strata("sweep " + sweep + " -o " + out + " --jobs 2").code, 0);
  const auto rows = csv_rows(out + "/results.csv");
  const std::string damaged = out + "/" + rows.at(3).at("path") + "/summary.json";
  std::ofstream(damaged) << "{\"status\": \"comp";
  wrapper(dir, "");
  const auto again = run_strata("sweep " + sweep + " -o " + out + " --resume");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_CONTAINS(again.out, "8 ok, 0 failed");
  EXPECT_EQ(lines(read_file(dir.file("starts.log"))), std::vector<std::string>{rows.at(3).at("path")});
  EXPECT_EQ(testing::json_file(damaged)["status"], "complete");
}

// `strata collect` does not run points: one whose summary.json is there but is no result (cut
// short, a number beyond a double) is named, with exit 2, and the store it would have rebuilt a
// row short stays as it was.
TEST(SweepCli, CollectNamesAPointWhoseSummaryIsDamagedAndKeepsTheStore) {
  TempDir dir;
  ::setenv("STRATA_EXECUTABLE", STRATA_BINARY, 1);
  const std::string sweep = dir.write("s.yaml", sweep_text());
  const std::string out = dir.file("out");
  ASSERT_EQ(run_strata("sweep " + sweep + " -o " + out + " --jobs 2").code, 0);
  const auto rows = csv_rows(out + "/results.csv");
  const std::string csv = read_file(out + "/results.csv");
  const std::string summary = out + "/" + rows.at(5).at("path") + "/summary.json";
  const std::string good = read_file(summary);
  const std::vector<std::pair<std::string, std::string>> damages = {
      {good.substr(0, good.size() / 2), "summary.json is damaged: not valid JSON"},
      {"{\n  \"status\": \"complete\",\n  \"energy_j\": 1e999\n}\n", ":3: error: point 5: summary.json is damaged: not valid JSON: number overflow"},
      {"[1, 2]\n", "summary.json is damaged: not a JSON object"},
      {"", "summary.json is damaged: empty"}};
  for (const auto& [text, message] : damages) {
    std::ofstream(summary, std::ios::trunc) << text;
    const auto c = run_strata("collect " + out);
    EXPECT_EQ(c.code, 2) << c.out << c.err;
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
    EXPECT_CONTAINS(c.err, summary);
    EXPECT_CONTAINS(c.err, "point 5");
    EXPECT_CONTAINS(c.err, message);
    EXPECT_EQ(read_file(out + "/results.csv"), csv);
    EXPECT_EQ(sqlite_count(out + "/results.sqlite"), 8);
  }
  // A store that cannot be written (`ulimit -f`, as a full disk; SIGXFSZ is ignored by strata
  // itself): exit 1, one line, the older store as it was and no temporary file.
  std::ofstream(summary, std::ios::trunc) << good;
  for (const char* limit : {"1", "6"}) {
    const std::string cmd = "cd '" + out + "' && (ulimit -f " + limit + "; exec '" + STRATA_BINARY + "' collect '" + out +
                            "') >/dev/null 2>'" + dir.file("err") + "'";
    const int status = std::system(cmd.c_str());
    const std::string err = read_file(dir.file("err"));
    ASSERT_TRUE(WIFEXITED(status)) << limit << ": " << err;
    EXPECT_EQ(WEXITSTATUS(status), 1) << limit << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(read_file(out + "/results.csv"), csv) << limit;
    EXPECT_EQ(sqlite_count(out + "/results.sqlite"), 8) << limit;
    for (const auto& e : fs::directory_iterator(out))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  // The sweep itself runs such a point again (SweepCli.ADamagedSummaryIsRunAgain), and collect
  // is then whole.
  ASSERT_EQ(run_strata("sweep " + sweep + " -o " + out).code, 0);
  const auto c = run_strata("collect " + out);
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(read_file(out + "/results.csv"), csv);
}

// A point that crashes with several lines on stderr (a SystemC report: the error, then "In
// file:" and "In process:") records its error: line, not the last line.
TEST(SweepCli, AFailedPointsErrorIsItsOwnErrorLine) {
  TempDir dir;
  wrapper(dir,
          "if grep -q 'queue_depth: 8$' \"$yaml\"; then\n"
          "  printf 'strata: internal error: Error: (E549) uncaught exception: the design deadlocked\\n"
          "In file: ../src/sysc/kernel/sc_except.cpp:101\\nIn process: graph_launcher @ 0 s\\n' >&2\n"
          "  exit 1\nfi\n");
  const std::string sweep = dir.write("s.yaml", sweep_text("  retries: 0\n"));
  const std::string out = dir.file("out");
  const auto r = run_strata("sweep " + sweep + " -o " + out + " --jobs 2");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  int failed = 0;
  for (const auto& row : csv_rows(out + "/results.csv")) {
    if (row.at("status") == "ok") continue;
    ++failed;
    EXPECT_EQ(row.at("error"),
              "exit code 1: strata: internal error: Error: (E549) uncaught exception: the design deadlocked");
  }
  EXPECT_EQ(failed, 2);
  ::setenv("STRATA_EXECUTABLE", STRATA_BINARY, 1);
}

}  // namespace
}  // namespace strata
