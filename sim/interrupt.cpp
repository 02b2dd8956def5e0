#include "sim/interrupt.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace strata {
namespace {

std::atomic<bool> g_flag{false};
std::atomic<int> g_signal{0};
std::atomic<int> g_phase{static_cast<int>(InterruptPhase::Immediate)};

// Directories and children the immediate exit cleans up. A slot is 0 (free), 1 (being filled)
// or 2 (ready); the handler reads only ready slots.
constexpr int kDirSlots = 8;
constexpr size_t kPathBytes = 4096;
struct DirSlot {
  std::atomic<int> state{0};
  char path[kPathBytes];
};
DirSlot g_dirs[kDirSlots];
constexpr int kChildSlots = 256;
std::atomic<pid_t> g_children[kChildSlots];

void say(const char* text) {
  // write(2) is async-signal-safe; fmt and stdio are not.
  const ssize_t n = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)n;
}

// Everything here is async-signal-safe: kill, waitpid, openat, getdents64, unlinkat, close.
void clean_up_before_exit() {
  for (auto& c : g_children) {
    const pid_t pid = c.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }
  for (auto& c : g_children) {
    const pid_t pid = c.load();
    if (pid > 0) ::waitpid(pid, nullptr, 0);  // ECHILD when a waiting thread reaped it first
  }
  for (auto& d : g_dirs)
    if (d.state.load() == 2) remove_tree_no_alloc(d.path);
}

extern "C" void on_interrupt(int sig) {
  const int saved_errno = errno;
  const bool second = g_signal.exchange(sig) != 0;
  const int phase = g_phase.load();
  if (second || phase != static_cast<int>(InterruptPhase::Cooperative)) {
    clean_up_before_exit();
    if (phase != static_cast<int>(InterruptPhase::Reported))
      say(second ? "strata: interrupted again; stopping now\n" : "strata: interrupted before anything was written\n");
    ::_exit(128 + sig);
  }
  g_flag.store(true);
  errno = saved_errno;
}

struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

bool is_dot(const char* name) { return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)); }

// Empties the directory open as `fd`; `depth` bounds the recursion (and the stack it takes: a
// signal may arrive on a small SystemC coroutine stack).
bool empty_dir(int fd, int depth) {
  if (depth > 32) return false;
  alignas(8) char buf[1024];
  bool ok = true;
  // Entries removed while reading may shift the rest: read again from the start until a pass
  // removes nothing.
  for (int pass = 0; pass < 1000; ++pass) {
    bool removed = false, more = true;
    ::lseek(fd, 0, SEEK_SET);
    while (more) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) {
        more = false;
        if (n < 0) ok = false;
        break;
      }
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const LinuxDirent64*>(buf + off);
        off += d->d_reclen;
        if (is_dot(d->d_name)) continue;
        if (d->d_type != DT_DIR && ::unlinkat(fd, d->d_name, 0) == 0) {
          removed = true;
          continue;
        }
        const int sub = ::openat(fd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
          ok = false;
          continue;
        }
        empty_dir(sub, depth + 1);
        ::close(sub);
        if (::unlinkat(fd, d->d_name, AT_REMOVEDIR) == 0) removed = true;
        else ok = false;
      }
    }
    if (!removed) break;
    ok = true;  // a later pass that removes everything counts
  }
  return ok;
}

}  // namespace

bool remove_tree_no_alloc(const char* path) noexcept {
  if (!path || !*path) return false;
  if (::unlink(path) == 0) return true;
  if (errno == ENOENT) return true;
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  empty_dir(fd, 0);
  ::close(fd);
  return ::rmdir(path) == 0 || errno == ENOENT;
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // A write past the file-size limit fails (EFBIG) instead of killing the process: the ordinary
  // write-error path then drops the staged result and keeps the older one.
  std::signal(SIGXFSZ, SIG_IGN);
}

void set_interrupt_phase(InterruptPhase phase) { g_phase.store(static_cast<int>(phase)); }

const std::atomic<bool>& interrupt_flag() { return g_flag; }

int interrupt_exit_code() {
  const int sig = g_signal.load();
  return 128 + (sig ? sig : SIGINT);
}

int report_interrupted(const std::string& line) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  say(line.c_str());
  set_interrupt_phase(InterruptPhase::Reported);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return interrupt_exit_code();
}

InterruptCleanup::InterruptCleanup(const std::string& dir) {
  if (dir.empty() || dir.size() >= kPathBytes) return;
  for (int i = 0; i < kDirSlots; ++i) {
    int free = 0;
    if (!g_dirs[i].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(g_dirs[i].path, dir.c_str(), dir.size() + 1);
    g_dirs[i].state.store(2);
    slot_ = i;
    return;
  }
}

InterruptCleanup::~InterruptCleanup() {
  if (slot_ >= 0) g_dirs[slot_].state.store(0);
}

InterruptChild::InterruptChild(pid_t pid) {
  if (pid <= 0) return;
  for (int i = 0; i < kChildSlots; ++i) {
    pid_t free = 0;
    if (g_children[i].compare_exchange_strong(free, pid)) {
      slot_ = i;
      return;
    }
  }
}

InterruptChild::~InterruptChild() {
  if (slot_ >= 0) g_children[slot_].store(0);
}

}  // namespace strata
