// The microbenchmarks' kernels (gpu_microbenchmark.h): one builder a benchmark, in a table that
// also gives the workload's list of names.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "accelerators/gpu/control_bits.h"
#include "accelerators/gpu/gpu_microbenchmark.h"
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

// What a builder fills in: the warp program, the figure, and the warps of the CTA (0: not
// chosen by the configuration, so the builder's own).
struct Build {
  const MicrobenchmarkConfig& c;
  const SmTiming& t;
  int sms;
  WarpProgram& p;
  Microbenchmark& b;
  int warps;
  double iterations() const { return static_cast<double>(c.iterations); }
  void chain(int default_warps = 1) {  // a dependent latency, in cycles per instruction
    b.unit = "cycles";
    b.count = iterations();
    warps = warps ? warps : default_warps;
  }
};

// A tensor-core instruction accumulating into `acc` in the configured format.
WarpInstruction tensor(Build& x, WarpOp o, std::uint8_t acc, std::uint8_t a, std::uint8_t b) {
  const MicrobenchmarkConfig& c = x.c;
  WarpInstruction in = op(o, acc, {acc, a, b});
  const NumberFormat* f = find_number_format(c.format);
  if (!f) throw MicrobenchmarkError("format", fmt::format("'{}' is not a number format", c.format));
  if (!x.t.tensor_macs.count(f->name))
    throw MicrobenchmarkError("format",
                              fmt::format("the tensor core has no {} path (tensor_core.macs_per_cycle)", f->name));
  if (c.sparse && !x.t.sparsity) throw MicrobenchmarkError("sparse", "the tensor core has no 2:4 structured sparsity");
  x.p.formats = {f->name};
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
}

void ffma_chain(Build& x) {
  x.p.body = {op(WarpOp::Fp32, 0, {0, 1, 2})};
  x.chain();
}

void issue_rate(Build& x) {
  const WarpOp o = pipe_op(x.c.pipe);
  for (std::uint8_t r = 0; r < 8; ++r) x.p.body.push_back(op(o, r, {r, 8, 9}));
  x.warps = x.warps ? x.warps : 32;
  x.b.unit = "thread ops/clk/SM";
  x.b.latency = false;
  x.b.count = x.iterations() * 8 * x.warps * 32;
}

void mma_chain(Build& x) {
  x.p.body = {tensor(x, WarpOp::Mma, 0, 1, 2)};
  x.chain();
}

void mma_rate(Build& x) {
  for (std::uint8_t r = 0; r < 4; ++r) x.p.body.push_back(tensor(x, WarpOp::Mma, r, 4, 5));
  x.warps = x.warps ? x.warps : 16;
  x.b.unit = "MAC/clk/SM";
  x.b.latency = false;
  x.b.count = x.iterations() * 4 * x.warps * static_cast<double>(x.p.body[0].macs());
}

void wgmma(Build& x, bool chain) {
  if (x.t.wgmma_latency == 0)
    throw MicrobenchmarkError("benchmark", "this GPU has no wgmma (its tensor_core.wgmma_latency is 0)");
  WarpInstruction wait;
  wait.op = WarpOp::WgmmaWait;
  if (chain) {
    wait.pending = 0;
    x.p.body = {tensor(x, WarpOp::Wgmma, 0, 1, 2), wait};
    x.b.unit = "cycles";
    x.b.count = x.iterations();
  } else {
    // One wgmma waiting while the next runs keeps the tensor cores busy.
    wait.pending = 1;
    for (std::uint8_t r = 0; r < 4; ++r) {
      x.p.body.push_back(tensor(x, WarpOp::Wgmma, r, 4, 5));
      x.p.body.push_back(wait);
    }
    WarpInstruction drain = wait;
    drain.pending = 0;
    x.p.epilogue = {drain};
    x.b.unit = "MAC/clk/SM";
    x.b.latency = false;
  }
  x.warps = x.warps ? x.warps : 4;
  if (x.warps % 4 != 0)
    throw MicrobenchmarkError("warps", fmt::format("{}: a wgmma runs on whole warp groups of 4", x.warps));
  if (!x.b.latency) x.b.count = x.iterations() * 4 * (x.warps / 4) * static_cast<double>(x.p.body[0].macs());
}
void wgmma_chain(Build& x) { wgmma(x, true); }
void wgmma_rate(Build& x) { wgmma(x, false); }

