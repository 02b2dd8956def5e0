#include <csignal>
#include <deque>
#include <map>
#include <thread>

#include "sim/app/sweep/executor.h"
#include "sim/app/sweep/point_runner.h"
#include "sim/app/sweep/sweep_progress.h"

namespace strata {

ExecResult run_local(const std::vector<ExecItem>& items, const ExecOptions& options) {
  using Clock = std::chrono::steady_clock;
  ExecResult result;
  std::deque<const ExecItem*> queue;
  for (const ExecItem& i : items) queue.push_back(&i);
  struct Running {
    const ExecItem* item;
    PointProcess process;
  };
  std::vector<Running> running;
  // Points another process is running (a driver killed earlier left it behind): retried
  // until their lock is free.
  std::vector<const ExecItem*> busy;
  Clock::time_point busy_checked = Clock::now();
  std::map<const ExecItem*, int> attempts;
  SweepProgress progress(options.progress, options.label,
                         options.done_before + options.failed_before + static_cast<int>(items.size()));
  bool forwarded = false;

  auto try_start = [&](const ExecItem* item) {
    PointProcess p;
    switch (p.start(item->dir, item->hash, options.timeout_s)) {
      case PointProcess::Start::Started: running.push_back(Running{item, std::move(p)}); return true;
      case PointProcess::Start::AlreadyDone: ++result.ok; return true;
      case PointProcess::Start::Busy: return false;
    }
    return false;
  };

  while (!queue.empty() || !running.empty() || !busy.empty()) {
    const bool stop = options.interrupt && options.interrupt->load();
    if (stop) {
      result.interrupted = true;
      queue.clear();
      busy.clear();
      if (!forwarded) {
        for (auto& r : running) r.process.signal(SIGINT);
        forwarded = true;
      }
    }
    bool progressed = false;
    while (!stop && static_cast<int>(running.size()) < options.jobs && !queue.empty()) {
      const ExecItem* item = queue.front();
      queue.pop_front();
      if (!try_start(item)) busy.push_back(item);
      progressed = true;
    }
    for (size_t i = 0; i < running.size();) {
      auto outcome = running[i].process.poll();
      if (!outcome) {
        ++i;
        continue;
      }
      const ExecItem* item = running[i].item;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      progressed = true;
      if (outcome->interrupted) {
        result.interrupted = true;
        continue;  // no result and no failure: a later run does it
      }
      record_outcome(item->dir, item->point, item->hash, *outcome);
      if (outcome->ok) ++result.ok;
      else if (++attempts[item] <= options.retries && !stop) queue.push_back(item);
      else ++result.failed;
    }
    if (!busy.empty() && Clock::now() - busy_checked > std::chrono::milliseconds(200)) {
      busy_checked = Clock::now();
      std::vector<const ExecItem*> still;
      for (const ExecItem* item : busy)
        if (static_cast<int>(running.size()) >= options.jobs || !try_start(item)) still.push_back(item);
      busy.swap(still);
    }
    progress.update(options.done_before + result.ok, options.failed_before + result.failed,
                    static_cast<int>(running.size() + busy.size()));
    if (!progressed) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  progress.finish();
  return result;
}

}  // namespace strata
