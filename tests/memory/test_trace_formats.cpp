// The peer simulators' trace formats (Ramulator 2, DRAMsim3, DRAMSys STL), format selection, and
// the canonical reader's "looks like another format" hint.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "memory/trace/memory_trace_reader.h"
#include "sim/input_error.h"
#include "test_util.h"

using strata::InputError;
using strata::MemoryRequest;
using strata::MemoryTraceReader;
using strata::RequestSource;
using strata::TraceFormat;
using strata::testing::TempDir;

namespace {

std::vector<MemoryRequest> read_all(const std::string& path, TraceFormat format, std::uint32_t default_bytes = 64) {
  MemoryTraceReader r(path, default_bytes, format);
  std::vector<MemoryRequest> out;
  while (auto q = r.next()) out.push_back(*q);
  EXPECT_DOUBLE_EQ(r.progress(), 1.0);
  return out;
}

// The error of reading `content` from a file called `name` in `format`, or "no error".
std::string error_of(TraceFormat format, const std::string& name, const std::string& content) {
  TempDir d;
  const auto path = d.write(name, content);
  MemoryTraceReader r(path, 64, format);
  try {
    while (r.next()) {
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_HAS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

}  // namespace

// ---- Ramulator 2 (LoadStoreTrace: "LD|ST <address>") ------------------------------------------

TEST(RamulatorTrace, ParsesLoadStoreLines) {
  TempDir d;
  // Ramulator reads 0x/0X addresses as hexadecimal and bare ones as decimal (std::stoll).
  const auto path = d.write("t.ldst",
                            "LD 0x7fffd9c0\n"
                            "ST 0X1F40\n"
                            "LD 4096\n"
                            "ST 0\r\n"
                            "\n"
                            "# Strata skips comment lines in every format\n"
                            "LD 0x7fffffffffffffc0\n");
  const auto reqs = read_all(path, TraceFormat::Ramulator, 32);
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_FALSE(reqs[0].write);
  EXPECT_EQ(reqs[0].address, 0x7fffd9c0u);
  EXPECT_TRUE(reqs[1].write);
  EXPECT_EQ(reqs[1].address, 0x1f40u);
  EXPECT_EQ(reqs[2].address, 4096u);  // decimal, not 0x4096
  EXPECT_TRUE(reqs[3].write);
  EXPECT_EQ(reqs[3].address, 0u);
  EXPECT_EQ(reqs[4].address, 0x7fffffffffffffc0u);
  for (const auto& q : reqs) {
    EXPECT_EQ(q.cycle, 0u);  // no timestamps: back to back
    EXPECT_EQ(q.bytes, 32u);
  }
}

TEST(RamulatorTrace, BadLines) {
  const auto err = [](const std::string& line) { return error_of(TraceFormat::Ramulator, "bad.ldst", "LD 0x0\n" + line + "\n"); };
  EXPECT_HAS(err("LOAD 0x10"), "bad.ldst:2:1: error: expected LD or ST, got \"LOAD\"");
  EXPECT_HAS(err("ld 0x10"), "bad.ldst:2:1: error: expected LD or ST, got \"ld\"");
  EXPECT_HAS(err("LD"), "bad.ldst:2:3: error: missing address after LD");
  EXPECT_HAS(err("ST 1f40"), "bad.ldst:2:4: error: expected a decimal address, got \"1f40\" (Ramulator reads an "
                             "address without 0x as decimal; write 0x1f40 for hexadecimal)");
  EXPECT_HAS(err("LD 0xzz"), "bad.ldst:2:4: error: expected a decimal address or a hexadecimal one with 0x, got \"0xzz\"");
  EXPECT_HAS(err("LD -64"), "bad.ldst:2:4: error: expected a decimal address or a hexadecimal one with 0x");
  EXPECT_HAS(err("LD 0x"), "bad.ldst:2:4: error: expected a decimal address or a hexadecimal one with 0x");
  EXPECT_HAS(err("LD 0x8000000000000000"), "bad.ldst:2:4: error: address 0x8000000000000000 does not fit in "
                                           "Ramulator's signed 64-bit addresses");
  EXPECT_HAS(err("LD 99999999999999999999"), "does not fit in Ramulator's signed 64-bit addresses");
  EXPECT_HAS(err("LD 0x10 0x20"), "bad.ldst:2:9: error: unexpected field \"0x20\"");
  EXPECT_EQ(err("ST 0x40"), "no error");
}

// ---- DRAMsim3 ("<hex address> READ|WRITE <cycle>") ---------------------------------------------

TEST(Dramsim3Trace, ParsesTraceLines) {
  TempDir d;
  // As DRAMsim3's scripts/trace_gen.py writes them, plus a bare hex address, lower-case ops and
  // DRAMSim2's k6 op names, which DRAMsim3 also reads.
  const auto path = d.write("t.ds3",
                            "0x1f3a7c40 READ 10\n"
                            "0x3e2f9a00 WRITE 20\n"
                            "7fff8000 read 20\n"
                            "0X40\twrite\t35\r\n"
                            "0x100 P_MEM_RD 40\n"
                            "0x140 P_FETCH 41\n"
                            "0x180 P_MEM_WR 42\n"
                            "0x1c0 BOFF 43\n"
                            "0x200 P_LOCK_RD 44\n"
                            "0x240 P_LOCK_WR 45\n");
  const auto reqs = read_all(path, TraceFormat::Dramsim3);
  ASSERT_EQ(reqs.size(), 10u);
  EXPECT_EQ(reqs[0].address, 0x1f3a7c40u);
  EXPECT_FALSE(reqs[0].write);
  EXPECT_EQ(reqs[0].cycle, 10u);
  EXPECT_EQ(reqs[0].bytes, 64u);
  EXPECT_TRUE(reqs[1].write);
  EXPECT_EQ(reqs[1].cycle, 20u);
  EXPECT_EQ(reqs[2].address, 0x7fff8000u);
  EXPECT_FALSE(reqs[2].write);
  EXPECT_EQ(reqs[2].cycle, 20u);  // equal cycles are fine
  EXPECT_EQ(reqs[3].address, 0x40u);
  EXPECT_TRUE(reqs[3].write);
  EXPECT_EQ(reqs[3].cycle, 35u);
  const bool writes[] = {false, false, true, true, false, false};  // P_MEM_RD .. P_LOCK_WR
  for (int i = 0; i < 6; ++i) EXPECT_EQ(reqs[4 + i].write, writes[i]) << i;
}

TEST(Dramsim3Trace, BadLines) {
  const auto err = [](const std::string& line) {
    return error_of(TraceFormat::Dramsim3, "bad.ds3", "0x0 READ 10\n" + line + "\n");
  };
  EXPECT_HAS(err("zz READ 12"), "bad.ds3:2:1: error: expected a hexadecimal address, got \"zz\"");
  EXPECT_HAS(err("0x10000000000000000 READ 12"), "bad.ds3:2:1: error: address does not fit in 64 bits");
  EXPECT_HAS(err("0x10"), "bad.ds3:2:5: error: missing READ or WRITE after the address");
  EXPECT_HAS(err("0x10 FETCH 12"), "bad.ds3:2:6: error: expected READ or WRITE, got \"FETCH\"");
  EXPECT_HAS(err("0x10 READ"), "bad.ds3:2:10: error: missing cycle after READ");
  EXPECT_HAS(err("0x10 READ 0x20"), "bad.ds3:2:11: error: expected a decimal cycle, got \"0x20\"");
  EXPECT_HAS(err("0x10 READ 99999999999999999999"), "bad.ds3:2:11: error: cycle does not fit in 64 bits");
  EXPECT_HAS(err("0x10 WRITE 9"), "bad.ds3:2:12: error: cycle 9 is earlier than the previous request's cycle 10");
  EXPECT_HAS(err("0x10 READ 12 64"), "bad.ds3:2:14: error: unexpected field \"64\"");
  EXPECT_HAS(err("0xffffffffffffffff READ 12"), "bad.ds3:2:1: error: request runs past the end of the 64-bit address space");
}

// ---- DRAMSys STL ("<cycle>: [(<bytes>)] read|write <hex address> [<data>]") --------------------

TEST(StlTrace, ParsesDramsysExamples) {
  TempDir d;
  // The example from DRAMSys's configs/README.md, then tab-separated fields as DRAMSys's own
  // traces use, a timestamp without ':' (StlPlayer's std::stoull ignores it), an address without
  // 0x and a one-character line, which StlPlayer skips.
  const auto path = d.write("t.stl",
                            "# Comment lines begin with #\n"
                            "# cycle: [(length)] command hex-address [hex-data]\n"
                            "31: read 0x400140\n"
                            "33: read 0x400160\n"
                            "56: write 0x7fff8000 0x123456789abcdef0123456789abcdef0\n"
                            "81: (128) read 0x400180\n"
                            "90:\twrite\t0x400200\r\n"
                            "x\n"
                            "95 read 4001c0\n");
  const auto reqs = read_all(path, TraceFormat::Stl);
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[0].cycle, 31u);
  EXPECT_FALSE(reqs[0].write);
  EXPECT_EQ(reqs[0].address, 0x400140u);
  EXPECT_EQ(reqs[0].bytes, 64u);
  EXPECT_EQ(reqs[1].cycle, 33u);
  EXPECT_EQ(reqs[2].cycle, 56u);
  EXPECT_TRUE(reqs[2].write);
  EXPECT_EQ(reqs[2].address, 0x7fff8000u);  // the data field is ignored
  EXPECT_EQ(reqs[3].cycle, 81u);
  EXPECT_EQ(reqs[3].bytes, 128u);
  EXPECT_EQ(reqs[3].address, 0x400180u);
  EXPECT_EQ(reqs[4].cycle, 90u);
  EXPECT_TRUE(reqs[4].write);
  EXPECT_EQ(reqs[4].address, 0x400200u);
  EXPECT_EQ(reqs[5].cycle, 95u);
  EXPECT_EQ(reqs[5].address, 0x4001c0u);
}

TEST(StlTrace, RelativeTimestampsInRstlFiles) {
  TempDir d;
  // DRAMSys's relative example: each cycle counts from the previous request.
  const std::string text =
      "# cycle: [(length)] command hex-address [hex-data]\n"
      "31: read 0x400140\n"
      "2: (512) read 0x400160\n"
      "23: write 0x7fff8000 0x123456789abcdef\n"
      "10: read 0x400180\n";
  const auto rel = read_all(d.write("t.rstl", text), TraceFormat::Stl);
  ASSERT_EQ(rel.size(), 4u);
  EXPECT_EQ(rel[0].cycle, 31u);
  EXPECT_EQ(rel[1].cycle, 33u);
  EXPECT_EQ(rel[1].bytes, 512u);
  EXPECT_EQ(rel[2].cycle, 56u);
  EXPECT_EQ(rel[3].cycle, 66u);
  // The same lines in a .stl file are absolute, and 2 after 31 goes back in time.
  EXPECT_HAS(error_of(TraceFormat::Stl, "t.stl", text),
             "t.stl:3:1: error: cycle 2 is earlier than the previous request's cycle 31");
}

TEST(StlTrace, BadLines) {
  const auto err = [](const std::string& line) { return error_of(TraceFormat::Stl, "bad.stl", "10: read 0x0\n" + line + "\n"); };
  EXPECT_HAS(err("x: read 0x10"), "bad.stl:2:1: error: expected a decimal cycle followed by ':', got \"x:\"");
  EXPECT_HAS(err("99999999999999999999: read 0x10"), "bad.stl:2:1: error: cycle does not fit in 64 bits");
  EXPECT_HAS(err("12:"), "bad.stl:2:4: error: missing read or write after the cycle");
  EXPECT_HAS(err("12: fetch 0x10"), "bad.stl:2:5: error: expected read or write, got \"fetch\"");
  EXPECT_HAS(err("12: READ 0x10"), "bad.stl:2:5: error: expected read or write, got \"READ\" (DRAMSys commands are lower case)");
  EXPECT_HAS(err("12: (64)"), "bad.stl:2:9: error: missing read or write after the length");
  EXPECT_HAS(err("12: (0) read 0x10"), "bad.stl:2:5: error: expected a length of 1 to 1048576 bytes like \"(64)\", got \"(0)\"");
  EXPECT_HAS(err("12: (64 read 0x10"), "bad.stl:2:5: error: expected a length of 1 to");
  EXPECT_HAS(err("12: (x) read 0x10"), "bad.stl:2:5: error: expected a length of 1 to");
  EXPECT_HAS(err("12: read"), "bad.stl:2:9: error: missing address after read");
  EXPECT_HAS(err("12: read (64) 0x10"), "bad.stl:2:10: error: the length \"(64)\" goes before the command");
  EXPECT_HAS(err("12: write 0xqq"), "bad.stl:2:11: error: expected a hexadecimal address, got \"0xqq\"");
  EXPECT_HAS(err("12: read 0x10000000000000000"), "bad.stl:2:10: error: address does not fit in 64 bits");
  EXPECT_HAS(err("9: read 0x10"), "bad.stl:2:1: error: cycle 9 is earlier than the previous request's cycle 10");
  EXPECT_HAS(err("12: (128) read 0xffffffffffffffc0"), "request runs past the end of the 64-bit address space");
  EXPECT_EQ(err("12: write 0x10 0xdeadbeef trailing words are ignored"), "no error");
}

// ---- Canonical hint, format names and extensions -----------------------------------------------

TEST(TraceFormats, CanonicalHintsAtPeerFormatsOnTheFirstDataLine) {
  const auto err = [](const std::string& content) { return error_of(TraceFormat::Canonical, "t.trace", content); };
  EXPECT_HAS(err("# header\n\nLD 0x1000\n"),
             "t.trace:3:1: error: expected a decimal cycle, got \"LD\" (this line looks like a Ramulator trace: set "
             "format: ramulator)");
  EXPECT_HAS(err("0x1f3a7c40 READ 10\n"), "(this line looks like a DRAMsim3 trace: set format: dramsim3)");
  EXPECT_HAS(err("31: read 0x400140\n"), "(this line looks like a DRAMSys STL trace: set format: stl)");
  EXPECT_HAS(err("81: (128) read 0x400180\n"), "set format: stl)");
  // "31 read ..." fails later on the line (read is not R or W) and still gets the hint.
  EXPECT_HAS(err("31 read 0x400140\n"), "t.trace:1:4: error: expected R or W, got \"read\" (this line looks like a "
                                        "DRAMSys STL trace: set format: stl)");
  // No hint after the first request, nor for lines that look like nothing in particular.
  EXPECT_EQ(err("0 R 0x0\nLD 0x1000\n").find("looks like"), std::string::npos);
  EXPECT_EQ(err("x R 0x0\n").find("looks like"), std::string::npos);
  EXPECT_HAS(err("x R 0x0\n"), "t.trace:1:1: error: expected a decimal cycle, got \"x\"");
}

TEST(TraceFormats, Names) {
  EXPECT_EQ(strata::parse_trace_format("canonical"), TraceFormat::Canonical);
  EXPECT_EQ(strata::parse_trace_format("ramulator"), TraceFormat::Ramulator);
  EXPECT_EQ(strata::parse_trace_format("dramsim3"), TraceFormat::Dramsim3);
  EXPECT_EQ(strata::parse_trace_format("stl"), TraceFormat::Stl);
  for (auto f : {TraceFormat::Canonical, TraceFormat::Ramulator, TraceFormat::Dramsim3, TraceFormat::Stl})
    EXPECT_EQ(strata::parse_trace_format(strata::trace_format_name(f)), f);
  EXPECT_THROW(strata::parse_trace_format("auto"), std::invalid_argument);
  EXPECT_THROW(strata::parse_trace_format("STL"), std::invalid_argument);
}

TEST(TraceFormats, FromExtension) {
  using strata::trace_format_from_extension;
  EXPECT_EQ(trace_format_from_extension("traces/a.stl"), TraceFormat::Stl);
  EXPECT_EQ(trace_format_from_extension("A.STL"), TraceFormat::Stl);
  EXPECT_EQ(trace_format_from_extension("b.rstl"), TraceFormat::Stl);
  EXPECT_EQ(trace_format_from_extension("/x/y/c.ldst"), TraceFormat::Ramulator);
  EXPECT_EQ(trace_format_from_extension("d.ds3"), TraceFormat::Dramsim3);
  EXPECT_EQ(trace_format_from_extension("e.dramsim3"), TraceFormat::Dramsim3);
  EXPECT_EQ(trace_format_from_extension("f.trace"), TraceFormat::Canonical);
  EXPECT_EQ(trace_format_from_extension("g.txt"), TraceFormat::Canonical);
  EXPECT_EQ(trace_format_from_extension("stl"), TraceFormat::Canonical);
  EXPECT_EQ(trace_format_from_extension("dir.stl/trace"), TraceFormat::Canonical);
  EXPECT_EQ(trace_format_from_extension(""), TraceFormat::Canonical);
}

TEST(TraceFormats, DefaultsToCanonicalAndWorksAsARequestSource) {
  TempDir d;
  std::string text;
  for (int i = 0; i < 100; ++i) text += std::to_string(i) + " R 0x" + std::to_string(i * 40) + "\n";
  const auto path = d.write("t.trace", text);
  std::unique_ptr<RequestSource> src = std::make_unique<MemoryTraceReader>(path, 64);
  EXPECT_DOUBLE_EQ(src->progress(), 0.0);
  int n = 0;
  double last = 0.0;
  while (auto q = src->next()) {
    EXPECT_EQ(q->cycle, static_cast<std::uint64_t>(n));
    const double p = src->progress();
    EXPECT_GT(p, last);
    EXPECT_LE(p, 1.0);
    last = p;
    ++n;
  }
  EXPECT_EQ(n, 100);
  EXPECT_DOUBLE_EQ(src->progress(), 1.0);
}

TEST(TraceFormats, ProgressWithoutFinalNewlineStaysAtMostOne) {
  TempDir d;
  const auto path = d.write("t.ldst", "LD 0x0\nST 0x40");
  MemoryTraceReader r(path, 64, TraceFormat::Ramulator);
  ASSERT_TRUE(r.next());
  EXPECT_LT(r.progress(), 1.0);
  ASSERT_TRUE(r.next());
  EXPECT_DOUBLE_EQ(r.progress(), 1.0);
  EXPECT_FALSE(r.next());
}

TEST(TraceFormats, MissingFile) {
  EXPECT_THROW(MemoryTraceReader("/nonexistent/x.stl", 64, TraceFormat::Stl), InputError);
}
