// The sweep's results store, rebuilt from the per-point files by `strata collect DIR` (and at
// the end of every `strata sweep`), so it can always be regenerated:
//   results.csv     one row per point: point, the axes (one column each), fidelity, status
//                   (ok / failed), hash, the point's summary figures (summary.json, without
//                   wall-clock time so that reruns and executors compare bit for bit), the
//                   derived outputs, path (relative to DIR) and error (failed points)
//   results.sqlite  the same rows in table `points` (plus wall_time_s), and table `sweep`
//                   (key, value) with the plan's metadata
//   pareto.csv      the Pareto-optimal ok points over the objectives (of the last stage)
//   ranking.csv     two-stage sweeps: per objective and cycle-level point, its analytic and
//                   cycle-level value and rank
// Points not yet run are left out of the files and counted as pending.
#pragma once

#include <string>

#include "sim/app/sweep/sweep_plan.h"

namespace strata {

struct CollectResult {
  int ok = 0, failed = 0, pending = 0;
  int pareto = 0;
  // Two-stage: pairs of cycle-level points whose order differs between the fidelities, of all
  // pairs, for the first objective; Kendall's tau.
  int disagreements = 0, pairs = 0;
  double kendall_tau = 1;
};

// `refuse_damaged` (`strata collect`): a point whose summary.json is there but is no result (cut
// short, not JSON, a number beyond a double such as 1e999, not an object with a status) is an
// InputError naming the file, its line and the point, thrown before any file is written, so the
// older store stays. Without it (a sweep, which runs such points again) it counts as not run.
CollectResult collect_results(const std::string& dir, const SweepPlan& plan, bool refuse_damaged = false);

// An ok point's objective value (summary figure or output) by name, for ranking; NaN when the
// point has no such figure.
double point_figure(const std::string& dir, const SweepPlan& plan, const PlanEntry& entry, const std::string& name);

}  // namespace strata
