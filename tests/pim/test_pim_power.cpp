// A PIM system's power model: its units run at their DRAM's clock (no clocks to manage), so it
// takes the die's temperature and the board's regulators (sim/power_management.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace strata::testing {
namespace {

nlohmann::json gemv(const std::string& sets, const char* file) {
  const std::string exp = "configs/experiments/pim-gemv.yaml";
  TempDir dir;
  const CommandResult r =
      run_strata("run -q " + exp + " " + smoke_settings(exp) + " " + sets + " -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? json_file(dir.file(std::string("out/") + file)) : nlohmann::json::object();
}

TEST(PimPower, TheUnitsLeakAtTheDiesTemperatureAndTheBoardLosesItsShare) {
  const auto static_w = [](const std::string& temperature) {
    return gemv("--set hardware.temperature=" + temperature, "stats.json")["hardware"]["power"]["static"]["value"]
        .get<double>();
  };
  // The table's leakage doubles every 30 K above 25 C (background power does not leak).
  const double plain = static_w("25C"), warm = static_w("55C"), hot = static_w("85C");
  const double leakage = warm - plain;
  ASSERT_GT(leakage, 0);
  EXPECT_NEAR(hot - plain, 3 * leakage, 1e-9 * hot);
  const nlohmann::json board = gemv("--set hardware.delivery_efficiency=0.8", "summary.json");
  const double loss = board["energy_delivery_j"].get<double>();
  EXPECT_NEAR(loss / (board["energy_j"].get<double>() - loss), 0.25, 1e-9);
  // It has no clock of its own: a power limit is not one of its keys.
  TempDir dir;
  const CommandResult r = run_strata("run -q configs/experiments/pim-gemv.yaml --set hardware.power_limit=100W -o '" +
                                     dir.file("out") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "hardware.power_limit");
}

}  // namespace
}  // namespace strata::testing
