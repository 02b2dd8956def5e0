#include "sim/app/sweep/point_runner.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/interrupt.h"
#include "sim/process.h"
#include "sim/results_writer.h"
#include "sim/text.h"

extern char** environ;

namespace fs = std::filesystem;

namespace strata {
namespace {

// The last lines of stderr (at most ~2 KB) for failed.json and results.
std::string stderr_tail(const std::string& point_dir) {
  std::string text = read_text_file((fs::path(point_dir) / "stderr.log").string());
  if (text.size() > 2048) text = text.substr(text.size() - 2048);
  return text;
}

// The point's own error line: the last line that says "error:" (an InputError's
// "file:line: error: ...", "strata: error: ...", "strata: internal error: ..."), not what follows
// it (a SystemC report's "In file:" and "In process:" lines, a sanitizer's notes); the last line
// when none does.
std::string error_line(const std::string& tail) {
  std::istringstream in(tail);
  std::string line, last, error;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    last = line;
    if (line.find("error:") != std::string::npos) error = line;
  }
  return error.empty() ? last : error;
}

int write_failed(const std::string& point_dir, int point, const std::string& hash, nlohmann::ordered_json j) {
  const int attempts = recorded_attempts(point_dir) + 1;
  nlohmann::ordered_json out;
  out["point"] = point;
  out["config_hash"] = hash;
  out["attempts"] = attempts;
  for (auto& [k, v] : j.items()) out[k] = v;
  write_file_atomic((fs::path(point_dir) / "failed.json").string(), out.dump(2) + "\n");
  return attempts;
}

}  // namespace

std::string point_executable() {
  if (const char* e = std::getenv("STRATA_EXECUTABLE"); e && *e) return e;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable (/proc/self/exe); set STRATA_EXECUTABLE");
  return self.string();
}

PointState point_state(const std::string& point_dir) {
  std::error_code ec;
  // A summary.json that does not parse (a damaged disk, a hand edit) is no result: the point
  // runs again rather than being reported failed for good.
  if (fs::exists(fs::path(point_dir) / "summary.json", ec)) {
    try {
      const nlohmann::json s = nlohmann::json::parse(read_text_file((fs::path(point_dir) / "summary.json").string()));
      if (s.is_object() && s.contains("status")) return PointState::Ok;
    } catch (const nlohmann::json::exception&) {
    }
  }
  if (fs::exists(fs::path(point_dir) / "failed.json", ec)) return PointState::Failed;
  return PointState::Pending;
}

int recorded_attempts(const std::string& point_dir) {
  const fs::path p = fs::path(point_dir) / "failed.json";
  std::error_code ec;
  if (!fs::exists(p, ec)) return 0;
  try {
    return nlohmann::json::parse(read_text_file(p.string())).value("attempts", 0);
  } catch (const std::exception&) {
    return 0;
  }
}

PointProcess::Start PointProcess::start(const std::string& point_dir, const std::string& hash, double timeout_s) {
  dir_ = point_dir;
  timeout_s_ = timeout_s;
  const std::string lock_path = (fs::path(point_dir) / ".lock").string();
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open {}: {}", lock_path, std::strerror(errno)));
  // Far from 3, so that dup2 onto 3 below always makes a new, inheritable descriptor.
  lock_fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 64);
  ::close(fd);
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    return Start::Busy;
  }
  if (point_state(point_dir) == PointState::Ok) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    return Start::AlreadyDone;
  }
  const std::string exe = point_executable();
  const std::string yaml = (fs::path(point_dir) / "point.yaml").string();
  const std::string err = (fs::path(point_dir) / "stderr.log").string();
  std::vector<std::string> args = {exe, "run", yaml, "-o", point_dir, "-q", "--no-progress", "--expect-hash", hash};
  std::vector<char*> argv = exec_argv(args);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // The child holds the point's lock for as long as it lives (flock locks belong to the open
  // file, which descriptor 3 shares).
  posix_spawn_file_actions_adddup2(&fa, lock_fd_, 3);
  // A process group of its own, so that a time limit or an interrupt reaches whatever the point
  // started (a wrapper's children too), and a killed driver's terminal signals do not.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const int rc = ::posix_spawn(&pid_, exe.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw std::runtime_error(fmt::format("cannot start {}: {}", exe, std::strerror(rc)));
  }
  start_ = std::chrono::steady_clock::now();
  return Start::Started;
}

