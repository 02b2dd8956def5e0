#include "memory/trace/memory_trace_reader.h"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/input_file.h"
#include "sim/text.h"

namespace strata {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The next whitespace-separated field of `s` from `pos`, its first character at `start`; empty at
// the end.
std::string_view field(std::string_view s, size_t& pos, size_t& start) {
  while (pos < s.size() && is_blank(s[pos])) ++pos;
  start = pos;
  while (pos < s.size() && !is_blank(s[pos])) ++pos;
  return s.substr(start, pos - start);
}

enum class Num { Ok, Bad, Overflow };

// `t` as an unsigned number in `base`, all of it.
Num parse_number(std::string_view t, int base, std::uint64_t& v) {
  if (t.empty()) return Num::Bad;
  const char* end = t.data() + t.size();
  auto [p, e] = std::from_chars(t.data(), end, v, base);
  if (p != end) return Num::Bad;
  if (e == std::errc::result_out_of_range) return Num::Overflow;
  return e == std::errc() ? Num::Ok : Num::Bad;
}

bool has_hex_prefix(std::string_view t) { return t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'); }

// Hexadecimal with an optional 0x/0X.
Num parse_hex(std::string_view t, std::uint64_t& v) {
  if (has_hex_prefix(t)) t.remove_prefix(2);
  return parse_number(t, 16, v);
}

bool all_hex_digits(std::string_view t) {
  if (t.empty()) return false;
  for (char c : t)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool is_decimal(std::string_view t) {
  std::uint64_t v;
  return parse_number(t, 10, v) == Num::Ok;
}

// DRAMsim3's operator>>(istream&, Transaction&) makes WRITE, write, P_MEM_WR and BOFF writes and
// anything else a read; we accept the read names that exist (DRAMSim2's k6 traces among them)
// and reject the rest, so that a typo is an error rather than a silent read.
std::optional<bool> dramsim3_write(std::string_view op) {
  if (op == "WRITE" || op == "write" || op == "P_MEM_WR" || op == "BOFF") return true;
  if (op == "READ" || op == "read" || op == "P_MEM_RD" || op == "P_FETCH" || op == "P_LOCK_RD" || op == "P_LOCK_WR")
    return false;
  return std::nullopt;
}

// A DRAMSys timestamp: decimal digits with an optional ':' (DRAMSys parses it with std::stoull,
// which stops at the colon).
std::string_view stl_cycle_digits(std::string_view t) {
  if (!t.empty() && t.back() == ':') t.remove_suffix(1);
  return t;
}

// The peer format a line that is not canonical seems to be in, for the hint on a canonical
// trace's first line.
std::optional<TraceFormat> guess_format(std::string_view line) {
  std::string_view f[4];
  size_t n = 0, pos = 0, start = 0;
  while (n < 4) {
    const std::string_view t = field(line, pos, start);
    if (t.empty()) break;
    f[n++] = t;
  }
  if (n == 2 && (f[0] == "LD" || f[0] == "ST")) return TraceFormat::Ramulator;
  bool stl = false;
  if (n >= 3 && is_decimal(stl_cycle_digits(f[0]))) {
    const size_t k = f[1].front() == '(' ? 2 : 1;
    stl = k < n && (f[k] == "read" || f[k] == "write");
  }
  if (stl && f[0].back() == ':') return TraceFormat::Stl;
  if (n == 3 && all_hex_digits(has_hex_prefix(f[0]) ? f[0].substr(2) : f[0]) && dramsim3_write(f[1]).has_value() &&
      is_decimal(f[2]))
    return TraceFormat::Dramsim3;
  if (stl) return TraceFormat::Stl;
  return std::nullopt;
}

struct FormatName {
  TraceFormat format;
  std::string_view name;   // the `format:` key's value
  std::string_view title;  // for messages
};
constexpr FormatName kFormats[] = {{TraceFormat::Canonical, "canonical", "Strata"},
                                   {TraceFormat::Ramulator, "ramulator", "Ramulator"},
                                   {TraceFormat::Dramsim3, "dramsim3", "DRAMsim3"},
                                   {TraceFormat::Stl, "stl", "DRAMSys STL"}};

const FormatName& format_entry(TraceFormat f) {
  for (const FormatName& e : kFormats)
    if (e.format == f) return e;
  return kFormats[0];
}

// The file name's extension, lower case (".stl").
std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

constexpr std::uint64_t kRamulatorMaxAddress = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

}  // namespace

TraceFormat parse_trace_format(std::string_view name) {
  for (const FormatName& e : kFormats)
    if (e.name == name) return e.format;
  throw std::invalid_argument(
      fmt::format("unknown trace format \"{}\" (expected canonical, ramulator, dramsim3 or stl)", name));
}

std::string_view trace_format_name(TraceFormat format) { return format_entry(format).name; }

TraceFormat trace_format_from_extension(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".stl" || ext == ".rstl") return TraceFormat::Stl;
  if (ext == ".ldst") return TraceFormat::Ramulator;
  if (ext == ".ds3" || ext == ".dramsim3") return TraceFormat::Dramsim3;
  return TraceFormat::Canonical;
}

MemoryTraceReader::MemoryTraceReader(std::string path, std::uint32_t default_bytes, TraceFormat format)
    : path_(std::move(path)), default_bytes_(default_bytes), format_(format) {
  open_input_file(in_, path_, "trace");
  std::error_code ec;
  size_ = std::filesystem::file_size(path_, ec);
  if (ec) size_ = 0;
  // DRAMSys tells relative traces from absolute ones by the extension alone.
  relative_ = format_ == TraceFormat::Stl && lower_extension(path_) == ".rstl";
}

void MemoryTraceReader::fail(int column, const std::string& message) const {
  std::string m = message;
  // A canonical trace whose first data line does not parse is often a peer simulator's trace.
  if (format_ == TraceFormat::Canonical && requests_ == 0) {
    if (const auto guess = guess_format(text_))
      m += fmt::format(" (this line looks like a {} trace: set format: {})", format_entry(*guess).title,
                       format_entry(*guess).name);
  }
  throw InputError(SourceLoc{path_, static_cast<int>(line_), column}, "", m);
}

double MemoryTraceReader::progress() const {
  if (!size_) return 1.0;
  const double p = static_cast<double>(consumed_) / static_cast<double>(size_);
  return p < 1.0 ? p : 1.0;  // the last line may lack its newline
}

void MemoryTraceReader::check_cycle_order(std::uint64_t cycle, int column) {
  if (cycle < last_cycle_)
    fail(column, fmt::format("cycle {} is earlier than the previous request's cycle {}", cycle, last_cycle_));
}

std::uint64_t MemoryTraceReader::number(std::string_view t, int base, const char* what, std::string_view expected,
                                        int column, std::string_view as_written) const {
  std::uint64_t v = 0;
  const Num n = base == 16 ? parse_hex(t, v) : parse_number(t, base, v);
  if (n == Num::Overflow) fail(column, fmt::format("{} does not fit in 64 bits", what));
  if (n == Num::Bad) fail(column, fmt::format("expected {}, got \"{}\"", expected, as_written.empty() ? t : as_written));
  return v;
}

void MemoryTraceReader::check_end(std::uint64_t address, std::uint32_t bytes, int column) const {
  if (address > UINT64_MAX - (bytes - 1)) fail(column, "request runs past the end of the 64-bit address space");
}

std::optional<MemoryRequest> MemoryTraceReader::next() {
  std::size_t bytes = 0;
  while (read_line(in_, text_, &bytes)) {
    ++line_;
    consumed_ += bytes;
    const size_t first = text_.find_first_not_of(" \t\r");
    if (first == std::string::npos || text_[first] == '#') continue;  // blank or comment
    MemoryRequest r;
    bool ok = false;
    switch (format_) {
      case TraceFormat::Canonical: ok = parse_canonical(r); break;
      case TraceFormat::Ramulator: ok = parse_ramulator(r); break;
      case TraceFormat::Dramsim3: ok = parse_dramsim3(r); break;
      case TraceFormat::Stl: ok = parse_stl(r); break;
    }
    if (!ok) continue;
    last_cycle_ = r.cycle;
    ++requests_;
    return r;
  }
  if (in_.bad()) fail(0, "read error");
  return std::nullopt;
}

// <cycle> <R|W> <hex address> [<bytes>]   # comment
bool MemoryTraceReader::parse_canonical(MemoryRequest& r) {
  const size_t hash = text_.find('#');
  if (hash != std::string::npos) text_.resize(hash);
  size_t pos = 0, start = 0;
  const auto column = [&start] { return static_cast<int>(start) + 1; };
  const std::string_view cycle_text = field(text_, pos, start);
  if (cycle_text.empty()) return false;

  r.cycle = number(cycle_text, 10, "cycle", "a decimal cycle", column());
  check_cycle_order(r.cycle, column());

  const std::string_view op = field(text_, pos, start);
  if (op == "R" || op == "r") r.write = false;
  else if (op == "W" || op == "w") r.write = true;
  else if (op.empty()) fail(column(), "missing R or W after the cycle");
  else fail(column(), fmt::format("expected R or W, got \"{}\"", op));

  const std::string_view addr = field(text_, pos, start);
  if (addr.empty()) fail(column(), "missing address");
  r.address = number(addr, 16, "address", "a hexadecimal address", column());
  r.bytes = default_bytes_;
  const std::string_view bytes = field(text_, pos, start);
  if (!bytes.empty()) {
    auto [p3, e3] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), r.bytes);
    if (e3 != std::errc() || p3 != bytes.data() + bytes.size() || r.bytes == 0 || r.bytes > kMaxRequestBytes)
      fail(column(), fmt::format("expected a request size of 1 to {} bytes, got \"{}\"", kMaxRequestBytes, bytes));
  }
  check_end(r.address, r.bytes, column());
  const std::string_view extra = field(text_, pos, start);
  if (!extra.empty()) fail(column(), fmt::format("unexpected field \"{}\"", extra));
  return true;
}

