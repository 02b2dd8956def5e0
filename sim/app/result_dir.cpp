#include "sim/app/result_dir.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/results_writer.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

constexpr const char* kStagingPrefix = ".staging-";

[[noreturn]] void refuse(const std::string& dir, const std::string& option, const std::string& why) {
  throw InputError(SourceLoc{dir}, option, why);
}

// fsync on the directory, so the renames in it survive a crash of the machine.
void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void check_result_dir(const std::string& dir, const std::string& option) {
  if (dir.empty()) refuse(dir, option, "an empty directory name");
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    refuse(dir, option, fmt::format("cannot use this path: {}", ec.message()));
  if (fs::exists(st)) {
    if (fs::is_regular_file(st)) refuse(dir, option, "names a file; a result is a directory");
    if (!fs::is_directory(st)) refuse(dir, option, "names a special file; a result is a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      refuse(dir, option, fmt::format("cannot write here: {}", std::strerror(errno)));
    return;
  }
  // The nearest existing ancestor must be a directory this process can create entries in.
  fs::path p = fs::absolute(fs::path(dir), ec);
  if (ec) refuse(dir, option, fmt::format("cannot use this path: {}", ec.message()));
  for (const fs::path& part : p) {
    if (part.native().size() > 255) refuse(dir, option, "a path component is longer than 255 bytes");
  }
  while (p.has_parent_path() && p != p.parent_path()) {
    p = p.parent_path();
    const fs::file_status a = fs::status(p, ec);
    if (!fs::exists(a)) continue;
    if (!fs::is_directory(a)) refuse(dir, option, fmt::format("{} is not a directory", p.string()));
    if (::access(p.c_str(), W_OK | X_OK) != 0)
      refuse(dir, option, fmt::format("cannot create the directory in {}: {}", p.string(), std::strerror(errno)));
    return;
  }
}

ResultDir::ResultDir(std::string dir, std::string option, const std::vector<std::string>& importer_files)
    : dir_(std::move(dir)), option_(std::move(option)) {
  result_files_ = {"config.yaml", "stats.json", "timeline.json", "interrupted.json", "summary.json"};
  result_files_.insert(result_files_.end(), importer_files.begin(), importer_files.end());
  check_result_dir(dir_, option_);
  std::error_code ec;
  if (!fs::exists(dir_, ec)) {
    fs::create_directories(dir_, ec);
    if (ec) refuse(dir_, option_, fmt::format("cannot create the directory: {}", ec.message()));
    created_ = true;
  }
  lock_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ < 0) refuse(dir_, option_, fmt::format("cannot open the directory: {}", std::strerror(errno)));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    refuse(dir_, option_,
           "another strata process is writing a result into this directory; wait for it or choose another directory");
  }
  // Holding the lock, every staging directory here is a killed run's leftover.
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().filename().string().rfind(kStagingPrefix, 0) == 0) fs::remove_all(entry.path(), ec);
  }
  staging_ = (fs::path(dir_) / fmt::format("{}{}", kStagingPrefix, ::getpid())).string();
  // Registered before it exists, so that no moment has it on disk and unknown to the handler.
  cleanup_.emplace(staging_);
  if (!fs::create_directory(staging_, ec) || ec)
    refuse(dir_, option_, fmt::format("cannot write here: {}", ec ? ec.message() : "the staging directory exists"));
}

ResultDir::~ResultDir() {
  // Cleanup often runs because memory ran out: the staging directory goes without allocating
  // (remove_tree_no_alloc), and the rest is best effort (a destructor must not throw).
  if (!staging_.empty()) remove_tree_no_alloc(staging_.c_str());
  cleanup_.reset();
  try {
    std::error_code ec;
    if (created_ && !committed_ && fs::is_empty(dir_, ec)) fs::remove(dir_, ec);
  } catch (...) {
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::string ResultDir::staged(const std::string& name) const { return (fs::path(staging_) / name).string(); }

void ResultDir::remove_result_files(const std::vector<std::string>& keep) {
  std::error_code ec;
  // summary.json first: from here on the directory does not look complete.
  fs::remove(fs::path(dir_) / "summary.json", ec);
  for (const std::string& name : result_files_)
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) fs::remove(fs::path(dir_) / name, ec);
}

void ResultDir::commit() {
  throw_if_memory_ran_out();
  std::vector<std::string> staged_names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(staging_, ec))
    staged_names.push_back(entry.path().filename().string());
  if (ec) throw OutputError(fmt::format("cannot read {}: {}", staging_, ec.message()));
  remove_result_files(staged_names);
  std::sort(staged_names.begin(), staged_names.end());
  // summary.json last: its presence marks the result complete.
  std::stable_partition(staged_names.begin(), staged_names.end(),
                        [](const std::string& n) { return n != "summary.json"; });
  for (const std::string& name : staged_names) {
    const std::string from = staged(name), to = (fs::path(dir_) / name).string();
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throw OutputError(fmt::format("cannot move {} into place: {}", to, std::strerror(errno)));
  }
  committed_ = true;
  sync_dir(dir_);
}

void ResultDir::commit_replacing(const std::vector<std::string>& aside, const std::vector<std::string>& install) {
  throw_if_memory_ran_out();
  const fs::path dir(dir_), old = dir / fmt::format(".old-{}", ::getpid());
  std::error_code ec;
  fs::remove_all(old, ec);
  std::vector<std::string> moved_aside, moved_in;
  auto move = [](const fs::path& from, const fs::path& to) {
    std::error_code e;
    fs::create_directories(to.parent_path(), e);
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throw OutputError(fmt::format("cannot move {} into place: {}", to.string(), std::strerror(errno)));
  };
  try {
    for (const std::string& p : aside) {
      if (!fs::exists(fs::symlink_status(dir / p, ec))) continue;
      move(dir / p, old / p);
      moved_aside.push_back(p);
    }
    for (const std::string& p : install) {
      move(fs::path(staging_) / p, dir / p);
      moved_in.push_back(p);
    }
  } catch (const OutputError&) {
    // Back as it was: the new parts out, the older ones in.
    for (auto it = moved_in.rbegin(); it != moved_in.rend(); ++it) fs::remove_all(dir / *it, ec);
    for (auto it = moved_aside.rbegin(); it != moved_aside.rend(); ++it)
      std::rename((old / *it).c_str(), (dir / *it).c_str());
    fs::remove_all(old, ec);
    throw;
  }
  committed_ = true;
  sync_dir(dir_);
  fs::remove_all(old, ec);
}

void ResultDir::commit_interrupted(const std::string& marker) {
  // The marker is written in the staging directory (which the immediate exit of a second signal
  // removes, temporary file and all) and then moved into place.
  std::error_code ec;
  fs::remove_all(staging_, ec);
  fs::create_directory(staging_, ec);
  write_file_atomic(staged("interrupted.json"), marker);
  remove_result_files({});
  const std::string to = (fs::path(dir_) / "interrupted.json").string();
  if (std::rename(staged("interrupted.json").c_str(), to.c_str()) != 0)
    throw OutputError(fmt::format("cannot move {} into place: {}", to, std::strerror(errno)));
  committed_ = true;
  sync_dir(dir_);
}

}  // namespace strata
