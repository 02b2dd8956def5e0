#include "sim/app/runner.h"

#include <chrono>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <systemc>

#include "sim/analytic.h"
#include "sim/app/result_dir.h"
#include "sim/component.h"
#include "sim/interrupt.h"
#include "sim/ports.h"
#include "sim/power_monitor.h"
#include "sim/registry.h"
#include "sim/results_writer.h"
#include "sim/simulated_time.h"
#include "sim/workload.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

// The run's energy by kind (summary.json's energy_*_j; they sum to energy_j).
struct EnergyShares {
  double static_j = 0, clock_j = 0, dynamic_j = 0, memory_j = 0, delivery_j = 0;
};

nlohmann::ordered_json build_summary(const ResolvedExperiment& exp, const SimContext& ctx, const std::string& status,
                                     const std::string& fidelity, double wall_s, const EnergyShares& shares) {
  const StatsRegistry& stats = ctx.stats();
  nlohmann::ordered_json s;
  s["experiment"] = exp.name;
  s["config_hash"] = exp.hash;
  s["status"] = status;
  s["fidelity"] = fidelity;
  s["simulated_time_s"] = stats.at("totals.simulated_time").value();
  s["wall_time_s"] = wall_s;
  s["energy_j"] = stats.at("totals.energy").value();
  s["area_mm2"] = stats.at("totals.area").value();
  s["avg_power_w"] = stats.at("totals.avg_power").value();
  s["peak_power_w"] = stats.at("totals.peak_power").value();
  s["energy_static_j"] = shares.static_j;
  s["energy_clock_j"] = shares.clock_j;
  s["energy_dynamic_j"] = shares.dynamic_j;
  s["energy_memory_j"] = shares.memory_j;
  // Only a design whose power delivery is modelled has this share (a loss ahead of the others).
  if (shares.delivery_j > 0) s["energy_delivery_j"] = shares.delivery_j;
  for (const auto& f : ctx.summary_fields()) {
    const Stat& stat = stats.at(f.stat);
    const double v = stat.field(f.field) * f.scale;
    // Counts stay integers in JSON.
    const bool count =
        f.scale == 1 && (f.field == "count" || (f.field == "value" && std::string(stat.type()) == "counter"));
    if (count) s[f.key] = static_cast<std::uint64_t>(v);
    else s[f.key] = v;
  }
  for (const auto& [key, text] : ctx.summary_texts()) s[key] = text;
  return s;
}

// Runs the kernel up to `until`, window by window, sampling power at every window boundary.
// Every window that closes before the next pending event is sampled first; then the kernel
// runs to the next boundary, stopping at its last event when nothing is left before it
// (starvation), and returns at the first boundary at which the workload has finished. With
// `until` on a boundary too (simulate rounds it), a run ends at its last event before the first
// window boundary after its workload finishes, whatever the wall-time-sized chunks were.
void advance(const sc_core::sc_time& until, const sc_core::sc_time& limit, PowerMonitor& power, const SimContext& ctx,
             const Workload& workload) {
  while (sc_core::sc_pending_activity() && !ctx.failure()) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now >= until) return;
    const sc_core::sc_time next_event = now + sc_core::sc_time_to_pending_activity();
    // Every window up to the next event (or the time limit) is idle: they close in one call,
    // whatever `until` is, so the windows, and stats.json, do not depend on how the run was
    // cut into chunks (the chunk follows wall time).
    power.sample_idle_through(next_event < limit ? next_event : limit);
    if (next_event > until) {
      // Nothing happens before `until`: the time limit is reached idle; otherwise the caller
      // comes back with a chunk that reaches the next event.
      if (until == limit) sc_core::sc_start(until - now, sc_core::SC_RUN_TO_TIME);
      return;
    }
    const sc_core::sc_time boundary = power.next_boundary();
    sc_core::sc_start((boundary < until ? boundary : until) - now, sc_core::SC_EXIT_ON_STARVATION);
    if (workload.finished()) return;
  }
}

// The first statistics-window boundary at or after `t` (the windows tile time from 0).
sc_core::sc_time window_boundary_at_or_after(const sc_core::sc_time& t, const sc_core::sc_time& window) {
  const std::uint64_t w = window.value(), v = t.value();
  const std::uint64_t windows = v / w + (v % w != 0 ? 1 : 0);
  if (windows > sc_core::sc_max_time().value() / w) return sc_core::sc_max_time();
  return sc_core::sc_time::from_value(windows * w);
}

