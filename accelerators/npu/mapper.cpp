#include "accelerators/npu/mapper.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "accelerators/mapping/gemm_tiling.h"
#include "sim/input_error.h"
#include "sim/memory_budget.h"
#include "sim/number_format.h"
#include "sim/rounding.h"

namespace strata {

std::uint64_t NpuProgram::tiles() const {
  std::uint64_t n = 0;
  for (const LoweredOp& op : ops)
    for (const auto& core : op.cores) n += core.size();
  return n;
}

std::string compute_format(const OpGraph& graph, const Operator& op) {
  std::string spec = op.compute;
  if (spec.empty() && !op.inputs.empty()) spec = graph.tensor(op.inputs[0]).format;
  try {
    const QuantSpec q = parse_quant_spec(spec);
    if (q.format) return q.format->name;
  } catch (const std::invalid_argument&) {
  }
  return "fp16";  // index tensors and mixed formats: arithmetic on dequantized values
}

namespace {

constexpr std::uint64_t kTensorAlign = 4096;

// [begin, end) ranges splitting `total` into `parts` nearly equal pieces, each a multiple of
// `align` except the last.
std::vector<std::pair<std::int64_t, std::int64_t>> split(std::int64_t total, int parts, std::int64_t align) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const std::int64_t chunk = ceil_div(ceil_div(total, parts), align) * align;
  for (std::int64_t b = 0; b < total; b += chunk) out.emplace_back(b, std::min(total, b + chunk));
  return out;
}

class Lowering {
 public:
  Lowering(const OpGraph& g, const MapperTarget& t) : g_(g), t_(t) {
    std::uint64_t next = 0;
    for (const Tensor& tensor : g.tensors()) {
      address_.push_back(next);
      next += (std::max<std::uint64_t>(tensor.bytes, 1) + kTensorAlign - 1) / kTensorAlign * kTensorAlign;
    }
  }

  NpuProgram run() {
    NpuProgram p;
    std::map<OpId, int> index;
    for (OpId id : g_.topological_order()) {
      const Operator& op = g_.op(id);
      LoweredOp l;
      l.op = id;
      l.name = op.name;
      l.kind = op_kind_name(op.kind);
      l.flops = op_flops(op);
      l.cores.resize(static_cast<size_t>(t_.cores));
      for (OpId d : op.deps) l.deps.push_back(index.at(d));
      lower(op, l);
      double compute = 0;
      for (const auto& core : l.cores) {
        double c = 0;
        for (const Tile& tile : core) {
          for (const TileLoad& ld : tile.loads) l.dram_bytes += ld.d.bytes();
          for (const DmaDescriptor& st : tile.stores) l.dram_bytes += st.bytes();
          for (const TileStep& s : tile.steps) c += step_cycles(s);
        }
        compute = std::max(compute, c);
      }
      l.memory_bound = static_cast<double>(l.dram_bytes) / t_.memory_bytes_per_cycle > compute;
      index[id] = static_cast<int>(p.ops.size());
      p.ops.push_back(std::move(l));
    }
    return p;
  }

 private:
  double step_cycles(const TileStep& s) const {
    return s.unit == TileStep::Unit::Matrix ? static_cast<double>(t_.matrix(s.matrix).cycles)
                                            : static_cast<double>(t_.vector(s.vector_kind, s.rows, s.cols));
  }
  double bpe(TensorId t) const { return g_.tensor(t).bytes_per_element(); }
  bool produced(TensorId t) const { return g_.producer(t) >= 0; }
  std::uint64_t bytes_of(double elements, TensorId t) const {
    return static_cast<std::uint64_t>(std::ceil(elements * bpe(t)));
  }

