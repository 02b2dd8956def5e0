#include "accelerators/gpu/kernels/gemm_kernel.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/control_bits.h"
#include "accelerators/gpu/kernels/streaming_kernel.h"
#include "sim/rounding.h"

namespace strata {

namespace {

constexpr std::uint8_t kAFrag = 64, kBFrag = 128;  // fragment registers (accumulators below 64)
constexpr std::uint8_t kConvert = 200;             // registers of converted weights
constexpr int kConvertRegisters = 8;               // converted weights rotate over this many registers
constexpr int kFragmentSet = 32;  // registers of one K step's fragments; two sets, so the next step's load overlaps
// The producer/consumer pipeline's mbarriers: two a stage (full, empty), at most 16 a CTA
// (CUTLASS's pipelines stop at 8 stages).
constexpr int kMaxMbarriers = 16;
constexpr int kMaxWarpTile = 64;  // a warp tile's rows and columns at most: its accumulators fit the register file
constexpr int kConsumerRows = kWgmmaRows / kWarpGroupWarps;  // a wgmma's result rows each warp of its group holds
// A cp_async_mma thread's registers besides its accumulators: the two fragment sets, the
// copies' addresses and the loop state (an estimate of nvcc's allocation).
constexpr std::uint32_t kMmaOtherRegisters = 72;
// A and B are read once a wave, not once, when together they pass this share of the L2 (the
// rest holds C and whatever else is resident; a round figure).
constexpr double kL2Share = 0.8;
constexpr std::uint64_t kGemmCtasPerSm = 1;  // the traffic model's waves: one CTA an SM

// The tile search (choose_gemm): CUTLASS's tile shapes, splits and cluster sizes.
constexpr int kTileSizes[] = {64, 128, 256};
constexpr int kSplits[] = {1, 2, 4, 8};
constexpr int kClusters[] = {1, 2};
constexpr double kTileKBytes = 128;              // a tile's K: one 128 B line of each row (Hopper; Ampere half)
constexpr int kWarpTile = 64;                    // Ampere's warp tile, 64 x 64: CUTLASS's 128x128 tile runs 2 x 2 warps
constexpr int kMaxWarps = 8;                     // an Ampere CTA's warps at most
constexpr int kMaxWgmmaTileOutputs = 256 * 256;  // a Hopper tile this large: four consumer warp groups
// Stages at most: Hopper's one CTA an SM takes as many as shared memory holds, to CUTLASS's 7;
// Ampere's four let two CTAs share an SM and hide each other's waits (CUTLASS: 3 to 5).
constexpr double kMaxStagesHopper = 7, kMaxStagesAmpere = 4;
constexpr double kReservedShared = 1024;     // shared memory the system reserves per CTA (sm.shared_reserved_per_cta)
constexpr std::uint64_t kMinSliceTiles = 4;  // K tiles a split-K slice keeps, so its pipeline fills
// The tile search's estimate of the pipeline's fill per CTA: two L1 latencies and a fixed span
// for the first stage's trip to the L2 or the DRAM and the epilogue's stores (a round figure of
// the search's first version; it ranks tiles, the simulation times them).
constexpr double kFillLatencies = 2, kFillCycles = 600;
constexpr double kTieCycles = 1e-9;  // estimates closer than this are a tie (the enumeration's order decides)

// What both main loops derive from the problem and the configuration.
struct Plan {
  std::string tensor;     // the tensor cores' format
  double tensor_bytes;    // its bytes per element
  int k_inst;             // K of one instruction: 32 bytes of the format
  bool convert_a, convert_b;
  std::int64_t k_slice;   // K of one CTA (split-K: one slice)
  std::uint64_t tiles_k;  // K tiles of a CTA
  int stages;
  std::uint64_t a_row, b_row;    // bytes of one tile row of A and of B (16-byte multiples)
  std::uint64_t a_rows, b_rows;  // rows of the A and B boxes
  std::uint64_t pitch_a, pitch_b, pitch_c;
  double c_bytes;  // of what the kernel writes (FP32 partial sums with split-K)
  std::uint64_t c_base;
  std::array<std::int64_t, 4> a_cta, b_cta, c_cta;  // the operands' moves with the tile
  std::array<std::uint32_t, 3> grid;
};

Plan plan(const GemmProblem& p, const GemmConfig& g, const GpuKernelTarget& t, std::uint64_t workspace) {
  Plan q;
  q.tensor = t.tensor_format(p.compute);
  q.tensor_bytes = tensor_format_bytes(q.tensor);
  q.k_inst = static_cast<int>(kInstructionKBytes / q.tensor_bytes);
  q.convert_a = std::abs(p.a_bytes - q.tensor_bytes) > kFormatTolerance;
  q.convert_b = std::abs(p.b_bytes - q.tensor_bytes) > kFormatTolerance;
  if (g.tile_k % q.k_inst != 0)
    throw std::invalid_argument(fmt::format("tile_k {} is not a multiple of the instruction's K {}", g.tile_k, q.k_inst));
  if (g.split_k > 1 && p.batch > 1) throw std::invalid_argument("split-K is for a single GEMM (batch 1)");
  q.k_slice = static_cast<std::int64_t>(round_up(ceil_div(static_cast<std::uint64_t>(p.k), static_cast<std::uint64_t>(g.split_k)),
                                                 static_cast<std::uint64_t>(g.tile_k)));
  q.tiles_k = ceil_div(static_cast<std::uint64_t>(q.k_slice), static_cast<std::uint64_t>(g.tile_k));
  q.stages = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(g.stages), q.tiles_k));
  q.a_row = round_up(static_cast<std::uint64_t>(std::ceil(g.tile_k * p.a_bytes)), kLaneBytes);
  q.b_row = round_up(static_cast<std::uint64_t>(std::ceil(g.tile_k * p.b_bytes)), kLaneBytes);
  q.a_rows = static_cast<std::uint64_t>(std::min<std::int64_t>(g.tile_m, p.m));
  q.b_rows = static_cast<std::uint64_t>(std::min<std::int64_t>(g.tile_n, p.n));
  q.pitch_a = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.k) * p.a_bytes));
  q.pitch_b = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.k) * p.b_bytes));
  const bool split = g.split_k > 1;
  q.c_bytes = split ? kPartialBytes : p.c_bytes;
  q.c_base = split ? workspace : p.c;
  q.pitch_c = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.n) * q.c_bytes));
  const auto m = static_cast<std::uint64_t>(p.m), n = static_cast<std::uint64_t>(p.n);
  q.grid = {grid_extent(ceil_div(n, static_cast<std::uint64_t>(g.tile_n)), "tile columns"),
            grid_extent(ceil_div(m, static_cast<std::uint64_t>(g.tile_m)), "tile rows"),
            grid_extent(split ? static_cast<std::uint64_t>(g.split_k) : static_cast<std::uint64_t>(p.batch), "batches")};
  const auto slice_a = static_cast<std::int64_t>(std::ceil(static_cast<double>(q.k_slice) * p.a_bytes));
  const auto slice_b = static_cast<std::int64_t>(std::ceil(static_cast<double>(q.k_slice) * p.b_bytes));
  const auto pa = static_cast<std::int64_t>(q.pitch_a), pb = static_cast<std::int64_t>(q.pitch_b),
             pc = static_cast<std::int64_t>(q.pitch_c);
  q.a_cta = {0, g.tile_m * pa, split ? slice_a : p.m * pa};
  q.b_cta = {g.tile_n * pb, 0, split ? slice_b : p.n * pb};
  q.c_cta = {static_cast<std::int64_t>(std::ceil(g.tile_n * q.c_bytes)), g.tile_m * pc, p.m * pc};
  return q;
}

