// Writing result files so that a failed or interrupted run never leaves a result that looks
// complete: each file is written to a temporary name in the same directory and renamed into
// place, and summary.json, the marker of a complete result, is written last.
#pragma once

#include <string>

namespace strata {

// Writes `content` to `path` atomically (temporary file, fsync, rename).
void write_file_atomic(const std::string& path, const std::string& content);

// Name of the temporary file used for `path` by this process.
std::string temporary_path(const std::string& path);

}  // namespace strata
