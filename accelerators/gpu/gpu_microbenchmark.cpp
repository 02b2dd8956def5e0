#include "accelerators/gpu/gpu_microbenchmark.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/control_bits.h"
#include "sim/input_error.h"
#include "sim/kernel.h"
#include "sim/number_format.h"

namespace strata {

namespace {

WarpInstruction op(WarpOp o, std::uint8_t dst, std::vector<std::uint8_t> src) {
  WarpInstruction in;
  in.op = o;
  in.dst[0] = dst;
  for (std::size_t i = 0; i < src.size() && i < in.src.size(); ++i) in.src[i] = src[i];
  return in;
}

WarpOp pipe_op(const std::string& pipe) {
  if (pipe == "int") return WarpOp::Int;
  if (pipe == "fp32") return WarpOp::Fp32;
  if (pipe == "fp64") return WarpOp::Fp64;
  if (pipe == "sfu") return WarpOp::Sfu;
  throw MicrobenchmarkError("pipe", fmt::format("pipe '{}': one of int, fp32, fp64, sfu", pipe));
}

void parse_shape(const std::string& shape, WarpInstruction& in) {
  unsigned m = 0, n = 0, k = 0;
  char rest = 0;
  if (std::sscanf(shape.c_str(), "m%un%uk%u%c", &m, &n, &k, &rest) != 3 || m == 0 || n == 0 || k == 0 || m > 256 ||
      n > 256 || k > 256)
    throw MicrobenchmarkError("shape", fmt::format("shape '{}': write it as mMnNkK, such as m16n8k16", shape));
  in.m = static_cast<std::uint16_t>(m);
  in.n = static_cast<std::uint16_t>(n);
  in.k = static_cast<std::uint16_t>(k);
}

}  // namespace

Microbenchmark make_microbenchmark(const MicrobenchmarkConfig& c, const SmTiming& t, int sms) {
  auto program = std::make_shared<WarpProgram>();
  WarpProgram& p = *program;
  p.iterations = c.iterations;
  Microbenchmark b;
  const auto iterations = static_cast<double>(c.iterations);
  int warps = c.warps;
  const auto tensor = [&](WarpOp o, std::uint8_t acc, std::uint8_t a, std::uint8_t bb) {
    WarpInstruction in = op(o, acc, {acc, a, bb});
    const NumberFormat* f = find_number_format(c.format);
    if (!f) throw MicrobenchmarkError("format", fmt::format("'{}' is not a number format", c.format));
    if (!t.tensor_macs.count(f->name))
      throw MicrobenchmarkError("format", fmt::format("the tensor core has no {} path (tensor_core.macs_per_cycle)", f->name));
    if (c.sparse && !t.sparsity) throw MicrobenchmarkError("sparse", "the tensor core has no 2:4 structured sparsity");
    p.formats = {f->name};
    in.format = 0;
    in.sparse = c.sparse;
    if (o == WarpOp::Mma) {
      parse_shape(c.shape, in);
    } else {
      // wgmma: M = 64 per warp group, K = 32 bytes of the operand format, N from 8 to 256.
      if (c.n < 8 || c.n > 256 || c.n % 8 != 0)
        throw MicrobenchmarkError("n", fmt::format("{}: a wgmma's N is 8 to 256 in steps of 8", c.n));
      in.m = 64;
      in.n = static_cast<std::uint16_t>(c.n);
      in.k = static_cast<std::uint16_t>(256 / f->element_bits * (c.sparse ? 2 : 1));
    }
    return in;
  };
  const std::string& kind = c.benchmark;
  if (kind == "ffma_chain") {
    p.body = {op(WarpOp::Fp32, 0, {0, 1, 2})};
    b.unit = "cycles";
    b.count = iterations;
    warps = warps ? warps : 1;
  } else if (kind == "issue_rate") {
    const WarpOp o = pipe_op(c.pipe);
    for (std::uint8_t r = 0; r < 8; ++r) p.body.push_back(op(o, r, {r, 8, 9}));
    warps = warps ? warps : 32;
    b.unit = "thread ops/clk/SM";
    b.latency = false;
    b.count = iterations * 8 * warps * 32;
  } else if (kind == "mma_chain") {
    p.body = {tensor(WarpOp::Mma, 0, 1, 2)};
    b.unit = "cycles";
    b.count = iterations;
    warps = warps ? warps : 1;
  } else if (kind == "mma_rate") {
    for (std::uint8_t r = 0; r < 4; ++r) p.body.push_back(tensor(WarpOp::Mma, r, 4, 5));
    warps = warps ? warps : 16;
    b.unit = "MAC/clk/SM";
    b.latency = false;
    b.count = iterations * 4 * warps * static_cast<double>(p.body[0].macs());
  } else if (kind == "wgmma_chain" || kind == "wgmma_rate") {
    if (t.wgmma_latency == 0)
      throw MicrobenchmarkError("benchmark", "this GPU has no wgmma (its tensor_core.wgmma_latency is 0)");
    WarpInstruction wait;
    wait.op = WarpOp::WgmmaWait;
    if (kind == "wgmma_chain") {
      wait.pending = 0;
      p.body = {tensor(WarpOp::Wgmma, 0, 1, 2), wait};
      b.unit = "cycles";
      b.count = iterations;
    } else {
      // One wgmma waiting while the next runs keeps the tensor cores busy.
      wait.pending = 1;
      for (std::uint8_t r = 0; r < 4; ++r) {
        p.body.push_back(tensor(WarpOp::Wgmma, r, 4, 5));
        p.body.push_back(wait);
      }
      WarpInstruction drain = wait;
      drain.pending = 0;
      p.epilogue = {drain};
      b.unit = "MAC/clk/SM";
      b.latency = false;
    }
    warps = warps ? warps : 4;
    if (warps % 4 != 0) throw MicrobenchmarkError("warps", fmt::format("{}: a wgmma runs on whole warp groups of 4", warps));
    if (!b.latency) b.count = iterations * 4 * (warps / 4) * static_cast<double>(p.body[0].macs());
  } else if (kind == "shared_chase") {
    WarpInstruction in = op(WarpOp::Lds, 0, {0});
    in.lane_stride = 0;  // every lane follows the same pointer
    in.width = static_cast<std::uint8_t>(c.width);
    p.body = {in};
    b.unit = "cycles";
    b.count = iterations;
    warps = warps ? warps : 1;
  } else if (kind == "dsm_chase") {
    // Distributed shared memory: every lane follows one pointer through the shared memory of
    // the next CTA of its cluster (ld.shared::cluster on another SM), or its own CTA's.
    WarpInstruction in = op(WarpOp::LdsCluster, 0, {0});
    in.lane_stride = 0;
    in.width = static_cast<std::uint8_t>(c.width);
    in.cluster_peer = c.remote ? 1 : 0;
    p.body = {in};
    b.unit = "cycles";
    b.count = iterations;
    warps = warps ? warps : 1;
  } else if (kind == "cluster_sync") {
    // cluster.sync(): barrier.cluster.arrive then .wait, back to back, in every warp.
    WarpInstruction arrive, wait;
    arrive.op = WarpOp::BarClusterArrive;
    wait.op = WarpOp::BarClusterWait;
    p.body = {arrive, wait};
    b.unit = "cycles";
    b.count = iterations;
    warps = warps ? warps : 1;
  } else if (kind == "shared_bandwidth") {
    for (std::uint8_t r = 0; r < 8; ++r) {
      WarpInstruction in = op(WarpOp::Lds, r, {8});
      in.lane_stride = c.lane_stride;
      in.width = static_cast<std::uint8_t>(c.width);
      p.body.push_back(in);
    }
    warps = warps ? warps : 32;
    b.unit = "B/clk/SM";
    b.latency = false;
    b.count = iterations * 8 * warps * 32 * c.width;
  } else if (kind == "global_chase") {
    if (c.stride == 0 || c.footprint < c.stride)
      throw MicrobenchmarkError("stride", fmt::format("{} B: the stride must be from 1 B to the footprint", c.stride));
    // One lane follows a pointer through a ring of footprint / stride loads.
    WarpInstruction in = op(WarpOp::Ldg, 0, {0});
    in.active_mask = 1;
    in.width = 8;
    in.lane_stride = 0;
    in.iteration_stride = static_cast<std::int64_t>(c.stride);
    in.footprint = c.footprint;
    p.body = {in};
    b.unit = "cycles";
    b.count = iterations;
    warps = warps ? warps : 1;
  } else if (kind == "global_copy" || kind == "global_read") {
    // Every warp copies 128 B lines, four loads in flight, then their four stores; the grid's
    // warps sweep the array together (iteration i, warp w, load k: line (4 i + k) W + w).
    const std::uint64_t ctas = c.ctas > 1 ? c.ctas : 2 * static_cast<std::uint64_t>(sms);
    warps = warps ? warps : 32;
    const std::uint64_t row = ctas * static_cast<std::uint64_t>(warps) * 128;  // bytes per load across the grid
    if (c.footprint < 4 * row)
      throw MicrobenchmarkError("footprint", fmt::format("{} B: a sweep over {} warps needs at least {} B", c.footprint,
                                                         ctas * static_cast<std::uint64_t>(warps), 4 * row));
    p.iterations = c.footprint / (4 * row);
    for (std::uint8_t k = 0; k < 4; ++k) {
      WarpInstruction ld = op(WarpOp::Ldg, static_cast<std::uint8_t>(2 * k), {});
      ld.base = k * row;
      ld.iteration_stride = static_cast<std::int64_t>(4 * row);
      ld.warp_stride = 128;
      ld.footprint = c.footprint;  // the sweep stays inside it; the analytic fidelity reads its level from it
      p.body.push_back(ld);
    }
    for (std::uint8_t k = 0; k < 4; ++k) {
      if (kind == "global_read") {  // a reduction: each load's data is added into a sum (loads in even
                                    // registers, the sum in an odd one: other register banks)
        p.body.push_back(op(WarpOp::Fp32, 9, {9, static_cast<std::uint8_t>(2 * k)}));
        continue;
      }
      WarpInstruction st = p.body[k];
      st.op = WarpOp::Stg;
      st.dst = {kNoReg, kNoReg};
      st.src = {static_cast<std::uint8_t>(2 * k), kNoReg, kNoReg, kNoReg};
      st.base += c.footprint;  // the destination array follows the source
      p.body.push_back(st);
    }
    b.unit = "GB/s";
    b.latency = false;
    b.device_rate = true;
    b.count = static_cast<double>((kind == "global_read" ? 1 : 2) * p.iterations * 4 * row);
    b.kernel.grid = {static_cast<std::uint32_t>(ctas), 1, 1};
  } else if (kind == "tma_read" || kind == "cp_async_read") {
    // One warp a CTA streams its share of the array into shared memory through `stages`
    // buffers of `box` bytes: the k-th box of the grid's warp w is at (k W + w) box. The
    // prologue fills every stage; each body step waits for a stage, reads it and refills it
    // with the box `stages` further on; the epilogue drains. TMA: one bulk copy a stage,
    // completing the stage's mbarrier (armed with the box's bytes by arrive.expect_tx).
    // cp.async: 16 B a lane, one commit group a stage, waited for with wait_group(stages - 1).
    const bool tma = kind == "tma_read";
    if (tma && !t.tma) throw MicrobenchmarkError("benchmark", "tma_read: this GPU has no TMA unit (sm.tma)");
    const std::uint64_t ctas = c.ctas > 1 ? c.ctas : 8 * static_cast<std::uint64_t>(sms);
    warps = 1;
    const std::uint64_t box = c.box, stages = static_cast<std::uint64_t>(c.stages);
    if (box % 512 != 0)
      throw MicrobenchmarkError("box", fmt::format("{} B: a stage is whole 512 B warp copies (32 lanes x 16 B)", box));
    const std::uint64_t sweep = stages * ctas * box;  // bytes one pass over the stages covers
    if (c.footprint < 2 * sweep)
      throw MicrobenchmarkError("footprint", fmt::format("{} B: {} stages of {} B over {} CTAs need at least {} B",
                                                         c.footprint, stages, box, ctas, 2 * sweep));
    p.iterations = c.footprint / sweep - 1;
    const auto copy = [&](std::uint64_t s, bool refill) {  // stage s's copy: the first fill or a refill
      std::vector<WarpInstruction> out;
      const std::uint64_t base = ((refill ? stages : 0) + s) * ctas * box;
      if (tma) {
        WarpInstruction arrive = op(WarpOp::MbarArrive, kNoReg, {});
        arrive.mbarrier = static_cast<std::uint8_t>(s);
        arrive.tx_bytes = static_cast<std::uint32_t>(box);
        WarpInstruction bulk = op(WarpOp::Tma, kNoReg, {});
        bulk.mbarrier = static_cast<std::uint8_t>(s);
        bulk.box_rows = static_cast<std::uint32_t>(box / kLineBytes);
        bulk.box_row_bytes = kLineBytes;
        bulk.box_pitch = kLineBytes;
        bulk.base = base;
        bulk.warp_stride = static_cast<std::int64_t>(box);
        bulk.iteration_stride = refill ? static_cast<std::int64_t>(sweep) : 0;
        bulk.footprint = c.footprint;
        out = {arrive, bulk};
      } else {
        for (std::uint64_t j = 0; j < box / 512; ++j) {
          WarpInstruction cp = op(WarpOp::CpAsync, kNoReg, {});
          cp.width = 16;
          cp.lane_stride = 16;
          cp.base = base + j * 512;
          cp.warp_stride = static_cast<std::int64_t>(box);
          cp.iteration_stride = refill ? static_cast<std::int64_t>(sweep) : 0;
          cp.footprint = c.footprint;
          out.push_back(cp);
        }
        out.push_back(op(WarpOp::CpAsyncCommit, kNoReg, {}));
      }
      return out;
    };
    const auto wait = [&](std::uint64_t s) {  // wait for stage s, then read a word a lane of it
      WarpInstruction in = op(tma ? WarpOp::MbarWait : WarpOp::CpAsyncWait, kNoReg, {});
      in.mbarrier = static_cast<std::uint8_t>(s);
      in.pending = static_cast<std::uint8_t>(stages - 1);
      WarpInstruction read = op(WarpOp::Lds, static_cast<std::uint8_t>(s), {});
      read.base = s * box;
      return std::vector<WarpInstruction>{in, read};
    };
    const auto append = [](std::vector<WarpInstruction>& to, const std::vector<WarpInstruction>& part) {
      to.insert(to.end(), part.begin(), part.end());
    };
    for (std::uint64_t s = 0; s < stages && tma; ++s) {
      WarpInstruction init = op(WarpOp::MbarInit, kNoReg, {});
      init.mbarrier = static_cast<std::uint8_t>(s);
      init.arrivals = 1;
      p.prologue.push_back(init);
    }
    for (std::uint64_t s = 0; s < stages; ++s) append(p.prologue, copy(s, false));
    for (std::uint64_t s = 0; s < stages; ++s) {
      append(p.body, wait(s));
      append(p.body, copy(s, true));
    }
    for (std::uint64_t s = 0; s < stages; ++s) {
      std::vector<WarpInstruction> drain = wait(s);
      drain[0].pending = static_cast<std::uint8_t>(stages - 1 - s);
      append(p.epilogue, drain);
    }
    b.unit = "GB/s";
    b.latency = false;
    b.device_rate = true;
    b.count = static_cast<double>((p.iterations + 1) * sweep);
    b.kernel.grid = {static_cast<std::uint32_t>(ctas), 1, 1};
    b.kernel.shared_bytes = std::max(c.shared, stages * box);
  } else {
    throw MicrobenchmarkError("benchmark", fmt::format("'{}' is not known", kind));
  }
  if (t.dependences == SmTiming::Dependences::ControlBits) assign_control_bits(p, t);
  b.kernel.name = kind;
  b.kernel.block = {static_cast<std::uint32_t>(warps) * 32, 1, 1};
  // Clusters: dsm_chase's own is a pair; a grid smaller than one cluster is one cluster.
  const int cluster = c.cluster > 0 ? c.cluster : kind == "dsm_chase" || kind == "cluster_sync" ? 2 : 1;
  b.kernel.cluster = static_cast<std::uint32_t>(cluster);
  const bool streams = kind == "global_copy" || kind == "global_read" || kind == "tma_read" || kind == "cp_async_read";
  if (!streams)
    b.kernel.grid = {static_cast<std::uint32_t>(std::max<std::uint64_t>(c.ctas, static_cast<std::uint64_t>(cluster))),
                     1, 1};
  if (b.kernel.ctas() % static_cast<std::uint64_t>(cluster) != 0)
    throw MicrobenchmarkError(
        "ctas", fmt::format("{} CTAs are not a whole number of clusters of {}", b.kernel.ctas(), cluster));
  b.kernel.registers_per_thread = c.registers;
  b.kernel.shared_bytes = std::max(b.kernel.shared_bytes, c.shared);
  b.kernel.program = program;
  if (kind == "global_chase" && c.warm) {
    // The same chase once over the footprint, as a kernel before the timed one.
    auto pass = std::make_shared<WarpProgram>(p);
    pass->iterations = std::max<std::uint64_t>(1, c.footprint / c.stride);
    KernelLaunch warm = b.kernel;
    warm.name = "global_chase_warmup";
    warm.program = pass;
    b.warmup.push_back(warm);
  }
  if (c.resident && (kind == "global_read" || kind == "tma_read" || kind == "cp_async_read")) {
    // The same sweep once before the timed one: a footprint the L2 holds is then read from it.
    KernelLaunch warm = b.kernel;
    warm.name = kind + "_warmup";
    b.warmup.push_back(warm);
  }
  return b;
}

// Launches the benchmark's kernel at the start of the run and turns its run into the figure.
class MicrobenchmarkDriver : public Component {
 public:
  MicrobenchmarkDriver(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, Gpu& gpu, Microbenchmark b,
                       double reference)
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
    record(r, gpu_.clock().time_of(r.end_cycle));
    return to_seconds(gpu_.clock().time_of(r.end_cycle));
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
    const double measured = bench_.latency       ? cycles / bench_.count / static_cast<double>(r.waves)
                            : bench_.device_rate ? bench_.count / cycles * static_cast<double>(gpu_.clock().frequency_hz()) / 1e9
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

