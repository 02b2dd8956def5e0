#include "accelerators/gpu/gpu_microbenchmark.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/component.h"
#include "sim/input_error.h"
#include "sim/kernel.h"

namespace strata {

// Launches the benchmark's kernel at the start of the run and turns its run into the figure.
class MicrobenchmarkDriver : public Component {
 public:
  MicrobenchmarkDriver(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, WarpProgramTarget& gpu,
                       Microbenchmark b, double reference)
      : Component(name, cfg, ctx),
        gpu_(gpu),
        bench_(std::move(b)),
        reference_(reference),
        measured_(scalar("measured", bench_.unit, "the benchmark's figure")),
        cycles_(scalar("kernel_cycles", "cycles", "the kernel's cycles, first issue to last completion")),
        completion_(scalar("completion_time", "s", "when the kernel completed")),
        ctas_per_sm_(scalar("ctas_per_sm", "CTAs", "CTAs an SM holds at once (occupancy)")),
        waves_(scalar("waves", "waves", "rounds of CTAs over the SMs")) {
    ctx.report("measured", stat_name("measured"));
    ctx.report_text("unit", bench_.unit);
    if (reference_ > 0) {
      scalar("reference", bench_.unit, "the published figure").set(reference_);
      error_ = &scalar("error", "fraction", "(measured - reference) / reference");
      ctx.report("reference", stat_name("reference"));
      ctx.report("error", stat_name("error"));
    }
    ctx.report("latency_s", stat_name("completion_time"));
    ctx.report("ctas_per_sm", stat_name("ctas_per_sm"));
    ctx.report("waves", stat_name("waves"));
    if (bench_.kernel.cluster > 1) {
      clusters_ = &scalar("clusters", "clusters", "clusters that co-reside at most (cudaOccupancyMaxActiveClusters)");
      ctx.report("clusters", stat_name("clusters"));
    }
    SC_HAS_PROCESS(MicrobenchmarkDriver);
    SC_THREAD(start);
  }
  bool finished() const { return finished_; }
  // Analytic fidelity: the kernel in closed form; returns its end in seconds.
  double evaluate() {
    for (const KernelLaunch& k : bench_.warmup) gpu_.evaluate(k);
    const KernelRun r = gpu_.evaluate(bench_.kernel);
    record(r, gpu_.sm_clock().time_of(r.end_cycle));
    return to_seconds(gpu_.sm_clock().time_of(r.end_cycle));
  }

 private:
  void start() {
    for (const KernelLaunch& k : bench_.warmup) gpu_.launch(k, [](const KernelRun&) {});
    gpu_.launch(bench_.kernel, [this](const KernelRun& r) { record(r, sc_core::sc_time_stamp()); });
  }
  void record(const KernelRun& r, const sc_core::sc_time& end) {
    const double cycles = static_cast<double>(r.cycles());
    const double ctas = static_cast<double>(bench_.kernel.ctas());
    const double sms = std::min(ctas, static_cast<double>(gpu_.sms()));
    const double measured = bench_.latency ? cycles / bench_.count / static_cast<double>(r.waves)
                            : bench_.device_rate
                                ? bench_.count / cycles * static_cast<double>(gpu_.sm_clock().frequency_hz()) / 1e9
                                : bench_.count * ctas / sms / cycles;
    measured_.set(measured);
    if (error_) error_->set((measured - reference_) / reference_);
    cycles_.set(cycles);
    completion_.set(to_seconds(end));
    ctas_per_sm_.set(r.occupancy.ctas_per_sm);
    waves_.set(static_cast<double>(r.waves));
    if (clusters_) clusters_->set(static_cast<double>(r.clusters));
    finished_ = true;
  }

