#include "sim/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace strata {

void open_input_file(std::ifstream& in, const std::string& path, const std::string& what, const SourceLoc& loc,
                     const std::string& key) {
  const SourceLoc where = loc.file.empty() ? SourceLoc{path} : loc;
  const auto reason = [](int err) { return err ? std::string(std::strerror(err)) : std::string("unknown error"); };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(where, key, fmt::format("cannot read {}: it is a directory", what));
  errno = 0;
  in.open(path, std::ios::binary);
  if (!in) throw InputError(where, key, fmt::format("cannot open {}: {}", what, reason(errno)));
  try {
    errno = 0;
    in.peek();  // the first read: an unreadable file fails here, not in the middle of parsing
  } catch (const std::ios_base::failure&) {
    const int err = errno;
    in.close();
    throw InputError(where, key, fmt::format("cannot read {}: {}", what, reason(err)));
  }
  if (in.bad()) throw InputError(where, key, fmt::format("cannot read {}: {}", what, reason(errno)));
  in.clear();  // an empty file is at its end, which its parser reports in its own words
}

}  // namespace strata