  // Rows [row0, row0+rows) × columns [col0, col0+cols) of tensor t viewed as rows of `row_len`
  // elements, as one descriptor (contiguous when the block spans whole rows).
  DmaDescriptor block(TensorId t, std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols,
                      std::int64_t row_len, bool write) const {
    DmaDescriptor d;
    d.write = write;
    d.address = address_[static_cast<size_t>(t)] +
                static_cast<std::uint64_t>(std::floor(static_cast<double>(row0 * row_len + col0) * bpe(t)));
    if (cols == row_len) {
      d.rows = 1;
      d.row_bytes = bytes_of(static_cast<double>(rows * cols), t);
    } else {
      d.rows = static_cast<std::uint64_t>(rows);
      d.row_bytes = bytes_of(static_cast<double>(cols), t);
      d.stride = bytes_of(static_cast<double>(row_len), t);
    }
    return d;
  }
  TileLoad load(TensorId t, std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols,
                std::int64_t row_len) const {
    return TileLoad{block(t, row0, rows, col0, cols, row_len, false), produced(t)};
  }
  // `rows` rows of `row_elems` gathered from anywhere in tensor t (embedding lookups, graph
  // neighbours): modelled as rows spread evenly over the tensor.
  TileLoad gather(TensorId t, std::int64_t rows, std::int64_t row_elems) const {
    DmaDescriptor d;
    d.address = address_[static_cast<size_t>(t)];
    d.rows = static_cast<std::uint64_t>(rows);
    d.row_bytes = bytes_of(static_cast<double>(row_elems), t);
    const std::uint64_t total = std::max<std::uint64_t>(g_.tensor(t).bytes, d.row_bytes);
    d.stride = std::max<std::uint64_t>(d.row_bytes, (total - d.row_bytes) / std::max<std::int64_t>(1, rows - 1));
    if (rows == 1) d.stride = 0;
    return TileLoad{d, produced(t)};
  }
  // Rows per tile when each row needs `row_bytes` of scratchpad and `fixed` bytes are shared.
  std::int64_t rows_fitting(double row_bytes, double fixed, std::int64_t rows) const {
    const double room = static_cast<double>(t_.scratchpad_bytes) / t_.buffers - fixed;
    if (room < row_bytes)
      throw InputError(SourceLoc{}, "",
                       fmt::format("a row of {:.0f} B does not fit a {} B scratchpad with {} buffers", row_bytes + fixed,
                                   t_.scratchpad_bytes, t_.buffers));
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(room / row_bytes), 1, rows);
  }

  void lower(const Operator& op, LoweredOp& l);
  void gemm_op(const Operator& op, LoweredOp& l);
  void grouped_gemm(const Operator& op, LoweredOp& l);
  void attention(const Operator& op, LoweredOp& l);
  void sparse(const Operator& op, LoweredOp& l);
  void vector_op(const Operator& op, LoweredOp& l, const std::string& kind, std::int64_t rows, std::int64_t cols);
  void data_movement(const Operator& op, LoweredOp& l);

  // One GEMM part on one core: rows [m0, m0+m) of A (row length k, starting at element
  // a_off), rows [n0, n0+n) of B (starting at b_off), into C (row length c_len, at c_off).
  struct GemmPart {
    TensorId a, b, c, bias = -1;
    std::int64_t m0 = 0, m = 1, n0 = 0, n = 1, k = 1, c_len = 1;
    std::int64_t a_row0 = 0, b_row0 = 0, c_row0 = 0;  // row offsets of batch/group slices
  };
  GemmTiling emit_gemm(const GemmPart& p, const std::string& format, std::vector<Tile>& out, int sharing);

  // Counts the tiles the program will hold before they are made: a GEMM of 2^32 rows maps to
  // billions of tiles, which must be an InputError, not minutes of allocation.
  void reserve_tiles(double tiles) {
    tiles_ += tiles;
    constexpr double kTileBytes = sizeof(Tile) + 3 * sizeof(TileLoad) + sizeof(TileStep) + sizeof(DmaDescriptor);
    require_memory(tiles_ * kTileBytes, fmt::format("the mapped program ({:.3g} tiles, reached at operator '{}')", tiles_, op_name_));
  }

