// Energy and area through the binary: summary.json's figures, `strata report` in its three
// formats, the `tech` key (built-in nodes and user tables) and its errors.
#include <fmt/format.h>
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


double value(const json& stats, const std::string& dotted) {
  const json* node = &stats;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    node = &node->at(dotted.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node->at("value").get<double>();
}

}  // namespace

TEST(EnergyReport, SummaryAndStatsAgree) {
  TempDir d;
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o " + d.file("r")).code, 0);
  const json s = json::parse(read_file(d.file("r/summary.json")));
  const json stats = json::parse(read_file(d.file("r/stats.json")));
  for (const char* key : {"energy_j", "area_mm2", "avg_power_w", "peak_power_w"}) EXPECT_TRUE(s.contains(key)) << key;
  // simple_memory: the DDR4 row of the 7 nm table, 16.7 pJ per bit moved, and its PHY.
  const double bits = 8.0 * s["bytes"].get<double>();
  EXPECT_NEAR(value(stats, "hardware.energy.bit"), bits * 16.7e-12, 1e-12 * bits * 1e-3);
  EXPECT_DOUBLE_EQ(value(stats, "hardware.area.phy"), 3.0);
  EXPECT_DOUBLE_EQ(s["area_mm2"].get<double>(), 3.0);
  // Totals: dynamic plus leakage of the declared area over the simulated time.
  const double t = s["simulated_time_s"].get<double>();
  EXPECT_NEAR(value(stats, "hardware.energy.static"), 3.0 * 25e-3 * t, 1e-15);
  EXPECT_DOUBLE_EQ(s["energy_j"].get<double>(), value(stats, "hardware.energy.total") + value(stats, "workload.energy.total"));
  EXPECT_NEAR(s["avg_power_w"].get<double>(), s["energy_j"].get<double>() / t, 1e-9);
  // The power series integrates to the total energy, and the peak is its busiest full window
  // (the series keeps the run's window here: fewer than 1024 windows).
  const json& series = stats["totals"]["power_over_time"];
  const double window = series["window_s"].get<double>();
  EXPECT_DOUBLE_EQ(window, 200e-9);
  double integral = 0, busiest = 0;
  const auto& values = series["values"];
  for (size_t i = 0; i < values.size(); ++i) {
    const bool last = i + 1 == values.size();
    integral += values[i].get<double>() * (last ? t - window * static_cast<double>(i) : window);
    if (!last) busiest = std::max(busiest, values[i].get<double>());
  }
  EXPECT_NEAR(integral, s["energy_j"].get<double>(), 1e-6 * s["energy_j"].get<double>());
  EXPECT_NEAR(s["peak_power_w"].get<double>(), busiest, 1e-9 * busiest);
  EXPECT_GT(s["peak_power_w"].get<double>(), s["avg_power_w"].get<double>());
}

