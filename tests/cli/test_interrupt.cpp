// SIGINT during `strata run`: the run stops at the next chunk, exits 130, and leaves only a
// partial-run marker (interrupted.json), never a result that looks complete.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata {
namespace {

using testing::read_file;
using testing::source_path;
using testing::TempDir;
namespace fs = std::filesystem;

TEST(Interrupt, SigintLeavesAPartialRunMarkerAndExits130) {
  TempDir dir;
  const std::string out = dir.file("out");
  fs::create_directories(out);
  // An older complete result in the directory must not survive as if it were this run's.
  std::ofstream(out + "/summary.json") << "{}\n";
  const std::string cmd = "cd '" + std::string(STRATA_SOURCE_DIR) + "' && ('" + std::string(STRATA_BINARY) +
                          "' run configs/experiments/dram-ddr4-stream.yaml --set workload.requests=20000000 -o '" + out +
                          "' --no-progress >/dev/null 2>'" + dir.file("err") + "' & pid=$!; for i in $(seq 1000); do ls -a '" + out + "' | grep -q staging && break; sleep 0.02; done; sleep 0.2; kill -INT $pid; wait $pid; echo $? >'" +
                          dir.file("code") + "')";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(std::stoi(read_file(dir.file("code"))), 130) << read_file(dir.file("err"));
  EXPECT_NE(read_file(dir.file("err")).find("interrupted"), std::string::npos);
  ASSERT_TRUE(fs::exists(out + "/interrupted.json"));
  const auto j = nlohmann::json::parse(read_file(out + "/interrupted.json"));
  EXPECT_EQ(j["status"], "interrupted");
  EXPECT_GT(j["simulated_time_s"].get<double>(), 0);
  EXPECT_LT(j["progress"].get<double>(), 1);
  for (const char* f : {"summary.json", "stats.json", "config.yaml"}) EXPECT_FALSE(fs::exists(out + "/" + f)) << f;
}

}  // namespace
}  // namespace strata