  // Reserves the tiles of `tile_rows` rows each that the cores' row ranges are cut into; every
  // lowering reserves its tiles this way (or through emit_gemm) before it makes any.
  void reserve_row_tiles(const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges, std::int64_t tile_rows) {
    double tiles = 0;
    for (const auto& [first, last] : ranges) tiles += static_cast<double>(ceil_div(last - first, tile_rows));
    reserve_tiles(tiles);
  }

  const OpGraph& g_;
  const MapperTarget& t_;
  std::vector<std::uint64_t> address_;
  double tiles_ = 0;
  std::string op_name_;
};

GemmTiling Lowering::emit_gemm(const GemmPart& p, const std::string& format, std::vector<Tile>& out, int sharing) {
  GemmShape shape{p.m, p.n, p.k, bpe(p.a), bpe(p.b), bpe(p.c), format};
  const GemmTiling t = choose_gemm_tiling(t_, shape, sharing);
  const std::int64_t mt = ceil_div(p.m, t.tm), nt = ceil_div(p.n, t.tn), kt = ceil_div(p.k, t.tk);
  reserve_tiles(static_cast<double>(mt) * static_cast<double>(nt) * static_cast<double>(kt));
  auto tile = [&](std::int64_t mi, std::int64_t ni, std::int64_t ki, bool load_a, bool load_b, bool load_c,
                  bool store_c) {
    const std::int64_t m0 = mi * t.tm, n0 = ni * t.tn, k0 = ki * t.tk;
    const std::int64_t sm = std::min(t.tm, p.m - m0), sn = std::min(t.tn, p.n - n0), sk = std::min(t.tk, p.k - k0);
    Tile tl;
    if (load_a) tl.loads.push_back(load(p.a, p.a_row0 + p.m0 + m0, sm, k0, sk, p.k));
    if (load_b) tl.loads.push_back(load(p.b, p.b_row0 + p.n0 + n0, sn, k0, sk, p.k));
    if (load_b && p.bias >= 0 && ki == 0) tl.loads.push_back(load(p.bias, 0, 1, p.n0 + n0, sn, p.c_len));
    if (load_c) tl.loads.push_back(load(p.c, p.c_row0 + p.m0 + m0, sm, p.n0 + n0, sn, p.c_len));
    TileStep s;
    s.matrix = MatrixWork{sm, sn, sk, format};
    tl.steps.push_back(s);
    if (store_c) tl.stores.push_back(block(p.c, p.c_row0 + p.m0 + m0, sm, p.n0 + n0, sn, p.c_len, true));
    tl.footprint = t.footprint / static_cast<std::uint64_t>(t_.buffers);
    tl.operand_bytes = bytes_of(static_cast<double>(sm * sk), p.a) + bytes_of(static_cast<double>(sn * sk), p.b);
    out.push_back(std::move(tl));
  };
  if (t.order == LoopOrder::OutputResident) {
    for (std::int64_t mi = 0; mi < mt; ++mi)
      for (std::int64_t ni = 0; ni < nt; ++ni)
        for (std::int64_t ki = 0; ki < kt; ++ki)
          tile(mi, ni, ki, kt > 1 || ni == 0, true, false, ki == kt - 1);
  } else {
    for (std::int64_t ni = 0; ni < nt; ++ni)
      for (std::int64_t ki = 0; ki < kt; ++ki)
        for (std::int64_t mi = 0; mi < mt; ++mi) tile(mi, ni, ki, true, mi == 0, ki > 0, true);
  }
  return t;
}

