#include "accelerators/pim/pim_system.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "memory/dram/dram.h"
#include "memory/memory_capacity.h"
#include "sim/input_error.h"
#include "sim/ports.h"
#include "sim/power_management.h"
#include "sim/registry.h"
#include "sim/sim_context.h"
#include "sim/simulated_time.h"
#include "sim/text.h"

namespace strata {
KindSpec PimSystem::spec() {
  KindSpec s;
  s.name = "pim";
  s.description = "processing-in-memory DRAM (units beside the banks) with a host, running operator graphs";
  s.add(param::list("offload", "operator classes the PIM units run: gemv (Gemv, and Gemm of at most "
                               "max_gemv_batch rows), attention (decode: Q.K^T and S.V over the KV cache), "
                               "elementwise (add, mul, relu); the rest runs on the host")
            .of_choices({"gemv", "attention", "elementwise"})
            .def("gemv,elementwise"));
  s.add(param::integer("max_gemv_batch",
                       "a Gemm of at most this many rows may run as that many GEMVs in the PIM (where the closed "
                       "forms say that beats the host)")
            .def("64")
            .range("1", "1048576"));
  s.add(param::boolean("compare_without_pim",
                       "also time the graph on the same DRAM without PIM (the host streams every weight over the "
                       "channels, cycle by cycle) and report speedup_vs_no_pim")
            .def("false"));
  s.slot(SlotSpec{"memory",
                  "the DRAM the units sit in, which the design models itself (a dram role kind: dram, any standard "
                  "preset)",
                  "component", kDramRole, true, nullptr});
  s.slot(SlotSpec{"pim", "the units: placement, lanes, registers, mode switching, timing, energy", "section", "", true,
                  &PimSpec::section()});
  s.slot(SlotSpec{"host", "the processor for what the units cannot run (a host role part; default roofline_host)",
                  kPartCategory, kHostRole, true, nullptr, "roofline_host"});
  // The units run at their DRAM's clock, whose power budget their timing carries (tMAC, tFAW:
  // AttAcc spaces all-bank MACs for it): no clock to manage, the die's temperature and the board.
  add_board_params(s);
  return s;
}

PimSystem::PimSystem(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx) : Component(name, cfg, ctx) {
  const DramDescription memory = Dram::describe(cfg.child("memory"));
  dram_ = memory.spec;
  capacity_ = memory.capacity;
  const ControllerConfig& controller = memory.controller;
  pim_ = PimSpec::from_config(cfg.child("pim"), dram_);
  const std::string standard_key = lower(dram_.standard);
  const PimDevice::Options options{ctx.check_protocol(), false, nullptr};
  device_ = std::make_unique<PimDevice>(dram_, controller, pim_, tech(), standard_key, options);
  if (params().flag("compare_without_pim"))
    baseline_ = std::make_unique<PimDevice>(dram_, controller, pim_, tech(), standard_key, options);
  dram_ = device_->dram();  // with the PIM commands, for the kernels' builders
  host_ = ctx.registry().make<CompanionHost>(cfg.child("host"));
  const HostCosts& host = host_->costs();
  for (const std::string& o : params().list("offload")) mapping_.offload.insert(o);
  mapping_.max_gemv_batch = params().integer("max_gemv_batch");
  mapping_.host_on_dram_bus = host_->link_bandwidth() <= 0;
  mapping_.prefer_pim = [this](const PimStep& pim, const PimStep& host) {
    return estimate_seconds(pim) <= estimate_seconds(host);
  };

  // Energy events: per command, as the device prices them.
  const DramProtocol& protocol = device_->protocol();
  for (int i = 0; i < protocol.size(); ++i) {
    const PimDevice::CommandCost& k = device_->command_cost()[static_cast<std::size_t>(i)];
    command_events_.push_back(
        k.joules > 0 ? &energy_event(lower(protocol.name(static_cast<DramCmd>(i))), k.joules, k.what) : nullptr);
  }
  const DramEnergy& e = device_->dram_energy();
  const PimUnitEnergy& u = device_->unit_energy();
  const double units = pim_.units_per_rank(dram_.org);
  commands_ = &counter("dram_commands", "commands", "DRAM and PIM commands every channel issued");
  simulated_commands_ = &counter("simulated_commands", "commands",
                                 "commands the one simulated controller issued (every channel runs the same stream)");
  active_ = &energy_event("active_standby", e.active_cycle, "rank-cycles with a bank open (IDD3N - IDD2N)");
  io_ = &energy_event("io", u.io_per_bit, "bits of host bursts across the DRAM's interface (technology table)");
  host_flop_ = &energy_event("host_flop", host.flop_j, "the host's FLOPs");
  host_memory_ = &energy_event("host_memory", host.memory_j_per_bit, "bits the host moves through its memory");
  link_ = &energy_event("link", host.link_j_per_bit, "bits across the host-PIM link");
  set_background_power(device_->standby_energy_j(1.0) + host.idle_w);
  const double unit_area = PimUnitEnergy::unit_area_mm2(tech(), dram_, pim_);
  const double all_units = units * dram_.org.ranks * dram_.org.controllers();
  add_area("pim_units", unit_area * all_units, tech().logic_leakage_w_per_mm2() * unit_area * all_units);
  if (host.area_mm2 > 0) add_area("host", host.area_mm2, 0);

  scalar("peak_flops", "FLOP/s", "every unit's lanes, 2 FLOP each per tMAC")
      .set(all_units * pim_.lanes * 2 / (pim_.timing.tMAC * dram_.tck_s));
  scalar("internal_bandwidth", "B/s", "every unit's burst per tMAC (what the units read from the banks)")
      .set(all_units * dram_.org.access_bytes() / (pim_.timing.tMAC * dram_.tck_s));
  scalar("peak_bandwidth", "B/s", "the DRAM's channels (what a host reads)").set(dram_.peak_bandwidth());
  ctx.report("latency_s", stat_name("latency"));
  ctx.report("flops", stat_name("flops"));
  ctx.report("achieved_tflops", stat_name("achieved_tflops"));
  ctx.report("pim_time_fraction", stat_name("pim_time_fraction"));
  if (baseline_) ctx.report("speedup_vs_no_pim", stat_name("speedup_vs_no_pim"));
  apply_die_and_board(*this);
}

PimSystem::~PimSystem() = default;

void PimSystem::load_graph(std::shared_ptr<const OpGraph> graph) {
  graph_ = std::move(graph);
  tasks_ = map_graph_to_pim(*graph_, mapping_);
  // The weights and KV caches the PIM DRAM holds: those its units compute on, and, where the
  // host sits on the DRAM's bus, the host's too. Refused up front where they do not fit.
  std::set<TensorId> held;
  const auto hold = [&](const Operator& op) {
    for (const TensorId t : op.inputs)
      if (graph_->tensor(t).cls == TensorClass::Weights || graph_->tensor(t).cls == TensorClass::KvCache)
        held.insert(t);
  };
  for (const PimTask& task : tasks_)
    if (task.on_pim || mapping_.host_on_dram_bus) hold(graph_->op(task.op));
  double bytes = 0;
  for (const TensorId t : held) bytes += static_cast<double>(graph_->tensor(t).bytes);
  require_capacity(capacity_, bytes,
                   fmt::format("the weights and KV caches of {} that the PIM DRAM holds",
                               graph_->name.empty() ? "the workload" : graph_->name));
  if (context().analytic()) return;
  sc_core::sc_spawn([this] { run_graph(); }, "graph_runner");
}

std::optional<double> PimSystem::graph_progress() const {
  if (tasks_.empty()) return std::nullopt;
  return static_cast<double>(done_) / static_cast<double>(tasks_.size());
}

void PimSystem::account(const PimRun& r) {
  for (std::size_t i = 0; i < r.commands.size(); ++i) {
    if (command_events_[i]) command_events_[i]->add(r.commands[i]);
    commands_->add(r.commands[i]);
    simulated_commands_->add(r.commands[i] / static_cast<std::uint64_t>(dram_.org.controllers()));
    if (device_->host_burst(static_cast<DramCmd>(i))) io_->add(r.commands[i] * dram_.org.access_bytes() * 8);
  }
  active_->add(r.active_rank_cycles);
}

double PimSystem::estimate_seconds(const PimStep& s) const {
  double t = s.link_bytes > 0 ? s.link_bytes / host_->link_bandwidth() : 0;
  if (s.kind == PimStep::Kind::Host) return t + host_->operator_seconds(s.flops, s.host_bytes);
  const double cycles = s.kind == PimStep::Kind::Gemv
                            ? PimGemvLayout(dram_, pim_, s.outputs, s.inputs, 0).estimate().cycles
                            : PimVectorLayout(dram_, pim_, s.elements, 0).estimate(s.op).cycles;
  return t + cycles * static_cast<double>(s.repeats) * dram_.tck_s;
}

PimSystem::StepTime PimSystem::run_step(const PimStep& s, bool analytic) {
  StepTime t;
  const double tck = dram_.tck_s;
  if (s.link_bytes > 0) {
    t.seconds += s.link_bytes / host_->link_bandwidth();
    link_->add(static_cast<std::uint64_t>(s.link_bytes * 8));
  }
  if (s.kind == PimStep::Kind::Host) {
    t.seconds += host_->operator_seconds(s.flops, s.host_bytes);
    host_flop_->add(static_cast<std::uint64_t>(s.flops));
    host_memory_->add(static_cast<std::uint64_t>(s.host_bytes * 8));
    return t;
  }
  // The device's clock moves past the transfer, but not past the longest simulated time (its
  // refreshes would be caught up one by one, for ever): the run fails there instead.
  if (!reachable_time(*this, static_cast<double>(device_->now()) * tck + t.seconds)) return t;
  device_->advance_to(device_->now() + static_cast<std::uint64_t>(t.seconds / tck));
  double cycles = 0;
  const auto execute = [&](PimProgram program, const PimEstimate& estimate) {
    for (std::int64_t i = 0; i < s.repeats; ++i) {
      if (analytic) {
        account_estimate(estimate);
        cycles += estimate.cycles;
        continue;
      }
      const PimRun r = device_->run(program);
      account(r);
      cycles += static_cast<double>(r.cycles());
    }
  };
  if (s.kind == PimStep::Kind::Gemv) {
    const PimGemvLayout layout(dram_, pim_, s.outputs, s.inputs, 0);
    execute(analytic ? PimProgram{} : layout.program(nullptr), layout.estimate());
  } else {
    const PimVectorLayout layout(dram_, pim_, s.elements, 0);
    execute(analytic ? PimProgram{} : layout.program(s.op), layout.estimate(s.op));
  }
  t.pim_cycles = static_cast<std::uint64_t>(cycles);
  t.seconds += cycles * tck;
  pim_seconds_ += cycles * tck;
  return t;
}

void PimSystem::account_estimate(const PimEstimate& e) {
  const double n = static_cast<double>(dram_.org.controllers()) * dram_.org.ranks;
  const PimCommands& c = device_->commands();
  const auto add = [&](DramCmd cmd, double count) {
    if (EnergyEvent* ev = command_events_[static_cast<std::size_t>(cmd)])
      ev->add(static_cast<std::uint64_t>(std::llround(count * n)));
  };
  add(c.MACAB, e.macab);
  add(c.MOVAB, e.movab);
  add(c.ACTAB, e.actab);
  add(c.WRGB, e.wrgb);
  add(c.RDMAC, e.rdmac);
  add(DramCmd::REF, e.ref);
  active_->add(static_cast<std::uint64_t>(std::llround(e.cycles * n)));  // a row open all along
  io_->add(static_cast<std::uint64_t>(std::llround((e.wrgb + e.rdmac) * n * dram_.org.access_bytes() * 8)));
}

double PimSystem::baseline_seconds(const PimStep& s) {
  if (s.kind == PimStep::Kind::Host) return host_->operator_seconds(s.flops, s.host_bytes);
  // Element-wise: the host reads both operands and writes the result through the channels.
  if (s.kind == PimStep::Kind::Elementwise)
    return static_cast<double>(s.repeats) * 3.0 * pim_.element_bytes() * static_cast<double>(s.elements) /
           dram_.peak_bandwidth();
  // The host reads every weight over the channels and multiplies at its peak.
  const PimGemvLayout layout(dram_, pim_, s.outputs, s.inputs, 0);
  const double flops = 2.0 * static_cast<double>(s.outputs * s.inputs);
  double seconds = 0;
  if (context().analytic()) {
    seconds = host_stream_cycles(dram_, layout.bytes_per_channel()) * dram_.tck_s;
  } else {
    PimProgram program = host_stream_program(dram_, layout.bytes_per_channel(), 0);
    seconds = static_cast<double>(baseline_->run(program).cycles()) * dram_.tck_s;
  }
  return static_cast<double>(s.repeats) * std::max(seconds, host_->peak_flops() > 0 ? flops / host_->peak_flops() : 0);
}

void PimSystem::finish_task(std::size_t i, double start, double end, std::uint64_t pim_cycles) {
  const PimTask& task = tasks_[i];
  const std::string base = "ops." + task.name + ".";
  scalar(base + "latency", "s", "the operator's time, its transfers included").set(end - start);
  scalar(base + "on_pim", "bool", "the PIM units ran (part of) it").set(task.on_pim ? 1 : 0);
  scalar(base + "flops", "FLOP", "its floating-point operations").set(task.flops);
  scalar(base + "pim_cycles", "cycles", "DRAM cycles its PIM kernels took").set(static_cast<double>(pim_cycles));
  flops_ += task.flops;
  latency_s_ = end;
  if (baseline_)
    for (const PimStep& s : task.steps) baseline_s_ += baseline_seconds(s);
  ++done_;
}

void PimSystem::run_graph() {
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    const double start = sc_core::sc_time_stamp().to_seconds();
    std::uint64_t cycles = 0;
    for (const PimStep& s : tasks_[i].steps) {
      const double energy = Component::dynamic_energy_j();
      const StepTime t = run_step(s, false);
      pending_j_ = Component::dynamic_energy_j() - energy;
      pending_from_ = sc_core::sc_time_stamp().to_seconds();
      pending_to_ = pending_from_ + t.seconds;
      cycles += t.pim_cycles;
      // In windows of sim.stats_window, so the power monitor samples the step's energy as it goes.
      // A step that would end past the longest simulated time fails the run (and the loop
      // below would take forever in windows).
      if (!reachable_time(*this, pending_to_)) return;
      const double window = context().stats_window_s() > 0 ? context().stats_window_s() : t.seconds;
      for (double left = t.seconds; left > 0; left -= window)
        sc_core::wait(sc_core::sc_time(std::min(left, window), sc_core::SC_SEC));
      device_->advance_to(static_cast<std::uint64_t>(sc_core::sc_time_stamp().to_seconds() / dram_.tck_s));
    }
    finish_task(i, start, sc_core::sc_time_stamp().to_seconds(), cycles);
  }
}