void shared_chase(Build& x) {
  WarpInstruction in = op(WarpOp::Lds, 0, {0});
  in.lane_stride = 0;  // every lane follows the same pointer
  in.width = static_cast<std::uint8_t>(x.c.width);
  x.p.body = {in};
  x.chain();
}

// Distributed shared memory: every lane follows one pointer through the shared memory of the
// next CTA of its cluster (ld.shared::cluster on another SM), or its own CTA's.
void dsm_chase(Build& x) {
  WarpInstruction in = op(WarpOp::LdsCluster, 0, {0});
  in.lane_stride = 0;
  in.width = static_cast<std::uint8_t>(x.c.width);
  in.cluster_peer = x.c.remote ? 1 : 0;
  x.p.body = {in};
  x.chain();
}

// cluster.sync(): barrier.cluster.arrive then .wait, back to back, in every warp.
void cluster_sync(Build& x) {
  WarpInstruction arrive, wait;
  arrive.op = WarpOp::BarClusterArrive;
  wait.op = WarpOp::BarClusterWait;
  x.p.body = {arrive, wait};
  x.chain();
}

void shared_bandwidth(Build& x) {
  for (std::uint8_t r = 0; r < 8; ++r) {
    WarpInstruction in = op(WarpOp::Lds, r, {8});
    in.lane_stride = x.c.lane_stride;
    in.width = static_cast<std::uint8_t>(x.c.width);
    x.p.body.push_back(in);
  }
  x.warps = x.warps ? x.warps : 32;
  x.b.unit = "B/clk/SM";
  x.b.latency = false;
  x.b.count = x.iterations() * 8 * x.warps * 32 * x.c.width;
}

void global_chase(Build& x) {
  const MicrobenchmarkConfig& c = x.c;
  if (c.stride == 0 || c.footprint < c.stride)
    throw MicrobenchmarkError("stride", fmt::format("{} B: the stride must be from 1 B to the footprint", c.stride));
  // One lane follows a pointer through a ring of footprint / stride loads.
  WarpInstruction in = op(WarpOp::Ldg, 0, {0});
  in.active_mask = 1;
  in.width = 8;
  in.lane_stride = 0;
  in.iteration_stride = static_cast<std::int64_t>(c.stride);
  in.footprint = c.footprint;
  x.p.body = {in};
  x.chain();
}

// Every warp copies 128 B lines, four loads in flight, then their four stores (Read: adds
// them into a sum instead; Write: stores a register's value, four lines an iteration, with no
// loads); the grid's warps sweep the array together (iteration i, warp w, access k: line
// (4 i + k) W + w).
enum class Sweep { Copy, Read, Write };
void global_sweep(Build& x, Sweep sweep) {
  const MicrobenchmarkConfig& c = x.c;
  WarpProgram& p = x.p;
  const std::uint64_t ctas = c.ctas > 1 ? c.ctas : 2 * static_cast<std::uint64_t>(x.sms);
  x.warps = x.warps ? x.warps : 32;
  const std::uint64_t row = ctas * static_cast<std::uint64_t>(x.warps) * 128;  // bytes per load across the grid
  if (c.footprint < 4 * row)
    throw MicrobenchmarkError("footprint", fmt::format("{} B: a sweep over {} warps needs at least {} B", c.footprint,
                                                       ctas * static_cast<std::uint64_t>(x.warps), 4 * row));
  p.iterations = c.footprint / (4 * row);
  std::vector<WarpInstruction> loads;
  for (std::uint8_t k = 0; k < 4; ++k) {
    WarpInstruction ld = op(WarpOp::Ldg, static_cast<std::uint8_t>(2 * k), {});
    ld.base = k * row;
    ld.iteration_stride = static_cast<std::int64_t>(4 * row);
    ld.warp_stride = 128;
    ld.footprint = c.footprint;  // the sweep stays inside it; the analytic fidelity reads its level from it
    loads.push_back(ld);
  }
  if (sweep != Sweep::Write) p.body = loads;
  for (std::uint8_t k = 0; k < 4; ++k) {
    if (sweep == Sweep::Read) {  // a reduction: each load's data is added into a sum (loads in even
                                 // registers, the sum in an odd one: other register banks)
      p.body.push_back(op(WarpOp::Fp32, 9, {9, static_cast<std::uint8_t>(2 * k)}));
      continue;
    }
    WarpInstruction st = loads[k];
    st.op = WarpOp::Stg;
    st.dst = {kNoReg, kNoReg};
    st.src = {static_cast<std::uint8_t>(2 * k), kNoReg, kNoReg, kNoReg};
    if (sweep == Sweep::Copy) st.base += c.footprint;  // the destination array follows the source
    p.body.push_back(st);
  }
  x.b.unit = "GB/s";
  x.b.latency = false;
  x.b.device_rate = true;
  x.b.count = static_cast<double>((sweep == Sweep::Copy ? 2 : 1) * p.iterations * 4 * row);
  x.b.kernel.grid = {static_cast<std::uint32_t>(ctas), 1, 1};
}
void global_copy(Build& x) { global_sweep(x, Sweep::Copy); }
void global_read(Build& x) { global_sweep(x, Sweep::Read); }
void global_write(Build& x) { global_sweep(x, Sweep::Write); }

