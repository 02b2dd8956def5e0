#include "accelerators/gpu/kernels/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/control_bits.h"
#include "accelerators/gpu/kernels/streaming_kernel.h"
#include "sim/rounding.h"

namespace strata {

namespace {

constexpr int kFaWarps = 4;
constexpr int kFaRows = 128;                     // Br: queries a CTA
constexpr int kSplitKvRows = 64;                 // the split-KV kernel's Br: 16 rows a warp
constexpr int kFa3Consumers = 8;                 // FlashAttention-3: two warp groups of 64 rows
constexpr std::uint64_t kFaPiece = kWarpBytes;   // bytes one 16-byte-a-lane warp instruction moves
// Bc, keys a tile: FlashAttention-2's 128 for heads up to 64 (FlashAttention-3's up to 128),
// else 64, as their kernels choose.
constexpr int kFaKeyTile = 128, kFaNarrowKeyTile = 64;
constexpr int kFa2WideHead = 64, kFa3WideHead = 128;
constexpr int kFa2SmallHeadRegisters = 192;  // FlashAttention-2's threads with heads up to 64; wider ones take 255
constexpr int kFa3MaxHead = 256;             // FlashAttention-3's widest heads
constexpr int kFa2MaxHead = 256;             // FlashAttention-2's (its split-KV path's)
constexpr std::uint64_t kFa3Stages = 2;      // its K and V stages in shared memory
constexpr std::uint64_t kFa3Mbarriers = 2 * kFa3Stages + 1;  // full and empty a stage, and Q's
constexpr int kTmaBoxElements = 256;  // a TMA box's widest row, in elements (the hardware's limit)
constexpr int kFaConsumerRows = kWgmmaRows / kWarpGroupWarps;  // a FlashAttention-3 warp's query rows
// An m16n8 accumulator gives each lane one row in 8, and a row's four lanes (a quad) reduce it
// in two shuffle steps.
constexpr int kFragmentRowsPerLane = 8, kQuadSteps = 2;
// Where K's and V's fragments sit in shared memory, in pieces, past Q's (rows of at most 256 bytes).
constexpr int kFaKPieces = 64, kFaVPieces = 128;
// FlashAttention-2's split-KV kernel takes Bc = 256 keys a tile for heads up to 64, 128 up to
// 128, else 64 (run_mha_fwd_splitkv_dispatch), and num_splits_heuristic keeps one split once
// the CTAs fill 0.8 of twice the SMs (two CTAs of 128 threads an SM), else takes the fewest
// splits whose wave efficiency is within 0.85 of the best, up to 128 [V: flash-attn's
// flash_api.cpp, as PyTorch carries it].
constexpr int kSplitKvWideTile = 256, kSplitKvNarrowHead = 64, kSplitKvMaxSplits = 128;
constexpr double kSplitKvFull = 0.8, kSplitKvEfficiency = 0.85;
constexpr int kSplitKvCtasPerSm = 2;
constexpr std::uint64_t kAllocationAlignment = 256;  // cudaMalloc's: the LSEs start on one after the partials
// Registers each role rotates through, so consecutive instructions do not depend on each other
// by accident: row statistics, P and its conversions, K and V fragments, Q fragments.
constexpr int kFaRowRegs = 4, kFaPRegs = 8, kFaFragRegs = 16, kFaQRegs = 32;
constexpr std::uint8_t kFaS = 10, kFaMax = 20, kFaSum = 30, kFaExp = 40, kFaP = 50, kFaO = 60, kFaShuffle = 70,
                       kFaConv = 80, kFaQ = 100, kFaK = 140, kFaV = 160;

std::uint8_t fa_reg(std::uint8_t base, int i, int span) { return static_cast<std::uint8_t>(base + i % span); }

// The programs of a CTA's warps for a walk over `tiles` key/value tiles: FlashAttention-2's
// forward kernel (Br = 128), its split-KV kernel (Br = 64, after split_kv) or, on Hopper,
// FlashAttention-3's.
class FlashAttentionWriter {
 public:
  FlashAttentionWriter(const AttentionProblem& p, const GpuKernelTarget& t, bool hopper, bool split = false)
      : p_(p), t_(t), hopper_(hopper), rows_(split ? kSplitKvRows : kFaRows) {
    tensor_ = t.tensor_format(p.compute);
    tensor_bytes_ = tensor_format_bytes(tensor_);
    k_inst_ = static_cast<int>(kInstructionKBytes / tensor_bytes_);
    if (p.head_dim % k_inst_ != 0 || p.v_dim % kMmaCols != 0)
      throw std::invalid_argument(
          fmt::format("{}: head sizes {} and {} must be multiples of {} and 8", p.name, p.head_dim, p.v_dim, k_inst_));
    convert_ = std::abs(p.kv_bytes - tensor_bytes_) > kFormatTolerance;
    const auto d = static_cast<std::uint64_t>(p.head_dim), v = static_cast<std::uint64_t>(p.v_dim);
    q_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(d) * p.q_bytes));
    k_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(d) * p.kv_bytes));
    v_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(v) * p.kv_bytes));
    o_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(v) * p.o_bytes));
    // Fewer keys a tile where shared memory does not hold them (MLA's 576-wide heads).
    if (split)
      bc_ = p.head_dim <= kSplitKvNarrowHead ? kSplitKvWideTile
            : p.head_dim <= kFa3WideHead     ? kFaKeyTile
                                             : kFaNarrowKeyTile;
    else bc_ = p.head_dim <= (hopper ? kFa3WideHead : kFa2WideHead) ? kFaKeyTile : kFaNarrowKeyTile;
    while (bc_ > k_inst_ && shared_bytes() > t.limits.max_shared_per_cta) bc_ /= 2;
    if (shared_bytes() > t.limits.max_shared_per_cta)
      throw std::invalid_argument(
          fmt::format("{}: heads of {} do not fit shared memory ({} bytes a CTA)", p.name, p.head_dim, shared_bytes()));
    const auto q_len = static_cast<std::int64_t>(p.q_len), kv_len = static_cast<std::int64_t>(p.kv_len);
    const std::int64_t group = p.heads / p.kv_heads;
    // Grid x walks (query head of the group, query tile), y the KV heads, z the batch.
    q_cta_ = {rows_ * static_cast<std::int64_t>(q_row_), group * q_len * static_cast<std::int64_t>(q_row_),
              p.heads * q_len * static_cast<std::int64_t>(q_row_), 0};
    o_cta_ = {rows_ * static_cast<std::int64_t>(o_row_), group * q_len * static_cast<std::int64_t>(o_row_),
              p.heads * q_len * static_cast<std::int64_t>(o_row_), 0};
    k_cta_ = {0, kv_len * static_cast<std::int64_t>(k_row_), p.kv_heads * kv_len * static_cast<std::int64_t>(k_row_), 0};
    v_cta_ = {0, kv_len * static_cast<std::int64_t>(v_row_), p.kv_heads * kv_len * static_cast<std::int64_t>(v_row_), 0};
  }
  // The split-KV kernel's grid (flash_fwd_splitkv_kernel's): x the split, whose keys start
  // `tiles` tiles on from the last one's; y the query tile; z the (batch, head) pair, each of
  // `p.q_len` query rows (the problem one KV head per head, as FlashAttention-2 folds a
  // grouped-query head's queries into rows). O is the FP32 partials, split after split.
  void split_kv(std::uint64_t tiles, std::uint64_t lse) {
    const auto rows = static_cast<std::int64_t>(rows_), q_len = static_cast<std::int64_t>(p_.q_len);
    const auto key = [&](std::uint64_t row) {
      return std::array<std::int64_t, 4>{static_cast<std::int64_t>(tiles * static_cast<std::uint64_t>(bc_) * row), 0,
                                         static_cast<std::int64_t>(p_.kv_len) * static_cast<std::int64_t>(row), 0};
    };
    q_cta_ = {0, rows * static_cast<std::int64_t>(q_row_), q_len * static_cast<std::int64_t>(q_row_), 0};
    k_cta_ = key(k_row_);
    v_cta_ = key(v_row_);
    const auto o = static_cast<std::int64_t>(o_row_);
    o_cta_ = {static_cast<std::int64_t>(p_.batch * p_.heads) * q_len * o, rows * o, q_len * o, 0};
    const auto l = static_cast<std::int64_t>(kPartialBytes);
    split_ = true;
    lse_ = lse;
    lse_cta_ = {static_cast<std::int64_t>(p_.batch * p_.heads) * q_len * l, rows * l, q_len * l, 0};
  }
  int bc() const { return bc_; }
  // Q, one K and one V buffer (FlashAttention-3: two stages of each, and five mbarriers).
  std::uint64_t shared_bytes() const {
    const std::uint64_t kv = static_cast<std::uint64_t>(bc_) * (k_row_ + v_row_);
    return static_cast<std::uint64_t>(rows_) * q_row_ +
           (hopper_ ? kFa3Stages * kv + kFa3Mbarriers * kMbarrierBytes : kv);
  }
  int warps() const { return hopper_ ? kFa3Consumers + 1 : kFaWarps; }
  int warp_rows() const { return rows_ / kFaWarps; }  // FlashAttention-2's: 32, or 16 split-KV

  // The CTA's warp programs for a walk over `tiles` key/value tiles.
  std::vector<std::shared_ptr<const WarpProgram>> write(std::uint64_t tiles) {
    if (hopper_) return write_hopper(tiles);
    std::vector<std::shared_ptr<const WarpProgram>> out;
    for (int w = 0; w < kFaWarps; ++w) out.push_back(warp(w, tiles));
    return out;
  }

 private:
  // This warp's share (pieces w, w + 4, ...) of a contiguous block, as cp.asyncs.
  void copy_block(std::vector<WarpInstruction>& part, int w, std::uint64_t base, std::uint64_t bytes,
                  const std::array<std::int64_t, 4>& cta, std::int64_t stride) {
    for (std::uint64_t first = static_cast<std::uint64_t>(w) * kFaPiece; first < bytes; first += kFaWarps * kFaPiece) {
      WarpInstruction cp = warp_global(WarpOp::CpAsync, base + first, kLaneBytes, kLaneBytes, kNoReg);
      const std::uint64_t left = std::min<std::uint64_t>(kFaPiece, bytes - first);
      cp.active_mask = left >= kFaPiece ? 0xffffffffu : (1u << ceil_div(left, std::uint64_t{kLaneBytes})) - 1;
      cp.cta_stride = cta;
      cp.iteration_stride = stride;
      part.push_back(cp);
    }
  }
  // Tile `tile` of K (or V) as one cp.async group; looped: a tile on each iteration.
  void tile_copy(std::vector<WarpInstruction>& part, int w, bool values, std::uint64_t tile, bool looped) {
    const auto bc = static_cast<std::uint64_t>(bc_);
    const std::uint64_t row = values ? v_row_ : k_row_;
    copy_block(part, w, (values ? p_.v : p_.k) + tile * bc * row, bc * row, values ? v_cta_ : k_cta_,
               looped ? static_cast<std::int64_t>(bc * row) : 0);
    part.push_back(warp_op(WarpOp::CpAsyncCommit));
  }
  static void wait(std::vector<WarpInstruction>& part, int pending) {
    WarpInstruction in = warp_op(WarpOp::CpAsyncWait);
    in.pending = static_cast<std::uint8_t>(pending);
    part.push_back(in);
    part.push_back(warp_op(WarpOp::Bar));
  }
  void lds(std::vector<WarpInstruction>& part, std::uint8_t dst, int i) {
    WarpInstruction in = warp_op(WarpOp::Lds, dst);
    in.width = kLaneBytes;
    in.lane_stride = kLaneBytes;
    in.base = static_cast<std::uint64_t>(i) * kFaPiece;
    part.push_back(in);
    if (convert_)
      for (int c = 0; c < static_cast<int>(std::ceil(kLaneBytes / p_.kv_bytes / 2)); ++c) {
        part.push_back(warp_op(WarpOp::Int, fa_reg(kFaConv, c, kFaPRegs), {dst}));
        part.push_back(warp_op(WarpOp::Fp32, dst, {fa_reg(kFaConv, c, kFaPRegs)}));
      }
  }
  WarpInstruction mma(std::uint8_t dst, std::initializer_list<std::uint8_t> src) const {
    WarpInstruction in = warp_op(WarpOp::Mma, dst, src);
    in.m = kMmaRows;
    in.n = kMmaCols;
    in.k = static_cast<std::uint16_t>(k_inst_);
    return in;
  }
  void pairs(std::vector<WarpInstruction>& part, std::uint8_t acc, int steps, int rows) {
    for (int r = 0; r < rows; ++r)
      for (int s = 0; s < steps; ++s) {
        part.push_back(warp_op(WarpOp::Int, kFaShuffle, {fa_reg(acc, r, kFaRowRegs)}));
        part.push_back(warp_op(WarpOp::Fp32, fa_reg(acc, r, kFaRowRegs), {fa_reg(acc, r, kFaRowRegs), kFaShuffle}));
      }
  }

  // The online softmax over a warp's `warp_rows` x Bc scores (a lane's warp_rows x Bc / 32: rows
  // shared by a quad), the rescaling of its O accumulators and P converted to the tensor format.
  void softmax(std::vector<WarpInstruction>& part, int warp_rows) {
    const int elements = warp_rows * bc_ / kWarpThreads, rows = warp_rows / kFragmentRowsPerLane;
    for (int i = 0; i < elements; ++i)
      part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaMax, i, kFaRowRegs), {fa_reg(kFaMax, i, kFaRowRegs), kFaS}));
    pairs(part, kFaMax, kQuadSteps, rows);
    for (int r = 0; r < rows; ++r)
      part.push_back(
          warp_op(WarpOp::Sfu, fa_reg(kFaMax, r, kFaRowRegs), {fa_reg(kFaMax, r, kFaRowRegs)}));  // the correction
    for (int i = 0; i < elements; ++i) {
      part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaExp, i, kFaPRegs), {kFaS, fa_reg(kFaMax, i, kFaRowRegs)}));
      part.push_back(warp_op(WarpOp::Sfu, fa_reg(kFaP, i, kFaPRegs), {fa_reg(kFaExp, i, kFaPRegs)}));
      part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaSum, i, kFaRowRegs),
                             {fa_reg(kFaSum, i, kFaRowRegs), fa_reg(kFaP, i, kFaPRegs)}));
    }
    pairs(part, kFaSum, kQuadSteps, rows);
    const int o_elements = static_cast<int>(warp_rows * p_.v_dim / kWarpThreads);
    for (int i = 0; i < o_elements; ++i)
      part.push_back(warp_op(WarpOp::Fp32, kFaO, {kFaO, fa_reg(kFaMax, i, kFaRowRegs)}));
    for (int i = 0; i < elements / 2; ++i)
      part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaP, i, kFaPRegs), {fa_reg(kFaP, i, kFaPRegs)}));
  }

  // S = Q·Kᵀ over one key tile: each k step loads the warp's Q fragments (FlashAttention-2
  // keeps Q in shared memory, not registers) and the tile's K fragments.
  void scores(std::vector<WarpInstruction>& part, int w) {
    const int m_frags = warp_rows() / kMmaRows;
    const int k_steps = static_cast<int>(p_.head_dim / k_inst_);
    const int k_loads = static_cast<int>(std::ceil(bc_ * k_inst_ * tensor_bytes_ / static_cast<double>(kFaPiece)));
    const int q_loads = static_cast<int>(std::ceil(kMmaRows * k_inst_ * tensor_bytes_ / static_cast<double>(kFaPiece)));
    for (int ks = 0; ks < k_steps; ++ks) {
      for (int mi = 0; mi < m_frags; ++mi)
        for (int i = 0; i < q_loads; ++i) {
          WarpInstruction in = warp_op(WarpOp::Lds, fa_reg(kFaQ, ks * m_frags + mi, kFaQRegs));
          in.width = kLaneBytes;
          in.lane_stride = kLaneBytes;
          in.base = static_cast<std::uint64_t>(((w * k_steps + ks) * m_frags + mi) * q_loads + i) * kFaPiece;
          part.push_back(in);
        }
      for (int i = 0; i < k_loads; ++i) lds(part, fa_reg(kFaK, ks * k_loads + i, kFaFragRegs), kFaKPieces + i);
      for (int mi = 0; mi < m_frags; ++mi)
        for (int ni = 0; ni < bc_ / kMmaCols; ++ni) {
          const bool last = ks + 1 == k_steps && mi + 1 == m_frags && ni + 1 == bc_ / kMmaCols;
          part.push_back(
              mma(last ? kFaS : kNoReg, {fa_reg(kFaQ, ks * m_frags + mi, kFaQRegs),
                                         fa_reg(kFaK, ks * k_loads + ni * k_loads / (bc_ / kMmaCols), kFaFragRegs)}));
        }
    }
  }
  // O += P·V over one value tile: P from registers, V's fragments from shared memory.
  void values(std::vector<WarpInstruction>& part) {
    const int m_frags = warp_rows() / kMmaRows;
    const int v_steps = bc_ / k_inst_;
    const int v_loads = static_cast<int>(std::ceil(static_cast<double>(p_.v_dim) * k_inst_ * tensor_bytes_ / kFaPiece));
    for (int ks = 0; ks < v_steps; ++ks) {
      for (int i = 0; i < v_loads; ++i) lds(part, fa_reg(kFaV, ks * v_loads + i, kFaFragRegs), kFaVPieces + i);
      for (int mi = 0; mi < m_frags; ++mi)
        for (int ni = 0; ni < p_.v_dim / kMmaCols; ++ni) {
          const bool last = ks + 1 == v_steps && mi + 1 == m_frags && ni + 1 == p_.v_dim / kMmaCols;
          part.push_back(
              mma(last ? kFaO : kNoReg,
                  {fa_reg(kFaV, ks * v_loads + static_cast<int>(ni * v_loads / (p_.v_dim / kMmaCols)), kFaFragRegs),
                   fa_reg(kFaP, ks, kFaPRegs), kFaO}));
        }
    }
  }

  // FlashAttention-2's main loop (flash_fwd_kernel.h), one K and one V buffer: with K_j in,
  // V_j loads while S = Q·K_jᵀ runs; with V_j in, K_(j+1) loads while the softmax and O += P·V_j
  // run. Each load waits for the compute it does not overlap.
  std::shared_ptr<const WarpProgram> warp(int w, std::uint64_t tiles) {
    auto program = std::make_shared<WarpProgram>();
    WarpProgram& pw = *program;
    pw.formats = {tensor_};
    const std::uint64_t rows = static_cast<std::uint64_t>(std::min<std::int64_t>(rows_, p_.q_len));
    copy_block(pw.prologue, w, p_.q, rows * q_row_, q_cta_, 0);
    tile_copy(pw.prologue, w, false, 0, false);
    const auto tile = [&](std::vector<WarpInstruction>& part, bool looped) {
      wait(part, 0);
      tile_copy(part, w, true, looped ? 0 : tiles - 1, looped);
      scores(part, w);
      wait(part, 0);
      if (looped) tile_copy(part, w, false, 1, true);
      softmax(part, warp_rows());
      values(part);
    };
    if (tiles > 1) {
      pw.iterations = tiles - 1;
      tile(pw.body, true);
    }
    tile(pw.epilogue, false);
    store_o(pw.epilogue, static_cast<std::uint64_t>(w * warp_rows()), warp_rows(), rows);
    assign_control_bits(pw, t_.timing);
    return program;
  }

  // O / l, converted, and a warp's `warp_rows` rows from `first` on stored (of the tile's `rows`);
  // split-KV, each row's log-sum-exp after its partial output.
  void store_o(std::vector<WarpInstruction>& part, std::uint64_t first, int warp_rows, std::uint64_t rows) {
    const int o_elements = static_cast<int>(warp_rows * p_.v_dim / kWarpThreads);
    for (int i = 0; i < o_elements; ++i)
      part.push_back(warp_op(WarpOp::Fp32, kFaO, {kFaO, fa_reg(kFaSum, i, kFaRowRegs)}));
    if (first >= rows) return;
    const std::uint64_t bytes = std::min<std::uint64_t>(static_cast<std::uint64_t>(warp_rows), rows - first) * o_row_;
    for (std::uint64_t at = 0; at < bytes; at += kFaPiece) {
      WarpInstruction st = warp_global(WarpOp::Stg, p_.o + first * o_row_ + at, kLaneBytes, kLaneBytes, kFaO);
      const std::uint64_t left = std::min<std::uint64_t>(kFaPiece, bytes - at);
      st.active_mask = left >= kFaPiece ? 0xffffffffu : (1u << ceil_div(left, std::uint64_t{kLaneBytes})) - 1;
      st.cta_stride = o_cta_;
      part.push_back(st);
    }
    if (!split_) return;
    const auto lse_rows =
        static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(warp_rows), rows - first));
    WarpInstruction st = warp_global(WarpOp::Stg, lse_ + first * static_cast<std::uint64_t>(kPartialBytes),
                                     static_cast<int>(kPartialBytes), static_cast<int>(kPartialBytes), kFaSum);
    st.active_mask = lse_rows >= kWarpThreads ? 0xffffffffu : (1u << lse_rows) - 1;
    st.cta_stride = lse_cta_;
    part.push_back(st);
  }

  // TMA boxes of `rows` rows of `row_bytes` (contiguous rows) from `base`, at most
  // kTmaBoxElements of the tensor format wide each.
  void tma_boxes(std::vector<WarpInstruction>& part, std::uint8_t barrier, std::uint64_t base, std::uint64_t rows,
                 std::uint64_t row_bytes, const std::array<std::int64_t, 4>& cta, std::int64_t stride) const {
    const auto widest = static_cast<std::uint64_t>(kTmaBoxElements * tensor_bytes_);
    for (std::uint64_t col = 0; col < row_bytes; col += widest) {
      WarpInstruction box = warp_op(WarpOp::Tma);
      box.mbarrier = barrier;
      box.base = base + col;
      box.box_rows = static_cast<std::uint32_t>(rows);
      box.box_row_bytes = static_cast<std::uint32_t>(std::min(widest, row_bytes - col));
      box.box_pitch = static_cast<std::int64_t>(row_bytes);
      box.cta_stride = cta;
      box.iteration_stride = stride;
      part.push_back(box);
    }
  }
  WarpInstruction wgmma(int n, std::uint8_t dst, std::initializer_list<std::uint8_t> src) const {
    WarpInstruction in = warp_op(WarpOp::Wgmma, dst, src);
    in.m = kWgmmaRows;
    in.n = static_cast<std::uint16_t>(n);
    in.k = static_cast<std::uint16_t>(k_inst_);
    return in;
  }

  // FlashAttention-3 (Shah et al., 2024), Hopper: a producer warp brings Q once and the K and V
  // tiles into two shared-memory stages with TMA (full/empty mbarriers, as the GEMM's
  // tma_wgmma); two consumer warp groups of 64 query rows each run S = Q·Kᵀ and O += P·V as
  // wgmma (P from registers) and the online softmax between them. The warp groups' softmax and
  // wgmmas interleave on the SM's pipes by themselves, which is what FlashAttention-3's
  // ping-pong scheduling arranges; its intra-group overlap of one tile's softmax with the next
  // tile's Q·Kᵀ is not modelled (each group waits for its wgmmas before the softmax).
  std::vector<std::shared_ptr<const WarpProgram>> write_hopper(std::uint64_t tiles) {
    const std::uint64_t stages = std::min<std::uint64_t>(kFa3Stages, tiles);
    const TileLayout layout(tiles, stages);
    const auto full = [](std::uint64_t s) { return static_cast<std::uint8_t>(s); };
    const auto empty = [stages](std::uint64_t s) { return static_cast<std::uint8_t>(stages + s); };
    const auto q_ready = static_cast<std::uint8_t>(2 * stages);
    const auto bc = static_cast<std::uint64_t>(bc_);
    const std::uint64_t rows = static_cast<std::uint64_t>(std::min<std::int64_t>(kFaRows, p_.q_len));

    auto producer = std::make_shared<WarpProgram>();
    WarpProgram& pw = *producer;
    for (std::uint64_t s = 0; s < stages; ++s) {
      WarpInstruction f = warp_op(WarpOp::MbarInit);
      f.mbarrier = full(s);
      f.arrivals = 1;
      WarpInstruction e = f;
      e.mbarrier = empty(s);
      e.arrivals = kFa3Consumers;
      pw.prologue.push_back(f);
      pw.prologue.push_back(e);
    }
    WarpInstruction qi = warp_op(WarpOp::MbarInit);
    qi.mbarrier = q_ready;
    qi.arrivals = 1;
    pw.prologue.push_back(qi);
    pw.prologue.push_back(warp_op(WarpOp::Bar));
    WarpInstruction qa = warp_op(WarpOp::MbarArrive);
    qa.mbarrier = q_ready;
    qa.tx_bytes = static_cast<std::uint32_t>(rows * q_row_);
    pw.prologue.push_back(qa);
    tma_boxes(pw.prologue, q_ready, p_.q, rows, q_row_, q_cta_, 0);
    pw.iterations = std::max<std::uint64_t>(1, layout.iterations);
    layout.each(pw, [&](std::vector<WarpInstruction>& part, std::uint64_t tile, std::uint64_t s) {
      if (tile >= stages) {
        WarpInstruction wait = warp_op(WarpOp::MbarWait);
        wait.mbarrier = empty(s);
        part.push_back(wait);
      }
      WarpInstruction arrive = warp_op(WarpOp::MbarArrive);
      arrive.mbarrier = full(s);
      arrive.tx_bytes = static_cast<std::uint32_t>(bc * (k_row_ + v_row_));
      part.push_back(arrive);
      const bool looped = &part == &pw.body;
      tma_boxes(part, full(s), p_.k + tile * bc * k_row_, bc, k_row_, k_cta_,
                looped ? static_cast<std::int64_t>(stages * bc * k_row_) : 0);
      tma_boxes(part, full(s), p_.v + tile * bc * v_row_, bc, v_row_, v_cta_,
                looped ? static_cast<std::int64_t>(stages * bc * v_row_) : 0);
    });
    if (layout.iterations == 0) pw.iterations = 1;  // an empty body
    assign_control_bits(pw, t_.timing);

    std::vector<std::shared_ptr<const WarpProgram>> out;
    for (int c = 0; c < kFa3Consumers; ++c) {  // warp c of group c / 4 owns kFaConsumerRows of its rows
      auto consumer = std::make_shared<WarpProgram>();
      WarpProgram& cw = *consumer;
      cw.formats = {tensor_};
      cw.prologue.push_back(warp_op(WarpOp::Bar));
      WarpInstruction qw = warp_op(WarpOp::MbarWait);
      qw.mbarrier = q_ready;
      cw.prologue.push_back(qw);
      cw.iterations = pw.iterations;
      layout.each(cw, [&](std::vector<WarpInstruction>& part, std::uint64_t, std::uint64_t s) {
        WarpInstruction wait = warp_op(WarpOp::MbarWait);
        wait.mbarrier = full(s);
        part.push_back(wait);
        const int qk = static_cast<int>(p_.head_dim / k_inst_);
        // Asynchronous, in order: WgmmaWait, not registers, orders them (as the GEMM's consumers).
        for (int i = 0; i < qk; ++i) part.push_back(wgmma(bc_, kNoReg, {}));
        WarpInstruction scores = warp_op(WarpOp::WgmmaWait);
        scores.pending = 0;
        part.push_back(scores);
        softmax(part, kFaConsumerRows);
        for (int i = 0; i < bc_ / k_inst_; ++i)  // P from registers: the first waits for the softmax
          for (std::int64_t n = 0; n < p_.v_dim; n += kWgmmaMaxN) {
            const auto width = static_cast<int>(std::min<std::int64_t>(kWgmmaMaxN, p_.v_dim - n));
            part.push_back(i == 0 && n == 0 ? wgmma(width, kNoReg, {fa_reg(kFaP, 0, kFaPRegs)})
                                            : wgmma(width, kNoReg, {}));
          }
        WarpInstruction done = warp_op(WarpOp::WgmmaWait);
        done.pending = 0;
        part.push_back(done);
        WarpInstruction release = warp_op(WarpOp::MbarArrive);
        release.mbarrier = empty(s);
        part.push_back(release);
      });
      store_o(cw.epilogue, static_cast<std::uint64_t>(c) * kFaConsumerRows, kFaConsumerRows, rows);
      assign_control_bits(cw, t_.timing);
      out.push_back(consumer);
    }
    out.push_back(producer);
    return out;
  }

  const AttentionProblem& p_;
  const GpuKernelTarget& t_;
  bool hopper_;
  int rows_;  // Br
  std::string tensor_;
  double tensor_bytes_ = 2;
  int k_inst_ = 16, bc_ = 64;
  bool convert_ = false;
  std::uint64_t q_row_ = 0, k_row_ = 0, v_row_ = 0, o_row_ = 0;
  std::array<std::int64_t, 4> q_cta_{}, o_cta_{}, k_cta_{}, v_cta_{};
  bool split_ = false;  // split_kv: partial outputs and log-sum-exps
  std::uint64_t lse_ = 0;
  std::array<std::int64_t, 4> lse_cta_{};
};