// The tile's k-th K step of an operand: its bytes from the operand's row start.
std::uint64_t k_offset(std::uint64_t tile, int tile_k, double bytes) {
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(tile) * tile_k * bytes));
}

// A warp's epilogue on its `rows` x `cols` results from tile column `first_col` on: the bias
// of those columns (the same for every tile row and batch, the next tile_n values for the next
// tile column), then the math, on the converted weights' registers (free by then).
void gemm_epilogue(std::vector<WarpInstruction>& out, const GemmProblem& p, const GemmConfig& g, std::uint64_t rows,
                   std::uint64_t first_col, std::uint64_t cols) {
  const GemmEpilogue& e = p.epilogue;
  if (e.bias_bytes > 0)
    append_bias_load(out, e.bias + static_cast<std::uint64_t>(std::ceil(static_cast<double>(first_col) * e.bias_bytes)),
                     static_cast<std::uint64_t>(std::ceil(static_cast<double>(cols) * e.bias_bytes)),
                     {static_cast<std::int64_t>(std::ceil(g.tile_n * e.bias_bytes)), 0, 0, 0});
  append_epilogue_math(out, e, static_cast<double>(rows * cols) / kWarpThreads, kConvert);
}

// Stores of `rows` rows of `row_bytes` bytes each (pitch apart) from `base`, 16 bytes a lane.
void store_rows(WarpProgram& w, std::uint64_t base, std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t pitch,
                const std::array<std::int64_t, 4>& cta) {
  const std::uint64_t bytes = rows * row_bytes;
  for (std::uint64_t first = 0; first < bytes; first += kWarpBytes) {
    const auto [index, mask] = tile_lanes(w.addresses, base, first, bytes, row_bytes, pitch);
    WarpInstruction st = warp_global(WarpOp::Stg, 0, kLaneBytes, kLaneBytes, kNoReg);
    st.lane_addresses = index;
    st.active_mask = mask;
    st.cta_stride = cta;
    w.epilogue.push_back(st);
  }
}

// The main loop's conversion of `elements` quantized elements a lane into the tensor format.
void convert(std::vector<WarpInstruction>& out, double elements, std::uint8_t from) {
  const int ops = static_cast<int>(std::ceil(elements / 2));
  for (int i = 0; i < ops; ++i) {
    const auto r = static_cast<std::uint8_t>(kConvert + i % kConvertRegisters);
    out.push_back(warp_op(WarpOp::Int, r, {from}));
    out.push_back(warp_op(WarpOp::Fp32, r, {r}));
  }
}

// TMA and wgmma, warp-specialized (CUTLASS's Hopper pipeline): a producer warp fills the
// stages, `consumers` warps (warp groups of kWarpGroupWarps) multiply out of them.
class WgmmaPipeline {
 public:
  WgmmaPipeline(const GemmProblem& p, const GemmConfig& g, const Plan& q, const GpuKernelTarget& t)
      : p(p), g(g), q(q), t(t), layout(q.tiles_k, static_cast<std::uint64_t>(q.stages)) {}
  std::shared_ptr<WarpProgram> producer() const;
  // Consumer warp c owns kConsumerRows of its warp group's kWgmmaRows rows.
  std::shared_ptr<WarpProgram> consumer(int c, std::uint64_t iterations) const;

  const GemmProblem& p;
  const GemmConfig& g;
  const Plan& q;
  const GpuKernelTarget& t;
  const TileLayout layout;
  const bool pair = g.cluster_m == 2;  // two CTAs along M share B (multicast)
  const int consumers = kWarpGroupWarps * (g.tile_m / kWgmmaRows);
  const int wgmmas = g.tile_k / q.k_inst;