void Lowering::gemm_op(const Operator& op, LoweredOp& l) {
  const std::string format = compute_format(g_, op);
  const bool gemv = op.kind == OpKind::Gemv;
  const std::int64_t batch = op.kind == OpKind::BatchedGemm ? op.dim("batch") : 1;
  const std::int64_t m = gemv ? 1 : op.dim("m"), n = op.dim("n"), k = op.dim("k");
  GemmPart base;
  base.a = op.inputs[0];
  base.b = op.inputs[1];
  base.c = op.outputs[0];
  base.k = k;
  base.c_len = n;
  if (op.inputs.size() > 2) base.bias = op.inputs[2];
  std::vector<std::vector<GemmPart>> parts(static_cast<size_t>(t_.cores));
  if (batch > 1) {
    // Batched: whole GEMMs dealt to cores.
    for (std::int64_t b = 0; b < batch; ++b) {
      GemmPart p = base;
      p.m = m;
      p.n = n;
      p.a_row0 = b * m;
      p.b_row0 = b * n;
      p.c_row0 = b * m;
      parts[static_cast<size_t>(b % t_.cores)].push_back(p);
    }
  } else {
    // By output columns while each core gets at least an aligned slice, else by rows.
    const bool by_n = n >= t_.cores * t_.align_n || m < t_.cores * t_.align_m;
    const auto ranges = by_n ? split(n, t_.cores, t_.align_n) : split(m, t_.cores, t_.align_m);
    for (size_t c = 0; c < ranges.size(); ++c) {
      GemmPart p = base;
      p.m0 = by_n ? 0 : ranges[c].first;
      p.m = by_n ? m : ranges[c].second - ranges[c].first;
      p.n0 = by_n ? ranges[c].first : 0;
      p.n = by_n ? ranges[c].second - ranges[c].first : n;
      parts[c].push_back(p);
    }
    l.mapping = fmt::format("{} cores by {}; ", ranges.size(), by_n ? "N" : "M");
  }
  int sharing = 0;
  for (const auto& ps : parts) sharing += ps.empty() ? 0 : 1;
  for (size_t c = 0; c < parts.size(); ++c)
    for (const GemmPart& p : parts[c]) {
      const GemmTiling t = emit_gemm(p, format, l.cores[c], sharing);
      l.candidates += t.candidates;
      if (c == 0 && &p == &parts[c].front())
        l.mapping += fmt::format("tile {}x{}x{} {}", t.tm, t.tn, t.tk, loop_order_name(t.order));
    }
}

void Lowering::grouped_gemm(const Operator& op, LoweredOp& l) {
  const std::string format = compute_format(g_, op);
  const std::int64_t n = op.dim("n"), k = op.dim("k");
  // Experts dealt largest first to the core with the fewest rows so far.
  std::vector<std::int64_t> order(op.group_sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return op.group_sizes[a] > op.group_sizes[b]; });
  std::vector<std::int64_t> load(static_cast<size_t>(t_.cores), 0);
  std::vector<std::int64_t> row0(op.group_sizes.size(), 0);
  for (size_t gi = 1; gi < op.group_sizes.size(); ++gi) row0[gi] = row0[gi - 1] + op.group_sizes[gi - 1];
  int active = 0;
  for (std::int64_t gi : order) {
    const std::int64_t rows = op.group_sizes[static_cast<size_t>(gi)];
    if (rows == 0) continue;
    ++active;
    const auto core = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[core] += rows;
    GemmPart p;
    p.a = op.inputs[0];
    p.b = op.inputs[1];
    p.c = op.outputs[0];
    p.m = rows;
    p.n = n;
    p.k = k;
    p.c_len = n;
    p.a_row0 = row0[static_cast<size_t>(gi)];
    p.c_row0 = row0[static_cast<size_t>(gi)];
    p.b_row0 = gi * n;
    l.candidates += emit_gemm(p, format, l.cores[core], std::min(t_.cores, static_cast<int>(op.group_sizes.size()))).candidates;
  }
  l.mapping = fmt::format("{} experts with tokens dealt to {} cores", active, t_.cores);
}

