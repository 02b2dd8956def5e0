// Streaming reader of memory-address traces, one request per line, in Strata's canonical format
// or in the trace formats of three peer simulators:
//
//   canonical   <cycle> <R|W> <hex address> [<bytes>]          # comments and blank lines ignored
//               <cycle> is a decimal issue cycle in the front end's clock and never decreases; the
//               address is hexadecimal with an optional 0x; <bytes> is decimal (default: the
//               workload's request_bytes).
//   ramulator   LD|ST <address>                                  Ramulator 2 LoadStoreTrace
//               An address with 0x/0X is hexadecimal, one without is DECIMAL (Ramulator parses
//               with std::stoll), and must fit in a signed 64-bit integer. No timestamps: every
//               request gets cycle 0, so requests issue back to back.
//   dramsim3    <hex address> <op> <cycle>                       DRAMsim3 TraceBasedCPU
//               The address is hexadecimal with an optional 0x. <op> is READ or WRITE (also
//               read/write and DRAMSim2's k6 names P_MEM_RD, P_FETCH, P_LOCK_RD, P_LOCK_WR (reads)
//               and P_MEM_WR, BOFF (writes)). <cycle> is a decimal memory-controller cycle and
//               never decreases.
//   stl         <cycle>: [(<bytes>)] read|write <hex address> [<data>...]   DRAMSys StlPlayer
//               The ':' after the cycle is optional (DRAMSys ignores it), the length in
//               parentheses comes before the command, the address is hexadecimal with an
//               optional 0x, and everything after the address (write data) is ignored. Lines
//               of one character are skipped, as DRAMSys does. In a file named *.rstl each cycle
//               counts from the previous request's cycle (DRAMSys's relative traces; Strata adds
//               the gap to the previous issue cycle); otherwise cycles are absolute and never
//               decrease.
//
// In every format blank lines and lines whose first non-blank character is '#' are skipped. A bad
// line throws InputError naming the file, line and column. The file is read line by line into one
// reused buffer, so memory use does not grow with its length.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "memory/trace/request_source.h"

namespace strata {

enum class TraceFormat { Canonical, Ramulator, Dramsim3, Stl };

// "canonical", "ramulator", "dramsim3" or "stl"; throws std::invalid_argument for anything else.
TraceFormat parse_trace_format(std::string_view name);
// The name parse_trace_format takes.
std::string_view trace_format_name(TraceFormat format);
// For `format: auto`, by the file's extension (case-insensitive): .stl and .rstl -> stl, .ldst ->
// ramulator, .ds3 and .dramsim3 -> dramsim3, anything else -> canonical.
TraceFormat trace_format_from_extension(const std::string& path);

class MemoryTraceReader : public RequestSource {
 public:
  static constexpr std::uint32_t kMaxRequestBytes = 1u << 20;

  // default_bytes: the size of requests whose line gives none (all of them, for ramulator and
  // dramsim3). Throws InputError if the file cannot be opened.
  MemoryTraceReader(std::string path, std::uint32_t default_bytes, TraceFormat format = TraceFormat::Canonical);
  // The next request, or nullopt at the end. Throws InputError naming the file, line and column.
  std::optional<MemoryRequest> next() override;
  // Fraction of the file's bytes consumed.
  double progress() const override;
  std::uint64_t line() const { return line_; }
  TraceFormat format() const { return format_; }

 private:
  // Each parses text_ (one line, already known to hold data) into `r`; false skips the line.
  bool parse_canonical(MemoryRequest& r);
  bool parse_ramulator(MemoryRequest& r);
  bool parse_dramsim3(MemoryRequest& r);
  bool parse_stl(MemoryRequest& r);
  void check_cycle_order(std::uint64_t cycle, int column);
  void check_end(std::uint64_t address, std::uint32_t bytes, int column) const;
  // All of `t` as a number (base 16: with an optional 0x); fails naming `what` on overflow and
  // "expected <expected>, got <as_written, or t>" otherwise.
  std::uint64_t number(std::string_view t, int base, const char* what, std::string_view expected, int column,
                       std::string_view as_written = {}) const;
  [[noreturn]] void fail(int column, const std::string& message) const;

  std::string path_;
  std::ifstream in_;
  std::uint32_t default_bytes_;
  TraceFormat format_;
  bool relative_ = false;  // stl only: a .rstl file
  std::uint64_t size_ = 0, consumed_ = 0, line_ = 0, last_cycle_ = 0, requests_ = 0;
  std::string text_;
};

}  // namespace strata