 private:
  static std::uint8_t full(std::uint64_t s) { return static_cast<std::uint8_t>(s); }  // stage s loaded
  std::uint8_t empty(std::uint64_t s) const {                                         // stage s consumed
    return static_cast<std::uint8_t>(static_cast<std::uint64_t>(q.stages) + s);
  }
};

std::shared_ptr<WarpProgram> WgmmaPipeline::producer() const {
  const std::uint64_t tx = q.a_rows * q.a_row + q.b_rows * q.b_row;
  auto producer = std::make_shared<WarpProgram>();
  WarpProgram& pw = *producer;
  for (int s = 0; s < q.stages; ++s) {
    WarpInstruction f = warp_op(WarpOp::MbarInit);
    f.mbarrier = full(static_cast<std::uint64_t>(s));
    f.arrivals = 1;
    WarpInstruction e = f;
    e.mbarrier = empty(static_cast<std::uint64_t>(s));
    e.arrivals = static_cast<std::uint32_t>(consumers);
    pw.prologue.push_back(f);
    pw.prologue.push_back(e);
  }
  pw.prologue.push_back(warp_op(WarpOp::Bar));
  pw.iterations = std::max<std::uint64_t>(1, layout.iterations);
  layout.each(pw, [&](std::vector<WarpInstruction>& part, std::uint64_t tile, std::uint64_t s) {
    if (tile >= layout.stages) {
      WarpInstruction wait = warp_op(WarpOp::MbarWait);
      wait.mbarrier = empty(s);
      part.push_back(wait);
    }
    WarpInstruction arrive = warp_op(WarpOp::MbarArrive);
    arrive.mbarrier = full(s);
    arrive.tx_bytes = static_cast<std::uint32_t>(tx);
    part.push_back(arrive);
    const bool looped = &part == &pw.body;
    for (int operand = 0; operand < 2; ++operand) {
      WarpInstruction box = warp_op(WarpOp::Tma);
      box.mbarrier = full(s);
      const bool a = operand == 0;
      box.base = (a ? p.a : p.b) + k_offset(tile, g.tile_k, a ? p.a_bytes : p.b_bytes);
      box.box_rows = static_cast<std::uint32_t>(a ? q.a_rows : q.b_rows);
      box.box_row_bytes = static_cast<std::uint32_t>(a ? q.a_row : q.b_row);
      box.box_pitch = static_cast<std::int64_t>(a ? q.pitch_a : q.pitch_b);
      box.cta_stride = a ? q.a_cta : q.b_cta;
      if (pair && !a) {  // this CTA's half of the B tile, multicast to both
        box.box_rows /= 2;
        box.cta_stride[3] = static_cast<std::int64_t>(box.box_rows) * box.box_pitch;
        box.multicast = 2;
      }
      if (looped)
        box.iteration_stride = static_cast<std::int64_t>(k_offset(layout.stages, g.tile_k, a ? p.a_bytes : p.b_bytes));
      part.push_back(box);
    }
  });
  if (layout.iterations == 0) pw.iterations = 1;  // an empty body
  assign_control_bits(pw, t.timing);
  return producer;
}

std::shared_ptr<WarpProgram> WgmmaPipeline::consumer(int c, std::uint64_t iterations) const {
  const std::uint64_t rows = static_cast<std::uint64_t>(std::min<std::int64_t>(g.tile_m, p.m));
  const double convert_elements =
      q.convert_b ? static_cast<double>(g.tile_n) * g.tile_k / (consumers * static_cast<double>(kWarpThreads)) : 0;
  auto consumer = std::make_shared<WarpProgram>();
  WarpProgram& cw = *consumer;
  cw.formats = {q.tensor};
  cw.prologue.push_back(warp_op(WarpOp::Bar));
  cw.iterations = iterations;
  layout.each(cw, [&](std::vector<WarpInstruction>& part, std::uint64_t tile, std::uint64_t s) {
    WarpInstruction wait = warp_op(WarpOp::MbarWait);
    wait.mbarrier = full(s);
    part.push_back(wait);
    if (q.convert_b) {  // weights from shared memory, converted, used as register operands
      for (std::uint64_t i = 0; i < ceil_div(static_cast<std::uint64_t>(g.tile_n) * q.b_row,
                                             static_cast<std::uint64_t>(consumers) * kWarpBytes);
           ++i) {
        WarpInstruction lds =
            warp_op(WarpOp::Lds, static_cast<std::uint8_t>(kConvert + kConvertRegisters + i % kConvertRegisters));
        lds.width = kLaneBytes;
        lds.lane_stride = kLaneBytes;
        lds.base = i * kWarpBytes;
        part.push_back(lds);
      }
      convert(part, convert_elements, kConvert + kConvertRegisters);
    }
    for (int i = 0; i < wgmmas; ++i) {
      WarpInstruction mma = warp_op(WarpOp::Wgmma);
      if (q.convert_b && i == 0) mma.src[0] = kConvert;
      mma.m = kWgmmaRows;
      mma.n = static_cast<std::uint16_t>(g.tile_n);
      mma.k = static_cast<std::uint16_t>(q.k_inst);
      part.push_back(mma);
    }
    if (tile > 0) {
      WarpInstruction done = warp_op(WarpOp::WgmmaWait);
      done.pending = static_cast<std::uint8_t>(wgmmas);
      part.push_back(done);
      WarpInstruction release = warp_op(WarpOp::MbarArrive);
      release.mbarrier = empty((s + layout.stages - 1) % layout.stages);
      part.push_back(release);
    }
  });
  WarpInstruction drain = warp_op(WarpOp::WgmmaWait);
  drain.pending = 0;
  cw.epilogue.push_back(drain);
  const std::uint64_t first_row = static_cast<std::uint64_t>(c) * kConsumerRows;
  if (first_row < rows && g.split_k <= 1)  // with split-K the reduction kernel runs the epilogue
    gemm_epilogue(cw.epilogue, p, g, std::min<std::uint64_t>(kConsumerRows, rows - first_row), 0,
                  static_cast<std::uint64_t>(std::min<std::int64_t>(g.tile_n, p.n)));
  if (first_row < rows)
    store_rows(
        cw, q.c_base + first_row * q.pitch_c, std::min<std::uint64_t>(kConsumerRows, rows - first_row),
        static_cast<std::uint64_t>(std::ceil(static_cast<double>(std::min<std::int64_t>(g.tile_n, p.n)) * q.c_bytes)),
        q.pitch_c, q.c_cta);
  assign_control_bits(cw, t.timing);
  return consumer;
}