void Lowering::attention(const Operator& op, LoweredOp& l) {
  const std::string format = compute_format(g_, op);
  const std::int64_t batch = op.dim("batch"), heads = op.dim("heads"), kv_heads = op.dim("kv_heads"),
                     hd = op.dim("head_dim"), q_len = op.dim("q_len"), kv_len = op.dim("kv_len");
  const std::int64_t vhd = op.dims.count("v_head_dim") && op.dim("v_head_dim") > 0 ? op.dim("v_head_dim") : hd;
  const TensorId q = op.inputs[0], kc = op.inputs[1], o = op.outputs[0];
  const TensorId vc = op.inputs.size() > 2 ? op.inputs[2] : -1;
  const std::int64_t groups = batch * kv_heads, qrows = heads / kv_heads * q_len;
  // Each (batch, KV head) owns a contiguous slice of the cache of max_len rows.
  const std::int64_t k_row = g_.tensor(kc).shape.back();
  const std::int64_t k_slice = g_.tensor(kc).elements() / groups / k_row;
  const std::int64_t v_row = vc >= 0 ? g_.tensor(vc).shape.back() : 0;
  const std::int64_t v_slice = vc >= 0 ? g_.tensor(vc).elements() / groups / v_row : 0;
  // Keys (and values) per chunk: as many as fit beside the queries, scores and outputs.
  const double fixed = static_cast<double>(qrows) * (static_cast<double>(hd) * bpe(q) + 4.0 * static_cast<double>(vhd));
  const double per_key = static_cast<double>(hd) * bpe(kc) + (vc >= 0 ? static_cast<double>(vhd) * bpe(vc) : 0) +
                         4.0 * static_cast<double>(qrows);
  const std::int64_t chunk = rows_fitting(per_key, fixed, kv_len);
  const std::int64_t chunks = ceil_div(kv_len, chunk);
  reserve_tiles(static_cast<double>(groups) * static_cast<double>(chunks));
  const auto ranges = split(groups, t_.cores, 1);
  for (size_t c = 0; c < ranges.size(); ++c)
    for (std::int64_t gi = ranges[c].first; gi < ranges[c].second; ++gi)
      for (std::int64_t ch = 0; ch < chunks; ++ch) {
        const std::int64_t k0 = ch * chunk, len = std::min(chunk, kv_len - k0);
        Tile tl;
        if (ch == 0) tl.loads.push_back(load(q, gi * qrows, qrows, 0, hd, hd));
        // The cache's rows are prefetched: only the newest row is written by this step.
        TileLoad kl = load(kc, gi * k_slice + k0, len, 0, std::min(k_row, hd), k_row);
        kl.after_deps = false;
        tl.loads.push_back(kl);
        if (vc >= 0) {
          TileLoad vl = load(vc, gi * v_slice + k0, len, 0, std::min(v_row, vhd), v_row);
          vl.after_deps = false;
          tl.loads.push_back(vl);
        }
        TileStep qk, sm, pv;
        qk.matrix = MatrixWork{qrows, len, hd, format};
        sm.unit = TileStep::Unit::Vector;
        sm.vector_kind = "attention_softmax";
        sm.rows = qrows;
        sm.cols = len;
        pv.matrix = MatrixWork{qrows, vhd, len, format};
        tl.steps = {qk, sm, pv};
        if (ch == chunks - 1) tl.stores.push_back(block(o, gi * qrows, qrows, 0, vhd, vhd, true));
        tl.footprint = static_cast<std::uint64_t>(fixed + per_key * static_cast<double>(len));
        tl.operand_bytes = static_cast<std::uint64_t>(per_key * static_cast<double>(len));
        l.cores[c].push_back(std::move(tl));
      }
  l.mapping = fmt::format("{} (batch, KV head) groups over {} cores, {} keys per chunk", groups, ranges.size(), chunk);
}

