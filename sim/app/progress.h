// Progress of a long run on stderr: simulated time, simulation rate, fraction done and ETA.
// "auto" shows it only on a terminal and only once a run has taken more than two seconds;
// "on" also prints to a pipe or file (one line every few seconds); "off" never prints.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace strata {

enum class ProgressMode { Auto, On, Off };
ProgressMode parse_progress_mode(const std::string& text);

class ProgressReporter {
 public:
  explicit ProgressReporter(ProgressMode mode);
  // Called between simulation chunks.
  void update(double simulated_s, std::optional<double> fraction);
  // Clears the line (terminal) after the run.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool tty_;
  bool enabled_;
  bool printed_ = false;
  Clock::time_point start_, last_;
};

}  // namespace strata