double PimSystem::dynamic_energy_j() const {
  const double now = sc_core::sc_time_stamp().to_seconds();
  const double e = Component::dynamic_energy_j();
  if (now >= pending_to_ || pending_to_ <= pending_from_) return e;
  return e - pending_j_ * (pending_to_ - now) / (pending_to_ - pending_from_);
}

double PimSystem::evaluate_analytic() {
  double now = 0;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    const double start = now;
    std::uint64_t cycles = 0;
    for (const PimStep& s : tasks_[i].steps) {
      const StepTime t = run_step(s, true);
      cycles += t.pim_cycles;
      now += t.seconds;
    }
    finish_task(i, start, now, cycles);
  }
  return now;
}

void PimSystem::finalize(const sc_core::sc_time& end) {
  if (!context().analytic()) account(device_->idle_until(static_cast<std::uint64_t>(end.to_seconds() / dram_.tck_s)));
  scalar("latency", "s", "the graph's last operator's end").set(latency_s_);
  scalar("flops", "FLOP", "the graph's floating-point operations").set(flops_);
  scalar("achieved_tflops", "TFLOP/s", "flops over latency").set(latency_s_ > 0 ? flops_ / latency_s_ * 1e-12 : 0);
  scalar("pim_time_fraction", "fraction", "time the PIM units' kernels took over latency")
      .set(latency_s_ > 0 ? pim_seconds_ / latency_s_ : 0);
  if (baseline_)
    scalar("speedup_vs_no_pim", "x",
           "latency of the same graph on the same DRAM without PIM (the host streams the weights) over latency")
        .set(latency_s_ > 0 ? baseline_s_ / latency_s_ : 0);
}

}  // namespace strata
