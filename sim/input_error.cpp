#include "sim/input_error.h"

#include <fmt/format.h>

#include "sim/text.h"

namespace strata {

std::string SourceLoc::str() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

namespace {
std::string compose(const SourceLoc& loc, const std::string& key, const std::string& message) {
  // One line, always: a multi-line message would break scripts that grep the first line; and a
  // short one: a message may quote a token of any length or bytes from the input.
  auto one_line = [](std::string s, size_t max_bytes) {
    for (char& c : s)
      if (c == '\n' || c == '\r') c = ' ';
    return printable(s, max_bytes);
  };
  std::string out = loc.str().empty() ? std::string("<input>") : one_line(loc.str(), 512);
  out += ": error: ";
  if (!key.empty()) out += one_line(key, 256) + ": ";
  out += one_line(message, 1024);
  return out;
}
}  // namespace

void require_utf8(std::string_view text, const std::string& file, int first_line) {
  const auto bad = first_invalid_utf8(text);
  if (!bad) return;
  const auto [line, column] = line_and_column(text, *bad);
  throw InputError(SourceLoc{file, first_line + line - 1, column}, "",
                   fmt::format("not UTF-8 text (byte 0x{:02X}; save the file as UTF-8)", static_cast<unsigned char>(text[*bad])));
}

InputError::InputError(const SourceLoc& loc, const std::string& key, const std::string& message)
    : std::runtime_error(compose(loc, key, message)), loc_(loc), key_(key), message_(message) {}

}  // namespace strata