GpuKernel tma_wgmma(const GemmProblem& p, const GemmConfig& g, const Plan& q, const GpuKernelTarget& t) {
  if (!t.wgmma()) throw std::invalid_argument("tma_wgmma needs wgmma (tensor_core.wgmma_latency)");
  if (!t.timing.tma) throw std::invalid_argument("tma_wgmma needs a TMA unit (sm.tma)");
  if (g.tile_m % kWgmmaRows != 0 || g.tile_n % kWgmmaMinN != 0 || g.tile_n > kWgmmaMaxN)
    throw std::invalid_argument(
        fmt::format("tile {}x{}: wgmma needs rows in 64s and 8-256 columns", g.tile_m, g.tile_n));
  if (2 * q.stages > kMaxMbarriers) throw std::invalid_argument("at most 8 stages (16 mbarriers a CTA)");
  if (g.cluster_m != 1 && g.cluster_m != 2) throw std::invalid_argument("cluster_m is 1 or 2");
  if (g.cluster_m == 2 && (q.grid[1] % 2 != 0 || g.swizzle % 2 != 0 || q.b_rows % 2 != 0))
    throw std::invalid_argument("a cluster of 2 along M needs an even number of tile rows, an even swizzle and B rows");
  const WgmmaPipeline w(p, g, q, t);
  GpuKernel out;
  KernelLaunch& k = out.launch;
  k.name = p.name;
  k.grid = q.grid;
  k.block = {static_cast<std::uint32_t>(kWarpThreads * (w.consumers + 1)), 1, 1};
  k.swizzle = g.swizzle;
  k.cluster = w.pair ? 2 : 1;
  // CUTLASS gives consumers 232 registers and the producer 40 (setmaxnreg); the launch asks for
  // what fits the SM with one CTA (its warps counted in whole sub-core rounds, as the
  // occupancy rules do): 168 for three warp groups, as CUTLASS launches them.
  k.registers_per_thread = t.one_cta_registers(k.warps_per_cta());
  k.shared_bytes = static_cast<std::uint64_t>(q.stages) * (static_cast<std::uint64_t>(g.tile_m) * q.a_row +
                                                           static_cast<std::uint64_t>(g.tile_n) * q.b_row) +
                   static_cast<std::uint64_t>(2 * q.stages) * kMbarrierBytes;

  k.cta_programs.assign(static_cast<std::size_t>(w.consumers + 1), nullptr);
  k.cta_programs.back() = w.producer();
  for (int c = 0; c < w.consumers; ++c)
    k.cta_programs[static_cast<std::size_t>(c)] = w.consumer(c, k.cta_programs.back()->iterations);
  return out;
}

// cp.async and mma.sync, multistage (CUTLASS's Ampere pipeline): every warp copies its share
// of each stage and multiplies its warp tile out of shared memory.
class MmaWarpWriter {
 public:
  MmaWarpWriter(const GemmProblem& p, const GemmConfig& g, const Plan& q)
      : p(p),
        g(g),
        q(q),
        warps(g.warps_m * g.warps_n),
        wm(g.tile_m / g.warps_m),
        wn(g.tile_n / g.warps_n),
        ksteps(g.tile_k / q.k_inst),
        m_frags(wm / kMmaRows),
        n_frags(wn / kMmaCols),
        a_step(static_cast<int>(ceil_div(static_cast<std::uint64_t>(wm * q.k_inst * q.tensor_bytes), kWarpBytes))),
        b_step(static_cast<int>(ceil_div(static_cast<std::uint64_t>(wn * q.k_inst * q.tensor_bytes), kWarpBytes))),
        stages(static_cast<std::uint64_t>(q.stages)),
        convert_elements(q.convert_b ? static_cast<double>(wn) * g.tile_k / static_cast<double>(kWarpThreads) : 0) {}
  // Warp w's program (its warp tile: row w / warps_n, column w % warps_n).
  std::shared_ptr<WarpProgram> write(int w, const GpuKernelTarget& t) const;

  const GemmProblem& p;
  const GemmConfig& g;
  const Plan& q;
  const int warps, wm, wn;  // warps, and a warp tile's rows and columns
  const int ksteps, m_frags, n_frags;
  // ldmatrix instructions of one K step's A and B fragments (at most kFragmentSet registers a set).
  const int a_step, b_step;
  const std::uint64_t stages;
  const double convert_elements;

 private:
  void copies(WarpProgram& pw, std::vector<WarpInstruction>& part, int w, std::uint64_t tile, bool looped) const;
  void fragments(std::vector<WarpInstruction>& part, int ks) const;
  void mmas(std::vector<WarpInstruction>& part, int ks) const;
  static void wait(std::vector<WarpInstruction>& part, std::uint64_t pending);
  void tile_steps(WarpProgram& pw, std::vector<WarpInstruction>& part, int w, bool load, bool looped, bool last) const;
  void store(WarpProgram& pw, int w) const;  // the warp tile's epilogue and stores
};

