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
  t.clock_hz = static_cast<double>(clock().frequency_hz());
  t.launch_cycles = kernel_launch_;
  if (l2_) {
    const Params& l2 = config().child("l2").params;
    t.l2_bytes = static_cast<std::uint64_t>(l2.quantity("size"));
    t.l2_bytes_per_cycle = static_cast<double>(l2.integer("slices") * l2.integer("slice_sectors") * kSectorBytes);
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
  graph_->program =
      lower_graph_to_gpu(*graph_->graph, kernel_target(), read_gemm_constraints(config().child("kernels")));
  for (const GpuLoweredOp& op : graph_->program.ops)
    for (const GpuKernel& k : op.kernels) {
      GraphRun::Row row;
      row.kernel = &k;
      graph_->rows.push_back(row);
    }
  SimContext& ctx = context();
  ctx.report("latency_s", stat_name("latency"));
  ctx.report("flops", stat_name("flops"));
  ctx.report("achieved_tflops", stat_name("achieved_tflops"));
  ctx.report("achieved_bandwidth_gbps", stat_name("achieved_bandwidth_gbps"));
  ctx.report("mapper_candidates", stat_name("mapper.candidates"));
  if (ctx.analytic()) return;
  sc_core::sc_spawn(
      [this] {
        for (std::size_t i = 0; i < graph_->rows.size(); ++i)
          launch(graph_->rows[i].kernel->launch, [this, i](const KernelRun& r) { graph_kernel_done(i, r); });
      },
      "graph_launcher");
}

void Gpu::graph_kernel_done(std::size_t i, const KernelRun& r) {
  GraphRun& g = *graph_;
  GraphRun::Row& row = g.rows[i];
  row.run = r;
  row.done = true;
  ++g.done;
  const std::uint64_t dram = l2_->dram_read_bytes() + l2_->dram_write_bytes();
  row.dram_bytes = dram - g.dram;
  row.l2_hits = l2_->hit_sectors() - g.hits;
  row.l2_misses = l2_->miss_sectors() - g.misses;
  g.dram = dram;
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
  for (GraphRun::Row& row : graph_->rows) {
    row.run = evaluate(row.kernel->launch);
    row.dram_bytes = row.run.dram_bytes;
    row.done = true;
    ++graph_->done;
  }
  return clock().time_of(analytic_cycle_).to_seconds();
}

void Gpu::finalize_graph(const sc_core::sc_time& end) {
  if (!graph_) return;
  (void)end;
  const double hz = static_cast<double>(clock().frequency_hz());
  const double peak_bandwidth = dram_ ? dram_->peak_bandwidth() : 0;
  const double fp32_peak = 2.0 * sms_ * timing_.sub_cores * timing_.fp32_lanes * hz;
  double flops = 0, dram_bytes = 0;
  std::uint64_t last = 0;
  for (const GraphRun::Row& row : graph_->rows) {
    if (!row.done) continue;
    const GpuKernel& k = *row.kernel;
    const KernelRun& r = row.run;
    last = std::max(last, r.end_cycle);
    const double t = static_cast<double>(r.end_cycle - r.launch_cycle) / hz;
    flops += k.flops;
    dram_bytes += static_cast<double>(row.dram_bytes);
    // The kernel's compute peak: its tensor format's, or the FP32 pipes'.
    double peak = fp32_peak;
    const WarpProgram& p = k.launch.program_of(0, 0);
    if (k.generator.rfind("gemm", 0) == 0 && !p.formats.empty())
      peak = 2.0 * sms_ * timing_.tensor_macs.at(p.formats[0]) * timing_.sub_cores * hz;
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
    for (const auto& [choice, value] : k.choices)
      scalar(base + choice, "", fmt::format("the kernel generator's {} ({})", choice, k.generator)).set(value);
  }
  const double latency = static_cast<double>(last) / hz;
  scalar("latency", "s", "the graph's last kernel's end").set(latency);
  scalar("flops", "FLOP", "the graph's floating-point operations").set(flops);
  scalar("achieved_tflops", "TFLOP/s", "flops over latency").set(latency > 0 ? flops / latency * 1e-12 : 0);
  scalar("dram_bytes", "B", "the kernels' DRAM bytes").set(dram_bytes);
  scalar("achieved_bandwidth_gbps", "GB/s", "DRAM bytes over latency").set(latency > 0 ? dram_bytes / latency * 1e-9 : 0);
  scalar("mapper.candidates", "configurations", "GEMM configurations the tile search estimated")
      .set(graph_->program.candidates);
}

}  // namespace strata