// The scores' and the values' products: 2 FLOPs a MAC, causal pairs only.
double attention_flops(const AttentionProblem& p) {
  const double pairs =
      static_cast<double>(p.causal ? p.q_len * (p.kv_len - p.q_len) + p.q_len * (p.q_len + 1) / 2 : p.q_len * p.kv_len);
  return 2.0 * static_cast<double>(p.batch * p.heads) * pairs * static_cast<double>(p.head_dim + p.v_dim);
}

// Q and K and V read once, O written once.
std::uint64_t attention_bytes(const AttentionProblem& p) {
  const double q = static_cast<double>(p.batch * p.heads * p.q_len);
  const double kv = static_cast<double>(p.batch * p.kv_heads * p.kv_len);
  return static_cast<std::uint64_t>(q * static_cast<double>(p.head_dim) * p.q_bytes +
                                    kv * static_cast<double>(p.head_dim + p.v_dim) * p.kv_bytes +
                                    q * static_cast<double>(p.v_dim) * p.o_bytes);
}

std::uint32_t fa2_registers(const AttentionProblem& p) {
  return p.head_dim > kFa2WideHead ? kMaxRegistersPerThread : kFa2SmallHeadRegisters;
}

void check_heads(const AttentionProblem& p) {
  if (p.kv_heads < 1 || p.heads % p.kv_heads != 0)
    throw std::invalid_argument(
        fmt::format("{}: {} heads do not share {} KV heads evenly", p.name, p.heads, p.kv_heads));
  if (p.q_len < 1 || p.kv_len < p.q_len)
    throw std::invalid_argument(fmt::format("{}: {} queries over {} keys", p.name, p.q_len, p.kv_len));
}

