#include "sim/input_error.h"

#include <fmt/format.h>

namespace strata {

std::string SourceLoc::str() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

namespace {
std::string compose(const SourceLoc& loc, const std::string& key, const std::string& message) {
  std::string out = loc.str().empty() ? std::string("<input>") : loc.str();
  out += ": error: ";
  if (!key.empty()) out += key + ": ";
  out += message;
  // One line, always: a multi-line message would break scripts that grep the first line.
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}
}  // namespace

InputError::InputError(const SourceLoc& loc, const std::string& key, const std::string& message)
    : std::runtime_error(compose(loc, key, message)), loc_(loc), key_(key), message_(message) {}

}  // namespace strata