void Lowering::sparse(const Operator& op, LoweredOp& l) {
  const bool spmm = op.kind == OpKind::SpMM;
  const std::int64_t rows = op.dim("rows"), nnz = op.dim("nnz"), width = op.dim(spmm ? "n" : "k");
  const TensorId s = op.inputs[0];
  const TensorId dense = spmm ? op.inputs[1] : op.inputs[2];  // the gathered operand: B or V
  const TensorId own = spmm ? -1 : op.inputs[1];              // SDDMM's U rows
  const TensorId out = op.outputs[0];
  const double nnz_per_row = static_cast<double>(nnz) / static_cast<double>(rows);
  // A dense operand that fits a quarter of the scratchpad is loaded once per core; otherwise
  // each nonzero gathers its row.
  const double dense_bytes = static_cast<double>(g_.tensor(dense).bytes);
  const bool resident = dense_bytes <= static_cast<double>(t_.scratchpad_bytes) / 4;
  const double s_per_row = static_cast<double>(g_.tensor(s).bytes) / static_cast<double>(rows);
  const double out_per_row = spmm ? static_cast<double>(width) * 4.0 : nnz_per_row * bpe(out);
  const double per_row = s_per_row + out_per_row + (own >= 0 ? static_cast<double>(width) * bpe(own) : 0) +
                         (resident ? 0 : nnz_per_row * static_cast<double>(width) * bpe(dense));
  const std::int64_t tile_rows = rows_fitting(per_row, resident ? dense_bytes : 0, rows);
  const auto ranges = split(rows, t_.cores, 1);
  reserve_row_tiles(ranges, tile_rows);
  for (size_t c = 0; c < ranges.size(); ++c)
    for (std::int64_t r0 = ranges[c].first; r0 < ranges[c].second; r0 += tile_rows) {
      const std::int64_t n = std::min(tile_rows, ranges[c].second - r0);
      const auto tile_nnz = static_cast<std::int64_t>(std::llround(nnz_per_row * static_cast<double>(r0 + n)) -
                                                      std::llround(nnz_per_row * static_cast<double>(r0)));
      Tile tl;
      DmaDescriptor sd;
      sd.address = address_[static_cast<size_t>(s)] + static_cast<std::uint64_t>(s_per_row * static_cast<double>(r0));
      sd.row_bytes = static_cast<std::uint64_t>(std::ceil(s_per_row * static_cast<double>(n)));
      tl.loads.push_back(TileLoad{sd, produced(s)});
      if (resident && r0 == ranges[c].first)
        tl.loads.push_back(load(dense, 0, g_.tensor(dense).elements() / width, 0, width, width));
      else if (!resident && tile_nnz > 0)
        tl.loads.push_back(gather(dense, tile_nnz, width));
      if (own >= 0) tl.loads.push_back(load(own, r0, n, 0, width, width));
      TileStep st;
      st.unit = TileStep::Unit::Vector;
      st.vector_kind = "scatter";  // a multiply and an accumulate per element of each gathered row
      st.rows = std::max<std::int64_t>(1, tile_nnz);
      st.cols = width;
      tl.steps.push_back(st);
      if (spmm)
        tl.stores.push_back(block(out, r0, n, 0, width, width, true));
      else
        tl.stores.push_back(block(out, 0, 1, std::llround(nnz_per_row * static_cast<double>(r0)), tile_nnz, nnz, true));
      tl.footprint = static_cast<std::uint64_t>(per_row * static_cast<double>(n) + (resident ? dense_bytes : 0));
      tl.operand_bytes = static_cast<std::uint64_t>(static_cast<double>(tile_nnz * width) * bpe(dense));
      l.cores[c].push_back(std::move(tl));
    }
  l.mapping = fmt::format("{} row partitions, {} rows per tile, {} operand {}", ranges.size(), tile_rows,
                          spmm ? "dense" : "V", resident ? "resident" : "gathered per nonzero");
}

