#include <gtest/gtest.h>

#include "memory/trace/memory_trace_reader.h"
#include "sim/input_error.h"
#include "test_util.h"

using strata::InputError;
using strata::MemoryTraceReader;
using strata::testing::TempDir;

TEST(MemoryTraceReader, ParsesAllForms) {
  TempDir d;
  const auto path = d.write("t.trace",
                            "# header comment\n"
                            "\n"
                            "0 R 0x1000\n"
                            "5 W 2000 128   # trailing comment\n"
                            "5 r 0XfFfF\t32\n"
                            "9 w 0x0\r\n");
  MemoryTraceReader r(path, 64);
  auto a = r.next();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->cycle, 0u);
  EXPECT_FALSE(a->write);
  EXPECT_EQ(a->address, 0x1000u);
  EXPECT_EQ(a->bytes, 64u);  // the default
  auto b = r.next();
  EXPECT_TRUE(b->write);
  EXPECT_EQ(b->address, 0x2000u);
  EXPECT_EQ(b->bytes, 128u);
  auto c = r.next();
  EXPECT_EQ(c->address, 0xffffu);
  EXPECT_EQ(c->bytes, 32u);
  auto e = r.next();
  EXPECT_EQ(e->cycle, 9u);
  EXPECT_TRUE(e->write);
  EXPECT_FALSE(r.next());
  EXPECT_DOUBLE_EQ(r.progress(), 1.0);
}

// The error of reading `line` as the third line of a trace.
static std::string error_of(const std::string& line) {
  TempDir d;
  const auto path = d.write("bad.trace", "# c\n10 R 0x0\n" + line + "\n");
  MemoryTraceReader r(path, 64);
  try {
    while (r.next()) {
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MemoryTraceReader, BadLinesNameFileLineAndColumn) {
  EXPECT_NE(error_of("x R 0x0").find("bad.trace:3:1: error: expected a decimal cycle"), std::string::npos);
  EXPECT_NE(error_of("12 Q 0x0").find("bad.trace:3:4: error: expected R or W, got \"Q\""), std::string::npos);
  EXPECT_NE(error_of("12 R").find("missing address"), std::string::npos);
  EXPECT_NE(error_of("12 R 0xzz").find("expected a hexadecimal address"), std::string::npos);
  EXPECT_NE(error_of("12 R 0x10000000000000000").find("address does not fit in 64 bits"), std::string::npos);
  EXPECT_NE(error_of("99999999999999999999 R 0x0").find("cycle does not fit in 64 bits"), std::string::npos);
  EXPECT_NE(error_of("12 R 0x0 0").find("request size of 1 to"), std::string::npos);
  EXPECT_NE(error_of("12 R 0x0 64 extra").find("unexpected field \"extra\""), std::string::npos);
  EXPECT_NE(error_of("5 R 0x0").find("cycle 5 is earlier than the previous request's cycle 10"), std::string::npos);
  EXPECT_NE(error_of("12 R 0xffffffffffffffff 64").find("past the end of the 64-bit address space"), std::string::npos);
}

TEST(MemoryTraceReader, MissingFile) {
  EXPECT_THROW(MemoryTraceReader("/nonexistent/x.trace", 64), InputError);
}
