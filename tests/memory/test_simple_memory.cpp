// The vertical slice end to end: a trace replayed over TLM-2.0 AT into SimpleMemory, checked
// against closed-form latency and bandwidth. Each test elaborates its own design (one process
// per test, see tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tlm_utils/simple_initiator_socket.h>

#include "accelerators/builtin_kinds.h"
#include "memory/simple_memory.h"
#include "sim/app/runner.h"
#include "sim/registry.h"
#include "test_util.h"

using nlohmann::json;
using strata::testing::TempDir;

namespace {

// Memory: 1 GHz, 50 ns latency, 12.8 GB/s (a 64 B transfer takes exactly 5 ns).
struct RunOutput {
  json stats;
  json summary;
  json timeline;  // null unless the run wrote one
};

RunOutput run(const std::string& trace, int max_outstanding, int queue_depth, const std::string& extra_sim = "") {
  TempDir d;
  d.write("t.trace", trace);
  const std::string exp = d.write("exp.yaml", "name: t\nsim: {stats_window: 10 ns" + extra_sim +
                                                  "}\n"
                                                  "hardware: {kind: simple_memory, clock: 1 GHz, latency: 50 ns, "
                                                  "bandwidth: 12.8 GB/s, queue_depth: " +
                                                  std::to_string(queue_depth) +
                                                  "}\n"
                                                  "workload: {kind: memory_trace, path: t.trace, clock: 1 GHz, "
                                                  "max_outstanding: " +
                                                  std::to_string(max_outstanding) + "}\n");
  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  const auto resolved = strata::resolve_experiment(exp, {}, registry);
  strata::RunOptions options;
  options.output_dir = d.file("out");
  const auto result = strata::run_experiment(resolved, registry, options);
  RunOutput r{json::parse(strata::testing::read_file(d.file("out/stats.json"))), json(result.summary), json()};
  if (std::filesystem::exists(d.file("out/timeline.json")))
    r.timeline = json::parse(strata::testing::read_file(d.file("out/timeline.json")));
  return r;
}

std::string stream(int n, int every_cycles = 0) {
  std::string t;
  for (int i = 0; i < n; ++i) t += std::to_string(i * every_cycles) + " R " + std::to_string(64 * i) + "\n";
  return t;
}

constexpr double kNs = 1e-9;

}  // namespace

TEST(SimpleMemory, UnloadedLatencyIsLatencyPlusTransfer) {
  const RunOutput r = run("0 R 0x0\n", 1, 1);
  EXPECT_DOUBLE_EQ(r.stats["workload"]["latency"]["value"], 55.0);  // 50 ns + 64 B / 12.8 GB/s
  EXPECT_DOUBLE_EQ(r.stats["hardware"]["service_latency"]["value"], 55.0);
  EXPECT_DOUBLE_EQ(r.summary["simulated_time_s"], 55 * kNs);
  EXPECT_EQ(r.summary["requests"], 1);
}

TEST(SimpleMemory, SaturatedStreamRunsAtTheBandwidthLimit) {
  // 1000 reads all due at cycle 0, enough outstanding requests to cover the latency: the data
  // channel is the bottleneck, so the last byte leaves at 50 ns + 1000 x 5 ns.
  const RunOutput r = run(stream(1000), 64, 64);
  EXPECT_DOUBLE_EQ(r.summary["latency_s"], 5050 * kNs);
  EXPECT_NEAR(r.summary["bandwidth_gbps"].get<double>(), 64000.0 / 5050e-9 * 1e-9, 1e-9);
  EXPECT_NEAR(r.stats["hardware"]["utilization"]["value"].get<double>(), 5000.0 / 5050.0, 1e-12);
  EXPECT_EQ(r.stats["hardware"]["bytes"]["value"], 64000);
  // The time series shows the plateau at the peak bandwidth.
  const auto series = r.stats["hardware"]["bandwidth_over_time"]["values"];
  EXPECT_NEAR(series[100].get<double>(), 12.8, 1e-9);
}

TEST(SimpleMemory, OutstandingLimitFollowsLittlesLaw) {
  // One request in flight: each takes 55 ns and the next issues on the same edge.
  const RunOutput r = run(stream(100), 1, 32);
  EXPECT_DOUBLE_EQ(r.summary["latency_s"], 100 * 55 * kNs);
  EXPECT_NEAR(r.summary["bandwidth_gbps"].get<double>(), 64.0 / 55.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.summary["p99_latency_ns"], 55.0);
  EXPECT_NEAR(r.stats["workload"]["outstanding"]["value"].get<double>(), 1.0, 1e-12);
}