// Runs the kernel until the workload finishes, the time limit, a failure or an interrupt, in
// chunks of simulated time so progress can be shown and interrupts honoured; the chunk adapts
// to about 0.1 s of wall time and ends on a window boundary. The run ends at its last event
// before the first window boundary after its workload finishes (starvation ends a chunk early
// without advancing time). Returns the status ("complete" or "time_limit").
std::string simulate(const Params& sim, const Workload& workload, PowerMonitor& power, const SimContext& ctx,
                     const RunOptions& options, bool& interrupted) {
  ProgressReporter progress(options.progress.value_or(parse_progress_mode(sim.string("progress"))));
  const double max_time = sim.quantity("max_time");
  const sc_core::sc_time limit = max_time > 0 ? sc_core::sc_time(max_time, sc_core::SC_SEC) : sc_core::sc_max_time();
  sc_core::sc_time chunk(1, sc_core::SC_US);
  std::string status = "complete";
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // initialization: processes become runnable
  while (true) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now >= limit) {
      status = "time_limit";
      break;
    }
    sc_core::sc_time step = (limit - now) < chunk ? (limit - now) : chunk;
    // An idle gap longer than the chunk is crossed in one step: time always reaches the next
    // event (or the limit), however far away it is.
    if (sc_core::sc_pending_activity()) {
      const sc_core::sc_time gap = sc_core::sc_time_to_pending_activity();
      if (gap > step) step = (limit - now) < gap ? (limit - now) : gap;
    }
    // The chunk ends on a window boundary (or the limit): where a run ends must not depend on
    // the wall time that sized the chunk.
    const sc_core::sc_time until = std::min(window_boundary_at_or_after(now + step, power.window()), limit);
    const auto t0 = std::chrono::steady_clock::now();
    advance(until, limit, power, ctx, workload);
    throw_if_memory_ran_out();  // a shortage inside the kernel surfaces here (sim/results_writer.h)
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (wall < 0.05 && chunk < sc_core::sc_time(1, sc_core::SC_SEC)) chunk = chunk * 2;
    else if (wall > 0.2 && chunk > sc_core::sc_time(1, sc_core::SC_NS)) chunk = chunk / 2;
    progress.update(sc_core::sc_time_stamp().to_seconds(), workload.progress());
    if (ctx.failure() || workload.finished() || !sc_core::sc_pending_activity()) break;
    if (options.interrupt && options.interrupt->load()) {
      interrupted = true;
      break;
    }
  }
  progress.finish();
  return status;
}

// What the registered `strata run` importers add to a run's result (sim/cli_extension.h).
std::vector<std::string> importer_files(const Registry& registry) {
  std::vector<std::string> names;
  for (const RunImporter& imp : registry.run_importers()) {
    names.insert(names.end(), imp.files.begin(), imp.files.end());
    names.push_back(imp.name + "_experiment.yaml");
  }
  return names;
}

}  // namespace

std::string default_result_dir(const ResolvedExperiment& exp) {
  return (fs::path("results") / exp.name / exp.hash.substr(0, 16)).string();
}