// One warp a CTA streams its share of the array into shared memory through `stages` buffers of
// `box` bytes: the k-th box of the grid's warp w is at (k W + w) box. The prologue fills every
// stage; each body step waits for a stage, reads it and refills it with the box `stages`
// further on; the epilogue drains. TMA: one bulk copy a stage, completing the stage's mbarrier
// (armed with the box's bytes by arrive.expect_tx). cp.async: 16 B a lane, one commit group a
// stage, waited for with wait_group(stages - 1).
struct AsyncRead {
  bool tma;
  std::uint64_t ctas, box, stages, sweep, footprint;  // sweep: the bytes one pass over the stages covers

  std::vector<WarpInstruction> copy(std::uint64_t s, bool refill) const {  // stage s's first fill or a refill
    std::vector<WarpInstruction> out;
    const std::uint64_t base = ((refill ? stages : 0) + s) * ctas * box;
    const std::int64_t step = refill ? static_cast<std::int64_t>(sweep) : 0;
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
      bulk.iteration_stride = step;
      bulk.footprint = footprint;
      return {arrive, bulk};
    }
    for (std::uint64_t j = 0; j < box / 512; ++j) {
      WarpInstruction cp = op(WarpOp::CpAsync, kNoReg, {});
      cp.width = 16;
      cp.lane_stride = 16;
      cp.base = base + j * 512;
      cp.warp_stride = static_cast<std::int64_t>(box);
      cp.iteration_stride = step;
      cp.footprint = footprint;
      out.push_back(cp);
    }
    out.push_back(op(WarpOp::CpAsyncCommit, kNoReg, {}));
    return out;
  }
  std::vector<WarpInstruction> wait(std::uint64_t s) const {  // wait for stage s, then read a word a lane of it
    WarpInstruction in = op(tma ? WarpOp::MbarWait : WarpOp::CpAsyncWait, kNoReg, {});
    in.mbarrier = static_cast<std::uint8_t>(s);
    in.pending = static_cast<std::uint8_t>(stages - 1);
    WarpInstruction read = op(WarpOp::Lds, static_cast<std::uint8_t>(s), {});
    read.base = s * box;
    return {in, read};
  }
  void program(WarpProgram& p) const {
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
  }
};

void async_read(Build& x, bool tma) {
  const MicrobenchmarkConfig& c = x.c;
  if (tma && !x.t.tma) throw MicrobenchmarkError("benchmark", "tma_read: this GPU has no TMA unit (sm.tma)");
  const std::uint64_t ctas = c.ctas > 1 ? c.ctas : 8 * static_cast<std::uint64_t>(x.sms);
  x.warps = 1;
  const std::uint64_t box = c.box, stages = static_cast<std::uint64_t>(c.stages);
  if (box % 512 != 0)
    throw MicrobenchmarkError("box", fmt::format("{} B: a stage is whole 512 B warp copies (32 lanes x 16 B)", box));
  const AsyncRead r{tma, ctas, box, stages, stages * ctas * box, c.footprint};
  if (c.footprint < 2 * r.sweep)
    throw MicrobenchmarkError("footprint", fmt::format("{} B: {} stages of {} B over {} CTAs need at least {} B",
                                                       c.footprint, stages, box, ctas, 2 * r.sweep));
  x.p.iterations = c.footprint / r.sweep - 1;
  r.program(x.p);
  x.b.unit = "GB/s";
  x.b.latency = false;
  x.b.device_rate = true;
  x.b.count = static_cast<double>((x.p.iterations + 1) * r.sweep);
  x.b.kernel.grid = {static_cast<std::uint32_t>(ctas), 1, 1};
  x.b.kernel.shared_bytes = std::max(c.shared, stages * box);
}
void tma_read(Build& x) { async_read(x, true); }
void cp_async_read(Build& x) { async_read(x, false); }

