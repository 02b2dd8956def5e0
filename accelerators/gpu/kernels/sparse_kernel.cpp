#include "accelerators/gpu/kernels/sparse_kernel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/control_bits.h"
#include "sim/memory_budget.h"

namespace strata {

namespace {

constexpr int kSparseWarps = 8;     // warps per CTA (256 threads)
constexpr int kSparseInFlight = 4;  // gathers a warp issues before their multiply-adds
constexpr int kSparseRegs = 32;     // registers each role rotates through
constexpr std::uint8_t kSpRowPtr = 1, kSpIdx = 2, kSpVal = 3, kSpAddr = 4, kSpGather = 10, kSpConv = 50,
                       kSpAcc = 60, kSpShuffle = 100, kSpU = 110;
constexpr std::uint32_t kSparseRegisters = 64;  // each role's registers, within full occupancy
constexpr int kCsrIndexBytes = 4;               // CSR row offsets and column ids are int32
constexpr double kAccumulatorBytes = 4;         // FP32: narrower dense elements are converted, two an instruction
constexpr std::int64_t kMinMergeShare = kWarpThreads;  // a merge-path warp's rows and nonzeros at least
// Auto partition: merge path once the longest row passes this many times the mean (row-split
// warps would then wait on one long row).
constexpr double kSkewedRow = 8;
// The analytic estimate: gathered rows come from the L2 while they fit this share of it (1 / 2).
constexpr double kL2GatherShare = 2;

int sparse_pow2_at_least(double x) {
  int w = 1;
  while (w < x - kPow2Slack) w *= 2;
  return w;
}

std::uint8_t sparse_reg(std::uint8_t base, int i) { return static_cast<std::uint8_t>(base + i % kSparseRegs); }

std::uint32_t sparse_mask(int lanes) { return lanes >= kWarpThreads ? 0xffffffffu : (1u << lanes) - 1; }

// How a warp gathers rows of `row_bytes`: `lanes` lanes a row, `width` bytes a lane per load,
// `group` rows per instruction, `chunks` loads per row (rows wider than a warp's kWarpBytes).
struct GatherShape {
  double row_bytes = 0;
  int lanes = kWarpThreads, width = kLaneBytes, group = 1, chunks = 1;
  GatherShape(double bytes) : row_bytes(std::max(1.0, std::ceil(bytes))) {
    if (row_bytes > kWarpBytes) {
      chunks = static_cast<int>(std::ceil(row_bytes / kWarpBytes));
      return;
    }
    lanes = std::min(kWarpThreads, sparse_pow2_at_least(row_bytes / kLaneBytes));
    width = std::min(kLaneBytes, sparse_pow2_at_least(row_bytes / lanes));
    group = kWarpThreads / lanes;
  }
  // Lanes a load of chunk `ch` keeps on for one row.
  int lanes_of(int ch) const {
    const double left = row_bytes - static_cast<double>(kWarpBytes) * ch;
    return std::min(lanes, static_cast<int>(std::ceil(left / width)));
  }
};

// S's rows: the structure's, or nnz/rows each at evenly spread columns.
class SparseRows {
 public:
  explicit SparseRows(const SparseProblem& p) : p_(p), offsets_(static_cast<std::size_t>(p.rows) + 1, 0) {
    if (p.structure && (p.structure->rows() != p.rows || p.structure->rows() != p.cols || p.structure->nnz() != p.nnz))
      throw std::invalid_argument(fmt::format("{}: the graph has {} nodes and {} nonzeros, the operator {}x{} with {}", p.name,
                                              p.structure->rows(), p.structure->nnz(), p.rows, p.cols, p.nnz));
    for (std::int64_t v = 0; v < p.rows; ++v) {
      std::int64_t d = 0;
      if (p.structure) {
        const auto nb = p.structure->graph.neighbors(v);
        const bool self = std::find(nb.begin(), nb.end(), static_cast<std::int32_t>(v)) != nb.end();
        d = nb.size() - (self ? 1 : 0) + (p.structure->diagonal ? 1 : 0);
      } else {
        d = p.nnz / p.rows + (v < p.nnz % p.rows ? 1 : 0);
      }
      offsets_[static_cast<std::size_t>(v) + 1] = offsets_[static_cast<std::size_t>(v)] + d;
      longest_ = std::max(longest_, d);
    }
  }
  std::int64_t offset(std::int64_t v) const { return offsets_[static_cast<std::size_t>(v)]; }
  std::int64_t degree(std::int64_t v) const { return offset(v + 1) - offset(v); }
  std::int64_t longest() const { return longest_; }
  const std::vector<std::int32_t>& columns(std::int64_t v) {
    if (p_.structure) {
      p_.structure->row(v, columns_);
    } else {
      columns_.clear();
      const std::int64_t d = degree(v);
      const std::int64_t stride = std::max<std::int64_t>(1, p_.cols / std::max<std::int64_t>(1, d));
      for (std::int64_t i = 0; i < d; ++i) columns_.push_back(static_cast<std::int32_t>((v + i * stride) % p_.cols));
    }
    return columns_;
  }