  Gpu& gpu_;
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
      param::choice("benchmark",
                    {"ffma_chain", "issue_rate", "mma_chain", "mma_rate", "wgmma_chain", "wgmma_rate", "shared_chase",
                     "shared_bandwidth", "global_chase", "global_copy", "global_read", "tma_read", "cp_async_read",
                     "dsm_chase", "cluster_sync"},
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
  s.add(param::quantity("footprint", UnitFamily::Size,
                        "global benchmarks: the bytes a chase cycles through or a copy reads (and writes as much)")
            .def("16 KiB")
            .range("128 B", "1 TiB"));
  s.add(param::quantity("stride", UnitFamily::Size, "global_chase: bytes between consecutive loads")
            .def("128 B")
            .range("1 B", "1 GiB"));
  s.add(param::boolean("warm", "global_chase: one pass over the footprint before the timed one (caches warm)")
            .def("true"));
  s.add(param::boolean("resident",
                       "global_read, tma_read, cp_async_read: the same sweep once before the timed one, so a "
                       "footprint the L2 holds is read from the L2 (its bandwidth), not from the DRAM")
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
  Gpu* gpu = dynamic_cast<Gpu*>(&hardware);
  if (!gpu)
    throw InputError(cfg_.loc, "workload.kind",
                     fmt::format("gpu_microbenchmark needs a gpu; hardware kind '{}' is not one", hardware.config().spec->name));
  Microbenchmark b;
  try {
    b = make_microbenchmark(config_, gpu->timing(), gpu->sms());
  } catch (const MicrobenchmarkError& e) {
    throw InputError(cfg_.params.where(e.key), "workload." + e.key, e.what());
  }
  Occupancy o;
  try {
    o = occupancy(gpu->limits(), b.kernel.threads_per_cta(), b.kernel.registers_per_thread, b.kernel.shared_bytes);
  } catch (const OccupancyError& e) {
    const std::string key = e.limit == "registers" ? "registers" : e.limit == "shared_memory" ? "shared" : "warps";
    throw InputError(cfg_.params.where(key), "workload." + key, e.what());
  }
  try {
    gpu->active_clusters(b.kernel, o);
  } catch (const std::invalid_argument& e) {
    throw InputError(cfg_.params.where("cluster"), "workload.cluster", e.what());
  }
  driver_ = std::make_unique<MicrobenchmarkDriver>("workload", cfg_, ctx_, *gpu, std::move(b), cfg_.params.real("reference"));
}

bool GpuMicrobenchmarkWorkload::finished() const { return driver_ && driver_->finished(); }

double GpuMicrobenchmarkWorkload::evaluate_analytic() { return driver_->evaluate(); }

}  // namespace strata
