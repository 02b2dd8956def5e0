// SCALE-Sim v2 in closed form. File and function names in the comments are SCALE-Sim's
// (scalesim/...); "the demand matrix" is the per-cycle request matrix its compute modules build
// (one row per cycle, -1 for no request), which its memory modules then walk row by row.
//
// What the reports are made of, in CALC mode:
//  * compute/systolic_compute_{os,ws,is}.py: folds run back to back, fc (columns of the array
//    mapping) outer and fr (rows) inner, each `period` cycles long; the last row of the last
//    fold is the last cycle, so total = folds·period − 1. Mapping efficiency and compute util
//    are per-fold averages, SRAM counts are sums of the fold operand slices.
//  * memory/read_buffer_estimate_bw.py (the ifmap and filter buffers in CALC mode): every
//    request hits; the buffer only records which addresses it would have fetched. It gathers
//    new addresses into sets of ⌊bytes/100⌋ and, when 50 sets are full (the prefetch half),
//    forgets all of them. So DRAM reads = number of requests whose address is not among those
//    seen since the last time the group of G = 50·⌊bytes/100⌋ addresses filled up.
//  * memory/write_buffer.py (ofmap): elements are packed into lines of `cols` words; a drain of
//    ⌈half/cols⌉ lines starts when more than half the buffer is undrained and no drain is in
//    progress; the partial line is closed (padded) first, and a drain counts its lines as full
//    except for the padding of its last line, which is why some DRAM ofmap write counts exceed
//    the elements written (65,567 for 65,536).
#include "models/systolic/scalesim_compat.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/rounding.h"