TEST(SimpleMemory, BoundedQueueBackPressures) {
  // queue_depth 2: two requests per 55 ns. Requests 2k and 2k+1 are answered at 55(k+1) and
  // 55(k+1)+5, each later one accepted when an answer frees a slot; the tenth answer comes at
  // 280 ns, where an unbounded queue would finish at 50 + 10 x 5 = 100 ns.
  const RunOutput r = run(stream(10), 8, 2);
  EXPECT_DOUBLE_EQ(r.summary["latency_s"], 280 * kNs);
  EXPECT_DOUBLE_EQ(r.stats["hardware"]["occupancy"]["max"], 2.0);
  // The third request waits in BEGIN_REQ from 2 ns until a slot frees at 55 ns; answered at 110.
  EXPECT_DOUBLE_EQ(r.stats["workload"]["latency"]["max"], 108.0);
}

TEST(SimpleMemory, UnsaturatedRequestsSeeOnlyTheUnloadedLatency) {
  // One request every 10 cycles (6.4 GB/s offered, half the peak): no queueing.
  const RunOutput r = run(stream(200, 10), 16, 16);
  EXPECT_DOUBLE_EQ(r.summary["avg_latency_ns"], 55.0);
  EXPECT_DOUBLE_EQ(r.summary["latency_s"], (199 * 10 + 55) * kNs);
}

TEST(SimpleMemory, TimelineHasMatchedRequestSpans) {
  const RunOutput r = run(stream(20), 4, 4, ", timeline: true");
  ASSERT_TRUE(r.timeline.is_object());
  int begins = 0, ends = 0;
  for (const auto& e : r.timeline["traceEvents"]) {
    begins += e["ph"] == "b";
    ends += e["ph"] == "e";
  }
  EXPECT_EQ(begins, 20);
  EXPECT_EQ(ends, 20);
  EXPECT_EQ(r.timeline["metadata"]["dropped_events"], 0);
}

TEST(SimpleMemory, CorruptTraceLineMidRunIsAnInputError) {
  try {
    run(stream(50) + "60 R nothex\n", 4, 4);
    FAIL() << "no error";
  } catch (const strata::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.trace:51:6: error: expected a hexadecimal address"), std::string::npos)
        << e.what();
  }
}

namespace {
// A loosely-timed initiator: b_transport must report the same unloaded latency.
struct LtInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<LtInitiator> socket{"socket"};
  sc_core::sc_time delay;
  SC_HAS_PROCESS(LtInitiator);
  explicit LtInitiator(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    tlm::tlm_generic_payload gp;
    unsigned char data[64] = {};
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0);
    gp.set_data_ptr(data);
    gp.set_data_length(64);
    gp.set_streaming_width(64);
    delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(gp, delay);
  }
};
}  // namespace

TEST(SimpleMemory, BlockingTransportForLooselyTimedInitiators) {
  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  strata::ConfigNode cfg = strata::ConfigNode::parse(
      "memory: {kind: simple_memory, clock: 1 GHz, latency: 50 ns, bandwidth: 12.8 GB/s}\n", "inline");
  strata::KindSpec top;
  top.name = "top";
  top.category = "section";
  top.slot(strata::SlotSpec{"memory", "", "component", strata::kMemoryTargetRole, true, nullptr});
  const strata::ValidatedNode v = strata::validate(cfg, top, "", registry);
  strata::SimContext ctx(registry, 1, 1e-6);
  auto memory = registry.make_component("memory", v.child("memory"), ctx);
  LtInitiator initiator("initiator");
  initiator.socket.bind(dynamic_cast<strata::MemoryTarget&>(*memory).target_socket());
  sc_core::sc_start();
  EXPECT_EQ(initiator.delay, sc_core::sc_time(55, sc_core::SC_NS));
}

namespace {

// A memory with the TLM side only (no analytic model), as a new memory kind may start: it
// answers every request 10 ns after taking it.
class CycleOnlyMemory : public strata::Component, public strata::MemoryTarget {
 public:
  static strata::KindSpec spec() {
    strata::KindSpec s;
    s.name = "cycle_only_memory";
    s.description = "a test memory without an analytic model";
    s.with_clock();
    s.provides(strata::kMemoryTargetRole);
    return s;
  }
  CycleOnlyMemory(sc_core::sc_module_name n, const strata::ValidatedNode& cfg, strata::SimContext& ctx)
      : Component(n, cfg, ctx), target_("target", hooks()) {}
  strata::TargetSocket& target_socket() override { return target_.socket(); }
  double peak_bandwidth() const override { return 64e9; }

