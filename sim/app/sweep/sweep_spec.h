// A sweep file: an experiment (any experiment keys, usually `extends:` of a shipped example)
// plus a `sweep:` section that names axes over config keys and how to explore them. Every key
// of the section is documented here, once:
//
//   sweep:
//     method: grid            grid (default): every combination of the axes;
//                             random: `samples` points drawn uniformly from each axis;
//                             lhs: a Latin-hypercube sample of `samples` points
//     samples: 100            random and lhs only
//     seed: 1                 seed of random and lhs sampling (default 1)
//     axes:                   one entry per axis, applied to the experiment in this order
//       KEY: [v1, v2, ...]    a list of values (any YAML: numbers, "1.6 GHz", maps)
//       KEY:
//         values: {label: value, ...}   labelled values; results show the label
//         name: COLUMN                  the axis' column in results (default KEY); not a column
//                                       every result has (point, status, energy_j, ...)
//       KEY: {range: [lo, hi], steps: N, scale: linear|log}   N values from lo to hi
//       KEY: {range: [lo, hi], step: S}                        lo, lo+S, ... up to hi
//                             bounds may carry a unit ("0.8 GHz", "1.6 GHz"); integer bounds
//                             without a unit give integers. random and lhs draw from a range's
//                             whole interval (log-uniformly for scale: log).
//     zip: [[KEY1, KEY2]]     axes that vary together (same number of values) instead of
//                             forming a product (grid only)
//     constraints: ["hardware.core.engine.rows * hardware.core.engine.cols <= 16384"]
//                             points where any expression is 0 are dropped before they run;
//                             names are axis columns or config keys (quantities in SI units,
//                             texts compared with == "text")
//     objectives: {latency_s: min, energy_j: min}
//                             summary figures or outputs, each min or max; they define the
//                             Pareto set (pareto.csv) and the two-stage ranking
//     outputs: {edp: "latency_s * energy_j"}   figures derived from each point's summary (named
//                             unlike the axes, the results' own columns and the summaries' figures)
//     two_stage: {top_k: 10}  screen every point with sim.fidelity: analytic, then run the best
//                             top_k by the first objective at cycle level; {front: true} runs
//                             the analytic Pareto front instead (top_k and front may combine)
//     executor: local         local (default) or slurm; --executor overrides
//     jobs: 0                 local: processes at once (0: the number of cores); --jobs overrides
//     timeout: "0 s"          wall-clock limit of one point (0: none); --timeout overrides
//     retries: 1              re-runs of a failed point before it is reported failed
//     slurm:                  slurm executor (command-line options override each)
//       partition, account, time ("HH:MM:SS" or minutes), mem ("4G"): as sbatch's options
//       extra: ["--qos=short"]     further #SBATCH lines
//       max_parallel: 0            array tasks at once (%M in --array; 0: no limit)
//       points_per_task: 0         points one array task runs in turn (0: enough that the array
//                                  has at most 1000 tasks)
//       poll: "2 s"                how often squeue is asked
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/sweep/expression.h"
#include "sim/config_node.h"

namespace strata {

struct AxisValue {
  std::string label;  // what results show
  ConfigNode value;   // what is set at the axis' key
};

struct Axis {
  std::string key;                // config key path
  std::string column;             // column name in results
  std::vector<AxisValue> values;  // grid values (and the discrete choices of random/lhs)
  // A range axis, for random and lhs: the interval values are drawn from.
  bool range = false;
  double lo = 0, hi = 0;
  bool log = false, integer = false;
  std::string unit;  // written after drawn numbers ("GHz"), or empty
  SourceLoc loc;
};

struct Objective {
  std::string key;
  bool minimize = true;
};

struct NamedExpression {
  std::string name;
  Expression expr;
};

struct SlurmOptions {
  std::string partition, account, time, mem;
  std::vector<std::string> extra;
  int max_parallel = 0;
  int points_per_task = 0;
  double poll_s = 2;
};

struct SweepSpec {
  std::string file;       // the sweep file
  ConfigNode experiment;  // the experiment part (extends resolved, without `sweep`)
  std::string name;       // the experiment's name (or the file's stem)
  std::string method = "grid";
  int samples = 0;
  std::uint64_t seed = 1;
  std::vector<Axis> axes;
  std::vector<std::vector<int>> zips;  // groups of axis indices
  std::vector<Expression> constraints;
  std::vector<Objective> objectives;
  std::vector<NamedExpression> outputs;
  int top_k = 0;
  bool front = false;
  bool two_stage() const { return top_k > 0 || front; }
  std::string executor = "local";
  int jobs = 0;
  double timeout_s = 0;
  int retries = 1;
  SlurmOptions slurm;
};

// Loads and checks a sweep file; `overrides` ("key=value", as `strata run --set`) change the
// experiment before the axes apply. Throws InputError (file, line, key) for anything wrong.
SweepSpec load_sweep(const std::string& path, const std::vector<std::string>& overrides = {});

}  // namespace strata