namespace strata::scalesim {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// topology_utils.topo_calc_hyperparams: ofmap = ceil((ifmap − filter + stride) / stride).
i64 Layer::ofmap_h() const { return ceil_div(ifmap_h - filter_h, stride) + 1; }
i64 Layer::ofmap_w() const { return ceil_div(ifmap_w - filter_w, col_stride()) + 1; }
i64 Layer::ofmap_pixels() const { return ofmap_h() * ofmap_w(); }
i64 Layer::window() const { return filter_h * filter_w * channels; }

Layer gemm_layer(const std::string& name, i64 m, i64 n, i64 k) {
  Layer l;
  l.name = name;
  l.ifmap_h = m;
  l.ifmap_w = k;
  l.filter_h = 1;
  l.filter_w = k;
  l.channels = 1;
  l.num_filters = n;
  l.stride = 1;
  return l;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Skew geometry. SCALE-Sim's skew_matrix() delays column c of a block by c rows, so cell (r, c)
// of an a×b block is requested in cycle r + c (plus the block's offset), and within one cycle
// cells come in column order.

// Cells (r, c) of an a×b block with r + c < d.
i64 diag_prefix(i64 a, i64 b, i64 d) {
  if (d <= 0) return 0;
  if (d >= a + b - 1) return a * b;
  const i64 k = std::min(a, d);                  // rows with a cell below d
  const i64 m = std::clamp<i64>(d - b + 1, 0, k);  // rows whose b cells are all below d
  return m * b + (k - m) * d - (m + k - 1) * (k - m) / 2;
}

// The diagonal (cycle offset) of cell number q (0-based, in request order) of an a×b block.
i64 diag_of(i64 a, i64 b, i64 q) {
  i64 lo = 0, hi = a + b - 2;  // smallest d with diag_prefix(d + 1) > q
  while (lo < hi) {
    const i64 mid = lo + (hi - lo) / 2;
    if (diag_prefix(a, b, mid + 1) > q) hi = mid; else lo = mid + 1;
  }
  return lo;
}

// How a layer is folded onto the array (compute/systolic_compute_*.py set_params).
struct Mapping {
  Dataflow df;
  i64 R, C;       // array rows, cols
  i64 Sr, Sc, T;  // spatial rows, spatial cols, streamed dimension
  i64 row_folds, col_folds, period;

  i64 folds() const { return row_folds * col_folds; }
  i64 rows_used(i64 fr) const { return std::min(R, Sr - fr * R); }
  i64 cols_used(i64 fc) const { return std::min(C, Sc - fc * C); }
  i64 fold_start(i64 f) const { return f * period; }
};

Mapping make_mapping(const ArrayConfig& a, const Layer& l) {
  Mapping m{a.dataflow, a.rows, a.cols, 0, 0, 0, 0, 0, 0};
  const i64 px = l.ofmap_pixels(), win = l.window(), nf = l.num_filters;
  switch (a.dataflow) {
    case Dataflow::OutputStationary: m.Sr = px, m.Sc = nf, m.T = win; break;
    case Dataflow::WeightStationary: m.Sr = win, m.Sc = nf, m.T = px; break;
    case Dataflow::InputStationary: m.Sr = win, m.Sc = px, m.T = nf; break;
  }
  m.row_folds = ceil_div(m.Sr, m.R);
  m.col_folds = ceil_div(m.Sc, m.C);
  // os: T streamed, then C−1 drain rows, skewed over R: T+R+C−2. ws/is: R preload rows, T,
  // C−1 drain rows, skewed over R: 2R+C+T−2 (the filter/ifmap demand of ws/is agrees).
  m.period = a.dataflow == Dataflow::OutputStationary ? m.T + m.R + m.C - 2 : 2 * m.R + m.C + m.T - 2;
  return m;
}

// ---------------------------------------------------------------------------------------------
// The requests of one operand in one fold. Skewed: `a` lanes of `b` requests, request j of lane
// c in cycle offset + c + j. Rows: `a` rows of `b` requests, row i in cycle offset + i (the
// unskewed, row-flipped stationary operand of ws/is).
struct FoldLayout {
  bool skewed;
  i64 a, b, offset;

  i64 size() const { return a * b; }
  i64 cycle_of(i64 q) const { return offset + (skewed ? diag_of(a, b, q) : q / b); }
  i64 first_cycle() const { return offset; }
  i64 last_cycle() const { return offset + (skewed ? a + b - 2 : a - 1); }
};

enum class Operand { Ifmap, Filter };

// create_ifmap_demand_mat / create_filter_demand_mat of each dataflow.
FoldLayout layout(const Mapping& m, Operand op, i64 fr, i64 fc) {
  const i64 ru = m.rows_used(fr), cu = m.cols_used(fc);
  switch (m.df) {
    case Dataflow::OutputStationary:  // ifmap rows / filter columns skewed from cycle 0
      return op == Operand::Ifmap ? FoldLayout{true, ru, m.T, 0} : FoldLayout{true, cu, m.T, 0};
    case Dataflow::WeightStationary:  // filter block preloaded flipped, ifmap after R cycles
      return op == Operand::Ifmap ? FoldLayout{true, ru, m.T, m.R} : FoldLayout{false, ru, cu, m.R - ru};
    case Dataflow::InputStationary:   // ifmap block preloaded flipped, filter after R cycles
      return op == Operand::Ifmap ? FoldLayout{false, ru, cu, m.R - ru} : FoldLayout{true, ru, m.T, m.R};
  }
  return {};
}

// Folds that read the same operand slice in the same order share a class: the ifmap row block
// fr (os, ws), the filter column block fc (os), the filter row block fr (is). −1: the fold's
// slice is read by no other fold (ws filter, is ifmap blocks).
i64 fold_class(const Mapping& m, Operand op, i64 fr, i64 fc) {
  switch (m.df) {
    case Dataflow::OutputStationary: return op == Operand::Ifmap ? fr : fc;
    case Dataflow::WeightStationary: return op == Operand::Ifmap ? fr : -1;
    case Dataflow::InputStationary: return op == Operand::Ifmap ? -1 : fr;
  }
  return -1;
}

i64 class_count(const Mapping& m) { return std::max(m.row_folds, m.col_folds); }

// compute/operand_matrix.calc_ifmap_elem_addr, with the per-row and per-column parts
// precomputed: element (r, k) of the ifmap operand is window k of ofmap pixel r; -1 where the
// window hangs over the ifmap edge.
class Im2col {
 public:
  explicit Im2col(const Layer& l) : h_(l.ifmap_h), w_(l.ifmap_w) {
    const i64 ew = l.ofmap_w(), c = l.channels;
    for (i64 r = 0; r < l.ofmap_pixels(); ++r) {
      row_y_.push_back(r / ew * l.stride);
      row_x_.push_back(r % ew * l.col_stride());
    }
    for (i64 k = 0; k < l.window(); ++k) {
      col_y_.push_back(k / (l.filter_w * c));
      col_x_.push_back(k % (l.filter_w * c) / c);
      col_ch_.push_back(k % c);
    }
    channels_ = c;
  }
  i64 operator()(i64 r, i64 k) const {
    const i64 y = row_y_[r] + col_y_[k], x = row_x_[r] + col_x_[k];
    if (y >= h_ || x >= w_) return -1;
    return (y * w_ + x) * channels_ + col_ch_[k];
  }
  i64 footprint() const { return h_ * w_ * channels_; }

 private:
  i64 h_, w_, channels_ = 1;
  std::vector<i64> row_y_, row_x_, col_y_, col_x_, col_ch_;
};

// Calls visit(address, cycle) for the ifmap requests of fold (fr, fc) in request order.
template <class Visit>
void visit_ifmap_fold(const Mapping& m, const Im2col& im, i64 fr, i64 fc, Visit&& visit) {
  const FoldLayout L = layout(m, Operand::Ifmap, fr, fc);
  const i64 base = m.fold_start(fc * m.row_folds + fr) + L.offset;
  const i64 rs = fr * m.R, cs = fc * m.C;
  if (L.skewed) {
    for (i64 d = 0; d < L.a + L.b - 1; ++d)
      for (i64 c = std::max<i64>(0, d - L.b + 1); c <= std::min(L.a - 1, d); ++c) {
        const i64 j = d - c;  // os: op row rs+c, window j; ws: op row j (pixel), window rs+c
        visit(m.df == Dataflow::OutputStationary ? im(rs + c, j) : im(j, rs + c), base + d);
      }
  } else {  // is: row i holds window rs+ru−1−i (flipped), columns are pixels cs+c
    for (i64 i = 0; i < L.a; ++i)
      for (i64 c = 0; c < L.b; ++c) visit(im(cs + c, rs + L.a - 1 - i), base + i);
  }
}

// ---------------------------------------------------------------------------------------------
// DRAM reads (read_buffer_estimate_bw.py). State: the group of distinct addresses gathered
// since the group was last emptied; a group completion happens on its G-th address.
struct ReadStats {
  u64 misses = 0, completions = 0;
  i64 in_group = 0;
  i64 last_completion_cycle = 0;
  i64 first_request_cycle = -1, last_request_cycle = -1;  // SRAM-side first/last valid request
};

// Every address in the operand is distinct and valid (GEMMs; convolutions whose windows
// neither overlap nor hang over the edge; all filters): then folds of one class read one
// address set in one order, folds of different classes read disjoint sets, and the whole count
// follows fold by fold: O(folds + group completions), never per address.
//  * a class read completely since the group was last emptied hits entirely;
//  * the class of the fold in which the group was last emptied has its positions from the
//    emptying point on in the group: a later fold of that class misses on the positions before;
//  * any other fold misses on all its positions.
// Misses are taken in position order, and a completion empties the group mid-fold, after which
// the rest of the fold misses again.
ReadStats count_distinct_reads(const Mapping& m, Operand op, i64 group) {
  ReadStats st;
  std::vector<i64> full_epoch(static_cast<std::size_t>(class_count(m)), -1);
  i64 epoch = 0, partial_class = -1, partial_from = 0;
  for (i64 fc = 0; fc < m.col_folds; ++fc)
    for (i64 fr = 0; fr < m.row_folds; ++fr) {
      const FoldLayout L = layout(m, op, fr, fc);
      const i64 f = fc * m.row_folds + fr, s = L.size(), k = fold_class(m, op, fr, fc);
      if (k >= 0 && full_epoch[k] == epoch) continue;
      i64 new_end = (k >= 0 && k == partial_class) ? partial_from : s;
      i64 pos = 0;
      bool emptied = false;
      while (pos < new_end) {
        const i64 room = group - st.in_group;
        if (new_end - pos < room) {
          st.misses += new_end - pos;
          st.in_group += new_end - pos;
          break;
        }
        pos += room;
        st.misses += room;
        st.completions += 1;
        st.in_group = 0;
        st.last_completion_cycle = m.fold_start(f) + L.cycle_of(pos - 1);
        ++epoch;
        emptied = true;
        new_end = s;  // the group is empty: the rest of this fold is new again
        partial_class = k;
        partial_from = pos;
      }
      if (!emptied && k >= 0) full_epoch[k] = epoch;
    }
  const i64 last_fr = m.row_folds - 1, last_fc = m.col_folds - 1;
  st.first_request_cycle = layout(m, op, 0, 0).first_cycle();
  st.last_request_cycle = m.fold_start(m.folds() - 1) + layout(m, op, last_fr, last_fc).last_cycle();
  return st;
}

// Ifmaps of convolutions with overlapping windows or windows over the edge. Here one ifmap word
// recurs in several lanes of a fold at different cycles (and edge windows leave holes of null
// requests), so where a group fills up depends on the order in which words are first seen,
// which interleaves the lanes diagonal by diagonal; there is no per-fold shortcut that keeps
// that exact. These folds are walked request by request, with an epoch stamp per ifmap word:
// O(requests), one array access each (VGG16 conv1_2 on 32×32: 0.1–0.4 s). Folds whose class
// was read completely since the group was last emptied are skipped (all hits), so when the
// ifmap fits in a group only the first sweep over it costs anything.
ReadStats count_ifmap_reads_by_address(const Mapping& m, const Im2col& im, i64 group) {
  ReadStats st;
  std::vector<std::uint32_t> stamp(static_cast<std::size_t>(im.footprint()), 0);
  std::uint32_t tag = 1;  // the current epoch; stamp == tag: in the group
  std::vector<std::uint32_t> full_tag(static_cast<std::size_t>(class_count(m)), 0);
  auto visit = [&](i64 addr, i64 cycle) {
    if (addr < 0) return;
    if (st.first_request_cycle < 0) st.first_request_cycle = cycle;
    if (stamp[addr] == tag) return;
    stamp[addr] = tag;
    st.misses += 1;
    if (++st.in_group == group) {
      st.completions += 1;
      st.in_group = 0;
      st.last_completion_cycle = cycle;
      ++tag;
    }
  };
  for (i64 fc = 0; fc < m.col_folds; ++fc)
    for (i64 fr = 0; fr < m.row_folds; ++fr) {
      const i64 k = fold_class(m, Operand::Ifmap, fr, fc);
      if (k >= 0 && full_tag[k] == tag) continue;
      const std::uint32_t tag_before = tag;
      visit_ifmap_fold(m, im, fr, fc, visit);
      if (k >= 0 && tag == tag_before) full_tag[k] = tag;
    }
  // The last valid request: scan folds backwards until one has any.
  for (i64 f = m.folds() - 1; f >= 0 && st.last_request_cycle < 0; --f)
    visit_ifmap_fold(m, im, f % m.row_folds, f / m.row_folds, [&](i64 addr, i64 cycle) {
      if (addr >= 0) st.last_request_cycle = std::max(st.last_request_cycle, cycle);
    });
  return st;
}

// The DRAM start/stop cycles of read_buffer_estimate_bw's prefetch trace (read port latency 1,
// default prefetch bandwidth 10 words/cycle). The first prefetch, of 50 sets, is placed so that
// it ends at first_request − 2 (responses one cycle later); each later prefetch is traced over
// the cycles between the two previous group completions; complete_all_prefetches() adds the last
// one, ending one cycle after the last completion. Without any completion the single prefetch
// is of the ⌈misses/set⌉ sets gathered, ending at cycle −1.
void dram_read_cycles(const ReadStats& st, i64 set_size, i64& start, i64& stop) {
  if (st.completions == 0) {
    const i64 sets = ceil_div(static_cast<i64>(st.misses), set_size);
    start = -ceil_div(sets * set_size, 10);
    stop = -1;
  } else {
    start = st.first_request_cycle - ceil_div(50 * set_size, 10);
    stop = st.last_completion_cycle + 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Ofmap writes. Per fold the ofmap requests are a skewed a×b block of elements at an offset:
// os: ru×cu after T−1 rows, flipped so the unused rows come first (R−ru); ws/is: T×cu after
// 2R−1 rows. Elements are counted, their addresses never matter to the write buffer.
struct OfmapStream {
  const Mapping& m;

  FoldLayout block(i64 fr, i64 fc) const {
    const i64 ru = m.rows_used(fr), cu = m.cols_used(fc);
    if (m.df == Dataflow::OutputStationary) return {true, ru, cu, m.T - 1 + m.R - ru};
    return {true, m.T, cu, 2 * m.R - 1};
  }
  // Elements in folds before f.
  i64 before_fold(i64 f) const {
    if (f >= m.folds()) return total();
    const i64 fc = f / m.row_folds, fr = f % m.row_folds;
    if (m.df == Dataflow::OutputStationary)
      return m.Sr * std::min(fc * m.C, m.Sc) + m.cols_used(fc) * std::min(fr * m.R, m.Sr);
    return m.row_folds * m.T * std::min(fc * m.C, m.Sc) + fr * m.T * m.cols_used(fc);
  }
  i64 total() const {
    return m.df == Dataflow::OutputStationary ? m.Sr * m.Sc : m.row_folds * m.T * m.Sc;
  }
  // Elements requested in cycles before t.
  i64 before_cycle(i64 t) const {
    if (t <= 0) return 0;
    const i64 f = t / m.period;
    if (f >= m.folds()) return total();
    const FoldLayout b = block(f % m.row_folds, f / m.row_folds);
    return before_fold(f) + diag_prefix(b.a, b.b, t - m.fold_start(f) - b.offset);
  }
  // The cycle of element e (1-based).
  i64 cycle_of(i64 e) const {
    i64 lo = 0, hi = m.folds() - 1;  // last fold with before_fold(f) < e
    while (lo < hi) {
      const i64 mid = lo + (hi - lo + 1) / 2;
      if (before_fold(mid) < e) lo = mid; else hi = mid - 1;
    }
    const FoldLayout b = block(lo % m.row_folds, lo / m.row_folds);
    return m.fold_start(lo) + b.cycle_of(e - 1 - before_fold(lo));
  }
};

struct WriteStats {
  u64 writes = 0;
  i64 start = -1, stop = -1;
};

// write_buffer.service_writes / empty_drain_buf / empty_all_buffers in CALC mode (ofmap port
// bandwidth = array columns, write port latency 0; the stall branch is never taken: a drain
// frees its lines at once and the array writes at most `cols` words a cycle). Loops once per
// drain. The DRAM start/stop cycles are the first and last entries of its drain trace
// (get_external_access_start_stop_cycles in v2; v3 takes min/max, which differs when the final
// drain ends before an earlier one: 112,935 instead of 112,639 for AlexNet Conv1 on 32×32 ws).
WriteStats simulate_ofmap_writes(const Mapping& m, i64 buffer_words) {
  const OfmapStream stream{m};
  const i64 n = stream.total(), bw = m.C;
  const i64 half = buffer_words - ceil_div(buffer_words, 2);  // drain_buf_size
  const i64 lines_per_drain = ceil_div(half, bw);
  WriteStats ws;
  std::deque<i64> segments;  // closed runs of elements between forced line closes
  i64 taken_in_front = 0;    // lines of segments.front() already drained
  // Drains up to lines_per_drain lines; returns the number of lines, adds the words it counts.
  auto drain = [&](i64 start_cycle) {
    i64 lines = 0, pad = 0;
    while (lines < lines_per_drain && !segments.empty()) {
      const i64 len = segments.front(), seg_lines = ceil_div(len, bw);
      const i64 take = std::min(seg_lines - taken_in_front, lines_per_drain - lines);
      lines += take;
      taken_in_front += take;
      pad = 0;
      if (taken_in_front == seg_lines) {
        if (len % bw != 0) pad = bw - len % bw;  // this chunk ends on the padded line
        segments.pop_front();
        taken_in_front = 0;
      }
    }
    ws.writes += static_cast<u64>(lines * bw - pad);
    if (ws.start < 0) ws.start = start_cycle;
    ws.stop = start_cycle + lines - 1;  // v2 reports the last drain's end (v3: the latest one)
    return std::pair<i64, i64>{lines, lines * bw - pad};
  };
  i64 drained = 0, closed = 0, drain_end = 0;
  for (;;) {
    // The first element after which more than `half` words are undrained, at or after the end
    // of the drain in progress.
    const i64 e = std::max({drained + half + 1, stream.before_cycle(drain_end) + 1, closed + 1});
    if (e > n) break;
    const i64 t = stream.cycle_of(e);
    segments.push_back(e - closed);
    closed = e;
    const auto [lines, words] = drain(t);
    drained += words;
    drain_end = t + lines - 1;
  }
  if (n > closed) segments.push_back(n - closed);
  for (i64 cycle = m.folds() * m.period - 1; !segments.empty();) cycle += drain(cycle).first;
  return ws;
}

// ---------------------------------------------------------------------------------------------
void check_inputs(const ArrayConfig& a, const Layer& l) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("scalesim: " + what);
  };
  need(a.rows > 0 && a.cols > 0, "array rows and cols must be positive");
  need(a.ifmap_sram_kb > 0 && a.filter_sram_kb > 0 && a.ofmap_sram_kb > 0, "SRAM sizes must be at least 1 KB");
  need(l.ifmap_h > 0 && l.ifmap_w > 0 && l.filter_h > 0 && l.filter_w > 0 && l.channels > 0 &&
           l.num_filters > 0 && l.stride > 0 && l.stride_w >= 0,
       "layer '" + l.name + "': sizes must be positive");
  need(l.filter_h <= l.ifmap_h && l.filter_w <= l.ifmap_w, "layer '" + l.name + "': filter larger than ifmap");
  need(l.batch == 1, "layer '" + l.name + "': SCALE-Sim v2 simulates batch 1 only");
}

}  // namespace

LayerReport simulate_layer(const ArrayConfig& array, const Layer& layer) {
  check_inputs(array, layer);
  const Mapping m = make_mapping(array, layer);
  const i64 R = m.R, C = m.C, F = m.folds();
  const bool os = m.df == Dataflow::OutputStationary;
  LayerReport r;

  // Compute report (single_layer_sim.calc_report_data). Per-fold ratios are summed in fold
  // order as Python's sum() does, so the printed digits agree.
  r.total_cycles = static_cast<u64>(F * m.period - 1);
  const i64 fold_cycles = os ? m.T + R + C - 2 : 2 * R + 2 * C + m.T - 3;  // cycles_this_fold
  double map_sum = 0, util_sum = 0;
  for (i64 fc = 0; fc < m.col_folds; ++fc)
    for (i64 fr = 0; fr < m.row_folds; ++fr) {
      const i64 macs = m.rows_used(fr) * m.cols_used(fc);
      map_sum += static_cast<double>(macs) / static_cast<double>(R * C);
      util_sum += static_cast<double>(macs * m.T) / static_cast<double>(R * C * fold_cycles);
    }
  r.mapping_efficiency_pct = map_sum / static_cast<double>(F) * 100;
  r.compute_util_pct = util_sum / static_cast<double>(F) * 100;
  const i64 num_compute = layer.ofmap_pixels() * layer.num_filters * layer.window();
  r.overall_util_pct =
      static_cast<double>(num_compute * 100) / static_cast<double>(static_cast<i64>(r.total_cycles) * R * C);

  // SRAM traffic: the operand slices each fold reads (shape sums, null requests included), and
  // for os the extra R + C writes per fold of create_ofmap_demand_mat.
  const u64 Sr = m.Sr, Sc = m.Sc, T = m.T, rf = m.row_folds, cf = m.col_folds;
  switch (m.df) {
    case Dataflow::OutputStationary:
      r.sram_ifmap_reads = cf * Sr * T, r.sram_filter_reads = rf * Sc * T;
      r.sram_ofmap_writes = Sr * Sc + static_cast<u64>(F * (R + C));
      break;
    case Dataflow::WeightStationary:
      r.sram_ifmap_reads = cf * T * Sr, r.sram_filter_reads = Sr * Sc, r.sram_ofmap_writes = rf * T * Sc;
      break;
    case Dataflow::InputStationary:
      r.sram_ifmap_reads = Sr * Sc, r.sram_filter_reads = cf * T * Sr, r.sram_ofmap_writes = rf * T * Sc;
      break;
  }

  // DRAM reads. Filters are always distinct addresses (operand_matrix.calc_filter_elem_addr);
  // the ifmap is when its windows neither overlap nor hang over the edge.
  const i64 ifmap_set = array.ifmap_sram_kb * 1024 / 100, filter_set = array.filter_sram_kb * 1024 / 100;
  const bool whole_windows = (layer.ifmap_h - layer.filter_h) % layer.stride == 0 &&
                             (layer.ifmap_w - layer.filter_w) % layer.col_stride() == 0;
  const bool disjoint_windows = (layer.ofmap_h() == 1 || layer.stride >= layer.filter_h) &&
                                (layer.ofmap_w() == 1 || layer.col_stride() >= layer.filter_w);
  const ReadStats ifmap = whole_windows && disjoint_windows
                              ? count_distinct_reads(m, Operand::Ifmap, 50 * ifmap_set)
                              : count_ifmap_reads_by_address(m, Im2col(layer), 50 * ifmap_set);
  const ReadStats filter = count_distinct_reads(m, Operand::Filter, 50 * filter_set);
  r.dram_ifmap_reads = ifmap.misses;
  r.dram_filter_reads = filter.misses;
  dram_read_cycles(ifmap, ifmap_set, r.dram_ifmap_start, r.dram_ifmap_stop);
  dram_read_cycles(filter, filter_set, r.dram_filter_start, r.dram_filter_stop);

  // SRAM start/stop: the first and last cycles with a valid request; reads are served with the
  // read buffers' hit latency of 1, writes at once.
  r.sram_ifmap_start = ifmap.first_request_cycle + 1, r.sram_ifmap_stop = ifmap.last_request_cycle + 1;
  r.sram_filter_start = filter.first_request_cycle + 1, r.sram_filter_stop = filter.last_request_cycle + 1;
  const OfmapStream ofmap{m};
  const FoldLayout first_block = ofmap.block(0, 0), last_block = ofmap.block(m.row_folds - 1, m.col_folds - 1);
  r.sram_ofmap_start = first_block.first_cycle();
  r.sram_ofmap_stop = m.fold_start(F - 1) + last_block.last_cycle();

  const WriteStats w = simulate_ofmap_writes(m, array.ofmap_sram_kb * 1024);
  r.dram_ofmap_writes = w.writes;
  r.dram_ofmap_start = w.start, r.dram_ofmap_stop = w.stop;

  // Bandwidth report: SRAM words over total cycles, DRAM words over their start..stop span.
  const double cycles = static_cast<double>(r.total_cycles);
  r.avg_ifmap_sram_bw = static_cast<double>(r.sram_ifmap_reads) / cycles;
  r.avg_filter_sram_bw = static_cast<double>(r.sram_filter_reads) / cycles;
  r.avg_ofmap_sram_bw = static_cast<double>(r.sram_ofmap_writes) / cycles;
  auto span = [](i64 start, i64 stop) { return static_cast<double>(stop - start + 1); };
  r.avg_ifmap_dram_bw = static_cast<double>(r.dram_ifmap_reads) / span(r.dram_ifmap_start, r.dram_ifmap_stop);
  r.avg_filter_dram_bw = static_cast<double>(r.dram_filter_reads) / span(r.dram_filter_start, r.dram_filter_stop);
  r.avg_ofmap_dram_bw = static_cast<double>(r.dram_ofmap_writes) / span(r.dram_ofmap_start, r.dram_ofmap_stop);
  return r;
}

}  // namespace strata::scalesim
