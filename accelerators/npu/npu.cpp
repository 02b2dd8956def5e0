#include "accelerators/npu/npu.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/npu/mapper.h"

namespace strata {

KindSpec Npu::spec() {
  KindSpec s;
  s.name = "npu";
  s.description = "multi-core NPU (matrix engine, vector unit, scratchpad, DMA per core; NoC; memory) running operator graphs";
  s.with_clock();
  s.provides(kPackageDeviceRole);
  s.add(param::integer("cores", "identical cores; operators are split across them").def("1").range("1", "1024"));
  s.add(param::integer("buffers", "tiles in flight per core (2: double buffering, loads of the next tile overlap compute)")
            .def("2")
            .range("1", "16"));
  s.slot(SlotSpec{"core", "every core's units (keys of npu_core)", "section", "", false, &NpuCore::section()});
  s.slot(SlotSpec{"noc", "the on-chip network from the cores to memory (a noc role kind; default noc)", "component",
                  kNocRole, false, nullptr, "noc"});
  s.slot(SlotSpec{"memory", "the memory the cores' DMA engines reach (a memory_target kind: dram, simple_memory)",
                  "component", kMemoryTargetRole, true, nullptr});
  // The cores are one clock domain (sim/device_power.h); the NoC and the memory keep their own.
  add_power_management_params(s);
  return s;
}

Npu::Npu(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      latency_(scalar("latency", "s", "time from the start to the last operator's completion")),
      flops_(scalar("flops", "FLOP", "floating-point operations of the graph (OpGraph conventions)")),
      candidates_(scalar("mapper.candidates", "tilings", "tilings the mapper's search evaluated")),
      tiles_(scalar("mapper.tiles", "tiles", "tiles the mapper produced")),
      peak_flops_(
          scalar("peak_flops", "FLOP/s",
                 "2 x MACs per second of every core's matrix engine at full utilisation, in the number format "
                 "most of the mapped graph's MACs run in (the roofline's compute ceiling; 0 without matrix work)")),
      peak_bandwidth_(scalar("peak_bandwidth", "B/s", "the memory's peak data bandwidth (the roofline's slope)")),
      simulated_layers_(
          counter("reuse.simulated_layers", "layers",
                  "layers of the workload simulated (all of them, unless sim.reuse: layers found identical ones)")),
      reused_layers_(
          counter("reuse.reused_layers", "layers",
                  "layers not simulated: sim.reuse: layers counted an identical simulated layer again for each")) {
  const int cores = static_cast<int>(params().integer("cores"));
  const int buffers = static_cast<int>(params().integer("buffers"));
  for (int i = 0; i < cores; ++i)
    cores_.push_back(std::make_unique<NpuCore>(fmt::format("core{}", i).c_str(), cfg.child("core"), ctx, i, buffers, *this));
  noc_ = build_part<Noc>("noc");
  noc_->connect(cores);
  memory_ = build_child<MemoryTarget>("memory");
  for (auto& core : cores_) bind_at(ctx, core->dma().initiator_socket(), noc_->target_socket(), core->basename());
  for (int p = 0; p < noc_->memory_ports(); ++p)
    bind_at(ctx, noc_->memory_port(p), memory_->target_socket(),
            p == 0 ? std::string(noc_->basename()) : fmt::format("{}.port{}", noc_->basename(), p));
  peak_bandwidth_.set(memory_->peak_bandwidth());
  std::vector<Component*> domain;
  for (auto& core : cores_) domain.push_back(core.get());
  power_ = std::make_unique<DevicePower>(
      *this, domain,
      memory_->peak_bandwidth() * analytic_memory(*memory_, memory_.component().config()).streaming_energy_per_byte());
  op_track_ = ctx.timeline().track(std::string(this->name()) + " operators");
  ctx.report("latency_s", stat_name("latency"));
  ctx.report("flops", stat_name("flops"));
  ctx.report("mapper_candidates", stat_name("mapper.candidates"));
  ctx.report("simulated_layers", stat_name("reuse.simulated_layers"));
  ctx.report("reused_layers", stat_name("reuse.reused_layers"));
}

Npu::~Npu() = default;

void Npu::load_graph(std::shared_ptr<const OpGraph> graph) {
  graph_ = std::move(graph);
  NpuCore& core = *cores_.front();
  MatrixEngine& engine = core.engine();
  VectorUnit& vector = core.vector();
  MapperTarget target;
  target.cores = static_cast<int>(cores_.size());
  target.align_m = engine.align_m();
  target.align_n = engine.align_n();
  target.align_k = engine.align_k();
  target.matrix = [&engine](const MatrixWork& w) { return engine.estimate(w); };
  target.vector = [&vector](const std::string& kind, std::int64_t rows, std::int64_t cols) {
    return vector.estimate(kind, rows, cols).cycles;
  };
  target.scratchpad_bytes = core.scratchpad().capacity();
  target.buffers = static_cast<int>(params().integer("buffers"));
  target.memory_bytes_per_cycle = memory_->peak_bandwidth() * clock().period().to_seconds();
  target.external_collectives = host_ != nullptr;
  try {
    program_ = std::make_unique<NpuProgram>(map_graph(*graph_, target));
  } catch (const InputError& e) {
    if (!e.loc().file.empty()) throw;
    throw InputError(config().loc, config().path, e.message());
  }
  ops_.assign(program_->ops.size(), OpState{});
  for (OpState& s : ops_) s.cores_left = static_cast<int>(cores_.size());
  plan_reuse();
  for (auto& c : cores_) c->run_program(program_.get());
  double flops = 0, candidates = 0;
  for (const LoweredOp& op : program_->ops) {
    if (std::getenv("STRATA_PRINT_MAPPING")) fmt::print(stderr, "{}: {} ({} B)\n", op.name, op.mapping, op.dram_bytes);
    flops += op.flops;
    candidates += static_cast<double>(op.candidates);
  }
  flops_.set(flops);
  candidates_.set(candidates);
  tiles_.set(static_cast<double>(program_->tiles()));
  set_peak_flops();
}

void Npu::plan_reuse() {
  // A device in a package shares its time with the others: its layers are always simulated.
  run_of_op_.assign(program_->ops.size(), -1);
  reuse_ = plan_layer_reuse(*graph_, *program_, context().reuse_layers() && !host_);
  for (std::size_t r = 0; r < reuse_.runs.size(); ++r) {
    const LayerRun& run = reuse_.runs[r];
    RunState s;
    s.first_left = run.first.size();
    s.second_left = run.second.size();
    runs_.push_back(std::move(s));
    for (std::size_t op : run.first) run_of_op_[op] = static_cast<int>(r);
    for (std::size_t op : run.second) run_of_op_[op] = static_cast<int>(r);
    for (const auto& layer : run.repeats)
      for (std::size_t op : layer) program_->ops[op].reused = true;
  }
  simulated_layers_.add(reuse_.layers - reuse_.reused());
  reused_layers_.add(reuse_.reused());
}

void Npu::set_peak_flops() {
  // MACs the mapped tiles run, per number format; a tie goes to the alphabetically first.
  std::map<std::string, double> macs;
  for (const LoweredOp& op : program_->ops)
    for (const auto& tiles : op.cores)
      for (const Tile& tile : tiles)
        for (const TileStep& s : tile.steps) {
          if (s.unit != TileStep::Unit::Matrix) continue;
          const MatrixWork& w = s.matrix;
          macs[w.format] += static_cast<double>(w.m) * static_cast<double>(w.n) * static_cast<double>(w.k);
        }
  if (macs.empty()) return;
  auto top = macs.begin();
  for (auto it = macs.begin(); it != macs.end(); ++it)
    if (it->second > top->second) top = it;
  const MatrixEngine& engine = cores_.front()->engine();
  peak_flops_.set(2.0 * static_cast<double>(cores_.size()) * engine.peak_macs_per_cycle(top->first) *
                  static_cast<double>(engine.clock().frequency_hz()));
}

double Npu::evaluate_analytic() {
  if (!program_) return 0;
  if (analytic_advance()) throw std::logic_error("npu: a collective outside a package");
  return analytic_finish();
}

std::optional<PackageDevice::Reached> Npu::analytic_advance() {
  if (!program_) return std::nullopt;
  if (!evaluator_) {
    NpuParts parts;
    for (auto& c : cores_) parts.cores.push_back(c.get());
    parts.noc = noc_.get();
    parts.memory = &analytic_memory(*memory_, memory_.component().config());
    parts.buffers = static_cast<int>(params().integer("buffers"));
    evaluator_ = std::make_unique<NpuProgramEvaluator>(*program_, parts);
  }
  const auto reached = evaluator_->advance();
  if (!reached) return std::nullopt;
  return Reached{program_->ops[reached->op].op, reached->at};
}

void Npu::analytic_complete(OpId op, double end) { evaluator_->complete(lowered_index(op), end); }

double Npu::analytic_finish() {
  if (!program_) return 0;
  const std::vector<double> ends = evaluator_->finish();
  sc_core::sc_time last = sc_core::SC_ZERO_TIME;
  for (size_t i = 0; i < ends.size(); ++i) {
    ops_[i].cores_left = 0;
    ops_[i].done = true;
    ops_[i].end = sc_core::sc_time(ends[i], sc_core::SC_SEC);
    last = std::max(last, ops_[i].end);
  }
  done_ops_ = ops_.size();
  for (size_t i = 0; i < ops_.size(); ++i)
    context().timeline().span(op_track_, program_->ops[i].name, std::min(start_of(i), ops_[i].end), ops_[i].end);
  return last.to_seconds();
}

void Npu::join_package(CollectiveHost& host, int device) {
  host_ = &host;
  device_ = device;
}

std::size_t Npu::lowered_index(OpId op) const {
  for (std::size_t i = 0; i < program_->ops.size(); ++i)
    if (program_->ops[i].op == op) return i;
  throw std::logic_error(fmt::format("{}: no operator {} in the program", name(), op));
}

double Npu::finished_at() const {
  sc_core::sc_time last = sc_core::SC_ZERO_TIME;
  for (const OpState& s : ops_) last = std::max(last, s.end);
  return last.to_seconds();
}

void Npu::complete_collective(OpId op) { mark_done(lowered_index(op), sc_core::sc_time_stamp()); }

std::optional<double> Npu::graph_progress() const {
  if (!program_ || program_->ops.empty()) return std::nullopt;
  return static_cast<double>(done_ops_) / static_cast<double>(program_->ops.size());
}

sc_core::sc_time Npu::start_of(size_t op) const {
  // Operators run in program order: one starts when the one before it and its inputs are done
  // (time it spent prefetching under the previous operator is not counted twice).
  sc_core::sc_time t = op > 0 ? ops_[op - 1].end : sc_core::SC_ZERO_TIME;
  for (int d : program_->ops[op].deps) t = std::max(t, ops_[static_cast<size_t>(d)].end);
  return t;
}

bool Npu::deps_done(int op) const {
  for (int d : program_->ops[static_cast<size_t>(op)].deps)
    if (!ops_[static_cast<size_t>(d)].done) return false;
  return true;
}

void Npu::core_finished(int op) {
  OpState& s = ops_[static_cast<size_t>(op)];
  if (--s.cores_left > 0) return;
  const LoweredOp& l = program_->ops[static_cast<size_t>(op)];
  // Every core has passed a collective: it ends when the package says so.
  if (l.external) return host_->reached(device_, l.op);
  mark_done(static_cast<size_t>(op), sc_core::sc_time_stamp());
}

void Npu::mark_done(std::size_t op, const sc_core::sc_time& end) {
  OpState& s = ops_[op];
  s.done = true;
  s.end = context().reported_time()(end);
  ++done_ops_;
  context().timeline().reported_span(op_track_, program_->ops[op].name, start_of(op), s.end);
  if (run_of_op_[op] >= 0) layer_op_done(op);
  op_done_event_.notify(sc_core::SC_ZERO_TIME);
}

void Npu::layer_op_done(std::size_t op) {
  const LayerRun& run = reuse_.runs[static_cast<std::size_t>(run_of_op_[op])];
  RunState& s = runs_[static_cast<std::size_t>(run_of_op_[op])];
  const bool in_first = std::find(run.first.begin(), run.first.end(), op) != run.first.end();
  if (in_first) {
    // The first layer is done: the second, the measured one, runs from here.
    if (--s.first_left == 0) {
      s.mark = std::make_unique<SpanRepeater::Mark>(context().repeater().mark());
      s.first_end = sc_core::sc_time_stamp();
    }
    return;
  }
  if (--s.second_left > 0) return;
  // A layer waits for the one before it, so the first is done by now.
  if (!s.mark) throw std::logic_error(fmt::format("{}: a layer finished before the one it follows", name()));
  const sc_core::sc_time layer_time = sc_core::sc_time_stamp() - s.first_end;
  context().repeater().repeat(*s.mark, run.repeats.size());
  s.mark.reset();
  // Each repeat ends one measured layer after the one before it; its operators end where the
  // measured layer's did, relative to the layer's end.
  for (std::size_t j = 0; j < run.repeats.size(); ++j)
    for (std::size_t i = 0; i < run.second.size(); ++i) {
      const std::size_t copy = run.repeats[j][i];
      OpState& c = ops_[copy];
      c.cores_left = 0;
      c.done = true;
      c.end = ops_[run.second[i]].end + layer_time * static_cast<double>(j + 1);
      ++done_ops_;
      context().timeline().reported_span(op_track_, program_->ops[copy].name, start_of(copy), c.end);
    }
}

void Npu::finalize(const sc_core::sc_time& end) {
  power_->finalize(reported_s(end));
  if (!program_) return;
  sc_core::sc_time last = sc_core::SC_ZERO_TIME;
  const double peak = memory_->peak_bandwidth();
  for (size_t i = 0; i < program_->ops.size(); ++i) {
    const LoweredOp& op = program_->ops[i];
    const OpState& s = ops_[i];
    last = std::max(last, s.end);
    const double t = (s.end - std::min(s.end, start_of(i))).to_seconds();
    const std::string base = "ops." + op.name + ".";
    scalar(base + "latency", "s", "from the end of the operator before it (or of its inputs, if later) to its last store completed").set(t);
    scalar(base + "dram_bytes", "B", "bytes the operator's tiles moved to and from memory").set(static_cast<double>(op.dram_bytes));
    scalar(base + "bandwidth", "GB/s", "dram_bytes over latency").set(t > 0 ? static_cast<double>(op.dram_bytes) / t * 1e-9 : 0);
    scalar(base + "bound_fraction", "fraction",
           "the memory's peak-bandwidth time for dram_bytes over the latency (1: at the bandwidth bound)")
        .set(t > 0 ? static_cast<double>(op.dram_bytes) / peak / t : 0);
    scalar(base + "flops", "FLOP", "floating-point operations").set(op.flops);
    scalar(base + "memory_bound", "bool", "the plan's memory time exceeds its compute time").set(op.memory_bound ? 1 : 0);
    scalar(base + "reused", "bool", "not simulated: sim.reuse counted the same operator of an identical layer again")
        .set(op.reused ? 1 : 0);
  }
  latency_.set(last.to_seconds());
}

}  // namespace strata