 private:
  const SparseProblem& p_;
  std::vector<std::int64_t> offsets_;
  std::int64_t longest_ = 0;
  std::vector<std::int32_t> columns_;
};

// A piece of one row a warp handles: nonzeros [first, last) of the row.
struct SparseSegment {
  std::int64_t row = 0, first = 0, last = 0;
};

std::vector<std::vector<SparseSegment>> split_rows(const SparseRows& rows, std::int64_t n_rows) {
  std::vector<std::vector<SparseSegment>> warps;
  for (std::int64_t v = 0; v < n_rows; ++v) warps.push_back({{v, 0, rows.degree(v)}});
  return warps;
}

// Merge path: every warp an equal share of the rows' starts plus the nonzeros.
std::vector<std::vector<SparseSegment>> split_merge(const SparseRows& rows, std::int64_t n_rows, std::int64_t nnz,
                                                    const GpuKernelTarget& t) {
  const double want = static_cast<double>(t.sms) * t.limits.max_warps / kWarpSlotsShare;
  const auto share = std::max<std::int64_t>(
      kMinMergeShare, static_cast<std::int64_t>(std::ceil(static_cast<double>(n_rows + nnz) / want)));
  std::vector<std::vector<SparseSegment>> warps;
  std::int64_t v = 0, pos = 0;
  while (v < n_rows) {
    std::vector<SparseSegment> segs;
    std::int64_t budget = share;
    while (budget > 0 && v < n_rows) {
      const std::int64_t d = rows.degree(v);
      if (pos == 0) --budget;
      const std::int64_t take = std::min(d - pos, std::max<std::int64_t>(budget, 0));
      if (take == 0 && d > 0) break;
      segs.push_back({v, pos, pos + take});
      pos += take;
      budget -= take;
      if (pos == d) {
        ++v;
        pos = 0;
      }
    }
    warps.push_back(std::move(segs));
  }
  return warps;
}

// Writes the instructions of one warp of an SpMM or SDDMM.
class SparseWarpWriter {
 public:
  SparseWarpWriter(const SparseProblem& p, SparseRows& rows, bool sddmm)
      : p_(p), rows_(rows), sddmm_(sddmm), g_(static_cast<double>(p.n) * p.dense_bytes) {}

  std::shared_ptr<WarpProgram> write(const std::vector<SparseSegment>& segs, const SmTiming& timing) {
    auto program = std::make_shared<WarpProgram>();
    w_ = program.get();
    for (const SparseSegment& s : segs) segment(s);
    assign_control_bits(*w_, timing);
    return program;
  }

 private:
  void push(WarpInstruction in) { w_->prologue.push_back(in); }

