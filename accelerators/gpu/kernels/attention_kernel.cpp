#include "accelerators/gpu/kernels/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/control_bits.h"
#include "sim/rounding.h"

namespace strata {

namespace {

constexpr int kFaWarps = 4;
constexpr int kFaRows = 128;                    // Br: queries a CTA
constexpr int kFaWarpRows = kFaRows / kFaWarps;  // 32: two m16 fragments a warp
constexpr std::uint64_t kFaPiece = 512;         // bytes one 16-byte-a-lane warp instruction moves
constexpr std::uint8_t kFaS = 10, kFaMax = 20, kFaSum = 30, kFaExp = 40, kFaP = 50, kFaO = 60, kFaShuffle = 70,
                       kFaConv = 80, kFaQ = 100, kFaK = 140, kFaV = 160;

std::uint8_t fa_reg(std::uint8_t base, int i, int span) { return static_cast<std::uint8_t>(base + i % span); }

// The programs of a CTA's 4 warps for a walk over `tiles` key/value tiles.
class FlashAttentionWriter {
 public:
  FlashAttentionWriter(const AttentionProblem& p, const GpuKernelTarget& t) : p_(p), t_(t) {
    tensor_ = t.tensor_format(p.compute);
    tensor_bytes_ = tensor_format_bytes(tensor_);
    k_inst_ = static_cast<int>(32 / tensor_bytes_);
    if (p.head_dim % k_inst_ != 0 || p.v_dim % 8 != 0)
      throw std::invalid_argument(
          fmt::format("{}: head sizes {} and {} must be multiples of {} and 8", p.name, p.head_dim, p.v_dim, k_inst_));
    convert_ = std::abs(p.kv_bytes - tensor_bytes_) > 0.01;
    const auto d = static_cast<std::uint64_t>(p.head_dim), v = static_cast<std::uint64_t>(p.v_dim);
    q_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(d) * p.q_bytes));
    k_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(d) * p.kv_bytes));
    v_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(v) * p.kv_bytes));
    o_row_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(v) * p.o_bytes));
    // Key tiles of 128 (head_dim <= 64) or 64 keys, fewer where shared memory does not hold
    // them (MLA's 576-wide heads).
    bc_ = p.head_dim <= 64 ? 128 : 64;
    while (bc_ > k_inst_ && shared_bytes() > t.limits.max_shared_per_cta) bc_ /= 2;
    if (shared_bytes() > t.limits.max_shared_per_cta)
      throw std::invalid_argument(
          fmt::format("{}: heads of {} do not fit shared memory ({} bytes a CTA)", p.name, p.head_dim, shared_bytes()));
    const auto q_len = static_cast<std::int64_t>(p.q_len), kv_len = static_cast<std::int64_t>(p.kv_len);
    const std::int64_t group = p.heads / p.kv_heads;
    // Grid x walks (query head of the group, query tile), y the KV heads, z the batch.
    q_cta_ = {kFaRows * static_cast<std::int64_t>(q_row_), group * q_len * static_cast<std::int64_t>(q_row_),
              p.heads * q_len * static_cast<std::int64_t>(q_row_), 0};
    o_cta_ = {kFaRows * static_cast<std::int64_t>(o_row_), group * q_len * static_cast<std::int64_t>(o_row_),
              p.heads * q_len * static_cast<std::int64_t>(o_row_), 0};
    k_cta_ = {0, kv_len * static_cast<std::int64_t>(k_row_), p.kv_heads * kv_len * static_cast<std::int64_t>(k_row_), 0};
    v_cta_ = {0, kv_len * static_cast<std::int64_t>(v_row_), p.kv_heads * kv_len * static_cast<std::int64_t>(v_row_), 0};
  }
  int bc() const { return bc_; }
  std::uint64_t shared_bytes() const {
    return kFaRows * q_row_ + 2 * static_cast<std::uint64_t>(bc_) * (k_row_ + v_row_);
  }

  std::vector<std::shared_ptr<const WarpProgram>> write(std::uint64_t tiles) {
    std::vector<std::shared_ptr<const WarpProgram>> out;
    for (int w = 0; w < kFaWarps; ++w) out.push_back(warp(w, tiles));
    return out;
  }

 private:
  // This warp's share (512-byte pieces w, w + 4, ...) of a contiguous block, as cp.asyncs.
  void copy_block(std::vector<WarpInstruction>& part, int w, std::uint64_t base, std::uint64_t bytes,
                  const std::array<std::int64_t, 4>& cta, std::int64_t stride) {
    for (std::uint64_t first = static_cast<std::uint64_t>(w) * kFaPiece; first < bytes; first += kFaWarps * kFaPiece) {
      WarpInstruction cp = warp_global(WarpOp::CpAsync, base + first, 16, 16, kNoReg);
      const std::uint64_t left = std::min<std::uint64_t>(kFaPiece, bytes - first);
      cp.active_mask = left >= kFaPiece ? 0xffffffffu : (1u << ceil_div(left, std::uint64_t{16})) - 1;
      cp.cta_stride = cta;
      cp.iteration_stride = stride;
      part.push_back(cp);
    }
  }
  void kv_copies(std::vector<WarpInstruction>& part, int w, std::uint64_t tile, bool looped) {
    const auto bc = static_cast<std::uint64_t>(bc_);
    copy_block(part, w, p_.k + tile * bc * k_row_, bc * k_row_, k_cta_, looped ? static_cast<std::int64_t>(bc * k_row_) : 0);
    copy_block(part, w, p_.v + tile * bc * v_row_, bc * v_row_, v_cta_, looped ? static_cast<std::int64_t>(bc * v_row_) : 0);
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
    in.width = 16;
    in.lane_stride = 16;
    in.base = static_cast<std::uint64_t>(i) * kFaPiece;
    part.push_back(in);
    if (convert_)
      for (int c = 0; c < static_cast<int>(std::ceil(16 / p_.kv_bytes / 2)); ++c) {
        part.push_back(warp_op(WarpOp::Int, fa_reg(kFaConv, c, 8), {dst}));
        part.push_back(warp_op(WarpOp::Fp32, dst, {fa_reg(kFaConv, c, 8)}));
      }
  }
  WarpInstruction mma(std::uint8_t dst, std::initializer_list<std::uint8_t> src) const {
    WarpInstruction in = warp_op(WarpOp::Mma, dst, src);
    in.m = 16;
    in.n = 8;
    in.k = static_cast<std::uint16_t>(k_inst_);
    return in;
  }
  void pairs(std::vector<WarpInstruction>& part, std::uint8_t acc, int steps, int rows) {
    for (int r = 0; r < rows; ++r)
      for (int s = 0; s < steps; ++s) {
        part.push_back(warp_op(WarpOp::Int, kFaShuffle, {fa_reg(acc, r, 4)}));
        part.push_back(warp_op(WarpOp::Fp32, fa_reg(acc, r, 4), {fa_reg(acc, r, 4), kFaShuffle}));
      }
  }

  // One key/value tile: S = Q·Kᵀ, the online softmax, O += P·V.
  void compute(std::vector<WarpInstruction>& part) {
    const int m_frags = kFaWarpRows / 16;
    const int k_steps = static_cast<int>(p_.head_dim / k_inst_);
    const int k_loads = static_cast<int>(std::ceil(bc_ * k_inst_ * tensor_bytes_ / static_cast<double>(kFaPiece)));
    for (int ks = 0; ks < k_steps; ++ks) {
      for (int i = 0; i < k_loads; ++i) lds(part, fa_reg(kFaK, ks * k_loads + i, 16), i);
      for (int mi = 0; mi < m_frags; ++mi)
        for (int ni = 0; ni < bc_ / 8; ++ni) {
          const bool last = ks + 1 == k_steps && mi + 1 == m_frags && ni + 1 == bc_ / 8;
          part.push_back(mma(last ? kFaS : kNoReg, {fa_reg(kFaQ, ks * m_frags + mi, 32), fa_reg(kFaK, ks * k_loads + ni * k_loads / (bc_ / 8), 16)}));
        }
    }
    // The online softmax over this lane's kFaWarpRows x Bc / 32 scores (4 rows of a quad).
    const int elements = kFaWarpRows * bc_ / 32, rows = kFaWarpRows / 8;
    for (int i = 0; i < elements; ++i) part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaMax, i, 4), {fa_reg(kFaMax, i, 4), kFaS}));
    pairs(part, kFaMax, 2, rows);
    for (int r = 0; r < rows; ++r) part.push_back(warp_op(WarpOp::Sfu, fa_reg(kFaMax, r, 4), {fa_reg(kFaMax, r, 4)}));  // the correction
    for (int i = 0; i < elements; ++i) {
      part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaExp, i, 8), {kFaS, fa_reg(kFaMax, i, 4)}));
      part.push_back(warp_op(WarpOp::Sfu, fa_reg(kFaP, i, 8), {fa_reg(kFaExp, i, 8)}));
      part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaSum, i, 4), {fa_reg(kFaSum, i, 4), fa_reg(kFaP, i, 8)}));
    }
    pairs(part, kFaSum, 2, rows);
    const int o_elements = static_cast<int>(kFaWarpRows * p_.v_dim / 32);
    for (int i = 0; i < o_elements; ++i) part.push_back(warp_op(WarpOp::Fp32, kFaO, {kFaO, fa_reg(kFaMax, i, 4)}));
    for (int i = 0; i < elements / 2; ++i) part.push_back(warp_op(WarpOp::Fp32, fa_reg(kFaP, i, 8), {fa_reg(kFaP, i, 8)}));
    // O += P·V: P from registers, V's fragments from shared memory.
    const int v_steps = bc_ / k_inst_;
    const int v_loads = static_cast<int>(std::ceil(static_cast<double>(p_.v_dim) * k_inst_ * tensor_bytes_ / kFaPiece));
    for (int ks = 0; ks < v_steps; ++ks) {
      for (int i = 0; i < v_loads; ++i) lds(part, fa_reg(kFaV, ks * v_loads + i, 16), 64 + i);
      for (int mi = 0; mi < m_frags; ++mi)
        for (int ni = 0; ni < p_.v_dim / 8; ++ni) {
          const bool last = ks + 1 == v_steps && mi + 1 == m_frags && ni + 1 == p_.v_dim / 8;
          part.push_back(mma(last ? kFaO : kNoReg,
                             {fa_reg(kFaV, ks * v_loads + static_cast<int>(ni * v_loads / (p_.v_dim / 8)), 16),
                              fa_reg(kFaP, ks, 8), kFaO}));
        }
    }
  }

  std::shared_ptr<const WarpProgram> warp(int w, std::uint64_t tiles) {
    auto program = std::make_shared<WarpProgram>();
    WarpProgram& pw = *program;
    pw.formats = {tensor_};
    const std::uint64_t rows = static_cast<std::uint64_t>(std::min<std::int64_t>(kFaRows, p_.q_len));
    copy_block(pw.prologue, w, p_.q, rows * q_row_, q_cta_, 0);
    kv_copies(pw.prologue, w, 0, false);
    wait(pw.prologue, 0);
    const int q_loads = static_cast<int>(std::ceil(kFaWarpRows * p_.head_dim * tensor_bytes_ / kFaPiece));
    for (int i = 0; i < q_loads; ++i) {
      WarpInstruction in = warp_op(WarpOp::Lds, fa_reg(kFaQ, i, 32));
      in.width = 16;
      in.lane_stride = 16;
      in.base = static_cast<std::uint64_t>(w * q_loads + i) * kFaPiece;
      pw.prologue.push_back(in);
    }
    if (tiles > 1) {  // tile t computes while t + 1 loads
      pw.iterations = tiles - 1;
      pw.body.push_back(warp_op(WarpOp::Bar));
      kv_copies(pw.body, w, 1, true);
      wait(pw.body, 1);
      compute(pw.body);
    }
    wait(pw.epilogue, 0);
    compute(pw.epilogue);
    // O / l, converted, this warp's rows stored.
    const int o_elements = static_cast<int>(kFaWarpRows * p_.v_dim / 32);
    for (int i = 0; i < o_elements; ++i) pw.epilogue.push_back(warp_op(WarpOp::Fp32, kFaO, {kFaO, fa_reg(kFaSum, i, 4)}));
    const std::uint64_t first = static_cast<std::uint64_t>(w) * kFaWarpRows;
    if (first < rows) {
      const std::uint64_t bytes = std::min<std::uint64_t>(kFaWarpRows, rows - first) * o_row_;
      for (std::uint64_t at = 0; at < bytes; at += kFaPiece) {
        WarpInstruction st = warp_global(WarpOp::Stg, p_.o + first * o_row_ + at, 16, 16, kFaO);
        const std::uint64_t left = std::min<std::uint64_t>(kFaPiece, bytes - at);
        st.active_mask = left >= kFaPiece ? 0xffffffffu : (1u << ceil_div(left, std::uint64_t{16})) - 1;
        st.cta_stride = o_cta_;
        pw.epilogue.push_back(st);
      }
    }
    assign_control_bits(pw, t_.timing);
    return program;
  }

  const AttentionProblem& p_;
  const GpuKernelTarget& t_;
  std::string tensor_;
  double tensor_bytes_ = 2;
  int k_inst_ = 16, bc_ = 64;
  bool convert_ = false;
  std::uint64_t q_row_ = 0, k_row_ = 0, v_row_ = 0, o_row_ = 0;
  std::array<std::int64_t, 4> q_cta_{}, o_cta_{}, k_cta_{}, v_cta_{};
};

}  // namespace

