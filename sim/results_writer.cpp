#include "sim/results_writer.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace strata {
namespace {

constexpr int kReserveChunks = 64;
constexpr std::size_t kReserveChunkBytes = std::size_t{64} << 10;
std::atomic<void*> g_reserve[kReserveChunks];
std::atomic<bool> g_ran_out{false};
std::atomic<bool> g_installed{false};

void on_out_of_memory() {
  g_ran_out.store(true);
  for (auto& chunk : g_reserve)
    if (void* r = chunk.exchange(nullptr)) {
      std::free(r);
      return;  // retried: the shortage is thrown at the next safe point
    }
  throw std::bad_alloc();
}

}  // namespace

void install_memory_reserve() {
  if (g_installed.exchange(true)) return;
  for (auto& chunk : g_reserve) chunk.store(std::malloc(kReserveChunkBytes));
  std::set_new_handler(on_out_of_memory);
}

void throw_if_memory_ran_out() {
  if (g_ran_out.load()) throw std::bad_alloc();
}

std::string temporary_path(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / fmt::format(".{}.tmp.{}", p.filename().string(), ::getpid())).string();
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(temporary_path(path_)) {
  throw_if_memory_ran_out();
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError(fmt::format("cannot write {}: {}", tmp_, std::strerror(errno)));
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFile::fail(const std::string& what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  throw OutputError(fmt::format("cannot {} {}: {}", what, tmp_, std::strerror(err)));
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  throw_if_memory_ran_out();
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd_, p, std::min<std::size_t>(bytes, std::size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", errno);
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit(bool sync) {
  throw_if_memory_ran_out();
  if (sync && ::fsync(fd_) != 0) fail("fsync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    throw OutputError(fmt::format("cannot close {}: {}", tmp_, std::strerror(err)));
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    throw OutputError(fmt::format("cannot rename {} to {}: {}", tmp_, path_, std::strerror(err)));
  }
}

void write_file_atomic(const std::string& path, const std::string& content, bool sync) {
  AtomicFile file(path);
  file.write(content);
  file.commit(sync);
}

}  // namespace strata
