#include "memory/trace/memory_trace_reader.h"

#include <charconv>
#include <filesystem>

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {
namespace {

// The next whitespace-separated field of `s` from `pos`; empty at the end.
std::string_view field(const std::string& s, size_t& pos, size_t& start) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r')) ++pos;
  start = pos;
  while (pos < s.size() && s[pos] != ' ' && s[pos] != '\t' && s[pos] != '\r') ++pos;
  return std::string_view(s).substr(start, pos - start);
}

}  // namespace

MemoryTraceReader::MemoryTraceReader(std::string path, std::uint32_t default_bytes)
    : path_(std::move(path)), in_(path_, std::ios::binary), default_bytes_(default_bytes) {
  if (!in_) throw InputError(SourceLoc{path_}, "", "cannot open trace");
  std::error_code ec;
  size_ = std::filesystem::file_size(path_, ec);
}

void MemoryTraceReader::fail(int column, const std::string& message) const {
  throw InputError(SourceLoc{path_, static_cast<int>(line_), column}, "", message);
}

double MemoryTraceReader::progress() const { return size_ ? static_cast<double>(consumed_) / static_cast<double>(size_) : 1.0; }

std::optional<MemoryRequest> MemoryTraceReader::next() {
  while (std::getline(in_, text_)) {
    ++line_;
    consumed_ += text_.size() + 1;
    const size_t hash = text_.find('#');
    if (hash != std::string::npos) text_.resize(hash);
    size_t pos = 0, start = 0;
    const std::string_view cycle_text = field(text_, pos, start);
    if (cycle_text.empty()) continue;
    const auto column = [&start] { return static_cast<int>(start) + 1; };

    MemoryRequest r;
    auto [p1, e1] = std::from_chars(cycle_text.data(), cycle_text.data() + cycle_text.size(), r.cycle);
    if (e1 == std::errc::result_out_of_range) fail(column(), "cycle does not fit in 64 bits");
    if (e1 != std::errc() || p1 != cycle_text.data() + cycle_text.size())
      fail(column(), fmt::format("expected a decimal cycle, got \"{}\"", cycle_text));
    if (r.cycle < last_cycle_)
      fail(column(), fmt::format("cycle {} is earlier than the previous request's cycle {}", r.cycle, last_cycle_));

    const std::string_view op = field(text_, pos, start);
    if (op == "R" || op == "r") r.write = false;
    else if (op == "W" || op == "w") r.write = true;
    else if (op.empty()) fail(column(), "missing R or W after the cycle");
    else fail(column(), fmt::format("expected R or W, got \"{}\"", op));

    std::string_view addr = field(text_, pos, start);
    if (addr.empty()) fail(column(), "missing address");
    if (addr.size() > 2 && addr[0] == '0' && (addr[1] == 'x' || addr[1] == 'X')) addr.remove_prefix(2);
    auto [p2, e2] = std::from_chars(addr.data(), addr.data() + addr.size(), r.address, 16);
    if (e2 == std::errc::result_out_of_range) fail(column(), "address does not fit in 64 bits");
    if (e2 != std::errc() || p2 != addr.data() + addr.size())
      fail(column(), fmt::format("expected a hexadecimal address, got \"{}\"", addr));

    r.bytes = default_bytes_;
    const std::string_view bytes = field(text_, pos, start);
    if (!bytes.empty()) {
      auto [p3, e3] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), r.bytes);
      if (e3 != std::errc() || p3 != bytes.data() + bytes.size() || r.bytes == 0 || r.bytes > kMaxRequestBytes)
        fail(column(), fmt::format("expected a request size of 1 to {} bytes, got \"{}\"", kMaxRequestBytes, bytes));
    }
    if (r.address > UINT64_MAX - (r.bytes - 1)) fail(column(), "request runs past the end of the 64-bit address space");
    const std::string_view extra = field(text_, pos, start);
    if (!extra.empty()) fail(column(), fmt::format("unexpected field \"{}\"", extra));
    last_cycle_ = r.cycle;
    return r;
  }
  if (in_.bad()) fail(0, "read error");
  return std::nullopt;
}

}  // namespace strata