GpuKernel make_flash_attention(const AttentionProblem& p, const GpuKernelTarget& target) {
  if (p.kv_heads < 1 || p.heads % p.kv_heads != 0)
    throw std::invalid_argument(fmt::format("{}: {} heads do not share {} KV heads evenly", p.name, p.heads, p.kv_heads));
  if (p.q_len < 1 || p.kv_len < p.q_len)
    throw std::invalid_argument(fmt::format("{}: {} queries over {} keys", p.name, p.q_len, p.kv_len));
  FlashAttentionWriter writer(p, target);
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
  out.generator = "attention.flash2";
  KernelLaunch& k = out.launch;
  k.name = p.name;
  k.grid = {static_cast<std::uint32_t>(q_tiles * group), static_cast<std::uint32_t>(p.kv_heads),
            static_cast<std::uint32_t>(p.batch)};
  k.block = {32 * kFaWarps, 1, 1};
  k.registers_per_thread = p.head_dim > 64 ? 255 : 192;
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
  const double pairs = static_cast<double>(p.causal ? p.q_len * (p.kv_len - p.q_len) + p.q_len * (p.q_len + 1) / 2
                                                    : p.q_len * p.kv_len);
  out.flops = 2.0 * static_cast<double>(p.batch * p.heads) * pairs * static_cast<double>(p.head_dim + p.v_dim);
  const double q = static_cast<double>(p.batch * p.heads * p.q_len);
  const double kv = static_cast<double>(p.batch * p.kv_heads * p.kv_len);
  const double bytes = q * static_cast<double>(p.head_dim) * p.q_bytes + kv * static_cast<double>(p.head_dim + p.v_dim) * p.kv_bytes +
                       q * static_cast<double>(p.v_dim) * p.o_bytes;
  out.min_bytes = static_cast<std::uint64_t>(bytes);
  k.expected_dram_bytes = out.min_bytes;  // K and V re-read by a head's query tiles from the L2
  out.choices = {{"block_q", kFaRows}, {"block_kv", writer.bc()}};
  return out;
}

}  // namespace strata