// LD|ST <address>: Ramulator 2's LoadStoreTrace (src/frontend/impl/memory_trace/loadstore_trace.cpp)
// reads an address with 0x/0X as hexadecimal and one without as decimal, both with std::stoll.
bool MemoryTraceReader::parse_ramulator(MemoryRequest& r) {
  size_t pos = 0, start = 0;
  const auto column = [&start] { return static_cast<int>(start) + 1; };
  const std::string_view op = field(text_, pos, start);
  if (op == "LD") r.write = false;
  else if (op == "ST") r.write = true;
  else fail(column(), fmt::format("expected LD or ST, got \"{}\"", op));

  const std::string_view addr = field(text_, pos, start);
  if (addr.empty()) fail(column(), fmt::format("missing address after {}", op));
  const bool hex = has_hex_prefix(addr);
  const Num n = hex ? parse_number(addr.substr(2), 16, r.address) : parse_number(addr, 10, r.address);
  if (n == Num::Bad) {
    if (!hex && all_hex_digits(addr))
      fail(column(), fmt::format("expected a decimal address, got \"{}\" (Ramulator reads an address without 0x as "
                                 "decimal; write 0x{} for hexadecimal)",
                                 addr, addr));
    fail(column(), fmt::format("expected a decimal address or a hexadecimal one with 0x, got \"{}\"", addr));
  }
  if (n == Num::Overflow || r.address > kRamulatorMaxAddress)
    fail(column(), fmt::format("address {} does not fit in Ramulator's signed 64-bit addresses (at most 0x{:x})", addr,
                               kRamulatorMaxAddress));
  r.cycle = 0;  // no timestamps: back to back
  r.bytes = default_bytes_;
  check_end(r.address, r.bytes, column());
  const std::string_view extra = field(text_, pos, start);
  if (!extra.empty())
    fail(column(), fmt::format("unexpected field \"{}\" (a Ramulator load/store line is \"LD|ST <address>\")", extra));
  return true;
}

