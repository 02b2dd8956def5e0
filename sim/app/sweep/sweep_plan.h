// A sweep directory's plan, written before any point runs so that `strata collect`, Slurm array
// tasks and resumed drivers work from the directory alone:
//   DIR/sweep.json   name, source file, axes (columns and keys), objectives, outputs (with
//                    their expressions), timeout, retries, the number of points
//   DIR/points.json  one entry per point: point, stage (1, or 2 for a two-stage sweep's cycle-
//                    level runs), fidelity, hash, path, axes {column: label}
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/sweep/expansion.h"

namespace strata {

struct PlanEntry {
  int point = 0;
  int stage = 1;
  std::string fidelity = "cycle";
  std::string hash;
  std::vector<std::string> labels;
  std::string path() const { return hash.substr(0, 16); }
};

struct SweepPlan {
  std::string name, source;
  std::vector<std::string> axes, axis_keys;
  std::vector<Objective> objectives;
  std::vector<std::pair<std::string, std::string>> outputs;  // name, expression
  double timeout_s = 0;
  int retries = 1;
  bool two_stage = false;
  std::vector<PlanEntry> points;
};

SweepPlan make_plan(const SweepSpec& spec);
void add_points(SweepPlan& plan, const std::vector<SweepPoint>& points, int stage);

// Writes sweep.json and points.json atomically (each point's directory and point.yaml are the
// driver's, as the expansion makes them).
void write_plan(const std::string& dir, const SweepPlan& plan);
// Throws InputError when DIR holds no plan (not a sweep directory).
SweepPlan read_plan(const std::string& dir);

}  // namespace strata