// Warp w's share of a stage's copies: pieces w, w + warps, ... of each tile.
void MmaWarpWriter::copies(WarpProgram& pw, std::vector<WarpInstruction>& part, int w, std::uint64_t tile,
                           bool looped) const {
  for (int operand = 0; operand < 2; ++operand) {
    const bool a = operand == 0;
    const std::uint64_t bytes = a ? q.a_rows * q.a_row : q.b_rows * q.b_row;
    const std::uint64_t base = (a ? p.a : p.b) + k_offset(tile, g.tile_k, a ? p.a_bytes : p.b_bytes);
    for (std::uint64_t first = static_cast<std::uint64_t>(w) * kWarpBytes; first < bytes;
         first += static_cast<std::uint64_t>(warps) * kWarpBytes) {
      const auto [index, mask] =
          tile_lanes(pw.addresses, base, first, bytes, a ? q.a_row : q.b_row, a ? q.pitch_a : q.pitch_b);
      WarpInstruction cp = warp_global(WarpOp::CpAsync, 0, kLaneBytes, kLaneBytes, kNoReg);
      cp.lane_addresses = index;
      cp.active_mask = mask;
      cp.cta_stride = a ? q.a_cta : q.b_cta;
      if (looped) cp.iteration_stride = static_cast<std::int64_t>(k_offset(1, g.tile_k, a ? p.a_bytes : p.b_bytes));
      part.push_back(cp);
    }
  }
  part.push_back(warp_op(WarpOp::CpAsyncCommit));
}

// One K step's fragments (ldmatrix: an LDS of 16 B a lane) into register set ks % 2.
void MmaWarpWriter::fragments(std::vector<WarpInstruction>& part, int ks) const {
  const auto set = static_cast<std::uint8_t>((ks % 2) * kFragmentSet);
  for (int i = 0; i < a_step + b_step; ++i) {
    const bool a = i < a_step;
    WarpInstruction lds =
        warp_op(WarpOp::Lds, static_cast<std::uint8_t>((a ? kAFrag + i : kBFrag + (i - a_step)) + set));
    lds.width = kLaneBytes;
    lds.lane_stride = kLaneBytes;
    lds.base = static_cast<std::uint64_t>(ks * (a_step + b_step) + i) * kWarpBytes;
    part.push_back(lds);
  }
  if (q.convert_b) convert(part, convert_elements / ksteps, static_cast<std::uint8_t>(kBFrag + set));
}

void MmaWarpWriter::mmas(std::vector<WarpInstruction>& part, int ks) const {
  const auto set = static_cast<std::uint8_t>((ks % 2) * kFragmentSet);
  for (int mi = 0; mi < m_frags; ++mi)
    for (int ni = 0; ni < n_frags; ++ni) {
      const auto af = static_cast<std::uint8_t>(kAFrag + set + mi % a_step);
      const auto bf = static_cast<std::uint8_t>(q.convert_b ? kConvert + ni % kConvertRegisters
                                                            : kBFrag + set + ni * b_step / n_frags);
      // The accumulator stays in the tensor pipe from one K step to the next (the compiler
      // orders independent MMAs between them), so no dependence counter ties an MMA to the
      // one before it; only its fragments' loads do.
      WarpInstruction mma = warp_op(WarpOp::Mma, kNoReg, {af, bf});
      mma.m = kMmaRows;
      mma.n = kMmaCols;
      mma.k = static_cast<std::uint16_t>(q.k_inst);
      part.push_back(mma);
    }
}

void MmaWarpWriter::wait(std::vector<WarpInstruction>& part, std::uint64_t pending) {
  WarpInstruction in = warp_op(WarpOp::CpAsyncWait);
  in.pending = static_cast<std::uint8_t>(pending);
  part.push_back(in);
  part.push_back(warp_op(WarpOp::Bar));
}

// CUTLASS's software pipeline: while a K step's MMAs run, the next step's fragments load;
// before the tile's last step the next tile's stage is waited for (bar.sync), and at its first
// step the copies of the stage `stages - 1` ahead go out. Tiles past the last load commit empty
// groups, so the wait counts hold.
void MmaWarpWriter::tile_steps(WarpProgram& pw, std::vector<WarpInstruction>& part, int w, bool load, bool looped,
                               bool last) const {
  for (int ks = 0; ks < ksteps; ++ks) {
    if (ks == ksteps - 1 && !last) wait(part, stages - 2);
    if (ks + 1 < ksteps || !last) fragments(part, (ks + 1) % ksteps);
    if (ks == 0) {
      if (load) copies(pw, part, w, stages - 1, looped);
      else part.push_back(warp_op(WarpOp::CpAsyncCommit));
    }
    mmas(part, ks);
  }
}

void MmaWarpWriter::store(WarpProgram& pw, int w) const {
  const std::uint64_t rows = static_cast<std::uint64_t>(std::min<std::int64_t>(g.tile_m, p.m));
  const auto mw = static_cast<std::uint64_t>(w / g.warps_n), nw = static_cast<std::uint64_t>(w % g.warps_n);
  const std::uint64_t first_row = mw * static_cast<std::uint64_t>(wm);
  const std::uint64_t first_col = nw * static_cast<std::uint64_t>(wn);
  const auto cols = static_cast<std::uint64_t>(std::min<std::int64_t>(g.tile_n, p.n));
  if (first_row >= rows || first_col >= cols) return;
  const std::uint64_t tile_rows = std::min<std::uint64_t>(static_cast<std::uint64_t>(wm), rows - first_row);
  const std::uint64_t tile_cols = std::min<std::uint64_t>(static_cast<std::uint64_t>(wn), cols - first_col);
  if (g.split_k <= 1) gemm_epilogue(pw.epilogue, p, g, tile_rows, first_col, tile_cols);
  store_rows(pw, q.c_base + first_row * q.pitch_c + static_cast<std::uint64_t>(std::ceil(first_col * q.c_bytes)),
             tile_rows, static_cast<std::uint64_t>(std::ceil(tile_cols * q.c_bytes)), q.pitch_c, q.c_cta);
}