// <hex address> <op> <cycle>: DRAMsim3's TraceBasedCPU, which reads
// `is >> std::hex >> addr >> op >> std::dec >> cycle` (src/common.cc).
bool MemoryTraceReader::parse_dramsim3(MemoryRequest& r) {
  size_t pos = 0, start = 0;
  const auto column = [&start] { return static_cast<int>(start) + 1; };
  const std::string_view addr = field(text_, pos, start);
  const int addr_column = column();
  r.address = number(addr, 16, "address", "a hexadecimal address", column());

  const std::string_view op = field(text_, pos, start);
  if (op.empty()) fail(column(), "missing READ or WRITE after the address");
  const std::optional<bool> write = dramsim3_write(op);
  if (!write) fail(column(), fmt::format("expected READ or WRITE, got \"{}\"", op));
  r.write = *write;

  const std::string_view cycle = field(text_, pos, start);
  if (cycle.empty()) fail(column(), fmt::format("missing cycle after {}", op));
  r.cycle = number(cycle, 10, "cycle", "a decimal cycle", column());
  check_cycle_order(r.cycle, column());
  r.bytes = default_bytes_;
  check_end(r.address, r.bytes, addr_column);
  const std::string_view extra = field(text_, pos, start);
  if (!extra.empty())
    fail(column(), fmt::format("unexpected field \"{}\" (a DRAMsim3 line is \"<hex address> READ|WRITE <cycle>\")", extra));
  return true;
}