// num_splits_heuristic: one split once `ctas` CTAs fill 0.8 of two a SM, else the fewest
// splits of `kv_tiles` key tiles whose last wave is within 0.85 of the best one's fill.
int split_kv_splits(std::uint64_t ctas, int sms, std::uint64_t kv_tiles) {
  const double slots = static_cast<double>(sms) * kSplitKvCtasPerSm;
  if (static_cast<double>(ctas) >= kSplitKvFull * slots) return 1;
  const auto most = static_cast<std::uint64_t>(
      std::min({static_cast<double>(kSplitKvMaxSplits), slots, static_cast<double>(kv_tiles)}));
  const auto per_split = [&](std::uint64_t s) { return ceil_div(kv_tiles, s); };
  // A split count that leaves as many tiles a split as one split fewer is no split count of its own.
  const auto eligible = [&](std::uint64_t s) { return s == 1 || per_split(s) != per_split(s - 1); };
  const auto efficiency = [&](std::uint64_t s) {
    const double waves = static_cast<double>(ctas * s) / slots;
    return waves / std::ceil(waves);
  };
  double best = 0;
  for (std::uint64_t s = 1; s <= most; ++s)
    if (eligible(s)) best = std::max(best, efficiency(s));
  for (std::uint64_t s = 1; s <= most; ++s)
    if (eligible(s) && efficiency(s) >= kSplitKvEfficiency * best) return static_cast<int>(s);
  return 1;
}

}  // namespace

