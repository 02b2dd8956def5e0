// The GPU running an operator graph: the mapper's kernels in order on one stream, and what
// each one did.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <systemc>

#include "accelerators/gpu/gpu.h"
#include "sim/input_error.h"
#include "sim/ports.h"

namespace strata {


GpuKernelTarget Gpu::kernel_target() const {
  GpuKernelTarget t;
  t.sms = sms_;
  t.limits = limits_;
  t.timing = timing_;
  t.clock_hz = peak_clock_hz();
  t.launch_cycles = kernel_launch_;
  t.gpcs = scheduler_->gpcs();
  t.max_cluster = max_cluster_;
  if (l2_) {
    t.l2_bytes = l2_config_.bytes;
    t.l2_bytes_per_cycle = static_cast<double>(l2_config_.slices * l2_config_.slice_sectors * kSectorBytes);
    t.dram_bytes_per_cycle =
        analytic_memory(*dram_, memory_component_->config()).sustained_bandwidth() / t.clock_hz;
  }
  return t;
}

void Gpu::load_graph(std::shared_ptr<const OpGraph> graph) {
  if (!l2_)
    throw InputError(config().loc, config().path + ".memory",
                     "an operator graph's tensors live in global memory: the gpu needs a `memory` behind its L2");
  graph_ = std::make_unique<GraphRun>();
  graph_->graph = std::move(graph);
  const ValidatedNode& kernels = config().child("kernels");
  GpuKernelChoices choices = read_kernel_choices(kernels);
  choices.external_collectives = host_ != nullptr;
  graph_->launch = choices.launch;
  graph_->host_dispatch_s = choices.host_dispatch_s;
  if (choices.gemm.cluster_m > max_cluster_)
    throw InputError(kernels.params.where("gemm_cluster"), kernels.path + ".gemm_cluster",
                     fmt::format("a cluster of {} CTAs, but this gpu's max_cluster_size is {}{}", choices.gemm.cluster_m,
                                 max_cluster_, max_cluster_ <= 1 ? " (no thread-block clusters)" : ""));
  graph_->program = lower_graph_to_gpu(*graph_->graph, kernel_target(), choices);
  // Up front, a cycle-level run that cannot end within representable time (reported time too:
  // sim.reuse and sim.sample count skipped work in it), by a lower bound (every flop at the
  // tensor cores' fastest rate, sparse): it would otherwise simulate for days before being
  // refused. Analytic runs find out per kernel in no time; sim.max_time bounds the run.
  if (!context().analytic() && !(context().time_limit_s() > 0)) {
    double fastest = 0, flops = 0;
    for (const auto& [format, macs] : timing_.tensor_macs) fastest = std::max(fastest, macs);
    for (const GpuLoweredOp& op : graph_->program.ops)
      for (const GpuKernel& k : op.kernels) flops += k.flops;
    const double cycles = flops / (2 * 2 * fastest * timing_.sub_cores * sms_);
    if (fastest > 0 && cycles > static_cast<double>(clock().cycle_at(sc_core::sc_max_time())))
      throw unrepresentable(cycles, true);
  }
  for (const GpuLoweredOp& op : graph_->program.ops) {
    GraphRun::Row row;
    row.layer = graph_->graph->op(op.op).layer;
    if (op.external) {
      row.collective = op.op;
      graph_->rows.push_back(row);
    }
    for (const GpuKernel& k : op.kernels) {
      row.kernel = &k;
      graph_->rows.push_back(row);
    }
  }
  plan_graph_reuse();
  SimContext& ctx = context();
  if (!host_) {  // in a package, summary.json is the package's
    ctx.report("simulated_layers", stat_name("reuse.simulated_layers"));
    ctx.report("reused_layers", stat_name("reuse.reused_layers"));
    if (sample_waves()) ctx.report("skipped_ctas", stat_name("sample.skipped_ctas"));
    ctx.report("latency_s", stat_name("latency"));
    ctx.report("flops", stat_name("flops"));
    ctx.report("achieved_tflops", stat_name("achieved_tflops"));
    ctx.report("achieved_bandwidth_gbps", stat_name("achieved_bandwidth_gbps"));
    ctx.report("mapper_candidates", stat_name("mapper.candidates"));
    ctx.report("host_bound_s", stat_name("host_bound"));
  }
  if (ctx.analytic()) return;
  sc_core::sc_spawn([this] { launch_graph(); }, "graph_launcher");
}

void Gpu::launch_graph() {
  GraphRun& g = *graph_;
  for (std::size_t i = 0; i < g.rows.size(); ++i) {
    GraphRun::Row& row = g.rows[i];
    if (row.reused) continue;
    if (row.kernel) {
      // Eager: the host dispatches the kernels one after another; the GPU takes each once it is
      // submitted (an idle GPU waits for it: host-bound).
      const sc_core::sc_time submit(g.dispatch_next(), sc_core::SC_SEC);
      if (submit > sc_core::sc_time_stamp()) sc_core::wait(submit - sc_core::sc_time_stamp());
      row.submit_s = context().reported_time()(submit.to_seconds());
      const std::uint64_t launch_cycles = g.next_launch_cycles(kernel_launch_);
      ++g.launched;
      // Reported time is one for the whole run: a GPU of a package, timed with the others, does
      // not sample (as it does not reuse layers).
      try {
        enqueue(
            row.kernel->launch, [this, i](const KernelRun& r) { graph_kernel_done(i, r); }, host_ == nullptr,
            launch_cycles);
      } catch (const std::invalid_argument& e) {
        // The mapper keeps to kernels this GPU places (GpuKernelTarget::fit); an exception must
        // not unwind through the SystemC kernel all the same.
        context().fail(InputError(config().loc, config().path, fmt::format("kernel {}: {}", row.kernel->launch.name, e.what())));
        return;
      }
      continue;
    }
    // A collective: the stream drains, then waits for the package.
    while (g.ended < g.launched) sc_core::wait(g.kernel_ended);
    row.start_s = context().reported_time()(sc_core::sc_time_stamp().to_seconds());
    g.waiting = row.collective;
    host_->reached(device_, row.collective);
    while (g.waiting >= 0) sc_core::wait(g.collective_ended);
    row.end_s = context().reported_time()(sc_core::sc_time_stamp().to_seconds());
    row.done = true;
    ++g.done;
  }
}

void Gpu::join_package(CollectiveHost& host, int device) {
  host_ = &host;
  device_ = device;
}

void Gpu::complete_collective(OpId op) {
  if (!graph_ || graph_->waiting != op)
    throw std::logic_error(fmt::format("{}: collective {} ended while the stream waits at another", name(), op));
  graph_->waiting = -1;
  graph_->collective_ended.notify();
}

std::optional<PackageDevice::Reached> Gpu::analytic_advance() {
  if (!graph_) return std::nullopt;
  GraphRun& g = *graph_;
  for (; g.analytic_next < g.rows.size(); ++g.analytic_next) {
    GraphRun::Row& row = g.rows[g.analytic_next];
    if (!row.kernel) {
      row.start_s = clock().time_of(analytic_cycle_).to_seconds();
      return Reached{row.collective, row.start_s};
    }
    const std::uint64_t submit = clock().cycle_at_or_after(g.dispatch_next());
    row.submit_s = clock().time_of(submit).to_seconds();
    analytic_cycle_ = std::max(analytic_cycle_, submit);
    row.run = evaluate_launched(row.kernel->launch, g.next_launch_cycles(kernel_launch_));
    ++g.launched;
    row.dram_bytes = row.run.dram_bytes;
    row.start_s = clock().time_of(row.run.launch_cycle).to_seconds();
    row.end_s = clock().time_of(row.run.end_cycle).to_seconds();
    row.done = true;
    ++g.done;
  }
  return std::nullopt;
}

void Gpu::analytic_complete(OpId op, double end) {
  GraphRun& g = *graph_;
  GraphRun::Row& row = g.rows.at(g.analytic_next);
  if (row.kernel || row.collective != op)
    throw std::logic_error(fmt::format("{}: collective {} completed out of order", name(), op));
  row.end_s = end;
  row.done = true;
  ++g.done;
  ++g.analytic_next;
  analytic_cycle_ = std::max(analytic_cycle_, clock().cycle_at_or_after(end));
}

double Gpu::analytic_finish() {
  if (analytic_advance()) throw std::logic_error(fmt::format("{}: a collective outside a package", name()));
  return clock().time_of(analytic_cycle_).to_seconds();
}

double Gpu::finished_at() const {
  double last = 0;
  if (graph_)
    for (const GraphRun::Row& row : graph_->rows) last = std::max(last, row.end_s);
  return last;
}

double Gpu::mapping_candidates() const { return graph_ ? graph_->program.candidates : 0; }

double Gpu::device_peak_flops() const {
  const double hz = peak_clock_hz();
  const auto fp16 = timing_.tensor_macs.find("fp16");
  if (fp16 != timing_.tensor_macs.end() && fp16->second > 0) return 2.0 * sms_ * fp16->second * timing_.sub_cores * hz;
  return 2.0 * sms_ * timing_.sub_cores * timing_.fp32_lanes * hz;
}

double Gpu::device_peak_bandwidth() const { return dram_ ? dram_->peak_bandwidth() : 0; }

// Two layers are identical when their launches agree in everything the GPU runs: the operator
// kinds and shapes, the kernel generator and its choices, the grid, the CTA and its resources.
// Where their tensors sit is not compared: each layer's weights have their own addresses, which
// spread over the same channels in the same proportions but not line for line.
void Gpu::plan_graph_reuse() {
  GraphRun& g = *graph_;
  g.run_of_row.assign(g.rows.size(), -1);
  struct Layer {
    std::size_t first = 0, count = 0;
    std::string signature;
  };
  std::vector<Layer> layers;
  std::size_t i = 0;
  while (i < g.rows.size()) {
    if (g.rows[i].layer < 0) {
      ++i;
      continue;
    }
    Layer l;
    l.first = i;
    for (; i < g.rows.size() && g.rows[i].layer == g.rows[l.first].layer; ++i) {
      if (!g.rows[i].kernel) {
        l.signature += "collective;";
        continue;
      }
      const KernelLaunch& k = g.rows[i].kernel->launch;
      l.signature += fmt::format("{}|{}x{}x{}|{}|{}|{}|{}|{}|{}", g.rows[i].kernel->generator, k.grid[0], k.grid[1],
                                 k.grid[2], k.threads_per_cta(), k.registers_per_thread, k.shared_bytes, k.cluster,
                                 k.expected_dram_bytes, g.rows[i].kernel->flops);
      for (const auto& [choice, value] : g.rows[i].kernel->choices) l.signature += fmt::format("|{}={}", choice, value);
      l.signature += ";";
    }
    l.count = i - l.first;
    layers.push_back(std::move(l));
  }
  g.layers = layers.size();
  std::size_t reused = 0;
  if (context().reuse_layers() && !context().analytic() && !host_)
    for (std::size_t a = 0; a < layers.size();) {
      std::size_t b = a + 1;
      while (b < layers.size() && layers[b].signature == layers[a].signature &&
             layers[b].first == layers[b - 1].first + layers[b - 1].count)
        ++b;
      if (b - a >= 3) {
        GraphRun::Run run;
        const auto rows_of = [&](const Layer& l) {
          std::vector<std::size_t> out(l.count);
          for (std::size_t r = 0; r < l.count; ++r) out[r] = l.first + r;
          return out;
        };
        run.first = rows_of(layers[a]);
        run.second = rows_of(layers[a + 1]);
        for (std::size_t c = a + 2; c < b; ++c) {
          run.repeats.push_back(rows_of(layers[c]));
          for (std::size_t r : run.repeats.back()) g.rows[r].reused = true;
        }
        run.first_left = run.first.size();
        run.second_left = run.second.size();
        for (std::size_t r : run.first) g.run_of_row[r] = static_cast<int>(g.runs.size());
        for (std::size_t r : run.second) g.run_of_row[r] = static_cast<int>(g.runs.size());
        reused += b - a - 2;
        g.runs.push_back(std::move(run));
      }
      a = b;
    }
  counter("reuse.simulated_layers", "layers",
          "layers of the workload simulated (all of them, unless sim.reuse: layers found identical ones)")
      .add(g.layers - reused);
  counter("reuse.reused_layers", "layers",
          "layers not simulated: sim.reuse: layers counted an identical simulated layer again for each")
      .add(reused);
}

void Gpu::graph_layer_done(std::size_t i) {
  GraphRun& g = *graph_;
  GraphRun::Run& run = g.runs[static_cast<std::size_t>(g.run_of_row[i])];
  if (std::find(run.first.begin(), run.first.end(), i) != run.first.end()) {
    // The first layer is done: the second, the measured one, runs from here.
    if (--run.first_left == 0) {
      run.mark = std::make_unique<SpanRepeater::Mark>(context().repeater().mark());
      run.at_mark = totals();
      run.first_end_s = g.rows[i].end_s;
    }
    return;
  }
  if (--run.second_left > 0) return;
  if (!run.mark) throw std::logic_error(fmt::format("{}: a layer finished before the one it follows", name()));
  const double layer_s = g.rows[i].end_s - run.first_end_s;
  const auto times = static_cast<std::uint64_t>(run.repeats.size());
  const SmCounts layer = repeat_span(*run.mark, run.at_mark, static_cast<double>(times));
  run.mark.reset();
  reused_.ctas += layer.ctas * times;
  // Each repeat ends one measured layer after the one before it; its launches end where the
  // measured layer's did, relative to the layer's end.
  for (std::size_t j = 0; j < run.repeats.size(); ++j)
    for (std::size_t r = 0; r < run.second.size(); ++r) {
      GraphRun::Row& copy = g.rows[run.repeats[j][r]];
      const GraphRun::Row& measured = g.rows[run.second[r]];
      copy.run = measured.run;
      copy.dram_bytes = measured.dram_bytes;
      copy.l2_hits = measured.l2_hits;
      copy.l2_misses = measured.l2_misses;
      copy.start_s = measured.start_s + layer_s * static_cast<double>(j + 1);
      copy.end_s = measured.end_s + layer_s * static_cast<double>(j + 1);
      if (measured.submit_s > 0) copy.submit_s = measured.submit_s + layer_s * static_cast<double>(j + 1);
      copy.done = true;
      ++g.done;
    }
}

void Gpu::graph_kernel_done(std::size_t i, const KernelRun& r) {
  GraphRun& g = *graph_;
  ++g.ended;
  g.kernel_ended.notify();
  GraphRun::Row& row = g.rows[i];
  row.run = r;
  row.done = true;
  ++g.done;
  row.start_s = context().reported_time()(clock().time_of(r.launch_cycle).to_seconds());
  row.end_s = context().reported_time()(clock().time_of(r.end_cycle).to_seconds());
  const std::uint64_t dram = l2_->dram_read_bytes() + l2_->dram_write_bytes();
  row.dram_bytes = dram - g.dram;
  row.l2_hits = l2_->hit_sectors() - g.hits;
  row.l2_misses = l2_->miss_sectors() - g.misses;
  if (g.run_of_row[i] >= 0) graph_layer_done(i);
  // After the layer's repeats, which add to the L2's counters: the next kernel's are its own.
  g.dram = l2_->dram_read_bytes() + l2_->dram_write_bytes();
  g.hits = l2_->hit_sectors();
  g.misses = l2_->miss_sectors();
}

bool Gpu::graph_finished() const { return graph_ && graph_->done == graph_->rows.size(); }

std::optional<double> Gpu::graph_progress() const {
  if (!graph_ || graph_->rows.empty()) return std::nullopt;
  return static_cast<double>(graph_->done) / static_cast<double>(graph_->rows.size());
}

double Gpu::evaluate_analytic() {
  if (!graph_)
    throw InputError(SourceLoc{}, "sim.fidelity",
                     "component kind 'gpu' has no analytic model for this workload (operator graphs and "
                     "microbenchmarks have one); use sim.fidelity: cycle");
  return analytic_finish();
}

void Gpu::finalize_graph() {
  if (!graph_) return;
  const double hz = peak_clock_hz();
  const double peak_bandwidth = dram_ ? dram_->peak_bandwidth() : 0;
  const double fp32_peak = 2.0 * sms_ * timing_.sub_cores * timing_.fp32_lanes * hz;
  double flops = 0, dram_bytes = 0, last = 0, host_bound = 0;
  for (const GraphRun::Row& row : graph_->rows) {
    if (!row.done) continue;
    // A kernel's turn comes when the row before it ends, unless the host had not submitted it
    // yet (launch: eager): the GPU then idles, host-bound.
    if (row.kernel) host_bound += std::max(0.0, row.submit_s - last);
    last = std::max(last, row.end_s);
    if (!row.kernel) continue;  // a collective: the package reports it
    const GpuKernel& k = *row.kernel;
    const KernelRun& r = row.run;
    last = std::max(last, row.end_s);
    const double t = row.end_s - row.start_s;
    flops += k.flops;
    dram_bytes += static_cast<double>(row.dram_bytes);
    // The kernel's compute peak: the format's of the first tensor instruction its CTA's warps
    // run (a GEMM's, an attention's), or the FP32 pipes'.
    double peak = fp32_peak;
    if (const std::string* format = k.launch.tensor_format(); format && timing_.tensor_macs.count(*format))
      peak = 2.0 * sms_ * timing_.tensor_macs.at(*format) * timing_.sub_cores * hz;
    const std::string base = "launches." + k.launch.name + ".";
    scalar(base + "time", "s", "from its turn on the stream (launch overhead included) to its last CTA's end").set(t);
    scalar(base + "flops", "FLOP", "the operator's floating-point operations in this kernel").set(k.flops);
    scalar(base + "tflops", "TFLOP/s", "flops over time").set(t > 0 ? k.flops / t * 1e-12 : 0);
    scalar(base + "dram_bytes", "B",
           context().analytic() ? "DRAM bytes estimated" : "DRAM bytes read and written while it ran (write-backs included)")
        .set(static_cast<double>(row.dram_bytes));
    scalar(base + "bandwidth", "GB/s", "dram_bytes over time").set(t > 0 ? static_cast<double>(row.dram_bytes) / t * 1e-9 : 0);
    if (!context().analytic())
      scalar(base + "l2_hit_rate", "fraction", "L2 sectors hit over sectors looked up")
          .set(row.l2_hits + row.l2_misses > 0
                   ? static_cast<double>(row.l2_hits) / static_cast<double>(row.l2_hits + row.l2_misses)
                   : 0);
    scalar(base + "occupancy", "fraction", "warps resident on an SM over its maximum")
        .set(static_cast<double>(r.occupancy.warps_per_sm()) / limits_.max_warps);
    scalar(base + "waves", "waves", "rounds of CTAs over the SMs").set(static_cast<double>(r.waves));
    const double compute = t > 0 ? k.flops / peak / t : 0;
    const double memory = t > 0 && peak_bandwidth > 0 ? static_cast<double>(row.dram_bytes) / peak_bandwidth / t : 0;
    scalar(base + "compute_fraction", "fraction", "flops over the compute peak (tensor format's or FP32's) and time")
        .set(compute);
    scalar(base + "memory_fraction", "fraction", "dram_bytes over the DRAM's peak bandwidth and time").set(memory);
    scalar(base + "memory_bound", "bool", "memory_fraction exceeds compute_fraction").set(memory > compute ? 1 : 0);
    if (row.reused)
      scalar(base + "reused", "bool", "not simulated: sim.reuse counted the same launch of an identical layer").set(1);
    for (const auto& [choice, value] : k.choices)
      scalar(base + choice, "", fmt::format("the kernel generator's {} ({})", choice, k.generator)).set(value);
  }
  const double latency = last;
  scalar("latency", "s", "the graph's last kernel's end").set(latency);
  scalar("flops", "FLOP", "the graph's floating-point operations").set(flops);
  scalar("achieved_tflops", "TFLOP/s", "flops over latency").set(latency > 0 ? flops / latency * 1e-12 : 0);
  scalar("dram_bytes", "B", "the kernels' DRAM bytes").set(dram_bytes);
  scalar("achieved_bandwidth_gbps", "GB/s", "DRAM bytes over latency").set(latency > 0 ? dram_bytes / latency * 1e-9 : 0);
  scalar("mapper.candidates", "configurations", "GEMM configurations the tile search estimated")
      .set(graph_->program.candidates);
  scalar("host_bound", "s", "time the GPU waited for the host to submit its next kernel (kernels.launch: eager)")
      .set(host_bound);
}

}  // namespace strata