std::shared_ptr<WarpProgram> MmaWarpWriter::write(int w, const GpuKernelTarget& t) const {
  auto program = std::make_shared<WarpProgram>();
  WarpProgram& pw = *program;
  pw.formats = {q.tensor};
  // Tiles [0, stages - 1) load in the prologue; the body computes tile k and loads k + stages - 1.
  pw.iterations = q.tiles_k - (stages - 1);
  for (std::uint64_t s = 0; s + 1 < stages; ++s) copies(pw, pw.prologue, w, s, false);
  wait(pw.prologue, stages - 2);
  fragments(pw.prologue, 0);
  tile_steps(pw, pw.body, w, true, true, false);
  for (std::uint64_t r = 0; r + 1 < stages; ++r) tile_steps(pw, pw.epilogue, w, false, false, r + 2 == stages);
  store(pw, w);
  assign_control_bits(pw, t.timing);
  return program;
}

GpuKernel cp_async_mma(const GemmProblem& p, const GemmConfig& g, const Plan& q, const GpuKernelTarget& t) {
  const int wm = g.tile_m / g.warps_m, wn = g.tile_n / g.warps_n;
  if (wm % kMmaRows != 0 || wn % kMmaCols != 0 || wm > kMaxWarpTile || wn > kMaxWarpTile)
    throw std::invalid_argument(
        fmt::format("warp tile {}x{}: mma.sync needs rows in 16s, columns in 8s, at most 64x64", wm, wn));
  if (q.stages < 2) throw std::invalid_argument("cp_async_mma needs at least 2 stages");
  const MmaWarpWriter writer(p, g, q);
  GpuKernel out;
  KernelLaunch& k = out.launch;
  k.name = p.name;
  k.grid = q.grid;
  k.block = {static_cast<std::uint32_t>(kWarpThreads * writer.warps), 1, 1};
  k.swizzle = g.swizzle;
  k.registers_per_thread = std::min<std::uint32_t>(
      kMaxRegistersPerThread,
      static_cast<std::uint32_t>(wm * wn / kWarpThreads + kMmaOtherRegisters) / kRegisterStep * kRegisterStep);
  k.shared_bytes =
      writer.stages * (static_cast<std::uint64_t>(g.tile_m) * q.a_row + static_cast<std::uint64_t>(g.tile_n) * q.b_row);
  for (int w = 0; w < writer.warps; ++w) k.cta_programs.push_back(writer.write(w, t));
  return out;
}

}  // namespace

const char* gemm_main_loop_name(GemmMainLoop m) { return m == GemmMainLoop::TmaWgmma ? "tma_wgmma" : "cp_async_mma"; }

std::string GemmConfig::label() const {
  return fmt::format("{} {}x{}x{} s{} k{} c{}", gemm_main_loop_name(main_loop), tile_m, tile_n, tile_k, stages, split_k,
                     cluster_m);
}

std::vector<GpuKernel> make_gemm(const GemmProblem& p, const GemmConfig& config, const GpuKernelTarget& target,
                                 std::uint64_t workspace) {
  const Plan q = plan(p, config, target, workspace);
  GpuKernel main = config.main_loop == GemmMainLoop::TmaWgmma ? tma_wgmma(p, config, q, target)
                                                              : cp_async_mma(p, config, q, target);
  main.generator = std::string("gemm.") + gemm_main_loop_name(config.main_loop);
  main.choices = {{"tile_m", config.tile_m}, {"tile_n", config.tile_n},   {"tile_k", config.tile_k},
                  {"stages", q.stages},      {"split_k", config.split_k}, {"cluster", config.cluster_m}};
  main.flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) *
                   static_cast<double>(p.batch) +
               p.epilogue.flops;
  if (p.epilogue.ops > 0) main.choices["epilogue_ops"] = p.epilogue.ops;
  const double mn = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.batch);
  const double operands = static_cast<double>(p.m) * static_cast<double>(p.k) * p.a_bytes * static_cast<double>(p.batch) +
                          static_cast<double>(p.n) * static_cast<double>(p.k) * p.b_bytes * static_cast<double>(p.batch);
  const double bias = static_cast<double>(p.n) * p.epilogue.bias_bytes * static_cast<double>(p.batch);
  main.min_bytes = static_cast<std::uint64_t>(operands + bias + mn * q.c_bytes);
  main.launch.expected_dram_bytes =
      static_cast<std::uint64_t>(gemm_dram_bytes(p, config, target) + bias -
                                 (config.split_k > 1 ? mn * (config.split_k * kPartialBytes + p.c_bytes) : 0));
  std::vector<GpuKernel> out{std::move(main)};
  if (config.split_k > 1)
    out.push_back(make_split_k_reduction(p.name, mn, config.split_k, workspace, p.c, p.c_bytes, target, p.epilogue,
                                         static_cast<double>(p.n)));
  return out;
}