  WarpProgramTarget& gpu_;
  Microbenchmark bench_;
  double reference_;
  Scalar& measured_;
  Scalar& cycles_;
  Scalar& completion_;
  Scalar& ctas_per_sm_;
  Scalar& waves_;
  Scalar* error_ = nullptr;
  Scalar* clusters_ = nullptr;
  bool finished_ = false;
};

KindSpec GpuMicrobenchmarkWorkload::spec() {
  KindSpec s;
  s.name = "gpu_microbenchmark";
  s.description = "a GPU unit microbenchmark (dependent chains, issue rates, tensor-core rates, shared memory) and its figure";
  s.add(
      param::choice("benchmark", microbenchmark_names(),
                    "what to measure (see docs/gpu.md): *_chain a dependent latency in cycles, *_rate a throughput per "
                    "SM, shared_bandwidth bytes per cycle per SM"));
  s.add(param::choice("pipe", {"int", "fp32", "fp64", "sfu"}, "issue_rate: the pipe its instructions use").def("fp32"));
  s.add(param::string("format", "tensor benchmarks: the operand number format (fp16, bf16, tf32, fp8_e4m3, int8, int4, ...)")
            .def("fp16"));
  s.add(param::string("shape", "mma benchmarks: the mma.sync shape, mMnNkK").def("m16n8k16"));
  s.add(param::integer("n", "wgmma benchmarks: N of m64nNkK (K is 32 bytes of the format)").def("128").range("8", "256"));
  s.add(param::boolean("sparse", "tensor benchmarks: 2:4 structured sparsity of A").def("false"));
  s.add(param::integer("iterations", "loop iterations of the kernel's body").def("4096").range("1", "1000000000"));
  s.add(param::integer("warps", "warps of the CTA; 0: the benchmark's own (1 for chains, 4 for wgmma, 16-32 for rates)")
            .def("0")
            .range("0", "64"));
  s.add(param::quantity("lane_stride", UnitFamily::Size, "shared_bandwidth: bytes between neighbouring lanes' addresses")
            .def("4 B")
            .range("0 B", "4 KiB"));
  s.add(param::quantity("width", UnitFamily::Size, "shared benchmarks: bytes each lane loads (4, 8 or 16)").def("4 B").range("1 B", "16 B"));
  s.add(param::quantity(
            "footprint", UnitFamily::Size,
            "global benchmarks: the bytes a chase cycles through, a fill writes, or a copy reads (and writes as much)")
            .def("16 KiB")
            .range("128 B", "1 TiB"));
  s.add(param::quantity("stride", UnitFamily::Size, "global_chase: bytes between consecutive loads")
            .def("128 B")
            .range("1 B", "1 GiB"));
  s.add(param::boolean("warm", "global_chase: one pass over the footprint before the timed one (caches warm)")
            .def("true"));
  s.add(
      param::boolean("resident",
                     "global_read, global_write, tma_read, cp_async_read: the same sweep once before the timed one, so "
                     "a footprint the L2 holds is read from the L2 (its bandwidth), not from the DRAM, and a write "
                     "finds the L2 full of dirty lines, as back-to-back calls do")
          .def("false"));
  s.add(param::integer("stages", "tma_read, cp_async_read: shared-memory buffers a warp keeps in flight")
            .def("4")
            .range("1", "16"));
  s.add(param::quantity("box", UnitFamily::Size,
                        "tma_read, cp_async_read: bytes of one stage (a TMA box; 512 B a cp.async)")
            .def("4 KiB")
            .range("512 B", "64 KiB"));
  s.add(param::integer("ctas", "CTAs in the grid (one SM runs one CTA by default)").def("1").range("1", "4294967295"));
  s.add(param::integer("cluster",
                       "CTAs per thread-block cluster (Hopper); 0: the benchmark's own (2 for dsm_chase and "
                       "cluster_sync, else 1); a grid of fewer CTAs is one cluster")
            .def("0")
            .range("0", "16"));
  s.add(param::boolean("remote",
                       "dsm_chase: chase through the next CTA's shared memory in the cluster, on another SM; false: "
                       "the CTA's own, through the same ld.shared::cluster (the local path)")
            .def("true"));
  s.add(param::integer("registers", "registers per thread (occupancy)").def("32").range("1", "1024"));
  s.add(param::quantity("shared", UnitFamily::Size, "shared memory per CTA (occupancy)").def("0 B").range("0 B", "16 MiB"));
  s.add(param::real("reference", "the published figure in the benchmark's unit, to report the error against; 0: none")
            .def("0")
            .range("0", "1e12"));
  return s;
}

GpuMicrobenchmarkWorkload::GpuMicrobenchmarkWorkload(const ValidatedNode& cfg, SimContext& ctx) : cfg_(cfg), ctx_(ctx) {
  const Params& p = cfg.params;
  config_.benchmark = p.string("benchmark");
  config_.pipe = p.string("pipe");
  config_.format = p.string("format");
  config_.shape = p.string("shape");
  config_.n = static_cast<int>(p.integer("n"));
  config_.sparse = p.flag("sparse");
  config_.iterations = static_cast<std::uint64_t>(p.integer("iterations"));
  config_.warps = static_cast<int>(p.integer("warps"));
  config_.lane_stride = static_cast<int>(p.quantity("lane_stride"));
  config_.width = static_cast<int>(p.quantity("width"));
  if (config_.width != 4 && config_.width != 8 && config_.width != 16)
    throw InputError(p.where("width"), cfg.path + ".width",
                     fmt::format("{} B: a lane loads 4, 8 or 16 B (LDS.32, LDS.64, LDS.128)", p.quantity("width")));
  config_.ctas = static_cast<std::uint64_t>(p.integer("ctas"));
  config_.footprint = static_cast<std::uint64_t>(p.quantity("footprint"));
  config_.stride = static_cast<std::uint64_t>(p.quantity("stride"));
  config_.warm = p.flag("warm");
  config_.resident = p.flag("resident");
  config_.stages = static_cast<int>(p.integer("stages"));
  config_.box = static_cast<std::uint64_t>(p.quantity("box"));
  config_.cluster = static_cast<int>(p.integer("cluster"));
  config_.remote = p.flag("remote");
  config_.registers = static_cast<std::uint32_t>(p.integer("registers"));
  config_.shared = static_cast<std::uint64_t>(p.quantity("shared"));
}

GpuMicrobenchmarkWorkload::~GpuMicrobenchmarkWorkload() = default;

void GpuMicrobenchmarkWorkload::bind(Component& hardware) {
  WarpProgramTarget& gpu = warp_program_target(hardware, cfg_, "gpu_microbenchmark");
  Microbenchmark b;
  try {
    b = make_microbenchmark(config_, gpu.timing(), gpu.sms());
  } catch (const MicrobenchmarkError& e) {
    throw InputError(cfg_.params.where(e.key), "workload." + e.key, e.what());
  }
  Occupancy o;
  try {
    o = occupancy(gpu.limits(), b.kernel.threads_per_cta(), b.kernel.registers_per_thread, b.kernel.shared_bytes);
  } catch (const OccupancyError& e) {
    const std::string key = e.limit == "registers" ? "registers" : e.limit == "shared_memory" ? "shared" : "warps";
    throw InputError(cfg_.params.where(key), "workload." + key, e.what());
  }
  try {
    gpu.active_clusters(b.kernel, o);
  } catch (const std::invalid_argument& e) {
    throw InputError(cfg_.params.where("cluster"), "workload.cluster", e.what());
  }
  driver_ =
      std::make_unique<MicrobenchmarkDriver>("workload", cfg_, ctx_, gpu, std::move(b), cfg_.params.real("reference"));
}

bool GpuMicrobenchmarkWorkload::finished() const { return driver_ && driver_->finished(); }

double GpuMicrobenchmarkWorkload::evaluate_analytic() { return driver_->evaluate(); }

}  // namespace strata