// <cycle>: [(<bytes>)] read|write <hex address> [<data>...]: DRAMSys's StlPlayer
// (src/simulator/simulator/player/StlPlayer.cpp).
bool MemoryTraceReader::parse_stl(MemoryRequest& r) {
  if (text_.size() <= 1) return false;  // StlPlayer skips lines of at most one character
  size_t pos = 0, start = 0;
  const auto column = [&start] { return static_cast<int>(start) + 1; };
  const std::string_view time = field(text_, pos, start);
  const int time_column = column();
  const std::uint64_t cycle = number(stl_cycle_digits(time), 10, "cycle", "a decimal cycle followed by ':'", column(), time);

  std::string_view cmd = field(text_, pos, start);
  if (cmd.empty()) fail(column(), "missing read or write after the cycle");
  r.bytes = default_bytes_;
  if (cmd.front() == '(') {
    std::string_view len = cmd.substr(1);
    std::uint64_t bytes = 0;
    const bool closed = !len.empty() && len.back() == ')';
    if (closed) len.remove_suffix(1);
    if (!closed || parse_number(len, 10, bytes) != Num::Ok || bytes == 0 || bytes > kMaxRequestBytes)
      fail(column(), fmt::format("expected a length of 1 to {} bytes like \"(64)\", got \"{}\"", kMaxRequestBytes, cmd));
    r.bytes = static_cast<std::uint32_t>(bytes);
    cmd = field(text_, pos, start);
    if (cmd.empty()) fail(column(), "missing read or write after the length");
  }
  if (cmd == "read") r.write = false;
  else if (cmd == "write") r.write = true;
  else if (cmd == "READ" || cmd == "WRITE" || cmd == "Read" || cmd == "Write")
    fail(column(), fmt::format("expected read or write, got \"{}\" (DRAMSys commands are lower case)", cmd));
  else fail(column(), fmt::format("expected read or write, got \"{}\"", cmd));

  const std::string_view addr = field(text_, pos, start);
  if (addr.empty()) fail(column(), fmt::format("missing address after {}", cmd));
  if (addr.front() == '(')
    fail(column(), fmt::format("the length \"{}\" goes before the command: \"<cycle>: (<bytes>) read|write <address>\"",
                               addr));
  r.address = number(addr, 16, "address", "a hexadecimal address", column());
  check_end(r.address, r.bytes, column());
  // Anything after the address is write data (or nothing DRAMSys reads); ignored.

  if (relative_) {
    if (cycle > UINT64_MAX - last_cycle_) fail(time_column, "cycle does not fit in 64 bits");
    r.cycle = last_cycle_ + cycle;
  } else {
    check_cycle_order(cycle, time_column);
    r.cycle = cycle;
  }
  return true;
}

}  // namespace strata
