// strata rtl-check end to end: the reference systolic tile and MAC PE (tests/rtl/*.v) built
// with Verilator match Strata's reference models on both backends; a one-bit datapath mutation
// and a one-cycle timing mutation are caught with the right cycle, port and values; a recorded
// stimulus replays; bad specs fail before anything is compiled. Builds are cached in the build
// tree (STRATA_RTL_CACHE), so only the first run compiles.
#include <algorithm>
#include <chrono>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata {
namespace {

using testing::read_file;
using testing::run_strata;
using testing::source_path;
using testing::TempDir;
namespace fs = std::filesystem;

class RtlCheck : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("STRATA_RTL_CACHE", STRATA_RTL_CACHE, 1); }
  // The shipped example with `extra` appended to its rtl: section and `backend` set.
  std::string spec(const std::string& rtl_extra = "", const std::string& backend = "cpp", const std::string& streams_c_extra = "") {
    std::string text = read_file(source_path("configs/rtl/systolic-4x4.yaml"));
    text = std::regex_replace(text, std::regex("\\.\\./\\.\\./tests/rtl/"), source_path("tests/rtl/"));
    text = std::regex_replace(text, std::regex("backend: both"), "backend: " + backend);
    text = std::regex_replace(text, std::regex("  clock: clk\n"), "  clock: clk\n" + rtl_extra);
    if (!streams_c_extra.empty())
      text = std::regex_replace(text, std::regex("latency_tolerance: 0"), streams_c_extra);
    return dir.write("check.yaml", text);
  }
  nlohmann::json report(const std::string& out) { return nlohmann::json::parse(read_file(out + "/report.json")); }
  TempDir dir;
};

