// The warp-level instruction stream a GPU model runs: what kernel generators and trace readers
// produce and the SM model consumes. One instruction is one warp instruction (SASS level): an
// opcode class, up to two destination and four source registers, the compiler's control bits,
// and for tensor and memory instructions their shape or access pattern. A warp's program is a
// prologue, a loop body run `iterations` times and an epilogue, so a long microbenchmark or a
// GEMM main loop is a few instructions, not millions.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata {

// The execution resource an instruction needs; the SM model keys its latencies and issue rates
// on it.
enum class WarpOp : std::uint8_t {
  Int,        // INT32 pipe: IADD3, IMAD, LOP3, ...
  Fp32,       // FP32 pipe: FFMA, FADD, FMUL
  Fp64,       // FP64 pipe: DFMA, DADD
  Sfu,        // special functions: MUFU (rsqrt, exp2, ...)
  Mma,        // synchronous warp-level tensor instruction (mma.sync / HMMA, IMMA)
  Wgmma,      // asynchronous warp-group tensor instruction (wgmma.mma_async), Hopper
  WgmmaWait,  // wgmma.wait_group: waits until at most `pending` of the warp's wgmmas are in flight
  Lds,        // shared-memory load
  Sts,        // shared-memory store
  Ldg,        // global-memory load (through L1, L2 and DRAM)
  Stg,        // global-memory store
  Bar,        // CTA barrier (bar.sync): waits for every warp of the CTA
  Nop,        // anything else that takes an issue slot (branches, EXIT, S2R, ...)
  // Asynchronous copies into shared memory (Ampere onwards), with no register destination:
  CpAsync,        // cp.async / LDGSTS: each lane copies `width` bytes from global to shared memory
  CpAsyncCommit,  // cp.async.commit_group / LDGDEPBAR: closes the warp's open group of cp.asyncs
  CpAsyncWait,    // cp.async.wait_group / DEPBAR: waits until at most `pending` committed groups are out
  Tma,            // cp.async.bulk.tensor / UTMALDG (Hopper): a box of global memory into shared
                  // memory, completing `mbarrier`'s transaction bytes
  MbarInit,       // mbarrier.init: `mbarrier` of the CTA completes a phase after `arrivals` arrivals
  MbarArrive,     // mbarrier.arrive(.expect_tx): one arrival, and `tx_bytes` more bytes to wait for
  MbarWait,       // mbarrier.try_wait.parity loop: waits for the next phase of `mbarrier` this warp
                  // has not waited for yet
  // Distributed shared memory (Hopper): ld.shared::cluster / st.shared::cluster into the shared
  // memory of the cluster's CTA `cluster_peer` ranks on (0: its own CTA's, the local path).
  LdsCluster,
  StsCluster,
  // Cluster barrier (barrier.cluster.arrive / .wait): a wait goes on once every warp of the
  // cluster that has not exited has made as many arrives as the waiting warp has.
  BarClusterArrive,
  BarClusterWait,
};
inline constexpr int kWarpOps = 24;
const char* warp_op_name(WarpOp op);

inline constexpr std::uint8_t kNoReg = 0xff;

// Where a CTA sits in its kernel's output: its tile coordinates x, y, z (blockIdx under the
// kernel's swizzle) and its rank in its thread-block cluster.
using TileCoord = std::array<std::uint32_t, 4>;

struct WarpInstruction {
  WarpOp op = WarpOp::Nop;
  std::array<std::uint8_t, 2> dst{kNoReg, kNoReg};
  std::array<std::uint8_t, 4> src{kNoReg, kNoReg, kNoReg, kNoReg};

  // Control bits of the compiler-guided dependence scheme (Volta onwards): cycles the warp
  // stalls after issuing this (1..15), whether it yields its scheduler, the dependence counters
  // (SB0..SB5) it waits for before issuing (a bit mask), and the counter its result (or its
  // read of its sources) raises until the variable-latency operation completes (-1: none).
  std::uint8_t stall = 1;
  bool yield = false;
  std::uint8_t wait_mask = 0;
  std::int8_t write_barrier = -1;
  // The .reuse bits: bit i keeps source i's value in the register-file cache for the next
  // instruction that reads the same register as its source i.
  std::uint8_t reuse = 0;

