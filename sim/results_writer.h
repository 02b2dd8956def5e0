// Writing result files so that a failed or interrupted run never leaves a result that looks
// complete: each file is written to a temporary name in the same directory and renamed into
// place, and summary.json, the marker of a complete result, is written last.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace strata {

// A file that could not be written (a full disk, an I/O error): not the input's fault, so the
// CLI reports it on one line with exit code 1, and the result being written is dropped whole.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file written under a temporary name in its final folder (so the rename is atomic) and
// moved into place by commit(); destroyed without commit(), it leaves nothing behind.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // fsync (unless `sync` is false: a file that can be made again), close and rename onto the
  // final path.
  void commit(bool sync = true);

 private:
  [[noreturn]] void fail(const std::string& what, int err);
  std::string path_, tmp_;
  int fd_ = -1;
};

// Writes `content` to `path` atomically (temporary file, fsync unless `sync` is false, rename).
void write_file_atomic(const std::string& path, const std::string& content, bool sync = true);

// Name of the temporary file used for `path` by this process.
std::string temporary_path(const std::string& path);

// Memory set aside (4 MiB) for the way out when memory runs out: the first allocation that
// fails frees it and throws std::bad_alloc, so that what unwinds the stack (destructors that
// allocate, such as nlohmann::json's, which would otherwise end the process in std::terminate
// with an abort trace) and the cleanup (the staging directory, the one-line message) have room.
// Installed once, by the CLI.
void install_memory_reserve();

}  // namespace strata
