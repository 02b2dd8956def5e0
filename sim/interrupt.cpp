#include "sim/interrupt.h"

#include <csignal>
#include <cstring>

#include <unistd.h>

namespace strata {
namespace {

std::atomic<bool> g_flag{false};
std::atomic<int> g_signal{0};
std::atomic<int> g_phase{static_cast<int>(InterruptPhase::Immediate)};

void say(const char* text) {
  // write(2) is async-signal-safe; fmt and stdio are not.
  const ssize_t n = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)n;
}

extern "C" void on_interrupt(int sig) {
  const bool second = g_signal.exchange(sig) != 0;
  if (second || g_phase.load() == static_cast<int>(InterruptPhase::Immediate)) {
    say(second ? "strata: interrupted again; stopping now\n" : "strata: interrupted before anything was written\n");
    ::_exit(128 + sig);
  }
  g_flag.store(true);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void set_interrupt_phase(InterruptPhase phase) { g_phase.store(static_cast<int>(phase)); }

const std::atomic<bool>& interrupt_flag() { return g_flag; }

int interrupt_exit_code() {
  const int sig = g_signal.load();
  return 128 + (sig ? sig : SIGINT);
}

}  // namespace strata