RunResult run_experiment(const ResolvedExperiment& exp, const Registry& registry, const RunOptions& options) {
  const Params& sim = exp.root.child("sim").params;
  if (!exp.root.children.count("hardware"))
    throw InputError(exp.root.loc.line ? exp.root.loc : SourceLoc{exp.source}, "hardware",
                     "missing: `strata run` needs a design to run the workload on (`strata workload info` does not)");
  RunResult result;
  result.dir = options.output_dir.value_or(default_result_dir(exp));
  const std::string dir_option = options.output_dir ? "-o" : "result directory";
  check_result_dir(result.dir, dir_option);  // before any work

  SimContext ctx(registry, static_cast<std::uint64_t>(exp.root.params.integer("seed")), sim.quantity("stats_window"));
  ctx.set_check_protocol(sim.flag("check_protocol"));

  // Elaboration: the hardware tree, then the workload's drivers bound to it. An analytic run
  // elaborates the same design (its parameters, areas and energy events) and never starts the
  // kernel: the modules' processes are created but not run.
  const bool analytic = sim.string("fidelity") == "analytic";
  ctx.set_analytic(analytic);
  // A time limit bounds the time simulated; repeats would report past it, so a limited run
  // simulates everything.
  ctx.set_may_repeat_measured(!analytic && !(sim.quantity("max_time") > 0));
  ctx.set_sim_options(sim);
  ctx.set_time_limit_s(analytic ? 0 : sim.quantity("max_time"));
  const bool timeline = options.timeline.value_or(sim.flag("timeline"));
  if (timeline) ctx.timeline().request();
  std::unique_ptr<Component> hardware = registry.make_component("hardware", exp.root.child("hardware"), ctx);
  std::unique_ptr<Workload> workload = registry.make_workload(exp.root.child("workload"), ctx);
  workload->bind(*hardware);
  PowerMonitor power(ctx.components(), ctx.stats_window_s(), ctx.stats(), &ctx.repeater(), &ctx.timeline());

  // From here on files are written: an interrupt is noticed between simulation chunks and
  // leaves its marker (sim/interrupt.h), and everything goes to the staging directory first.
  set_interrupt_phase(InterruptPhase::Cooperative);
  ResultDir out(result.dir, dir_option, importer_files(registry));
  if (timeline)
    ctx.timeline().open(out.staged("timeline.json"), static_cast<std::uint64_t>(sim.integer("timeline_max_events")));

  std::string status = "complete";
  sc_core::sc_time end;
  const auto wall_start = std::chrono::steady_clock::now();
  if (analytic) {
    // The workload's own drivers evaluate it where they can (synthetic memory requests), else
    // the design does (an NPU its mapped program).
    auto* model = dynamic_cast<AnalyticModel*>(workload.get());
    if (!model) model = dynamic_cast<AnalyticModel*>(hardware.get());
    if (!model) {
      // A memory has analytic figures, but not for every driver (a trace is only known by replaying it).
      const std::string driver = dynamic_cast<MemoryTarget*>(hardware.get())
                                     ? fmt::format(" for workload kind '{}'", exp.root.child("workload").spec->name)
                                     : "";
      throw InputError(sim.where("fidelity"), "sim.fidelity",
                       fmt::format("component kind '{}' has no analytic model{}; use sim.fidelity: cycle",
                                   hardware->config().spec->name, driver));
    }
    double seconds = 0;
    try {
      seconds = model->evaluate_analytic();
    } catch (const InputError& e) {
      if (!e.loc().file.empty()) throw;
      throw InputError(sim.where("fidelity"), e.key().empty() ? "sim.fidelity" : e.key(), e.message());
    }
    // As a cycle-level run would (sim/simulated_time.h): a time SystemC cannot represent is
    // refused, not saturated.
    if (!(seconds <= kMaxSimulatedSeconds))
      throw InputError(sim.where("fidelity"), "sim.fidelity",
                       fmt::format("the analytic estimate, {:.4g} s, is past the {} s that SystemC's 64-bit "
                                   "femtosecond clock can represent; shorten the workload or the timing",
                                   seconds, kMaxSimulatedSeconds));
    end = sc_core::sc_time(seconds, sc_core::SC_SEC);
  } else {
    status = simulate(sim, *workload, power, ctx, options, result.interrupted);
    end = sc_core::sc_time_stamp();
  }
  // Simulated time plus the spans sim.reuse repeated: the run's length as reported.
  const sc_core::sc_time reported_end = ctx.reported_time()(end);
  if (ctx.failure()) throw *ctx.failure();
  const auto interrupt_requested = [&] { return options.interrupt && options.interrupt->load(); };
  const auto leave_marker = [&] {
    // A marker of the partial run instead of results: an older complete result in the directory
    // goes too, so nothing left there looks complete.
    result.interrupted = true;
    ctx.timeline().close();
    nlohmann::ordered_json marker;
    marker["experiment"] = exp.name;
    marker["config_hash"] = exp.hash;
    marker["status"] = "interrupted";
    marker["simulated_time_s"] = reported_end.to_seconds();
    if (const auto p = workload->progress()) marker["progress"] = *p;
    out.commit_interrupted(marker.dump(2) + "\n");
    return result;
  };
  if (result.interrupted || interrupt_requested()) return leave_marker();
  if (status == "complete" && !workload->finished())
    throw std::runtime_error(
        "the simulation ran out of events before the workload finished (a deadlock in the design)");

  // Accounting and totals, then the files; summary.json last.
  double energy = 0, area = 0;
  EnergyShares shares;
  for (Component* c : ctx.components()) c->finalize(end);
  // No windows were sampled in an analytic run: its power over time is the average throughout.
  if (analytic) power.finish_average(end);
  else power.finish(end);
  for (Component* c : ctx.components()) {
    const auto [e, a] = c->close_accounting(reported_end);
    energy += e;
    area += a;
    const Component::EnergySplit& split = c->energy_split();
    shares.static_j += split.static_j;
    shares.clock_j += split.clock_j;
    (c->is_memory() ? shares.memory_j : shares.dynamic_j) += split.events_j;
    shares.delivery_j += split.delivery_j;
  }
  // The end-of-run accounting is part of the run's cost (a DRAM replays the refreshes of a long
  // idle stretch here), and a signal during it stops the run like one during the simulation.
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (interrupt_requested()) return leave_marker();
  StatsRegistry& stats = ctx.stats();
  const double length = reported_end.to_seconds();
  stats
      .scalar("totals.simulated_time", "s",
              "when the run ended: its last event before the first sim.stats_window boundary after the workload "
              "finished (with the spans sim.reuse repeated)")
      .set(length);
  stats.scalar("totals.energy", "J", "energy of all components").set(energy);
  stats.scalar("totals.area", "mm2", "area of all components").set(area);
  stats.scalar("totals.avg_power", "W", "energy over simulated time").set(length > 0 ? energy / length : 0);
  if (!ctx.timeline().close()) throw OutputError(fmt::format("cannot write {}", out.staged("timeline.json")));

  result.summary = build_summary(exp, ctx, status, sim.string("fidelity"), wall_s, shares);
  write_file_atomic(out.staged("config.yaml"), fmt::format("# Resolved configuration of {}\n# config hash {}\n{}",
                                                           exp.source, exp.hash, exp.config.to_yaml()));
  write_file_atomic(out.staged("stats.json"), stats.to_json().dump(1) + "\n");
  if (options.extra_files) options.extra_files(out);
  write_file_atomic(out.staged("summary.json"), result.summary.dump(2) + "\n");
  if (interrupt_requested()) return leave_marker();
  out.commit();
  return result;
}

}  // namespace strata