const char* attention_kernel_name(AttentionKernel k) {
  return k == AttentionKernel::Flash3 ? "flash3" : k == AttentionKernel::Flash2 ? "flash2" : "auto";
}

AttentionKernel choose_attention_kernel(const AttentionProblem& p, const GpuKernelTarget& target,
                                        AttentionKernel want) {
  const bool hopper = target.wgmma() && target.timing.tma;
  if (want == AttentionKernel::Flash3 && !hopper)
    throw std::invalid_argument(fmt::format("{}: flash3 needs wgmma and a TMA unit (a Hopper-class GPU)", p.name));
  if (want == AttentionKernel::Flash3 && (p.head_dim > kFa3MaxHead || p.v_dim > kFa3MaxHead))
    throw std::invalid_argument(
        fmt::format("{}: flash3 takes heads of at most 256, not {} and {}", p.name, p.head_dim, p.v_dim));
  if (want != AttentionKernel::Auto) return want;
  return hopper && p.head_dim <= kFa3MaxHead && p.v_dim <= kFa3MaxHead ? AttentionKernel::Flash3
                                                                       : AttentionKernel::Flash2;
}

GpuKernel make_flash_attention(const AttentionProblem& p, const GpuKernelTarget& target, AttentionKernel kind) {
  kind = choose_attention_kernel(p, target, kind);
  const bool hopper = kind == AttentionKernel::Flash3;
  check_heads(p);
  FlashAttentionWriter writer(p, target, hopper);
  const auto q_tiles = ceil_div(static_cast<std::uint64_t>(p.q_len), std::uint64_t{kFaRows});
  const auto kv_tiles = ceil_div(static_cast<std::uint64_t>(p.kv_len), static_cast<std::uint64_t>(writer.bc()));
  const auto group = static_cast<std::uint64_t>(p.heads / p.kv_heads);
  // Key tiles a query tile walks: all of them, or (causal) up to its last query's diagonal.
  const auto tiles_of = [&](std::uint64_t qt) {
    if (!p.causal) return kv_tiles;
    const std::uint64_t last_key = static_cast<std::uint64_t>(p.kv_len - p.q_len) +
                                   std::min<std::uint64_t>((qt + 1) * kFaRows, static_cast<std::uint64_t>(p.q_len));
    return std::min(kv_tiles, ceil_div(last_key, static_cast<std::uint64_t>(writer.bc())));
  };

  GpuKernel out;
  out.generator = std::string("attention.") + attention_kernel_name(kind);
  KernelLaunch& k = out.launch;
  k.name = p.name;
  k.grid = {grid_extent(q_tiles * group, "query tiles"), grid_extent(static_cast<std::uint64_t>(p.kv_heads), "KV heads"),
            grid_extent(static_cast<std::uint64_t>(p.batch), "batches")};
  k.block = {static_cast<std::uint32_t>(kWarpThreads * writer.warps()), 1, 1};
  // FlashAttention-3 as the GEMM's tma_wgmma: what fits the SM with one CTA.
  k.registers_per_thread = hopper ? target.one_cta_registers(k.warps_per_cta()) : fa2_registers(p);
  k.shared_bytes = writer.shared_bytes();
  std::map<std::uint64_t, std::uint32_t> set_of_tiles;
  for (std::uint64_t qt = 0; qt < q_tiles; ++qt) {
    const std::uint64_t tiles = tiles_of(qt);
    if (set_of_tiles.count(tiles)) continue;
    set_of_tiles.emplace(tiles, static_cast<std::uint32_t>(set_of_tiles.size()));
    for (auto& program : writer.write(tiles)) k.cta_programs.push_back(std::move(program));
  }
  if (set_of_tiles.size() > 1) {
    k.cta_sets.resize(k.ctas());
    for (std::uint64_t c = 0; c < k.ctas(); ++c) k.cta_sets[c] = set_of_tiles.at(tiles_of(k.tile_of(c)[0] % q_tiles));
  }
  out.flops = attention_flops(p);
  out.min_bytes = attention_bytes(p);
  k.expected_dram_bytes = out.min_bytes;  // K and V re-read by a head's query tiles from the L2
  out.choices = {{"block_q", kFaRows}, {"block_kv", writer.bc()}};
  return out;
}

