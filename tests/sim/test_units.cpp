#include <gtest/gtest.h>

#include "sim/units.h"

using strata::parse_quantity;
using strata::UnitError;
using strata::UnitFamily;

TEST(Units, Frequency) {
  EXPECT_DOUBLE_EQ(parse_quantity("1.6 GHz", UnitFamily::Frequency), 1.6e9);
  EXPECT_DOUBLE_EQ(parse_quantity("1600MHz", UnitFamily::Frequency), 1.6e9);
  EXPECT_DOUBLE_EQ(parse_quantity("100 kHz", UnitFamily::Frequency), 1e5);
  EXPECT_DOUBLE_EQ(parse_quantity("  2e9 Hz ", UnitFamily::Frequency), 2e9);
}

TEST(Units, Time) {
  EXPECT_DOUBLE_EQ(parse_quantity("625 ps", UnitFamily::Time), 625e-12);
  EXPECT_DOUBLE_EQ(parse_quantity("1.5 ns", UnitFamily::Time), 1.5e-9);
  EXPECT_DOUBLE_EQ(parse_quantity("3 us", UnitFamily::Time), 3e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("3 µs", UnitFamily::Time), 3e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("2 ms", UnitFamily::Time), 2e-3);
  EXPECT_DOUBLE_EQ(parse_quantity("1 s", UnitFamily::Time), 1.0);
  EXPECT_DOUBLE_EQ(parse_quantity("7 fs", UnitFamily::Time), 7e-15);
}

TEST(Units, SizeDecimalBinaryAndBits) {
  EXPECT_DOUBLE_EQ(parse_quantity("64 KiB", UnitFamily::Size), 65536);
  EXPECT_DOUBLE_EQ(parse_quantity("32 MiB", UnitFamily::Size), 32.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_quantity("2 GiB", UnitFamily::Size), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_quantity("1 kB", UnitFamily::Size), 1000);
  EXPECT_DOUBLE_EQ(parse_quantity("1 KB", UnitFamily::Size), 1000);
  EXPECT_DOUBLE_EQ(parse_quantity("64 B", UnitFamily::Size), 64);
  EXPECT_DOUBLE_EQ(parse_quantity("8 Gb", UnitFamily::Size), 1e9);
  EXPECT_DOUBLE_EQ(parse_quantity("16 bit", UnitFamily::Size), 2);
}

TEST(Units, Bandwidth) {
  EXPECT_DOUBLE_EQ(parse_quantity("3.35 TB/s", UnitFamily::Bandwidth), 3.35e12);
  EXPECT_DOUBLE_EQ(parse_quantity("25.6 GB/s", UnitFamily::Bandwidth), 25.6e9);
  EXPECT_DOUBLE_EQ(parse_quantity("1 GiB/s", UnitFamily::Bandwidth), 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_quantity("6.4 Gb/s", UnitFamily::Bandwidth), 0.8e9);
  EXPECT_DOUBLE_EQ(parse_quantity("10 Gbps", UnitFamily::Bandwidth), 1.25e9);
}

TEST(Units, EnergyPowerAreaVoltageCurrent) {
  EXPECT_DOUBLE_EQ(parse_quantity("12 pJ", UnitFamily::Energy), 12e-12);
  EXPECT_DOUBLE_EQ(parse_quantity("0.5 nJ", UnitFamily::Energy), 0.5e-9);
  EXPECT_DOUBLE_EQ(parse_quantity("3 fJ", UnitFamily::Energy), 3e-15);
  EXPECT_DOUBLE_EQ(parse_quantity("365 mW", UnitFamily::Power), 0.365);
  EXPECT_DOUBLE_EQ(parse_quantity("2 kW", UnitFamily::Power), 2000);
  EXPECT_DOUBLE_EQ(parse_quantity("6.51 mm2", UnitFamily::Area), 6.51);
  EXPECT_DOUBLE_EQ(parse_quantity("6.51 mm^2", UnitFamily::Area), 6.51);
  EXPECT_DOUBLE_EQ(parse_quantity("1288 um2", UnitFamily::Area), 1288e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("1288 µm²", UnitFamily::Area), 1288e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("1.2 V", UnitFamily::Voltage), 1.2);
  EXPECT_DOUBLE_EQ(parse_quantity("55 mA", UnitFamily::Current), 0.055);
}

// Expects parse_quantity to throw with a message containing `needle`.
static void expect_error(const std::string& text, UnitFamily f, const std::string& needle) {
  try {
    parse_quantity(text, f);
    FAIL() << "no error for \"" << text << "\"";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Units, BadUnits) {
  expect_error("1.6", UnitFamily::Frequency, "has no unit");
  expect_error("", UnitFamily::Frequency, "empty");
  expect_error("GHz", UnitFamily::Frequency, "expected a frequency");
  expect_error("1.6 GHz", UnitFamily::Time, "is a frequency, expected a time");
  expect_error("50 nz", UnitFamily::Time, "unknown unit \"nz\"");
  expect_error("1.6 ghz", UnitFamily::Frequency, "did you mean \"GHz\"");
  expect_error("64 kib", UnitFamily::Size, "did you mean \"KiB\"");
  expect_error("1..6 GHz", UnitFamily::Frequency, "unknown unit");
  expect_error("12 parsecs", UnitFamily::Energy, "unknown unit");
  expect_error("inf GHz", UnitFamily::Frequency, "not a finite number");
}

// Temperatures are kelvins; degrees Celsius are offset, not scaled.
TEST(Units, TemperaturesAreKelvins) {
  EXPECT_DOUBLE_EQ(parse_quantity("338 K", UnitFamily::Temperature), 338);
  EXPECT_DOUBLE_EQ(parse_quantity("65 C", UnitFamily::Temperature), 338.15);
  EXPECT_DOUBLE_EQ(parse_quantity("-40 °C", UnitFamily::Temperature), 233.15);
  expect_error("65 W", UnitFamily::Temperature, "is a power, expected a temperature");
}

TEST(Units, FormatRoundTrips) {
  EXPECT_EQ(strata::format_quantity(1.6e9, UnitFamily::Frequency), "1.6 GHz");
  EXPECT_EQ(strata::format_quantity(65536, UnitFamily::Size), "64 KiB");
  EXPECT_EQ(strata::format_quantity(625e-12, UnitFamily::Time), "625 ps");
  EXPECT_EQ(strata::format_quantity(0, UnitFamily::Energy), "0 J");
  for (const char* s : {"1.6 GHz", "625 ps", "64 KiB", "3.35 TB/s", "12 pJ", "365 mW"}) {
    for (UnitFamily f : {UnitFamily::Frequency, UnitFamily::Time, UnitFamily::Size, UnitFamily::Bandwidth,
                         UnitFamily::Energy, UnitFamily::Power}) {
      double v = 0;
      try {
        v = parse_quantity(s, f);
      } catch (const UnitError&) {
        continue;
      }
      EXPECT_DOUBLE_EQ(parse_quantity(strata::format_quantity(v, f), f), v) << s;
    }
  }
}
