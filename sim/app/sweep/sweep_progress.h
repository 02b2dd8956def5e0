// A sweep's progress on stderr: a bar with done / failed / running / remaining counts and an
// ETA from the rate of this session's completions. On a terminal it redraws one line; with
// --progress into a file or pipe it prints a line every 10 s; --no-progress prints nothing.
#pragma once

#include <chrono>
#include <string>

#include "sim/app/progress.h"

namespace strata {

class SweepProgress {
 public:
  SweepProgress(ProgressMode mode, std::string label, int total);
  void update(int ok, int failed, int running);
  // A plain count of `total` (the points of a sweep being expanded).
  void count(int done);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  int total_;
  bool tty_, enabled_;
  bool printed_ = false;
  int first_finished_ = -1;
  void print(const std::string& line);
  std::string bar(int done) const;  // "#####..." of done/total
  Clock::time_point start_, last_;
};

}  // namespace strata
