// The slurm executor against a real single-node Slurm (slurmctld + slurmd + munged started by
// scripts/slurm-cluster under a temporary directory): its results equal the local executor's
// bit for bit, a task that fails is resubmitted, and --submit=no writes a batch script that a
// user can submit by hand and collect. Skipped unless root with slurm-wlm and munge installed.
#include <thread>

#include <gtest/gtest.h>

#include "test_util.h"

namespace strata {
namespace {

using testing::read_file;
using testing::run_strata;
using testing::source_path;
using testing::TempDir;
namespace fs = std::filesystem;

class SweepSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);  // munged
    cluster = dir.file("cluster");
    const std::string cmd = source_path("scripts/slurm-cluster") + " start " + cluster + " >" + dir.file("start.log") + " 2>&1";
    const int status = std::system(cmd.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 77) GTEST_SKIP() << read_file(dir.file("start.log"));
    ASSERT_EQ(code, 0) << read_file(dir.file("start.log"));
    started = true;
    ::setenv("SLURM_CONF", (cluster + "/slurm.conf").c_str(), 1);
    ::setenv("STRATA_EXECUTABLE", STRATA_BINARY, 1);
  }
  void TearDown() override {
    if (!started) return;
    const std::string cmd = source_path("scripts/slurm-cluster") + " stop " + cluster + " >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string sweep_file(const std::string& extra = "", const std::string& slurm = "points_per_task: 4") {
    return dir.write("s.yaml", "extends: " + source_path("configs/experiments/quickstart.yaml") +
                                   "\nname: qs\nsweep:\n"
                                   "  axes:\n"
                                   "    hardware.queue_depth: [4, 8, 16]\n"
                                   "    hardware.latency: [\"20 ns\", \"40 ns\"]\n"
                                   "  objectives: {simulated_time_s: min, energy_j: min}\n"
                                   "  slurm: {poll: \"0.3 s\", " + slurm + "}\n" +
                                   extra);
  }
  // The local executor's results, for comparison.
  std::string local_results(const std::string& sweep) {
    const auto r = run_strata("sweep " + sweep + " -o " + dir.file("local") + " --executor local");
    EXPECT_EQ(r.code, 0) << r.err;
    return read_file(dir.file("local/results.csv"));
  }
  void expect_same_points(const std::string& a, const std::string& b) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(a)) {
      if (!fs::exists(e.path() / "stats.json")) continue;
      ++n;
      const fs::path other = fs::path(b) / e.path().filename();
      EXPECT_EQ(read_file((e.path() / "stats.json").string()), read_file((other / "stats.json").string()));
      EXPECT_EQ(read_file((e.path() / "point.yaml").string()), read_file((other / "point.yaml").string()));
    }
    EXPECT_EQ(n, 6);
  }
  void expect_preempted_point_runs_again(const std::string& when);
  // What a failed sweep left, for the failure message: each point's failed.json and marker, and
  // the array tasks' logs.
  static std::string sweep_leftovers(const std::string& sweep_dir) {
    std::string out;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(sweep_dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name == "failed.json" || name == "interrupted.json" || name == "stderr.log" ||
          e.path().parent_path().filename() == "logs")
        out += "--- " + e.path().string() + "\n" + read_file(e.path().string());
    }
    return out;
  }
  TempDir dir;
  std::string cluster;
  bool started = false;
};

TEST_F(SweepSlurm, JobArrayResultsEqualTheLocalExecutorsBitForBit) {
  const std::string sweep = sweep_file();
  const std::string local = local_results(sweep);
  const auto r = run_strata("sweep " + sweep + " -o " + dir.file("slurm") + " --executor slurm");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "6 ok, 0 failed");
  EXPECT_EQ(read_file(dir.file("slurm/results.csv")), local);
  expect_same_points(dir.file("local"), dir.file("slurm"));
  // 6 points at 4 per task: one array of two tasks.
  EXPECT_CONTAINS(read_file(dir.file("slurm/slurm/round-0.sbatch")), "#SBATCH --array=0-1\n");
  EXPECT_FALSE(fs::exists(dir.file("slurm/slurm/round-1.tasks")));
}

TEST_F(SweepSlurm, FailedPointsAreResubmittedInANewArray) {
  const std::string sweep = sweep_file("  retries: 1\n");
  const std::string local = local_results(sweep);
  // The first attempt of the queue_depth 8 / 40 ns point crashes; its retry succeeds.
  const std::string marker = dir.file("crashed-once");
  const std::string wrap = dir.write("wrap.sh", "#!/bin/bash\n"
                                                "if grep -q 'queue_depth: 8$' \"$2\" && grep -q 'latency: 40 ns' \"$2\" && "
                                                "[ ! -e " + marker + " ]; then touch " + marker + "; kill -SEGV $$; fi\n"
                                                "exec '" + std::string(STRATA_BINARY) + "' \"$@\"\n");
  fs::permissions(wrap, fs::perms::owner_all);
  ::setenv("STRATA_EXECUTABLE", wrap.c_str(), 1);
  const auto r = run_strata("sweep " + sweep + " -o " + dir.file("slurm") + " --executor slurm --points-per-task 2");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(marker));
  // Round 1 reran just the one point.
  EXPECT_EQ(read_file(dir.file("slurm/slurm/round-1.tasks")).find(' '), std::string::npos);
  EXPECT_CONTAINS(read_file(dir.file("slurm/slurm/round-1.sbatch")), "#SBATCH --array=0-0\n");
  EXPECT_EQ(read_file(dir.file("slurm/results.csv")), local);
}

