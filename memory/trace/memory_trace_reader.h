// Streaming reader of Strata's canonical memory-trace format, one request per line:
//
//   <cycle> <R|W> <hex address> [<bytes>]      # comments and blank lines are ignored
//
// <cycle> is a decimal issue cycle in the front end's clock and never decreases; the address
// is hexadecimal with an optional 0x; <bytes> is decimal (default: the workload's
// request_bytes). The file is read line by line, so memory use does not grow with its length.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace strata {

struct MemoryRequest {
  std::uint64_t cycle = 0;
  bool write = false;
  std::uint64_t address = 0;
  std::uint32_t bytes = 0;
};

class MemoryTraceReader {
 public:
  static constexpr std::uint32_t kMaxRequestBytes = 1u << 20;

  MemoryTraceReader(std::string path, std::uint32_t default_bytes);
  // The next request, or nullopt at the end. Throws InputError naming the file and line.
  std::optional<MemoryRequest> next();
  // Fraction of the file consumed.
  double progress() const;
  std::uint64_t line() const { return line_; }

 private:
  [[noreturn]] void fail(int column, const std::string& message) const;
  std::string path_;
  std::ifstream in_;
  std::uint32_t default_bytes_;
  std::uint64_t size_ = 0, consumed_ = 0, line_ = 0, last_cycle_ = 0;
  std::string text_;
};

}  // namespace strata
