// Expanding a sweep into its points: the axes' combinations (grid, zip, random, Latin
// hypercube), the constraints, and each point resolved and validated like `strata run` would,
// so that a bad combination is reported before any point runs. A point's identity is its config
// hash; points that resolve to the same configuration run once.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "sim/app/progress.h"
#include "sim/app/sweep/sweep_spec.h"

namespace strata {

class Registry;

struct SweepPoint {
  int index = 0;                    // in the plan, from 0
  std::vector<std::string> labels;  // one per axis, as results show them
  std::string fidelity = "cycle";   // cycle, or analytic for a two-stage screen
  std::string hash;                 // config hash (32 hex digits)
  std::string yaml;                 // the point as an experiment file (files named absolutely); given
                                    // to ExpandOptions::sink, then dropped
  std::string dir() const { return hash.substr(0, 16); }  // relative to the sweep directory
};

struct Expansion {
  std::vector<SweepPoint> points;
  int dropped = 0;     // combinations the constraints removed
  int duplicates = 0;  // combinations that resolved to an earlier point's configuration
};

inline constexpr double kMaxSweepPoints = 1e7;

// Thrown out of an expansion when its interrupt flag is set.
struct Interrupted {};

struct ExpandOptions {
  // Given each new point, with its yaml, as it is expanded (to write it out); the points are
  // kept without their yaml, so a sweep of millions of points holds only labels and hashes.
  std::function<void(const SweepPoint&)> sink;
  ProgressMode progress = ProgressMode::Off;  // "expanding NAME [####....] n/N" on stderr
  const std::atomic<bool>* interrupt = nullptr;
};

// The points of the sweep, at the given fidelity ("" leaves sim.fidelity as the experiment
// sets it), one combination at a time. Throws InputError for a bad axis value or constraint,
// and before any work for more than kMaxSweepPoints combinations or more than the memory
// budget (sim/memory_budget.h) can hold.
Expansion expand_sweep(const SweepSpec& spec, const Registry& registry, const std::string& fidelity = "",
                       const ExpandOptions& options = {});

// The same points again at another fidelity (the second stage of a two-stage sweep).
SweepPoint refidelity(const SweepSpec& spec, const SweepPoint& point, const Registry& registry,
                      const std::string& fidelity);

}  // namespace strata