// SIGTERM to a running array task (what Slurm sends on preemption or at its time limit): the
// point it was running is left with interrupted.json, and the driver submits it again without
// using up a retry (retries: 0 here, so only that path can finish the sweep). `when` is what
// the first point's wrapper waits for before the task is preempted; the wrapper also runs the
// array task itself (`strata sweep-task`, its parent), which it leaves alone.
void SweepSlurm::expect_preempted_point_runs_again(const std::string& when) {
  const std::string sweep = dir.write(
      "p.yaml", "extends: " + source_path("configs/experiments/dram-ddr4-stream.yaml") +
                    "\nname: pre\nworkload: {requests: 600000}\nsweep:\n  axes:\n    workload.max_outstanding: [128, 256]\n"
                    "  retries: 0\n  slurm: {poll: \"0.3 s\", points_per_task: 1}\n");
  const std::string marker = dir.file("preempted-once");
  const std::string wrap = dir.write("wrap.sh",
                                     "#!/bin/bash\n"
                                     "if [ \"$1\" = run ] && [ ! -e " +
                                         marker + " ]; then touch " + marker + "\n  " + when +
                                         "\nfi\n"
                                         "exec '" +
                                         std::string(STRATA_BINARY) + "' \"$@\"\n");
  fs::permissions(wrap, fs::perms::owner_all);
  ::setenv("STRATA_EXECUTABLE", wrap.c_str(), 1);
  const auto r = run_strata("sweep " + sweep + " -o " + dir.file("pre") + " --executor slurm");
  ASSERT_EQ(r.code, 0) << r.out << r.err << sweep_leftovers(dir.file("pre"));
  EXPECT_CONTAINS(r.out, "2 ok, 0 failed");
  EXPECT_TRUE(fs::exists(marker));
  ASSERT_TRUE(fs::exists(dir.file("pre/slurm/round-1.tasks")));
  EXPECT_EQ(read_file(dir.file("pre/slurm/round-1.tasks")).find(' '), std::string::npos);
}

// Preempted while simulating: the run has begun writing (its staging directory in the point's
// directory, the wrapper's $4, exists) and leaves its own marker.
TEST_F(SweepSlurm, APreemptedTasksPointRunsAgainWithoutUsingARetry) {
  expect_preempted_point_runs_again(
      "(until compgen -G \"$4/.staging-*\" >/dev/null; do sleep 0.05; done; kill -TERM $PPID) &");
}

// Preempted before the run began writing (here the wrapper is still starting; in a real queue,
// a large design still elaborating): the run ends at once and writes nothing, so the array task
// leaves the marker; the point is not reported lost.
TEST_F(SweepSlurm, APointPreemptedBeforeItsRunWritesRunsAgainToo) {
  expect_preempted_point_runs_again("(sleep 0.3; kill -TERM $PPID) & sleep 30");
}

TEST_F(SweepSlurm, SubmitNoWritesTheBatchScriptForHandSubmissionAndCollect) {
  const std::string local = local_results(sweep_file());
  const std::string sweep = sweep_file("", "partition: debug, mem: 200M");
  const auto r = run_strata("sweep " + sweep + " -o " + dir.file("hand") +
                            " --executor slurm --submit=no --time 5 --account lab --sbatch=--comment=strata --max-parallel 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string script = dir.file("hand/slurm/round-0.sbatch");
  EXPECT_CONTAINS(r.out, script);
  const std::string s = read_file(script);
  for (const char* line : {"#SBATCH --partition=debug\n", "#SBATCH --mem=200M\n", "#SBATCH --time=5\n",
                           "#SBATCH --account=lab\n", "#SBATCH --comment=strata\n", "#SBATCH --array=0-5%2\n"})
    EXPECT_CONTAINS(s, line);
  EXPECT_FALSE(fs::exists(dir.file("hand/results.csv")));
  // The user submits it and collects when the queue is empty.
  ASSERT_EQ(std::system(("sbatch " + script + " >/dev/null").c_str()), 0);
  for (int i = 0; i < 300; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (std::system("test -z \"$(squeue -h)\"") == 0) break;
  }
  const auto c = run_strata("collect " + dir.file("hand"));
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(read_file(dir.file("hand/results.csv")), local);
}

}  // namespace
}  // namespace strata