void Lowering::vector_op(const Operator& op, LoweredOp& l, const std::string& kind, std::int64_t rows,
                         std::int64_t cols) {
  // Inputs with as many elements as the operator's rows x cols stream with it; smaller ones
  // (norm gains) are loaded once per core.
  std::vector<TensorId> streamed, once;
  for (size_t i = 0; i < op.inputs.size(); ++i)
    (input_elements(op, i) >= rows * cols ? streamed : once).push_back(op.inputs[i]);
  double per_row = 0, fixed = 0;
  for (TensorId t : streamed) per_row += static_cast<double>(cols) * bpe(t);
  for (TensorId t : once) fixed += static_cast<double>(g_.tensor(t).bytes);
  const TensorId out = op.outputs[0];
  const std::int64_t out_cols = output_elements(op, 0) / rows;
  per_row += static_cast<double>(out_cols) * bpe(out);
  const std::int64_t tile_rows = rows_fitting(per_row, fixed, rows);
  const auto ranges = split(rows, t_.cores, 1);
  reserve_row_tiles(ranges, tile_rows);
  for (size_t c = 0; c < ranges.size(); ++c)
    for (std::int64_t r0 = ranges[c].first; r0 < ranges[c].second; r0 += tile_rows) {
      const std::int64_t n = std::min(tile_rows, ranges[c].second - r0);
      Tile tl;
      for (TensorId t : streamed) tl.loads.push_back(load(t, r0, n, 0, cols, cols));
      if (r0 == ranges[c].first)
        for (TensorId t : once) tl.loads.push_back(load(t, 0, 1, 0, g_.tensor(t).elements(), g_.tensor(t).elements()));
      TileStep st;
      st.unit = TileStep::Unit::Vector;
      st.vector_kind = kind;
      st.rows = n;
      st.cols = cols;
      tl.steps.push_back(st);
      tl.stores.push_back(block(out, r0, n, 0, out_cols, out_cols, true));
      tl.footprint = static_cast<std::uint64_t>(per_row * static_cast<double>(n) + fixed);
      tl.operand_bytes = static_cast<std::uint64_t>(per_row * static_cast<double>(n));
      l.cores[c].push_back(std::move(tl));
    }
  l.mapping = fmt::format("{} row ranges, {} rows of {} per tile", ranges.size(), tile_rows, cols);
}