// global_chase with `warm`: the same chase once over the footprint, as a kernel before the
// timed one.
void chase_warmup(const MicrobenchmarkConfig& c, Microbenchmark& b) {
  if (!c.warm) return;
  auto pass = std::make_shared<WarpProgram>(*b.kernel.program);
  pass->iterations = std::max<std::uint64_t>(1, c.footprint / c.stride);
  KernelLaunch warm = b.kernel;
  warm.name = "global_chase_warmup";
  warm.program = pass;
  b.warmup.push_back(warm);
}

// With `resident`: the same sweep once before the timed one, so a footprint the L2 holds is
// then read from it.
void sweep_warmup(const MicrobenchmarkConfig& c, Microbenchmark& b) {
  if (!c.resident) return;
  KernelLaunch warm = b.kernel;
  warm.name = c.benchmark + "_warmup";
  b.warmup.push_back(warm);
}

struct Entry {
  const char* name;
  void (*build)(Build&);
  int cluster = 1;        // CTAs per cluster unless configured: a pair for the cluster benchmarks
  bool own_grid = false;  // the builder sizes the grid (a sweep over the device), not `ctas`
  void (*warmup)(const MicrobenchmarkConfig&, Microbenchmark&) = nullptr;
};

const std::vector<Entry>& benchmarks() {
  static const std::vector<Entry> table{
      {"ffma_chain", ffma_chain},
      {"issue_rate", issue_rate},
      {"mma_chain", mma_chain},
      {"mma_rate", mma_rate},
      {"wgmma_chain", wgmma_chain},
      {"wgmma_rate", wgmma_rate},
      {"shared_chase", shared_chase},
      {"shared_bandwidth", shared_bandwidth},
      {"global_chase", global_chase, 1, false, chase_warmup},
      {"global_copy", global_copy, 1, true},
      {"global_read", global_read, 1, true, sweep_warmup},
      {"global_write", global_write, 1, true, sweep_warmup},
      {"tma_read", tma_read, 1, true, sweep_warmup},
      {"cp_async_read", cp_async_read, 1, true, sweep_warmup},
      {"dsm_chase", dsm_chase, 2},
      {"cluster_sync", cluster_sync, 2},
  };
  return table;
}

}  // namespace

std::vector<std::string> microbenchmark_names() {
  std::vector<std::string> names;
  for (const Entry& e : benchmarks()) names.emplace_back(e.name);
  return names;
}

Microbenchmark make_microbenchmark(const MicrobenchmarkConfig& c, const SmTiming& t, int sms) {
  const auto& table = benchmarks();
  const auto entry = std::find_if(table.begin(), table.end(), [&](const Entry& e) { return c.benchmark == e.name; });
  if (entry == table.end()) throw MicrobenchmarkError("benchmark", fmt::format("'{}' is not known", c.benchmark));
  auto program = std::make_shared<WarpProgram>();
  program->iterations = c.iterations;
  Microbenchmark b;
  Build x{c, t, sms, *program, b, c.warps};
  entry->build(x);
  if (t.dependences == SmTiming::Dependences::ControlBits) assign_control_bits(*program, t);
  b.kernel.name = c.benchmark;
  b.kernel.block = {static_cast<std::uint32_t>(x.warps) * 32, 1, 1};
  // A grid smaller than one cluster is one cluster.
  const int cluster = c.cluster > 0 ? c.cluster : entry->cluster;
  b.kernel.cluster = static_cast<std::uint32_t>(cluster);
  if (!entry->own_grid)
    b.kernel.grid = {static_cast<std::uint32_t>(std::max<std::uint64_t>(c.ctas, static_cast<std::uint64_t>(cluster))),
                     1, 1};
  if (b.kernel.ctas() % static_cast<std::uint64_t>(cluster) != 0)
    throw MicrobenchmarkError(
        "ctas", fmt::format("{} CTAs are not a whole number of clusters of {}", b.kernel.ctas(), cluster));
  b.kernel.registers_per_thread = c.registers;
  b.kernel.shared_bytes = std::max(b.kernel.shared_bytes, c.shared);
  b.kernel.program = program;
  if (entry->warmup) entry->warmup(c, b);
  return b;
}

}  // namespace strata