  WarpInstruction load(std::uint64_t base, int width, int lanes, std::uint8_t dst, std::uint8_t after) {
    WarpInstruction in = warp_global(WarpOp::Ldg, base, width, width, dst);
    in.active_mask = sparse_mask(lanes);
    in.src[0] = after;
    return in;
  }

  // Loads chunk `ch` of the rows `cols[first, first + count)` of `base` (one group) into `dst`.
  void gather(std::uint64_t base, const std::vector<std::int32_t>& cols, std::int64_t first, int count, int ch,
              std::uint8_t dst, std::uint8_t after) {
    const auto row = static_cast<std::uint64_t>(g_.row_bytes);
    const auto at = [&](std::int64_t i) { return base + static_cast<std::uint64_t>(cols[static_cast<std::size_t>(i)]) * row; };
    if (g_.group == 1) {
      push(load(at(first) + static_cast<std::uint64_t>(ch) * kWarpBytes, g_.width, g_.lanes_of(ch), dst, after));
      return;
    }
    WarpInstruction in = load(0, g_.width, kWarpThreads, dst, after);
    in.lane_addresses = static_cast<std::int32_t>(w_->addresses.size() / kWarpThreads);
    in.active_mask = 0;
    for (int lane = 0; lane < kWarpThreads; ++lane) {
      const int member = lane / g_.lanes;
      const auto off = static_cast<std::uint64_t>(lane % g_.lanes) * static_cast<std::uint64_t>(g_.width);
      const bool on = member < count && off < row;
      if (on) in.active_mask |= 1u << lane;
      w_->addresses.push_back(on ? at(first + member) + off : at(first));
    }
    push(in);
  }

  // Multiply-adds of one loaded chunk into `acc`: FP32 accumulation, a conversion per two
  // narrower elements.
  void multiply(std::uint8_t data, std::uint8_t other, std::uint8_t acc, int k) {
    const double elements = std::ceil(g_.width / p_.dense_bytes);
    std::uint8_t x = data;
    if (p_.dense_bytes < kAccumulatorBytes) {
      for (int i = 0; i < static_cast<int>(std::ceil(elements / 2)); ++i) push(warp_op(WarpOp::Fp32, sparse_reg(kSpConv, k + i), {data}));
      x = sparse_reg(kSpConv, k);
    }
    for (int i = 0; i < static_cast<int>(elements); ++i) push(warp_op(WarpOp::Fp32, acc, {acc, x, other}));
  }

  void reduce(std::uint8_t acc, int steps) {
    for (int s = 0; s < steps; ++s) {
      push(warp_op(WarpOp::Int, kSpShuffle, {acc}));
      push(warp_op(WarpOp::Fp32, acc, {acc, kSpShuffle}));
    }
  }