  // Mma / Wgmma: the number format of A and B ("fp16", "bf16", "tf32", "fp8_e4m3", "int8",
  // "int4", ...), the shape (for Wgmma M is the warp group's 64) and 2:4 structured sparsity
  // of A (K is the logical, uncompressed depth).
  std::uint8_t format = 0;  // index into the program's `formats`
  std::uint16_t m = 0, n = 0, k = 0;
  bool sparse = false;
  // WgmmaWait: wgmmas the warp may leave in flight.
  std::uint8_t pending = 0;

  // Memory instructions: lane i touches `width` bytes at base + i * lane_stride (an affine
  // pattern, expanded to banks or sectors only where a cache needs them), or, when
  // `lane_addresses` >= 0, at the 32 addresses the program's `addresses` hold from
  // 32 * lane_addresses on (a gather, as a trace gives it). Inactive lanes touch nothing.
  // Global accesses also move with the loop and the warp: iteration i of the body and the
  // kernel's warp w (CTA x warps per CTA + warp) add i * iteration_stride + w * warp_stride,
  // wrapped into [0, footprint) when footprint is not 0 (a pointer chase's ring, a STREAM
  // array), and the CTA's tile coordinates and cluster rank (x, y, z, r) (KernelLaunch::tile_of)
  // add x * cta_stride[0] + y * cta_stride[1] + z * cta_stride[2] + r * cta_stride[3] (a GEMM's
  // CTA reads its own rows of A and columns of B, and its share of a multicast box), not wrapped.
  std::uint64_t base = 0;
  std::int32_t lane_stride = 4;
  std::int32_t lane_addresses = -1;
  std::int64_t iteration_stride = 0, warp_stride = 0;
  std::array<std::int64_t, 4> cta_stride{0, 0, 0, 0};
  std::uint64_t footprint = 0;
  std::uint8_t width = 4;
  std::uint32_t active_mask = 0xffffffffu;
  // LdsCluster / StsCluster: the CTA whose shared memory it reaches, as an offset from its own
  // rank in the cluster (wrapped by the cluster size, so 0, or any offset in a cluster of one,
  // is its own shared memory).
  std::uint8_t cluster_peer = 1;

  // Tma: a box of `box_rows` rows of `box_row_bytes` bytes, `box_pitch` bytes apart in global
  // memory, starting where lane 0's address would (base, moved by iteration and warp).
  std::uint32_t box_rows = 0, box_row_bytes = 0;
  std::int64_t box_pitch = 0;
  // Tma multicast (.multicast::cluster): the box lands in the shared memory of `multicast` CTAs
  // of the cluster, each of which loads its own share of the whole the same way. The model
  // takes the shares to land together: the CTA's mbarrier is credited with the box's bytes
  // times `multicast` when its own box lands (the skew between the CTAs is not modelled), and
  // the L2 sees only this CTA's box.
  std::uint8_t multicast = 1;
  // Tma, MbarInit, MbarArrive, MbarWait: which of the CTA's mbarriers (0..15).
  std::uint8_t mbarrier = 0;
  // MbarInit: arrivals (warp instructions) a phase takes. MbarArrive: transaction bytes the
  // phase now also waits for (expect_tx; 0 for a plain arrive).
  std::uint32_t arrivals = 1, tx_bytes = 0;

  bool shared() const { return op == WarpOp::Lds || op == WarpOp::Sts; }
  bool cluster_shared() const { return op == WarpOp::LdsCluster || op == WarpOp::StsCluster; }
  bool global() const { return op == WarpOp::Ldg || op == WarpOp::Stg || op == WarpOp::CpAsync || op == WarpOp::Tma; }
  std::uint64_t box_bytes() const { return std::uint64_t{box_rows} * box_row_bytes; }
  // Lane `lane`'s first byte in loop iteration `iteration` of the kernel's warp `warp`, whose
  // CTA sits at tile `tile`.
  std::uint64_t address(int lane, const std::vector<std::uint64_t>& pool, std::uint64_t iteration = 0,
                        std::uint64_t warp = 0, const TileCoord& tile = {0, 0, 0, 0}) const {
    const std::uint64_t lane_part =
        lane_addresses >= 0 ? pool[static_cast<std::size_t>(lane_addresses) * 32 + static_cast<std::size_t>(lane)]
                            : base + static_cast<std::uint64_t>(static_cast<std::int64_t>(lane_stride) * lane);
    std::uint64_t moved =
        static_cast<std::uint64_t>(iteration_stride) * iteration + static_cast<std::uint64_t>(warp_stride) * warp;
    if (footprint) moved %= footprint;
    const auto tiled = static_cast<std::uint64_t>(cta_stride[0] * tile[0] + cta_stride[1] * tile[1] +
                                                  cta_stride[2] * tile[2] + cta_stride[3] * tile[3]);
    return lane_part + moved + tiled;
  }
  std::uint64_t macs() const {  // per warp instruction (a Wgmma counts its warp group's)
    return static_cast<std::uint64_t>(m) * n * k;
  }
};