double gemm_dram_bytes(const GemmProblem& p, const GemmConfig& g, const GpuKernelTarget& t) {
  // A wave's CTAs cover bands of `swizzle` tile rows column by column: the A rows and B
  // columns they touch are read once a wave (the L2 keeps them while the wave's K steps pass),
  // and re-read by the next wave unless the whole of A and B stays in the L2.
  const auto tiles_m = ceil_div(static_cast<std::uint64_t>(p.m), static_cast<std::uint64_t>(g.tile_m));
  const auto tiles_n = ceil_div(static_cast<std::uint64_t>(p.n), static_cast<std::uint64_t>(g.tile_n));
  const double a_total = static_cast<double>(p.m) * static_cast<double>(p.k) * p.a_bytes;
  const double b_total = static_cast<double>(p.n) * static_cast<double>(p.k) * p.b_bytes;
  const double c_total = static_cast<double>(p.m) * static_cast<double>(p.n) * p.c_bytes;
  double reads = a_total + b_total;
  if (a_total + b_total > kL2Share * static_cast<double>(t.l2_bytes)) {
    // Per wave: the distinct tile rows and columns of `per_wave` CTAs walked in bands.
    const std::uint64_t per_wave = static_cast<std::uint64_t>(t.sms) * kGemmCtasPerSm;
    const std::uint64_t band = std::max<std::uint64_t>(1, std::min<std::uint64_t>(g.swizzle, tiles_m));
    const std::uint64_t tiles = tiles_m * tiles_n * static_cast<std::uint64_t>(g.split_k);
    const std::uint64_t waves = ceil_div(tiles, per_wave);
    const double cols = std::min<double>(static_cast<double>(tiles_n), std::ceil(static_cast<double>(per_wave) / band));
    const double rows = std::min<double>(static_cast<double>(tiles_m), std::ceil(static_cast<double>(per_wave) / cols));
    const double a_tile = static_cast<double>(g.tile_m) * static_cast<double>(p.k) * p.a_bytes / g.split_k;
    const double b_tile = static_cast<double>(g.tile_n) * static_cast<double>(p.k) * p.b_bytes / g.split_k;
    reads = std::max(reads, static_cast<double>(waves) * (rows * a_tile + cols * b_tile));
  }
  reads *= static_cast<double>(p.batch);
  const double mn = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.batch);
  // Split-K: the partials are written and read back once more by the reduction, then C.
  const double writes =
      g.split_k > 1 ? mn * (kPartialBytes * g.split_k * 2 + p.c_bytes) : c_total * static_cast<double>(p.batch);
  return reads + writes;
}

namespace {

// What every configuration of one tile search shares.
struct TileSearch {
  const GemmProblem& p;
  const GpuKernelTarget& t;
  const GemmConstraints& fixed;
  bool hopper;
  double macs_per_cycle;  // the SM's, in the tensor format
  int k_tile;             // kTileKBytes of the tensor format
};

// One configuration of the tile search, `tm` x `tn` tiles, K in `split` slices, `cluster` CTAs
// along M, and its estimated cycles; nothing when the search passes it over.
std::optional<std::pair<double, GemmConfig>> estimate_gemm(const TileSearch& search, int tm, int tn, int split,
                                                           int cluster) {
  const GemmProblem& p = search.p;
  const GpuKernelTarget& t = search.t;
  const GemmConstraints& fixed = search.fixed;
  const bool hopper = search.hopper;
  const int k_tile = search.k_tile;
  const auto fits = [](int value, int wanted) { return wanted == 0 || value == wanted; };
  if (!fits(split, fixed.split_k) || !fits(cluster, fixed.cluster_m)) return std::nullopt;
  if (split > 1 && p.batch > 1) return std::nullopt;
  if (cluster == 2 && (!hopper || ceil_div(static_cast<std::uint64_t>(p.m), static_cast<std::uint64_t>(tm)) % 2 != 0 ||
                       std::min<std::int64_t>(tn, p.n) % 2 != 0))
    return std::nullopt;
  if (!fixed.tile_m && tm > kTileSizes[0] && p.m <= tm / 2) return std::nullopt;  // a taller tile would be mostly empty
  if (!fixed.tile_n && tn > kTileSizes[0] && p.n <= tn / 2) return std::nullopt;
  const auto usable_shared = t.limits.max_shared_per_cta;
  GemmConfig g;
  g.main_loop = hopper ? GemmMainLoop::TmaWgmma : GemmMainLoop::CpAsyncMma;
  g.tile_m = tm;
  g.tile_n = tn;
  g.tile_k = fixed.tile_k ? fixed.tile_k : hopper ? k_tile : k_tile / 2;
  if (!hopper) {
    // Warp tiles of kWarpTile (half of it along a CTA tile that narrow), two warps at least.
    g.warps_m = tm >= 2 * kWarpTile ? tm / kWarpTile : 2;
    g.warps_n = tn >= 2 * kWarpTile ? tn / kWarpTile : 2;
    if (g.warps_m * g.warps_n > kMaxWarps) return std::nullopt;
  } else if (tm * tn >= kMaxWgmmaTileOutputs) {
    return std::nullopt;  // 4 consumer warp groups' accumulators do not fit the register file
  }
  const double stage_bytes = tm * std::ceil(g.tile_k * p.a_bytes) + tn * std::ceil(g.tile_k * p.b_bytes);
  // Hopper: one CTA an SM; Ampere: two share one.
  const double shared = hopper ? static_cast<double>(usable_shared) : static_cast<double>(t.limits.shared_bytes) / 2;
  g.stages = static_cast<int>(
      std::min(hopper ? kMaxStagesHopper : kMaxStagesAmpere, std::floor((shared - kReservedShared) / stage_bytes)));
  if (fixed.stages) g.stages = fixed.stages;
  if (g.stages < 2) return std::nullopt;
  g.split_k = split;
  g.cluster_m = cluster;
  const std::uint64_t k_slice = ceil_div(static_cast<std::uint64_t>(p.k), static_cast<std::uint64_t>(split));
  if (!fixed.split_k && split > 1 && k_slice < kMinSliceTiles * static_cast<std::uint64_t>(g.tile_k))
    return std::nullopt;
  const auto tiles_m = ceil_div(static_cast<std::uint64_t>(p.m), static_cast<std::uint64_t>(tm));
  const auto tiles_n = ceil_div(static_cast<std::uint64_t>(p.n), static_cast<std::uint64_t>(tn));
  const std::uint64_t ctas =
      tiles_m * tiles_n * static_cast<std::uint64_t>(split) * static_cast<std::uint64_t>(p.batch);
  if (!fixed.split_k && split > 1 && ctas / split >= static_cast<std::uint64_t>(t.sms))
    return std::nullopt;  // no SM idle to fill
  const int per_sm = hopper ? 1
                            : std::max(1, std::min(t.limits.max_warps / (g.warps_m * g.warps_n),
                                                   static_cast<int>(static_cast<double>(t.limits.shared_bytes) /
                                                                    (g.stages * stage_bytes + kReservedShared))));
  // CTAs sharing an SM share its tensor cores: a wave of per_sm CTAs an SM takes per_sm times one's.
  const double waves = std::ceil(static_cast<double>(ctas) / (t.sms * per_sm)) * per_sm;
  // One CTA's main loop: tensor cycles (the instruction's full tile, edges included),
  // or its share of the DRAM's bandwidth, whichever is longer.
  const double tensor_cycles = static_cast<double>(tm) * tn *
                               static_cast<double>(round_up(k_slice, static_cast<std::uint64_t>(g.tile_k))) /
                               search.macs_per_cycle;
  const double dram = gemm_dram_bytes(p, g, t);
  const double dram_cycles = dram / t.dram_bytes_per_cycle;
  const double l2_bytes = static_cast<double>(ctas) *
                          (std::min<double>(tm, static_cast<double>(p.m)) * std::ceil(g.tile_k * p.a_bytes) +
                           std::min<double>(tn, static_cast<double>(p.n)) * std::ceil(g.tile_k * p.b_bytes) / cluster) *
                          static_cast<double>(round_up(k_slice, static_cast<std::uint64_t>(g.tile_k)) /
                                              static_cast<std::uint64_t>(g.tile_k));
  const double l2_cycles = l2_bytes / t.l2_bytes_per_cycle;
  // The pipeline's fill: a stage from the L2 or the DRAM before the first tensor op,
  // and per CTA the epilogue's stores.
  const double fill = kFillLatencies * t.timing.l1_latency + kFillCycles;
  double cycles = std::max({waves * (tensor_cycles + fill), dram_cycles, l2_cycles});
  if (split > 1)
    cycles += t.launch_cycles + static_cast<double>(p.m) * static_cast<double>(p.n) *
                                    (kPartialBytes * split + p.c_bytes) / t.dram_bytes_per_cycle;
  return std::make_pair(cycles, g);
}

}  // namespace