  void segment(const SparseSegment& s) {
    const std::vector<std::int32_t>& cols = rows_.columns(s.row);
    const std::int64_t start = rows_.offset(s.row);
    push(load(p_.row_ptr + static_cast<std::uint64_t>(s.row) * kCsrIndexBytes, kCsrIndexBytes, 2, kSpRowPtr,
              kNoReg));  // its start and end
    if (sddmm_)  // U's row, once, replicated across the neighbour groups
      for (int ch = 0; ch < g_.chunks; ++ch) {
        const std::vector<std::int32_t> self(static_cast<std::size_t>(g_.group), static_cast<std::int32_t>(s.row));
        gather(p_.b, self, 0, g_.group, ch, sparse_reg(kSpU, ch), kSpRowPtr);
      }
    const int log_group = static_cast<int>(std::lround(std::log2(g_.group)));
    const int log_lanes = static_cast<int>(std::lround(std::log2(g_.lanes)));
    const std::uint64_t value_width = p_.value_bytes > 0 ? static_cast<std::uint64_t>(sparse_pow2_at_least(p_.value_bytes)) : 0;
    for (std::int64_t at = s.first; at < s.last; at += kWarpThreads) {
      const int count = static_cast<int>(std::min<std::int64_t>(kWarpThreads, s.last - at));
      const auto e = static_cast<std::uint64_t>(start + at);
      push(load(p_.col_idx + e * kCsrIndexBytes, kCsrIndexBytes, count, kSpIdx, kSpRowPtr));
      if (value_width > 0) push(load(p_.values + e * value_width, static_cast<int>(value_width), count, kSpVal, kSpRowPtr));
      const int groups = (count + g_.group - 1) / g_.group;
      for (int first = 0; first < groups; first += kSparseInFlight) {
        const int batch = std::min(kSparseInFlight, groups - first);
        for (int j = 0; j < batch; ++j) {
          const int member0 = (first + j) * g_.group;
          const std::uint8_t addr = sparse_reg(kSpAddr, j);
          push(warp_op(WarpOp::Int, addr, {kSpIdx}));  // the column id from its lane, times the row pitch
          for (int ch = 0; ch < g_.chunks; ++ch)
            gather(sddmm_ ? p_.v : p_.b, cols, at + member0, std::min(g_.group, count - member0), ch,
                   sparse_reg(kSpGather, j * g_.chunks + ch), addr);
        }
        for (int j = 0; j < batch; ++j)
          for (int ch = 0; ch < g_.chunks; ++ch) {
            const std::uint8_t data = sparse_reg(kSpGather, j * g_.chunks + ch);
            if (sddmm_) {
              multiply(data, sparse_reg(kSpU, ch), sparse_reg(kSpAcc, j), j);
            } else {
              multiply(data, value_width > 0 ? kSpVal : kNoReg, sparse_reg(kSpAcc, ch), j);
            }
          }
        if (sddmm_)
          for (int j = 0; j < batch; ++j) reduce(sparse_reg(kSpAcc, j), log_lanes);
      }
      if (sddmm_) {  // one result per nonzero, a warp's lanes at a time
        const int width = sparse_pow2_at_least(p_.c_bytes);
        WarpInstruction st = warp_global(WarpOp::Stg, p_.c + e * static_cast<std::uint64_t>(width), width, width, kSpAcc);
        st.active_mask = sparse_mask(count);
        push(st);
      }
    }
    if (sddmm_) return;
    for (int ch = 0; ch < g_.chunks; ++ch) reduce(sparse_reg(kSpAcc, ch), log_group);
    // The row of C (an atomic add where the row is cut between warps).
    const GatherShape out(static_cast<double>(p_.n) * p_.c_bytes);
    for (int ch = 0; ch < out.chunks; ++ch) {
      WarpInstruction st =
          warp_global(WarpOp::Stg,
                      p_.c + static_cast<std::uint64_t>(s.row) * static_cast<std::uint64_t>(out.row_bytes) +
                          static_cast<std::uint64_t>(ch) * kWarpBytes,
                      out.width, out.width, sparse_reg(kSpAcc, ch));
      st.active_mask = sparse_mask(out.lanes_of(ch));
      push(st);
    }
  }

