// The one error type for bad user input (configs, traces, command lines). The CLI prints its
// message as a single line and exits with code 2; nothing else in Strata uses exit code 2.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace strata {

// Where a piece of input came from. line/column are 1-based; 0 means "not applicable" (a
// command-line override, a whole file).
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;

  // "file:line:col", "file:line" or "file".
  std::string str() const;
};

class InputError : public std::runtime_error {
 public:
  // Formats "<loc>: <key>: <message>"; an empty key is left out.
  InputError(const SourceLoc& loc, const std::string& key, const std::string& message);
  const SourceLoc& loc() const { return loc_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

 private:
  SourceLoc loc_;
  std::string key_;
  std::string message_;
};

// Throws InputError at the first byte of `text` that is not UTF-8, naming `file` and the line
// and column (`text` starts at line `first_line`). Names in any input reach JSON results, which
// must be UTF-8.
void require_utf8(std::string_view text, const std::string& file, int first_line = 1);

inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternalError = 1;
// What the CLI prints (exit kExitBadInput) when memory runs out; a constant, so that printing it
// allocates nothing.
inline constexpr const char* kOutOfMemoryLine =
    "strata: error: out of memory: the input needs more memory than this process may use\n";

}  // namespace strata