GemmChoice choose_gemm(const GemmProblem& p, const GpuKernelTarget& t, const GemmConstraints& fixed) {
  GemmChoice best;
  std::vector<std::pair<double, GemmConfig>> estimated;  // in the order of enumeration
  const std::string tensor = t.tensor_format(p.compute);
  const double macs_per_cycle = t.tensor_macs_per_sm(tensor);
  const double tb = tensor_format_bytes(tensor);
  const bool hopper = fixed.main_loop.empty() ? t.wgmma() && t.timing.tma : fixed.main_loop == "tma_wgmma";
  const TileSearch search{p, t, fixed, hopper, macs_per_cycle, static_cast<int>(kTileKBytes / tb)};
  const std::vector<int> sizes(std::begin(kTileSizes), std::end(kTileSizes));
  const std::vector<int> rows = fixed.tile_m ? std::vector<int>{fixed.tile_m} : sizes;
  const std::vector<int> cols = fixed.tile_n ? std::vector<int>{fixed.tile_n} : sizes;
  for (int tm : rows)
    for (int tn : cols)
      for (int split : kSplits)
        for (int cluster : kClusters)
          if (auto e = estimate_gemm(search, tm, tn, split, cluster)) {
            ++best.candidates;
            estimated.push_back(std::move(*e));
          }
  // The estimate knows tiles, not the SM's limits: the fastest configuration (ties: the order
  // of enumeration) whose kernels the GPU can place (warp slots, registers, shared memory at
  // its granularity, clusters per GPC), else the next fastest.
  std::string why;
  std::vector<bool> refused(estimated.size(), false);
  for (;;) {
    std::size_t pick = estimated.size();
    for (std::size_t i = 0; i < estimated.size(); ++i)
      if (!refused[i] && (pick == estimated.size() || estimated[i].first < estimated[pick].first - kTieCycles))
        pick = i;
    if (pick == estimated.size()) break;
    const GemmConfig& g = estimated[pick].second;
    try {
      for (const GpuKernel& k : make_gemm(p, g, t, 0)) t.fit(k.launch);
    } catch (const std::invalid_argument& e) {
      if (why.empty()) why = fmt::format(" ({}: {})", g.label(), e.what());
      refused[pick] = true;
      continue;
    }
    best.config = g;
    best.estimated_cycles = estimated[pick].first;
    return best;
  }
  if (hopper && fixed.main_loop.empty()) {
    // No warp-specialized kernel fits (an SM of few warp slots): Hopper runs Ampere's kernels too.
    GemmConstraints ampere = fixed;
    ampere.main_loop = gemm_main_loop_name(GemmMainLoop::CpAsyncMma);
    try {
      GemmChoice fallback = choose_gemm(p, t, ampere);
      fallback.candidates += best.candidates;
      return fallback;
    } catch (const std::invalid_argument&) {
    }
  }
  throw std::invalid_argument(fmt::format("{}{}",
                                          fixed.any() ? "no GEMM configuration meets the gpu's kernels section here"
                                                      : "no GEMM tile fits this GPU",
                                          why));
}

}  // namespace strata
