#include "sim/app/sweep/sweep_plan.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/results_writer.h"

namespace fs = std::filesystem;

namespace strata {

SweepPlan make_plan(const SweepSpec& spec) {
  SweepPlan p;
  p.name = spec.name;
  p.source = fs::absolute(spec.file).lexically_normal().string();
  for (const Axis& a : spec.axes) {
    p.axes.push_back(a.column);
    p.axis_keys.push_back(a.key);
  }
  p.objectives = spec.objectives;
  for (const auto& o : spec.outputs) p.outputs.emplace_back(o.name, o.expr.text());
  p.timeout_s = spec.timeout_s;
  p.retries = spec.retries;
  p.two_stage = spec.two_stage();
  return p;
}

void add_points(SweepPlan& plan, const std::vector<SweepPoint>& points, int stage) {
  for (const SweepPoint& s : points) plan.points.push_back(PlanEntry{s.index, stage, s.fidelity, s.hash, s.labels});
}

void write_plan(const std::string& dir, const SweepPlan& plan) {
  nlohmann::ordered_json meta;
  meta["name"] = plan.name;
  meta["source"] = plan.source;
  meta["axes"] = plan.axes;
  meta["axis_keys"] = plan.axis_keys;
  meta["objectives"] = nlohmann::ordered_json::array();
  for (const Objective& o : plan.objectives)
    meta["objectives"].push_back({{"key", o.key}, {"sense", o.minimize ? "min" : "max"}});
  meta["outputs"] = nlohmann::ordered_json::array();
  meta["output_expressions"] = nlohmann::ordered_json::object();
  for (const auto& [name, expr] : plan.outputs) {
    meta["outputs"].push_back(name);
    meta["output_expressions"][name] = expr;
  }
  meta["timeout_s"] = plan.timeout_s;
  meta["retries"] = plan.retries;
  meta["two_stage"] = plan.two_stage;
  meta["points"] = plan.points.size();
  // One entry a line, streamed: a plan of millions of points is never one JSON tree in memory.
  AtomicFile pts((fs::path(dir) / "points.json").string());
  std::string chunk = "[";
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const PlanEntry& e = plan.points[i];
    nlohmann::ordered_json j;
    j["point"] = e.point;
    j["stage"] = e.stage;
    j["fidelity"] = e.fidelity;
    j["hash"] = e.hash;
    j["path"] = e.path();
    j["axes"] = nlohmann::ordered_json::object();
    for (size_t a = 0; a < plan.axes.size(); ++a) j["axes"][plan.axes[a]] = e.labels[a];
    chunk += (i ? ",\n" : "\n") + j.dump();
    if (chunk.size() > (1u << 20)) {
      pts.write(chunk);
      chunk.clear();
    }
  }
  chunk += "\n]\n";
  pts.write(chunk);
  pts.commit();
  write_file_atomic((fs::path(dir) / "sweep.json").string(), meta.dump(2) + "\n");
}

SweepPlan read_plan(const std::string& dir) {
  const fs::path meta_path = fs::path(dir) / "sweep.json";
  const fs::path points_path = fs::path(dir) / "points.json";
  if (!fs::exists(meta_path) || !fs::exists(points_path))
    throw InputError(SourceLoc{dir}, "", "not a sweep directory (no sweep.json and points.json)");
  auto parse = [](const fs::path& p) {
    std::ifstream in(p);
    try {
      return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(SourceLoc{p.string()}, "", fmt::format("not valid JSON: {}", e.what()));
    }
  };
  const nlohmann::json meta = parse(meta_path);
  SweepPlan p;
  auto entry = [&](const nlohmann::json& j) {
    PlanEntry e;
    e.point = j.at("point");
    e.stage = j.at("stage");
    e.fidelity = j.at("fidelity");
    e.hash = j.at("hash");
    for (const auto& a : p.axes) e.labels.push_back(j.at("axes").at(a));
    p.points.push_back(std::move(e));
  };
  try {
    p.name = meta.at("name");
    p.source = meta.at("source");
    p.axes = meta.at("axes").get<std::vector<std::string>>();
    p.axis_keys = meta.at("axis_keys").get<std::vector<std::string>>();
    for (const auto& o : meta.at("objectives")) p.objectives.push_back(Objective{o.at("key"), o.at("sense") == "min"});
    for (const auto& name : meta.at("outputs"))
      p.outputs.emplace_back(name, meta.at("output_expressions").at(name.get<std::string>()));
    p.timeout_s = meta.at("timeout_s");
    p.retries = meta.at("retries");
    p.two_stage = meta.at("two_stage");
    // Entry by entry: each becomes a PlanEntry and is dropped as soon as it is parsed.
    std::ifstream in(points_path);
    const nlohmann::json rest =
        nlohmann::json::parse(in, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          if (depth == 1 && event == nlohmann::json::parse_event_t::object_end) {
            entry(parsed);
            return false;
          }
          return true;
        });
    if (!rest.is_array()) throw InputError(SourceLoc{points_path.string()}, "", "not a list of points");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(SourceLoc{dir}, "", fmt::format("sweep.json or points.json is damaged: {}", e.what()));
  }
  return p;
}

}  // namespace strata