 private:
  strata::AtTarget::Hooks hooks() {
    strata::AtTarget::Hooks h;
    h.accept = [this](int port, tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      target_.respond(port, gp, sc_core::sc_time_stamp() + sc_core::sc_time(10, sc_core::SC_NS));
      return true;
    };
    return h;
  }
  strata::AtTarget target_;
};

// Runs a short stream on a cycle_only_memory at `fidelity`.
strata::RunResult run_cycle_only(const std::string& fidelity) {
  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  registry.add_component<CycleOnlyMemory>();
  strata::testing::TempDir d;
  const std::string experiment =
      d.write("e.yaml",
              "name: c\nhardware: {kind: cycle_only_memory, clock: 1 GHz}\n"
              "workload: {kind: memory_synthetic, pattern: stream, requests: 32, clock: 1 GHz}\n"
              "sim: {fidelity: " +
                  fidelity + "}\n");
  strata::RunOptions options;
  options.output_dir = d.file("out");
  return strata::run_experiment(strata::resolve_experiment(experiment, {}, registry), registry, options);
}

}  // namespace

// The TLM socket is all a memory needs at cycle level; its analytic side is optional, and an
// analytic run of a memory without one is refused at the memory's kind.
TEST(MemoryTarget, AMemoryWithoutAnAnalyticModelRunsAtCycleLevel) {
  const auto r = run_cycle_only("cycle");
  EXPECT_EQ(r.summary["requests"], 32) << r.summary.dump();
}

TEST(MemoryTarget, AnAnalyticRunOfAMemoryWithoutAnAnalyticModelIsRefused) {
  try {
    run_cycle_only("analytic");
    FAIL();
  } catch (const strata::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hardware.kind: memory kind 'cycle_only_memory' has no analytic model; use "
                                         "sim.fidelity: cycle"),
              std::string::npos)
        << e.what();
  }
}

namespace {

// A simple_memory that keeps an event pending for ever, as a DRAM's refresh does.
class TickingMemory : public strata::SimpleMemory {
 public:
  static strata::KindSpec spec() {
    strata::KindSpec s = strata::SimpleMemory::spec();
    s.name = "ticking_memory";
    s.description = "a test simple_memory with an event every 7 ns for ever";
    return s;
  }
  TickingMemory(sc_core::sc_module_name n, const strata::ValidatedNode& cfg, strata::SimContext& ctx)
      : SimpleMemory(n, cfg, ctx) {
    sc_core::sc_spawn([] {
      for (;;) sc_core::wait(7, sc_core::SC_NS);
    });
  }
};

json run_ticking(const std::string& window) {
  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  registry.add_component<TickingMemory>();
  TempDir d;
  d.write("t.trace", "0 R 0x0\n");
  const std::string exp =
      d.write("e.yaml", "name: t\nsim: {stats_window: " + window +
                            "}\nhardware: {kind: ticking_memory, clock: 1 GHz, latency: 50 ns, bandwidth: 12.8 GB/s}\n"
                            "workload: {kind: memory_trace, path: t.trace, clock: 1 GHz}\n");
  strata::RunOptions options;
  options.output_dir = d.file("out");
  return json(strata::run_experiment(strata::resolve_experiment(exp, {}, registry), registry, options).summary);
}

}  // namespace

// A run ends at its last event before the first sim.stats_window boundary after its workload
// finishes, never where a chunk sized by wall time happened to end: one read done at 55 ns, on a
// memory whose events every 7 ns never stop, with 300 ns windows, ends the run at 294 ns (the run
// used to end with its first chunk, at 994 ns, or later on a slow machine). One run a process.
TEST(RunEnd, ARunWithEventsPendingEndsAtTheFirstWindowBoundaryAfterItsWorkload) {
  const json s = run_ticking("300 ns");
  EXPECT_NEAR(s["latency_s"].get<double>(), 55 * kNs, 1e-15);
  EXPECT_NEAR(s["simulated_time_s"].get<double>(), 294 * kNs, 1e-15);
}
