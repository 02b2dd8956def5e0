// Everything one simulation shares: the registry it was built from, statistics, the timeline,
// the seed, summary fields, and input errors raised inside SystemC processes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/reuse.h"
#include "sim/schema.h"
#include "sim/stats.h"
#include "sim/timeline.h"

namespace strata {

class Registry;
class Component;
class TechTable;

// A headline figure of summary.json, read from a statistic at the end of the run.
struct SummaryField {
  std::string key;    // e.g. "avg_latency_ns"
  std::string stat;   // e.g. "workload.latency"
  std::string field;  // e.g. "mean", "p99", "value"
  double scale = 1;   // multiplies the stat's value (unit conversion)
};

class SimContext {
 public:
  SimContext(const Registry& registry, std::uint64_t seed, double stats_window_s);

  const Registry& registry() const { return registry_; }
  StatsRegistry& stats() { return stats_; }
  const StatsRegistry& stats() const { return stats_; }
  Timeline& timeline() { return timeline_; }
  std::uint64_t seed() const { return seed_; }
  // Window of time-series statistics (sim.stats_window).
  double stats_window_s() const { return stats_window_s_; }
  // sim.check_protocol: models with a protocol checker run it.
  bool check_protocol() const { return check_protocol_; }
  void set_check_protocol(bool on) { check_protocol_ = on; }
  // sim.fidelity: analytic. The run is evaluated in closed form (sim/analytic.h), not
  // simulated: components whose end-of-run figures come from simulated activity (DRAM refresh,
  // standby) derive them from the end time instead.
  bool analytic() const { return analytic_; }
  void set_analytic(bool on) { analytic_ = on; }
  // sim.reuse: layers. A cycle-level model simulates each run of identical layers' first two
  // and repeats the second for the rest (sim/reuse.h), through repeater().
  bool reuse_layers() const { return may_repeat_with("reuse", "layers"); }
  // Whether the run may count measured work again instead of simulating it (sim.reuse and the
  // sampling options designs add, such as the GPU's sim.sample): cycle level without a max_time.
  bool may_repeat_measured() const { return may_repeat_measured_; }
  void set_may_repeat_measured(bool on) { may_repeat_measured_ = on; }
  // The experiment's sim section: the options a design added (Registry::add_sim_option) are read
  // here by name (`sim_options().string("sample")`). Set by the runner before the hardware is made.
  const Params& sim_options() const { return sim_options_ ? *sim_options_ : no_options_; }
  void set_sim_options(const Params& sim) { sim_options_ = &sim; }
  // Whether the run may repeat measured work and sim option `option` is `value` (sim.reuse:
  // layers; the GPU's sim.sample: waves).
  bool may_repeat_with(const std::string& option, const std::string& value) const {
    const Params& sim = sim_options();
    return may_repeat_measured_ && sim.has(option) && sim.string(option) == value;
  }
  SpanRepeater& repeater() { return repeater_; }
  // sim.max_time in seconds (0: none). A model that runs ahead of SystemC time in one step (a
  // GPU's compute-only kernel) stops there, as the runner does.
  double time_limit_s() const { return time_limit_s_; }
  void set_time_limit_s(double s) { time_limit_s_ = s; }
  // Simulated to reported time (sim/reported_time.h).
  const ReportedTime& reported_time() const { return stats_.reported_time(); }

  // An independent, reproducible random stream per name: the same seed and name give the same
  // sequence whatever else the design creates. Use Boost.Random distributions with it (the
  // std:: distributions differ between standard libraries).
  std::mt19937_64 rng(const std::string& stream) const;

  // The technology table `name` (a built-in node or an absolute file path), loaded once per run.
  // `where` and `key` name the parameter for errors.
  const TechTable& tech(const std::string& name, const SourceLoc& where, const std::string& key);

  // Components register themselves so the runner can finalize them and total energy and area.
  void add_component(Component* c) { components_.push_back(c); }
  const std::vector<Component*>& components() const { return components_; }

  // Keeps `object` (a SystemC object the design needs, not a component: a protocol checker)
  // alive as long as the context.
  void keep(std::shared_ptr<void> object) { kept_.push_back(std::move(object)); }

  // Declares a summary.json figure. A later report of the same key replaces it in place (a
  // package of devices reports its own latency_s over its devices').
  void report(std::string key, std::string stat, std::string field = "value", double scale = 1);
  const std::vector<SummaryField>& summary_fields() const { return summary_; }
  // A summary.json figure that is text, not a statistic (a benchmark's unit); a later report of
  // the same key replaces it.
  void report_text(const std::string& key, std::string value);
  const std::vector<std::pair<std::string, std::string>>& summary_texts() const { return summary_texts_; }

  // Input errors found while simulating (a corrupt trace line read on demand) cannot unwind
  // through the SystemC kernel cleanly: the process records the first one and stops issuing
  // work, and the runner raises it after sc_start returns.
  void fail(const InputError& e);
  const std::optional<InputError>& failure() const { return failure_; }

 private:
  const Registry& registry_;
  std::uint64_t seed_;
  double stats_window_s_;
  bool check_protocol_ = false;
  bool analytic_ = false;
  bool may_repeat_measured_ = false;
  const Params* sim_options_ = nullptr;
  Params no_options_;
  double time_limit_s_ = 0;
  StatsRegistry stats_;
  Timeline timeline_;
  std::vector<Component*> components_;
  SpanRepeater repeater_{stats_};
  std::vector<std::shared_ptr<void>> kept_;
  std::map<std::string, std::shared_ptr<const TechTable>> tech_;
  std::vector<SummaryField> summary_;
  std::vector<std::pair<std::string, std::string>> summary_texts_;
  std::optional<InputError> failure_;
};

}  // namespace strata