// One warp's instructions. Every warp of a generated kernel runs the same program; a trace
// gives each warp its own.
struct WarpProgram {
  std::vector<WarpInstruction> prologue, body, epilogue;
  std::uint64_t iterations = 1;  // of body
  std::vector<std::string> formats;  // the number formats instructions name by index
  std::vector<std::uint64_t> addresses;  // per-lane address lists, 32 per gathering instruction

  std::uint64_t instructions() const { return prologue.size() + body.size() * iterations + epilogue.size(); }
  // The i-th dynamic instruction, 0 <= i < instructions().
  const WarpInstruction& at(std::uint64_t i) const {
    if (i < prologue.size()) return prologue[i];
    i -= prologue.size();
    const std::uint64_t looped = body.size() * iterations;
    if (i < looped) return body[i % body.size()];
    return epilogue[i - looped];
  }
};

// A kernel launch: the grid, the per-CTA resources the occupancy rules read, the cluster size,
// and the program every warp runs, or (a trace) each warp's own.
struct KernelLaunch {
  std::string name;
  std::array<std::uint32_t, 3> grid{1, 1, 1};   // CTAs
  std::array<std::uint32_t, 3> block{32, 1, 1};  // threads per CTA
  std::uint32_t registers_per_thread = 32;
  std::uint64_t shared_bytes = 0;  // static + dynamic shared memory per CTA
  // CTAs per thread-block cluster (Hopper, compute capability 9.0): consecutive CTAs in grid
  // order form a cluster, placed all at once on SMs of one GPC; 1: no clusters.
  std::uint32_t cluster = 1;
  std::shared_ptr<const WarpProgram> program;
  // When not empty: warp w of CTA c runs warp_programs[c * warps_per_cta() + w] (a null entry
  // runs nothing); `program` is then unused.
  std::vector<std::shared_ptr<const WarpProgram>> warp_programs;
  // When not empty (and warp_programs is): warp w of every CTA runs cta_programs[w], as a
  // warp-specialized kernel's producer and consumer warps do.
  std::vector<std::shared_ptr<const WarpProgram>> cta_programs;
  // When not empty (with cta_programs): CTA c runs the set cta_sets[c], its warp w
  // cta_programs[cta_sets[c] * warps_per_cta() + w], as the CTAs of a grouped GEMM each run a
  // tile of their own group's product (the sets differ in their operands, not their shape).
  std::vector<std::uint32_t> cta_sets;
  int stream = 0;  // kernels of one stream run in launch order
  // Tile rasterization (CUTLASS's threadblock swizzle): CTAs in launch order walk bands of
  // `swizzle` tile rows (y), down each band's columns (x) first, so the CTAs of a wave share
  // rows of A and columns of B in the L2. 1: plain grid order (x fastest).
  std::uint32_t swizzle = 1;
  // Bytes the kernel's generator expects it to move to and from the DRAM (each operand once,
  // plus re-reads where its waves' tiles miss in the L2); 0: unknown. The analytic fidelity
  // then takes every global load as an L2 access and bounds the kernel by these bytes.
  std::uint64_t expected_dram_bytes = 0;
  const WarpProgram& program_of(std::uint64_t cta, std::uint32_t warp) const;
  // The number format of the first tensor instruction (mma, wgmma) CTA 0's warps run, in warp
  // order; null when they run none.
  const std::string* tensor_format() const;
  // The CTA set CTA `cta` runs (0 when the kernel has none).
  std::uint32_t set_of(std::uint64_t cta) const { return cta_sets.empty() ? 0 : cta_sets.at(cta); }
  // The tile coordinates of the CTA launched `cta`-th (its blockIdx under the swizzle) and its
  // rank in its cluster.
  TileCoord tile_of(std::uint64_t cta) const;
  std::uint64_t ctas() const { return std::uint64_t{grid[0]} * grid[1] * grid[2]; }
  std::uint32_t threads_per_cta() const { return block[0] * block[1] * block[2]; }
  std::uint32_t warps_per_cta() const { return (threads_per_cta() + 31) / 32; }
};

}  // namespace strata