TEST_F(RtlCheck, SystolicTileMatchesTheModelOnBothBackends) {
  const auto r = run_strata("rtl-check " + source_path("configs/rtl/systolic-4x4.yaml") + " -o " + dir.file("out"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = report(dir.file("out"));
  EXPECT_TRUE(j["match"].get<bool>());
  for (const char* b : {"systemc", "cpp"}) {
    const auto& x = j["backends"][b];
    EXPECT_TRUE(x["match"].get<bool>()) << b;
    EXPECT_EQ(x["model"]["latency_cycles"], x["rtl"]["latency_cycles"]);
    EXPECT_GT(x["cycles_per_second"].get<double>(), 0);
    for (const auto& s : x["streams"]) {
      EXPECT_EQ(s["expected_beats"], s["actual_beats"]);
      EXPECT_EQ(s["value_mismatches"], 0);
    }
  }
  // 64 tiles of 4 rows.
  EXPECT_EQ(j["expected_output_beats"], 256);
  EXPECT_FALSE(fs::exists(dir.file("out/divergence.vcd")));
  // The recorded stimulus replays to the same result.
  std::string text = read_file(spec());
  text = std::regex_replace(text, std::regex("  generate: .*\n"), "  file: " + dir.file("out/stimulus.txt") + "\n");
  const std::string replay = dir.write("replay.yaml", text);
  const auto again = run_strata("rtl-check " + replay + " -o " + dir.file("replay"));
  ASSERT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_EQ(read_file(dir.file("replay/events-cpp.txt")).substr(0, 2000), read_file(dir.file("out/events-cpp.txt")).substr(0, 2000));
}

TEST_F(RtlCheck, AOneBitDatapathBugIsCaughtAtItsCyclePortAndValue) {
  const auto r = run_strata("rtl-check " + spec("  defines: [MUTATE_DATAPATH]\n") + " -o " + dir.file("out"));
  ASSERT_EQ(r.code, 3) << r.out << r.err;
  const auto d = report(dir.file("out"))["backends"]["cpp"]["first_divergence"];
  EXPECT_EQ(d["what"], "value");
  EXPECT_EQ(d["stream"], "c");
  EXPECT_EQ(d["port"], "c_data[31:0]");  // C[r][0], from PE(0,0)
  EXPECT_EQ(d["beat"], 0);
  // Expected and actual differ in bit 0 only.
  const long long expected = std::stoll(d["expected"].get<std::string>());
  const long long actual = std::stoll(d["actual"].get<std::string>());
  EXPECT_EQ(expected ^ actual, 1);
  // The cycle is the model's first output beat (timing is unchanged).
  const auto model = read_file(dir.file("out/events-model.txt"));
  const size_t c = model.find("fire c ");
  ASSERT_NE(c, std::string::npos);
  EXPECT_EQ(std::to_string(d["cycle"].get<long long>()), model.substr(c + 7, model.find(' ', c + 7) - c - 7));
  EXPECT_CONTAINS(r.out, "first divergence at cycle");
  // A waveform around it.
  const std::string vcd = read_file(dir.file("out/divergence.vcd"));
  EXPECT_CONTAINS(vcd, "$var");
  EXPECT_CONTAINS(vcd, "c_data");
  EXPECT_CONTAINS(vcd, "#");
}

TEST_F(RtlCheck, AOneCycleTimingBugIsCaughtAsOneCycleLateWithCorrectValues) {
  const auto r = run_strata("rtl-check " + spec("  defines: [MUTATE_TIMING]\n") + " -o " + dir.file("out"));
  ASSERT_EQ(r.code, 3) << r.out << r.err;
  const auto x = report(dir.file("out"))["backends"]["cpp"];
  EXPECT_EQ(x["first_divergence"]["what"], "timing");
  EXPECT_EQ(x["first_divergence"]["stream"], "c");
  for (const auto& s : x["streams"]) EXPECT_EQ(s["value_mismatches"], 0) << s;
  // The first row of the first tile is exactly one cycle late (later tiles start later too, as
  // the late drain delays the next tile's inputs, so the error grows from there).
  const auto& d = x["first_divergence"];
  EXPECT_EQ(d["beat"], 0);
  EXPECT_EQ(d["actual"].get<std::string>(), "at cycle " + std::to_string(d["cycle"].get<long long>() + 1));
  // With one cycle of output tolerance the outputs pass, and the check moves on to the next
  // tile's inputs, which the late drain also delays: accepting inputs is timing too.
  const auto tol = run_strata("rtl-check " + spec("  defines: [MUTATE_TIMING]\n", "cpp", "latency_tolerance: 1") + " -o " +
                              dir.file("tol"));
  ASSERT_EQ(tol.code, 3) << tol.out;
  EXPECT_EQ(report(dir.file("tol"))["backends"]["cpp"]["first_divergence"]["stream"], "a");
}

TEST_F(RtlCheck, MacPeMatchesItsModel) {
  const std::string s = dir.write("mac.yaml",
                                  "name: mac\nrtl:\n  sources: [" + source_path("tests/rtl/mac_pe.v") +
                                      "]\n  top: mac_pe\n  clock: clk\n  reset: {port: rst_n, active: low}\n"
                                      "model: {kind: mac_pe}\n"
                                      "streams:\n  in: {valid: in_valid, ready: in_ready, data: [a, b], last: in_last}\n"
                                      "  out: {valid: out_valid, ready: out_ready, data: out_data}\n"
                                      "stimulus:\n  generate: {transactions: 200, length: 9, seed: 4, bubbles: 0.2, stalls: 0.3}\n"
                                      "backend: cpp\n");
  const auto r = run_strata("rtl-check " + s + " -o " + dir.file("out"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(report(dir.file("out"))["expected_output_beats"], 200);
}

TEST_F(RtlCheck, BadSpecsFailBeforeAnythingIsCompiled) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::regex_replace(read_file(spec()), std::regex("valid: a_valid"), "valid: a_vld"),
       "streams.a.valid: module 'systolic_tile' has no port 'a_vld'"},
      {std::regex_replace(read_file(spec()), std::regex("rows: 4"), "rows: 8"),
       "streams.a.data: port 'a_data' is 32 bits wide; the model's stream 'a' carries 8 x 8-bit elements = 64 bits"},
      {std::regex_replace(read_file(spec()), std::regex("kind: systolic_array"), "kind: systolic_arary"),
       "model.kind: unknown reference model 'systolic_arary'"},
      {std::regex_replace(read_file(spec()), std::regex("  top: systolic_tile"), "  top: systolic_tile\n  topp: x"),
       "rtl.topp: unknown key"},
      {std::regex_replace(read_file(spec()), std::regex("data: c_data, last: c_last, "), "data: c_data, "),
       "streams.c.last: missing"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string s = dir.write("bad.yaml", text);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run_strata("rtl-check " + s + " -o " + dir.file("bad"));
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_CONTAINS(r.err, "bad.yaml:");
    EXPECT_CONTAINS(r.err, expected);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(secs, 5) << "a bad spec should fail before compiling";
    EXPECT_FALSE(fs::exists(dir.file("bad/events-model.txt")));
  }
}

}  // namespace
}  // namespace strata