  const SparseProblem& p_;
  SparseRows& rows_;
  bool sddmm_;
  GatherShape g_;
  WarpProgram* w_ = nullptr;
};

GpuKernel sparse_launch(const SparseProblem& p, const std::vector<std::vector<SparseSegment>>& warps, bool sddmm,
                        SparseRows& rows, const GpuKernelTarget& t) {
  GpuKernel out;
  KernelLaunch& k = out.launch;
  k.name = p.name;
  const auto ctas = std::max<std::size_t>(1, (warps.size() + kSparseWarps - 1) / kSparseWarps);
  k.grid = {grid_extent(ctas, "CTAs"), 1, 1};
  k.block = {kWarpThreads * kSparseWarps, 1, 1};
  k.registers_per_thread = kSparseRegisters;
  k.warp_programs.assign(ctas * kSparseWarps, nullptr);
  SparseWarpWriter writer(p, rows, sddmm);
  for (std::size_t i = 0; i < warps.size(); ++i) k.warp_programs[i] = writer.write(warps[i], t.timing);

  const double nnz = static_cast<double>(p.nnz), rows_n = static_cast<double>(p.rows);
  const double s_bytes = (rows_n + 1) * kCsrIndexBytes + nnz * (kCsrIndexBytes + p.value_bytes);
  const double row = std::ceil(static_cast<double>(p.n) * p.dense_bytes);
  const double gathered = static_cast<double>(p.cols) * row;  // B (SDDMM: V), each row once
  const double own = sddmm ? rows_n * row : 0;                // SDDMM: U
  const double c = sddmm ? nnz * p.c_bytes : rows_n * std::ceil(static_cast<double>(p.n) * p.c_bytes);
  out.min_bytes = static_cast<std::uint64_t>(s_bytes + gathered + own + c);
  // The analytic fidelity's estimate: gathered rows come from the L2 while the gathered matrix
  // fits its share of it, else the share that does not fit is re-read per nonzero.
  const double half_l2 = static_cast<double>(t.l2_bytes) / kL2GatherShare;
  const double rereads = gathered <= half_l2 ? 0 : std::max(0.0, nnz * row - gathered) * (1 - half_l2 / gathered);
  k.expected_dram_bytes = static_cast<std::uint64_t>(s_bytes + gathered + own + c + rereads);
  out.flops = 2.0 * nnz * static_cast<double>(p.n);
  return out;
}

// Every warp's program is written out, with an address per gathered load: the kernel's memory
// grows with its rows and nonzeros, and must fit before any of it is made. Measured at peak on
// the H100 (n = 64 FP16, one load a nonzero): about 4 KiB a row and 450 B a nonzero.
constexpr double kProgramBytesPerRow = 4096, kProgramBytesPerLoad = 450;

void check_sparse(const SparseProblem& p) {
  if (p.rows < 1 || p.cols < 1 || p.n < 1 || p.nnz < 0)
    throw std::invalid_argument(fmt::format("{}: a sparse product needs rows, cols and n of at least 1", p.name));
  const GatherShape g(static_cast<double>(p.n) * p.dense_bytes);
  require_memory(static_cast<double>(p.rows) * kProgramBytesPerRow +
                     static_cast<double>(p.nnz) * g.chunks * kProgramBytesPerLoad,
                 fmt::format("the sparse kernel of '{}' ({} rows, {} nonzeros, written out warp by warp)", p.name,
                             p.rows, p.nnz));
}

}  // namespace

GpuKernel make_spmm(const SparseProblem& p, SpmmPartition partition, const GpuKernelTarget& target) {
  check_sparse(p);
  SparseRows rows(p);
  if (partition == SpmmPartition::Auto)
    partition =
        static_cast<double>(rows.longest()) > kSkewedRow * static_cast<double>(p.nnz) / static_cast<double>(p.rows)
            ? SpmmPartition::Merge
            : SpmmPartition::RowSplit;
  const bool merge = partition == SpmmPartition::Merge;
  GpuKernel k = sparse_launch(p, merge ? split_merge(rows, p.rows, p.nnz, target) : split_rows(rows, p.rows), false, rows, target);
  k.generator = merge ? "spmm.merge" : "spmm.row_split";
  const GatherShape g(static_cast<double>(p.n) * p.dense_bytes);
  k.choices = {{"rows_per_gather", g.group}, {"longest_row", static_cast<double>(rows.longest())}};
  return k;
}

GpuKernel make_sddmm(const SparseProblem& p, const GpuKernelTarget& target) {
  check_sparse(p);
  SparseRows rows(p);
  GpuKernel k = sparse_launch(p, split_rows(rows, p.rows), true, rows, target);
  k.generator = "sddmm.row_split";
  k.choices = {{"longest_row", static_cast<double>(rows.longest())}};
  return k;
}

}  // namespace strata
