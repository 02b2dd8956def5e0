#include "sim/process.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/interrupt.h"

extern char** environ;

namespace strata {

std::string scripts_dir() {
  const char* env = std::getenv("STRATA_SCRIPTS");
  return env && *env ? std::string(env) : (std::filesystem::path(STRATA_SOURCE_DIR) / "scripts").string();
}

std::string script_python() { return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

std::vector<char*> exec_argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

ProcessResult run_process(const std::string& program, const std::vector<std::string>& args, const std::string& cwd,
                          const std::atomic<bool>* interrupt) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> argv_s = {program};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv = exec_argv(argv_s);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (interrupt) {
    // Its own process group: a terminal's Ctrl-C reaches this process, which passes it on once.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, program.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  ProcessResult r;
  if (rc != 0) {
    ::close(fds[0]);
    r.output = fmt::format("cannot run {}: {}", program, std::strerror(rc));
    return r;
  }
  std::optional<InterruptChild> registered;
  if (interrupt) registered.emplace(pid);
  bool forwarded = false;
  char buf[4096];
  while (true) {
    if (interrupt && !forwarded && interrupt->load()) {
      ::kill(pid, interrupt_exit_code() - 128);
      forwarded = true;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, interrupt ? 50 : -1);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  if (registered) {
    // Waited for without reaping, then unregistered, then reaped: the immediate exit never
    // signals a process id that a reaped child has left free for another process.
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    registered.reset();
  }
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace strata