PointProcess::~PointProcess() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

PointProcess::PointProcess(PointProcess&& o) noexcept
    : dir_(std::move(o.dir_)),
      pid_(o.pid_),
      lock_fd_(o.lock_fd_),
      timeout_s_(o.timeout_s_),
      timed_out_(o.timed_out_),
      start_(o.start_) {
  o.pid_ = -1;
  o.lock_fd_ = -1;
}

PointProcess& PointProcess::operator=(PointProcess&& o) noexcept {
  std::swap(dir_, o.dir_);
  std::swap(pid_, o.pid_);
  std::swap(lock_fd_, o.lock_fd_);
  std::swap(timeout_s_, o.timeout_s_);
  std::swap(timed_out_, o.timed_out_);
  std::swap(start_, o.start_);
  return *this;
}

void PointProcess::signal(int sig) {
  if (pid_ > 0) ::kill(-pid_, sig);
}

std::optional<PointOutcome> PointProcess::poll() {
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) return finish(status);
  if (timeout_s_ > 0 && !timed_out_ &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > timeout_s_) {
    timed_out_ = true;
    ::kill(-pid_, SIGKILL);
  }
  return std::nullopt;
}

PointOutcome PointProcess::wait(const std::atomic<bool>* interrupt) {
  bool forwarded = false;
  while (true) {
    if (auto o = poll()) return *o;
    if (!forwarded && interrupt && interrupt->load()) {
      signal(interrupt_exit_code() - 128);
      forwarded = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

PointOutcome PointProcess::finish(int status) {
  PointOutcome o;
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  o.timed_out = timed_out_;
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  o.ok = o.exit_code == 0 && point_state(dir_) == PointState::Ok;
  o.interrupted = !o.timed_out && (o.exit_code == 128 + SIGINT || o.exit_code == 128 + SIGTERM || o.signal == SIGINT ||
                                   o.signal == SIGTERM);
  pid_ = -1;
  ::close(lock_fd_);
  lock_fd_ = -1;
  return o;
}

int record_outcome(const std::string& point_dir, int point, const std::string& hash, const PointOutcome& o) {
  if (o.ok) {
    const int attempts = recorded_attempts(point_dir) + 1;
    std::error_code ec;
    fs::remove(fs::path(point_dir) / "failed.json", ec);
    return attempts;
  }
  nlohmann::ordered_json j;
  const std::string tail = stderr_tail(point_dir);
  std::string error;
  if (o.timed_out) error = "timed out (killed at the sweep's timeout)";
  else if (o.signal) error = fmt::format("killed by signal {} ({})", o.signal, strsignal(o.signal));
  else if (o.exit_code == 0) error = "exited 0 without a summary.json";
  else error = fmt::format("exit code {}: {}", o.exit_code, error_line(tail));
  j["error"] = error;
  j["exit_code"] = o.exit_code;
  j["signal"] = o.signal;
  j["timed_out"] = o.timed_out;
  j["wall_time_s"] = o.wall_s;
  j["stderr_tail"] = tail;
  return write_failed(point_dir, point, hash, j);
}

int record_lost(const std::string& point_dir, int point, const std::string& hash, const std::string& why) {
  nlohmann::ordered_json j;
  j["error"] = why;
  j["exit_code"] = -1;
  j["signal"] = 0;
  j["timed_out"] = false;
  j["stderr_tail"] = stderr_tail(point_dir);
  return write_failed(point_dir, point, hash, j);
}

}  // namespace strata