TEST(EnergyReport, ReportFormats) {
  TempDir d;
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o " + d.file("r")).code, 0);
  const Result table = run_strata("report " + d.file("r"));
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("energy by component and event"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("area by component and part"), std::string::npos);
  EXPECT_NE(table.out.find("  phy "), std::string::npos);
  // The trace player is a driver, not hardware: no energy, no area, no row.
  EXPECT_EQ(table.out.find("\nworkload"), std::string::npos) << table.out;

  const Result csv = run_strata("report --format csv " + d.file("r"));
  ASSERT_EQ(csv.code, 0);
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "section,component,item,count,value,unit,share");
  EXPECT_NE(csv.out.find("\nenergy,hardware,bit,2097152,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("\narea,hardware,phy,,3,mm2,1\n"), std::string::npos) << csv.out;

  const Result js = run_strata("report --format json " + d.file("r"));
  ASSERT_EQ(js.code, 0);
  const json j = json::parse(js.out);
  ASSERT_EQ(j["components"].size(), 1u);
  const json& hw = j["components"][0];
  EXPECT_EQ(hw["name"], "hardware");
  double events = 0;
  for (const auto& e : hw["events"]) events += e["energy_j"].get<double>();
  EXPECT_NEAR(events, hw["energy_j"].get<double>(), 1e-12 * hw["energy_j"].get<double>());
  EXPECT_DOUBLE_EQ(j["energy_j"].get<double>(), hw["energy_j"].get<double>());
}

TEST(EnergyReport, GpuLaunchRowsInEveryFormat) {
  TempDir d;
  const std::string e = d.write(
      "e.yaml", "name: g\nhardware: {extends: " + strata::testing::source_path("configs/hardware/gpu/h100-sxm.yaml") +
                    "}\nworkload: {kind: gemm, m: 256, n: 256, k: 512}\n");
  ASSERT_EQ(run_strata("run -q '" + e + "' -o " + d.file("r")).code, 0);
  const json stats = strata::testing::json_file(d.file("r/stats.json"));
  const double tflops = stats["hardware"]["launches"]["gemm"]["tflops"]["value"].get<double>();
  const Result table = run_strata("report " + d.file("r"));
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("hardware.launches: 1 rows"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\ngemm "), std::string::npos) << table.out;
  const Result csv = run_strata("report --format csv " + d.file("r"));
  EXPECT_NE(csv.out.find(fmt::format("\nlaunches,hardware,gemm.tflops,,{:.9g},TFLOP/s,\n", tflops)), std::string::npos)
      << csv.out;
  const json j = json::parse(run_strata("report --format json " + d.file("r")).out);
  ASSERT_EQ(j["launches"].size(), 1u);
  EXPECT_EQ(j["launches"][0]["component"], "hardware");
  EXPECT_DOUBLE_EQ(j["launches"][0]["rows"][0]["tflops"].get<double>(), tflops);
}

TEST(EnergyReport, NotAResultDirectoryExitsTwo) {
  TempDir d;
  const Result r = run_strata("report " + d.path().string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not a complete result directory: no summary.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
  EXPECT_EQ(run_strata("report " + d.file("missing")).code, 2);
  EXPECT_EQ(run_strata("report --format xml " + d.path().string()).code, 2);
}

// One key re-evaluates the design with another table; a user's table is hashed by content.
TEST(EnergyReport, TechKeySelectsTheTable) {
  TempDir d;
  const std::string mine =
      d.write("leaky.yaml",
              "name: leaky\nnode_nm: 7\nsupply: 0.75 V\nsource: test\nscale_from: 7nm\nscaling:\n"
              "  logic_energy: {factor: 1, source: a}\n  logic_area: {factor: 1, source: a}\n"
              "  sram_energy: {factor: 1, source: a}\n  sram_area: {factor: 1, source: a}\n"
              "  wire_energy: {factor: 1, source: a}\n  leakage_density: {factor: 2, source: a}\n");
  ASSERT_EQ(run_strata("run -q " + kQuickstart + " -o " + d.file("a")).code, 0);
  const Result b = run_strata("run -q " + kQuickstart + " -o " + d.file("b") + " --set tech=" + mine);
  ASSERT_EQ(b.code, 0) << b.err;
  const json sa = json::parse(read_file(d.file("a/stats.json"))), sb = json::parse(read_file(d.file("b/stats.json")));
  EXPECT_DOUBLE_EQ(value(sb, "hardware.energy.static"), 2 * value(sa, "hardware.energy.static"));
  EXPECT_DOUBLE_EQ(value(sb, "hardware.energy.bit"), value(sa, "hardware.energy.bit"));
  // The resolved config names the table for the experiment and, inherited, for the hardware.
  const std::string config = read_file(d.file("b/config.yaml"));
  EXPECT_NE(config.find("\ntech: " + mine), std::string::npos) << config;
  EXPECT_NE(config.find("  tech: " + mine), std::string::npos) << config;
  // Editing the table changes the config hash.
  const std::string h1 = run_strata("config --hash " + kQuickstart + " --set tech=" + mine).out;
  d.write("leaky.yaml", read_file(mine) + "# edited\n");
  const std::string h2 = run_strata("config --hash " + kQuickstart + " --set tech=" + mine).out;
  EXPECT_NE(h1, h2);
  EXPECT_NE(run_strata("config --hash " + kQuickstart + " --set tech=45nm").out,
            run_strata("config --hash " + kQuickstart).out);
}

TEST(EnergyReport, BadTechExitsTwoAndWritesNothing) {
  TempDir d;
  Result r = run_strata("run " + kQuickstart + " -o " + d.file("r") + " --set tech=3nm");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("tech: unknown technology '3nm'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
  EXPECT_FALSE(fs::exists(d.file("r")));
  r = run_strata("run " + kQuickstart + " -o " + d.file("r") + " --set hardware.tech=nowhere/x.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hardware.tech: no such file"), std::string::npos) << r.err;
  r = run_strata("run " + kQuickstart + " -o " + d.file("r") + " --set hardware.standard=ddr9");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hardware.standard: no entry 'ddr9'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d.file("r")));
}