void Lowering::data_movement(const Operator& op, LoweredOp& l) {
  // Rows moved and their width; the source is gathered (embedding, gather) or contiguous.
  std::int64_t rows = 0, width = 0;
  bool gathered = false;
  switch (op.kind) {
    case OpKind::Embedding: rows = op.dim("tokens"); width = op.dim("dim"); gathered = true; break;
    case OpKind::Gather: rows = op.dim("rows"); width = op.dim("cols"); gathered = true; break;
    case OpKind::Scatter: rows = op.dim("rows"); width = op.dim("cols"); break;
    default: rows = 1; width = op.dim("elements"); break;  // Copy
  }
  const TensorId in = op.inputs[0], out = op.outputs[0];
  const bool accumulate = op.kind == OpKind::Scatter && op.dims.count("accumulate") && op.dim("accumulate") != 0;
  const double per_row = static_cast<double>(width) * (bpe(in) + bpe(out) * (accumulate ? 2 : 1));
  const std::int64_t tile_rows = rows_fitting(per_row, 0, rows);
  if (rows == 1) {
    // One long row (a copy): split it into chunks of elements instead.
    const std::int64_t chunk = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(static_cast<double>(t_.scratchpad_bytes) / t_.buffers / (bpe(in) + bpe(out))));
    const auto ranges = split(width, t_.cores, std::min(width, chunk));
    for (size_t c = 0; c < ranges.size(); ++c) {
      Tile tl;
      const std::int64_t n = ranges[c].second - ranges[c].first;
      tl.loads.push_back(load(in, 0, 1, ranges[c].first, n, width));
      tl.stores.push_back(block(out, 0, 1, ranges[c].first, n, g_.tensor(out).elements(), true));
      tl.footprint = static_cast<std::uint64_t>(static_cast<double>(n) * (bpe(in) + bpe(out)));
      l.cores[c].push_back(std::move(tl));
    }
    l.mapping = fmt::format("copy over {} cores", ranges.size());
    return;
  }
  const auto ranges = split(rows, t_.cores, 1);
  reserve_row_tiles(ranges, tile_rows);
  const std::int64_t out_rows = std::max<std::int64_t>(1, g_.tensor(out).elements() / width);
  for (size_t c = 0; c < ranges.size(); ++c)
    for (std::int64_t r0 = ranges[c].first; r0 < ranges[c].second; r0 += tile_rows) {
      const std::int64_t n = std::min(tile_rows, ranges[c].second - r0);
      Tile tl;
      tl.loads.push_back(gathered ? gather(in, n, width) : load(in, r0, n, 0, width, width));
      if (accumulate) {
        tl.loads.push_back(gather(out, n, width));
        TileStep st;
        st.unit = TileStep::Unit::Vector;
        st.vector_kind = "scatter";
        st.rows = n;
        st.cols = width;
        tl.steps.push_back(st);
      }
      // Rows land in order when the output has exactly these rows (embedding, gather), else
      // they are scattered over it.
      DmaDescriptor st = out_rows == rows ? block(out, r0, n, 0, width, width, true) : gather(out, n, width).d;
      st.write = true;
      tl.stores.push_back(st);
      tl.footprint = static_cast<std::uint64_t>(per_row * static_cast<double>(n));
      l.cores[c].push_back(std::move(tl));
    }
  l.mapping = fmt::format("{} rows of {} over {} cores", rows, width, ranges.size());
}

void Lowering::lower(const Operator& op, LoweredOp& l) {
  op_name_ = op.name;
  switch (op.kind) {
    case OpKind::Gemm:
    case OpKind::Gemv:
    case OpKind::BatchedGemm: return gemm_op(op, l);
    case OpKind::GroupedGemm: return grouped_gemm(op, l);
    case OpKind::Attention: return attention(op, l);
    case OpKind::SpMM:
    case OpKind::SDDMM: return sparse(op, l);
    case OpKind::Softmax:
    case OpKind::LayerNorm:
    case OpKind::RmsNorm:
    case OpKind::TopK: return vector_op(op, l, op_kind_name(op.kind), op.dim("rows"), op.dim("cols"));
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::Relu: {
      // Element-wise: rows of up to 4096 elements so the work spreads over cores and tiles.
      const std::int64_t e = op.dim("elements"), cols = std::min<std::int64_t>(e, 4096);
      if (e % cols != 0) return vector_op(op, l, op_kind_name(op.kind), 1, e);
      return vector_op(op, l, op_kind_name(op.kind), e / cols, cols);
    }
    case OpKind::Embedding:
    case OpKind::Gather:
    case OpKind::Scatter:
    case OpKind::Copy: return data_movement(op, l);
    case OpKind::AllToAll:
    case OpKind::AllReduce:
    case OpKind::SendRecv: {
      const bool between_devices = op.kind == OpKind::SendRecv || op.dim("devices") > 1;
      if (between_devices && t_.external_collectives) {
        l.external = true;
        l.mapping = "between devices: timed by the package over its links";
        return;
      }
      if (between_devices)
        throw InputError(SourceLoc{}, "",
                         fmt::format("operator {} ({}) moves data between devices; an npu is one device (place the "
                                     "graph on one device, or run it on a package of devices)",
                                     op.name, op_kind_name(op.kind)));
      l.mapping = "one device: nothing to exchange";
      return;
    }
  }
}

}  // namespace

NpuProgram map_graph(const OpGraph& graph, const MapperTarget& target) { return Lowering(graph, target).run(); }

}  // namespace strata