SplitKvDecode make_split_kv_decode(const AttentionProblem& p, const GpuKernelTarget& target, std::uint64_t workspace) {
  check_heads(p);
  if (p.head_dim > kFa2MaxHead || p.v_dim != p.head_dim)
    throw std::invalid_argument(fmt::format("{}: FlashAttention-2 takes equal heads of at most {}, not {} and {}",
                                            p.name, kFa2MaxHead, p.head_dim, p.v_dim));
  // One query a sequence: a KV head's group of query heads are the rows of one problem.
  AttentionProblem rows = p;
  rows.heads = p.kv_heads;
  rows.q_len = p.q_len * (p.heads / p.kv_heads);
  rows.causal = false;
  // The split kernel writes FP32 partials into the workspace (the key tile, Bc, does not depend
  // on where O goes).
  AttentionProblem partials = rows;
  partials.o = workspace;
  partials.o_bytes = kPartialBytes;
  FlashAttentionWriter writer(partials, target, false, true);
  const std::uint64_t kv_tiles =
      ceil_div(static_cast<std::uint64_t>(p.kv_len), static_cast<std::uint64_t>(writer.bc()));
  const std::uint64_t q_tiles = ceil_div(static_cast<std::uint64_t>(rows.q_len), std::uint64_t{kSplitKvRows});
  int splits = split_kv_splits(static_cast<std::uint64_t>(rows.batch * rows.heads) * q_tiles, target.sms, kv_tiles);
  if (splits == 1) {  // the CTAs fill the GPU: FlashAttention-2's forward kernel, O written directly
    GpuKernel k = make_flash_attention(rows, target, AttentionKernel::Flash2);
    k.generator = "attention.split_kv";
    k.choices["splits"] = 1;
    return {{k}, 0};
  }
  const std::uint64_t tiles = ceil_div(kv_tiles, static_cast<std::uint64_t>(splits));
  splits = static_cast<int>(ceil_div(kv_tiles, tiles));
  const double outputs = static_cast<double>(rows.batch * rows.heads * rows.q_len);
  const auto partial_bytes =
      static_cast<std::uint64_t>(outputs * static_cast<double>(p.v_dim) * kPartialBytes * splits);
  const std::uint64_t lse = workspace + round_up(partial_bytes, kAllocationAlignment);
  writer.split_kv(tiles, lse);

  GpuKernel split;
  split.generator = "attention.split_kv";
  KernelLaunch& k = split.launch;
  k.name = p.name;
  k.grid = {grid_extent(static_cast<std::uint64_t>(splits), "splits"), grid_extent(q_tiles, "query tiles"),
            grid_extent(static_cast<std::uint64_t>(rows.batch * rows.heads), "heads")};
  k.block = {static_cast<std::uint32_t>(kWarpThreads * kFaWarps), 1, 1};
  k.registers_per_thread = fa2_registers(p);
  k.shared_bytes = writer.shared_bytes();
  k.cta_programs = writer.write(tiles);
  const std::uint64_t last = kv_tiles - (static_cast<std::uint64_t>(splits) - 1) * tiles;
  if (last != tiles) {  // the last split walks what is left
    for (auto& program : writer.write(last)) k.cta_programs.push_back(std::move(program));
    k.cta_sets.resize(k.ctas());
    for (std::uint64_t c = 0; c < k.ctas(); ++c)
      k.cta_sets[c] = k.tile_of(c)[0] + 1 == static_cast<std::uint64_t>(splits) ? 1 : 0;
  }
  split.flops = attention_flops(p);
  const std::uint64_t lse_bytes = static_cast<std::uint64_t>(outputs * kPartialBytes * splits);
  AttentionProblem inputs = p;
  inputs.o_bytes = 0;
  split.min_bytes = attention_bytes(inputs) + partial_bytes + lse_bytes;
  k.expected_dram_bytes = split.min_bytes;
  split.choices = {{"block_q", kSplitKvRows}, {"block_kv", writer.bc()}, {"splits", splits}};

  // flash_fwd_splitkv_combine_kernel: each output the splits' partials weighted by their
  // log-sum-exps (an exp a split a row, an FMA a split an element).
  StreamingWork combine;
  combine.name = p.name + ".combine";
  combine.elements = outputs * static_cast<double>(p.v_dim);
  combine.reads = {{workspace, partial_bytes}, {lse, lse_bytes}};
  combine.writes = {{p.o, static_cast<std::uint64_t>(combine.elements * p.o_bytes)}};
  combine.fp32_per_element = splits;
  combine.sfu_per_element = static_cast<double>(splits) / static_cast<double>(p.v_dim);
  return {{split, make_streaming(combine, target)}, lse - workspace + lse_bytes};
}

}  // namespace strata
