#include "sim/app/progress.h"

#include <cstdio>

#include <unistd.h>

#include <fmt/format.h>

#include "sim/units.h"

namespace strata {

ProgressMode parse_progress_mode(const std::string& text) {
  if (text == "on") return ProgressMode::On;
  if (text == "off") return ProgressMode::Off;
  return ProgressMode::Auto;
}

ProgressReporter::ProgressReporter(ProgressMode mode)
    : tty_(::isatty(STDERR_FILENO) != 0),
      enabled_(mode == ProgressMode::On || (mode == ProgressMode::Auto && tty_)),
      start_(Clock::now()),
      last_(start_) {}

void ProgressReporter::update(double simulated_s, std::optional<double> fraction) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (elapsed < 2.0 || (printed_ && since_last < (tty_ ? 0.25 : 5.0))) return;
  last_ = now;
  std::string line = fmt::format("[strata] simulated {} ({}/s wall)", format_quantity(simulated_s, UnitFamily::Time, 4),
                                 format_quantity(simulated_s / elapsed, UnitFamily::Time, 3));
  if (fraction && *fraction > 0) {
    const double eta = elapsed * (1.0 - *fraction) / *fraction;
    line += fmt::format(", {:.1f}% done, ETA {:.0f} s", 100.0 * *fraction, eta);
  }
  if (tty_) fmt::print(stderr, "\r\033[K{}", line);
  else fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
  printed_ = true;
}

void ProgressReporter::finish() {
  if (printed_ && tty_) fmt::print(stderr, "\r\033[K");
}

}  // namespace strata
