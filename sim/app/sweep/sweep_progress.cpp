#include "sim/app/sweep/sweep_progress.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include <unistd.h>

#include <fmt/format.h>

namespace strata {
namespace {

std::string duration(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f}h{:02.0f}m", std::floor(s / 3600), std::fmod(s / 60, 60));
}

}  // namespace

SweepProgress::SweepProgress(ProgressMode mode, std::string label, int total)
    : label_(std::move(label)),
      total_(total),
      tty_(::isatty(STDERR_FILENO) != 0),
      enabled_(mode == ProgressMode::On || (mode == ProgressMode::Auto && tty_)),
      start_(Clock::now()),
      last_(start_) {}

void SweepProgress::update(int ok, int failed, int running) {
  if (!enabled_) return;
  const int finished = ok + failed;
  if (first_finished_ < 0) first_finished_ = finished;  // points finished before this session
  const auto now = Clock::now();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (printed_ && since_last < (tty_ ? 0.2 : 10.0) && finished < total_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const int session = finished - first_finished_;
  const int remaining = total_ - finished;
  std::string eta = "--";
  if (session > 0 && remaining > 0) eta = duration(elapsed / session * remaining);
  else if (remaining == 0) eta = "0s";
  print(fmt::format("{} [{}] {}/{}  ok {}  failed {}  running {}  remaining {}  ETA {}", label_, bar(finished),
                    finished, total_, ok, failed, running, remaining, eta));
}

void SweepProgress::count(int done) {
  if (!enabled_) return;
  const auto now = Clock::now();
  // Only an expansion that takes over a second shows; once shown, its end shows too.
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (printed_ ? since_last < (tty_ ? 0.2 : 10.0) && done < total_ : since_last < 1.0) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  print(fmt::format("{} [{}] {}/{}  ETA {}", label_, bar(done), done, total_,
                    done > 0 && done < total_ ? duration(elapsed / done * (total_ - done)) : std::string("--")));
}

std::string SweepProgress::bar(int done) const {
  constexpr int kWidth = 24;
  const int filled = total_ ? static_cast<int>(static_cast<std::int64_t>(done) * kWidth / total_) : kWidth;
  return std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kWidth - filled), '.');
}

void SweepProgress::print(const std::string& line) {
  if (tty_) fmt::print(stderr, "\r{}\x1b[K", line);
  else fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
  printed_ = true;
}

void SweepProgress::finish() {
  if (enabled_ && printed_ && tty_) fmt::print(stderr, "\n");
}

}  // namespace strata
