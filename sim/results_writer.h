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

// Memory set aside (4 MiB, in 64 chunks) for the way out when memory runs out. An allocation
// that fails frees a chunk and is retried, and the shortage is recorded; the next safe point
// (throw_if_memory_ran_out: opening or writing a result file, committing a result directory, a
// simulation chunk) throws std::bad_alloc there. So the shortage never throws from inside a
// destructor that allocates (nlohmann::json's do, and a bad_alloc there ends the process in
// std::terminate with an abort trace), and what unwinds the stack and cleans up (the staging
// directory, the one-line message) has room. Only when every chunk is gone does the failing
// allocation itself throw. Installed once, by the CLI.
void install_memory_reserve();
// Throws std::bad_alloc when an allocation has failed since the reserve was installed.
void throw_if_memory_ran_out();

}  // namespace strata
