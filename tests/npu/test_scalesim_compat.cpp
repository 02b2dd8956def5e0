// SCALE-Sim v2 compatibility: the closed-form model against SCALE-Sim's published figures
// (../shared/reference/npu/README.md and the v2 repository's golden AlexNet run), against a
// direct cycle-by-cycle transcription of SCALE-Sim on random small layers, and its file readers
// and report writer. No SystemC.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <random>
#include <unordered_set>
#include <vector>

#include "accelerators/npu/scalesim_files.h"
#include "models/systolic/scalesim_compat.h"
#include "test_util.h"

namespace strata::scalesim {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

ArrayConfig array(i64 size, Dataflow df) {
  ArrayConfig a;
  a.rows = a.cols = size;
  a.dataflow = df;
  if (size == 128) a.ifmap_sram_kb = 1024, a.filter_sram_kb = 1024, a.ofmap_sram_kb = 512;
  return a;
}

Layer conv(const std::string& name, i64 h, i64 w, i64 fh, i64 fw, i64 c, i64 n, i64 s) {
  Layer l;
  l.name = name;
  l.ifmap_h = h, l.ifmap_w = w, l.filter_h = fh, l.filter_w = fw, l.channels = c, l.num_filters = n, l.stride = s;
  return l;
}

Layer inception_5b_3x3() { return conv("Inc5b_3x3", 7, 7, 3, 3, 192, 384, 1); }

// ---------------------------------------------------------------------------------------------
// The reference table of ../shared/reference/npu/README.md (CALC mode).

struct Row {
  int layer;  // 0 Inc5b_3x3, 1 GEMM 128×64×256, 2 GEMM 512³, 3 GPT-2 FC1 1×3072×768
  i64 array;
  Dataflow df;
  const char *util, *mapping;
  u64 sram_ifmap, sram_filter, sram_ofmap, dram_ifmap, dram_filter, dram_ofmap;
};

constexpr Dataflow OS = Dataflow::OutputStationary, WS = Dataflow::WeightStationary, IS = Dataflow::InputStationary;

const Row kTable[] = {
    {0, 32, OS, "75.42", "78.12", 518400, 663552, 10368, 9408, 663552, 9600},
    {0, 32, WS, "21.01", "100.00", 518400, 663552, 518400, 9408, 663552, 518431},
    {0, 32, IS, "62.76", "78.12", 43200, 663552, 518400, 9408, 663552, 518431},
    {0, 128, OS, "17.03", "19.53", 129600, 663552, 10368, 9408, 663552, 9600},
    {0, 128, WS, "5.92", "96.43", 129600, 663552, 134400, 9408, 663552, 134400},
    {0, 128, IS, "9.44", "18.83", 43200, 663552, 134400, 9408, 663552, 134400},
    {1, 32, OS, "80.53", "100.00", 65536, 65536, 8704, 65536, 16384, 8192},
    {1, 32, WS, "57.67", "100.00", 65536, 16384, 65536, 65536, 16384, 65567},
    {1, 32, IS, "40.51", "100.00", 32768, 65536, 65536, 32768, 16384, 65567},
    {1, 128, OS, "25.15", "50.00", 32768, 16384, 8448, 32768, 16384, 8192},
    {1, 128, WS, "12.56", "50.00", 32768, 16384, 16384, 32768, 16384, 16384},
    {1, 128, IS, "14.37", "100.00", 32768, 16384, 16384, 32768, 16384, 16384},
    {2, 32, OS, "89.20", "100.00", 4194304, 4194304, 278528, 4194304, 507634, 262175},
    {2, 32, WS, "84.49", "100.00", 4194304, 262144, 4194304, 4194304, 262144, 4194335},
    {2, 32, IS, "84.49", "100.00", 262144, 4194304, 4194304, 262144, 4194304, 4194335},
    {2, 128, OS, "66.85", "100.00", 1048576, 1048576, 266240, 262144, 262144, 262144},
    {2, 128, WS, "57.27", "100.00", 1048576, 262144, 1048576, 262144, 262144, 1048703},
    {2, 128, IS, "57.27", "100.00", 262144, 1048576, 1048576, 262144, 262144, 1048703},
    {3, 32, OS, "2.89", "3.12", 73728, 2359296, 9216, 768, 2359296, 3072},
    {3, 32, WS, "1.05", "100.00", 73728, 2359296, 73728, 768, 2359296, 73759},
    {3, 32, IS, "3.03", "3.12", 768, 2359296, 73728, 768, 2359296, 73759},
    {3, 128, OS, "0.59", "0.78", 18432, 2359296, 9216, 768, 2359296, 3072},
    {3, 128, WS, "0.26", "100.00", 18432, 2359296, 18432, 768, 2359296, 18432},
    {3, 128, IS, "0.69", "0.78", 768, 2359296, 18432, 768, 2359296, 18432},
};

Layer table_layer(int i) {
  switch (i) {
    case 0: return inception_5b_3x3();
    case 1: return gemm_layer("GEMM_128_64_256", 128, 64, 256);
    case 2: return gemm_layer("GEMM_512", 512, 512, 512);
    default: return gemm_layer("GPT2_FC1", 1, 3072, 768);
  }
}

TEST(ScaleSimCompat, ReproducesEveryReferenceRow) {
  for (const Row& row : kTable) {
    const Layer layer = table_layer(row.layer);
    SCOPED_TRACE(fmt::format("{} on {}² {}", layer.name, row.array, static_cast<int>(row.df)));
    const LayerReport r = simulate_layer(array(row.array, row.df), layer);
    // The cycles are the reference figures of configs/validation/npu.yaml.
    const char* const layers[] = {"inception-5b-3x3", "gemm-128x64x256", "gemm-512", "gpt2-fc1"};
    const char* const dataflow = row.df == OS ? "os" : row.df == WS ? "ws" : "is";
    const auto& check =
        strata::testing::validation_check("npu", fmt::format("{}-{}-{}", layers[row.layer], row.array, dataflow));
    EXPECT_WITHIN_VALIDATION(check, static_cast<double>(r.total_cycles));
    EXPECT_EQ(r.stall_cycles, 0u);
    EXPECT_EQ(fmt::format("{:.2f}", r.overall_util_pct), row.util);
    EXPECT_EQ(fmt::format("{:.2f}", r.mapping_efficiency_pct), row.mapping);
    EXPECT_EQ(r.sram_ifmap_reads, row.sram_ifmap);
    EXPECT_EQ(r.sram_filter_reads, row.sram_filter);
    EXPECT_EQ(r.sram_ofmap_writes, row.sram_ofmap);
    EXPECT_EQ(r.dram_ifmap_reads, row.dram_ifmap);
    EXPECT_EQ(r.dram_filter_reads, row.dram_filter);
    EXPECT_EQ(r.dram_ofmap_writes, row.dram_ofmap);
  }
}

TEST(ScaleSimCompat, GemmIsTheConvolutionScaleSimMakesOfIt) {
  const Layer g = gemm_layer("g", 128, 64, 256);  // topology_utils: [m, k, 1, k, 1, n, 1, 1]
  EXPECT_EQ(g.ifmap_h, 128);
  EXPECT_EQ(g.ifmap_w, 256);
  EXPECT_EQ(g.filter_h, 1);
  EXPECT_EQ(g.filter_w, 256);
  EXPECT_EQ(g.channels, 1);
  EXPECT_EQ(g.num_filters, 64);
  EXPECT_EQ(g.ofmap_pixels(), 128);
  EXPECT_EQ(g.window(), 256);
}

// scale-sim-v2 test/general/golden_trace + test/golden_trace: AlexNet Conv1 on 32×32 ws with
// 64 KB SRAMs, CALC. Windows overlap and hang over the edge (ofmap 55 = ⌈213/4⌉ + 1), so this
// checks the im2col address path, the null requests and every start/stop cycle, digit for digit.
TEST(ScaleSimCompat, ReproducesTheGoldenAlexNetRunByteForByte) {
  const Layer alex = conv("Conv1", 224, 224, 11, 11, 3, 96, 4);
  const LayerReport r = simulate_layer(array(32, WS), alex);
  testing::TempDir dir;
  write_reports(dir.path().string(), {alex}, {r});
  auto second_line = [&](const char* file) {
    const std::string text = testing::read_file(dir.file(file));
    const auto nl = text.find('\n');
    return text.substr(nl + 1);
  };
  EXPECT_EQ(second_line("COMPUTE_REPORT.csv"), "0, 112283, 0, 91.68309650614964, 94.53125, 90.78000992063485,\n");
  EXPECT_EQ(second_line("BANDWIDTH_REPORT.csv"),
            "0, 29.338590881967885, 0.31035864734643714, 31.035864734643713, 15.686576632947475, "
            "0.3280954308794592, 31.243441697000126,\n");
  EXPECT_EQ(second_line("DETAILED_ACCESS_REPORT.csv"),
            "0, 33.0, 112176.0, 3294225, 1.0, 109197.0, 34848, 63.0, 112283.0, 3484800, -3243.0, 111824.0, 1805023, "
            "-3275.0, 102937.0, 34848, 1102.0, 112639.0, 3484831,\n");
}

TEST(ScaleSimCompat, NonSquareArraysKeepTheFormulas) {
  const Layer g = gemm_layer("g", 100, 200, 300);
  for (const Dataflow df : {OS, WS, IS}) {
    ArrayConfig a;
    a.rows = 16, a.cols = 64, a.dataflow = df;
    const LayerReport r = simulate_layer(a, g);
    // Sr, Sc, T per dataflow; folds run back to back.
    const i64 sr = df == OS ? 100 : 300, sc = df == IS ? 100 : 200, t = df == OS ? 300 : df == WS ? 100 : 200;
    const i64 folds = (sr + 15) / 16 * ((sc + 63) / 64);
    const i64 period = df == OS ? t + 16 + 64 - 2 : 2 * 16 + 64 + t - 2;
    EXPECT_EQ(r.total_cycles, static_cast<u64>(folds * period - 1));
    EXPECT_GT(r.overall_util_pct, 0);
    EXPECT_LE(r.overall_util_pct, 100);
    EXPECT_LE(r.mapping_efficiency_pct, 100);
    EXPECT_LE(r.compute_util_pct, 100);
    EXPECT_NEAR(r.overall_util_pct, 100.0 * 100 * 200 * 300 / (static_cast<double>(r.total_cycles) * 16 * 64), 1e-9);
  }
}

TEST(ScaleSimCompat, RejectsWhatScaleSimCannotRun) {
  EXPECT_THROW(simulate_layer(ArrayConfig{}, conv("big", 3, 3, 5, 5, 1, 1, 1)), std::invalid_argument);
  ArrayConfig zero;
  zero.rows = 0;
  EXPECT_THROW(simulate_layer(zero, gemm_layer("g", 2, 2, 2)), std::invalid_argument);
}

TEST(ScaleSimCompat, BenchmarkGemmTakesMillisecondsNotHours) {
  const Layer g = gemm_layer("big", 1024, 4096, 4096);
  for (const i64 size : {32, 128})
    for (const Dataflow df : {OS, WS, IS}) {
      const auto t0 = std::chrono::steady_clock::now();
      const LayerReport r = simulate_layer(array(size, df), g);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      EXPECT_GT(r.dram_ifmap_reads, 0u);
      EXPECT_LT(s, 5.0) << "the model lost its closed form";  // well under 1 s at -O2
    }
}

// ---------------------------------------------------------------------------------------------
// A direct transcription of SCALE-Sim v2 for small layers: the demand matrices built as
// compute/systolic_compute_{os,ws,is}.py build them, then read_buffer_estimate_bw.py (ifmap,
// filter) and write_buffer.py (ofmap) walked over them row by row (one row per cycle), then
// single_layer_sim.calc_report_data. Nothing in it is shared with the model.
namespace direct {

using Mat = std::vector<std::vector<i64>>;  // -1: no request

Mat nulls(i64 rows, i64 cols) { return Mat(rows, std::vector<i64>(cols, -1)); }
Mat slice(const Mat& m, i64 r0, i64 r1, i64 c0, i64 c1) {
  Mat out;
  for (i64 r = r0; r < r1; ++r) out.emplace_back(m[r].begin() + c0, m[r].begin() + c1);
  return out;
}
Mat transpose(const Mat& m) {
  Mat out(m.empty() ? 0 : m[0].size(), std::vector<i64>(m.size()));
  for (std::size_t r = 0; r < m.size(); ++r)
    for (std::size_t c = 0; c < m[r].size(); ++c) out[c][r] = m[r][c];
  return out;
}
Mat pad_cols(Mat m, i64 width) {
  for (auto& row : m) row.resize(width, -1);
  return m;
}
Mat pad_rows(Mat m, i64 rows, i64 width) {
  while (static_cast<i64>(m.size()) < rows) m.emplace_back(width, -1);
  return m;
}
Mat flip(Mat m) { return Mat(m.rbegin(), m.rend()); }
Mat cat(Mat a, const Mat& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
Mat skew(const Mat& in) {  // skew_matrix: column c delayed by c rows
  const i64 rows = in.size(), cols = in.empty() ? 0 : in[0].size();
  Mat out = nulls(rows + cols - 1, cols);
  for (i64 c = 0; c < cols; ++c)
    for (i64 r = 0; r < rows; ++r) out[c + r][c] = in[r][c];
  return out;
}

struct Demand {
  Mat ifmap, filter, ofmap;
  u64 ifmap_reads = 0, filter_reads = 0, ofmap_writes = 0;
  std::vector<double> mapping, util;
};

Demand build(const ArrayConfig& a, const Layer& l) {
  // operand_matrix.py
  const i64 eh = l.ofmap_h(), ew = l.ofmap_w(), px = eh * ew, win = l.filter_h * l.filter_w * l.channels,
            nf = l.num_filters, sw = l.stride_w > 0 ? l.stride_w : l.stride;
  Mat ifm(px, std::vector<i64>(win)), fil(win, std::vector<i64>(nf)), ofm(px, std::vector<i64>(nf));
  for (i64 i = 0; i < px; ++i)
    for (i64 j = 0; j < win; ++j) {
      const i64 i_row = i / ew * l.stride, i_col = i % ew * sw;
      const i64 c_row = j / (l.filter_w * l.channels), k = j % (l.filter_w * l.channels);
      const i64 c_col = k / l.channels, c_ch = k % l.channels;
      ifm[i][j] = (c_row + i_row >= l.ifmap_h || c_col + i_col >= l.ifmap_w)
                      ? -1
                      : c_row * l.ifmap_w * l.channels + c_col * l.channels + c_ch +
                            i_row * l.ifmap_w * l.channels + i_col * l.channels + a.ifmap_offset;
    }
  for (i64 i = 0; i < win; ++i)
    for (i64 j = 0; j < nf; ++j) fil[i][j] = j * win + i + a.filter_offset;
  for (i64 i = 0; i < px; ++i)
    for (i64 j = 0; j < nf; ++j) ofm[i][j] = nf * i + j + a.ofmap_offset;

  const i64 R = a.rows, C = a.cols;
  const bool os = a.dataflow == OS, ws = a.dataflow == WS;
  const i64 Sr = os ? px : win, Sc = ws || os ? nf : px, T = os ? win : ws ? px : nf;
  const i64 row_fold = (Sr + R - 1) / R, col_fold = (Sc + C - 1) / C;
  const Mat ifm_t = transpose(ifm);
  Demand d;
  for (i64 fc = 0; fc < col_fold; ++fc)
    for (i64 fr = 0; fr < row_fold; ++fr) {
      const i64 rs = fr * R, re = std::min(rs + R, Sr), cs = fc * C, ce = std::min(cs + C, Sc);
      const i64 ru = re - rs, cu = ce - cs;
      Mat i_d, f_d, o_d, util_mat;
      if (os) {
        i_d = slice(ifm_t, 0, T, rs, re), d.ifmap_reads += i_d.size() * i_d[0].size();
        i_d = skew(cat(pad_cols(i_d, R), nulls(C - 1, R)));
        f_d = slice(fil, 0, T, cs, ce), d.filter_reads += f_d.size() * f_d[0].size();
        f_d = skew(cat(pad_cols(f_d, C), nulls(R - 1, C)));
        o_d = slice(ofm, rs, re, cs, ce), d.ofmap_writes += o_d.size() * o_d[0].size();
        o_d = flip(pad_rows(pad_cols(o_d, C), R, C));
        d.ofmap_writes += o_d.size() + o_d[0].size();
        util_mat = o_d = cat(nulls(T - 1, C), o_d);
        o_d = skew(o_d);
      } else if (ws) {
        i_d = slice(ifm, 0, T, rs, re), d.ifmap_reads += i_d.size() * i_d[0].size();
        i_d = skew(cat(cat(nulls(R, R), pad_cols(i_d, R)), nulls(C - 1, R)));
        f_d = slice(fil, rs, re, cs, ce), d.filter_reads += f_d.size() * f_d[0].size();
        util_mat = f_d = cat(flip(pad_rows(pad_cols(f_d, C), R, C)), nulls(R + C + T - 2, C));
        o_d = slice(ofm, 0, T, cs, ce), d.ofmap_writes += o_d.size() * o_d[0].size();
        o_d = skew(cat(nulls(2 * R - 1, C), pad_cols(o_d, C)));
      } else {
        i_d = slice(ifm_t, rs, re, cs, ce), d.ifmap_reads += i_d.size() * i_d[0].size();
        util_mat = i_d = cat(flip(pad_rows(pad_cols(i_d, C), R, C)), nulls(R + C + T - 2, C));
        f_d = transpose(slice(fil, rs, re, 0, T)), d.filter_reads += f_d.size() * f_d[0].size();
        f_d = skew(cat(cat(nulls(R, R), pad_cols(f_d, R)), nulls(C - 1, R)));
        o_d = transpose(slice(ofm, cs, ce, 0, T)), d.ofmap_writes += o_d.size() * o_d[0].size();
        o_d = skew(cat(nulls(2 * R - 1, C), pad_cols(o_d, C)));
      }
      const i64 macs = std::min(R, ru) * std::min(C, cu);
      const i64 cycles_this_fold = util_mat.size() + util_mat[0].size() - 1;
      d.mapping.push_back(static_cast<double>(macs) / static_cast<double>(R * C));
      d.util.push_back(static_cast<double>(macs * T) / static_cast<double>(R * C * cycles_this_fold));
      d.ifmap = cat(std::move(d.ifmap), i_d), d.filter = cat(std::move(d.filter), f_d);
      d.ofmap = cat(std::move(d.ofmap), o_d);
    }
  return d;
}

// read_buffer_estimate_bw.ReadBufferEstimateBw with active_buf_frac 0.5, default bandwidth 10,
// behind a read_port of latency 1.
struct EstimateBuffer {
  explicit EstimateBuffer(i64 bytes) : items_per_set(bytes / 100) {}
  const i64 items_per_set, sets_active = 50, sets_prefetch = 50, latency = 1;
  i64 prefetch_bw = 10, current_set_id = 0, read_start = 0, read_end = 49, pf_start = -1, pf_end = -1;
  i64 last_start = -2, last_end = -1, first_cycle = 0;
  bool first_seen = false, active_done = false, trace_valid = false;
  std::unordered_set<i64> current;
  std::vector<std::unordered_set<i64>> sets;
  u64 num_access = 0;
  i64 trace_first = 0, trace_last = 0;

  void service(const std::vector<i64>& row, i64 cycle) {
    if (!first_seen && *std::max_element(row.begin(), row.end()) > -1) first_cycle = cycle, first_seen = true;
    for (const i64 addr : row)
      if (addr != -1) manage(cycle, addr);
  }
  bool hit(i64 addr) const {
    for (i64 i = read_start; i < std::min(current_set_id, read_end + 1); ++i)
      if (sets[i].count(addr)) return true;
    return false;
  }
  void manage(i64 cycle, i64 addr) {
    if (hit(addr) || current.count(addr)) return;
    current.insert(addr);
    if (static_cast<i64>(current.size()) != items_per_set) return;
    sets.push_back(std::move(current));
    current.clear();
    if (++current_set_id != read_end + 1) return;
    if (!active_done) {
      prefetch_bw = 10;
      last_end = first_cycle - 1 - latency;
      last_start = last_end - (sets_prefetch * items_per_set + prefetch_bw - 1) / prefetch_bw + 1;
      prefetch();
      pf_start = read_end + 1, pf_end = pf_start + sets_prefetch - 1;
      active_done = true;
    } else {
      const i64 cycles = last_end - last_start + 1;
      prefetch_bw = (sets_prefetch * items_per_set + cycles - 1) / cycles;
      prefetch();
      pf_start += sets_prefetch, pf_end += sets_prefetch;
    }
    for (i64 j = 0; j < sets_prefetch; ++j) sets[read_start + j].clear();
    read_start += sets_prefetch, read_end += sets_prefetch;
    last_start = last_end + 1, last_end = cycle;
  }
  void prefetch(i64 first_set, i64 last_set) {
    u64 n = 0;
    for (i64 i = first_set; i <= last_set; ++i) n += sets[i].size();
    num_access += n;
    const i64 cycles = last_end - last_start + 1;
    EXPECT_LE(n, static_cast<u64>(cycles * prefetch_bw)) << "numpy reshape would fail";
    if (!trace_valid) trace_first = last_start + latency, trace_valid = true;
    if (cycles > 0) trace_last = last_end + latency;
  }
  void prefetch() { active_done ? prefetch(pf_start, pf_end) : prefetch(0, sets_active - 1); }
  void complete_all() {
    if (!current.empty()) sets.push_back(current);
    else current_set_id -= 1;
    if (!active_done) {
      last_end = -1 - latency;
      const i64 n = current_set_id + 1;
      last_start = last_end - (n * items_per_set + 9) / 10 + 1;
      prefetch(0, n - 1);
    } else {
      pf_end = current_set_id;
      const i64 cycles = last_end - last_start + 1;
      prefetch_bw = ((current_set_id - pf_start + 1) * items_per_set + cycles - 1) / cycles;
      prefetch(pf_start, pf_end);
    }
  }
};

// write_buffer.write_buffer, active_buf_frac 0.5, backing bandwidth = array columns, write port
// latency 0. Lines hold counts of valid words; the line cache is left out, as every drain
// follows a forced append that empties it into the trace.
struct WriteBuffer {
  WriteBuffer(i64 bytes, i64 bw) : total(bytes), drain_size(bytes - (bytes + 1) / 2), bw(bw), free_space(bytes) {}
  const i64 total, drain_size, bw;
  i64 free_space, line_idx = 0, drain_start = 0, drain_end_cycle = 0;
  std::vector<i64> lines;
  u64 num_access = 0;
  bool trace_valid = false, stalled = false;
  i64 first = 0, last = 0;

  i64 service(const std::vector<i64>& row, i64 cycle) {
    i64 current = cycle;
    for (const i64 e : row) {
      if (e == -1) continue;
      ++line_idx, --free_space;
      if (line_idx == bw) lines.push_back(bw), line_idx = 0;
      if (current < drain_end_cycle) {
        if (free_space <= 0) stalled = true;
      } else if (free_space < total - drain_size) {
        force();
        drain_end_cycle = drain(current);
      }
    }
    return current;
  }
  void force() {
    if (line_idx != 0) lines.push_back(line_idx), line_idx = 0;
  }
  i64 drain(i64 start_cycle) {
    const i64 end = std::min<i64>(drain_start + (drain_size + bw - 1) / bw, lines.size());
    const i64 n = end - drain_start;
    const i64 words = n * bw - (bw - lines[end - 1]);
    num_access += words, free_space += words;
    if (!trace_valid) first = start_cycle, trace_valid = true;
    last = start_cycle + n - 1;
    drain_start = end;
    return start_cycle + n - 1;
  }
  void empty_all(i64 cycle) {
    force();
    while (drain_start < static_cast<i64>(lines.size())) {
      drain_end_cycle = drain(cycle);
      cycle = drain_end_cycle + 1;
    }
  }
};

LayerReport run(const ArrayConfig& a, const Layer& l) {
  const Demand d = build(a, l);
  EstimateBuffer ifmap(a.ifmap_sram_kb * 1024), filter(a.filter_sram_kb * 1024);
  WriteBuffer ofmap(a.ofmap_sram_kb * 1024, a.cols);
  const i64 rows = d.ofmap.size();
  i64 out = 0;
  for (i64 i = 0; i < rows; ++i) {
    ifmap.service(d.ifmap[i], i);
    filter.service(d.filter[i], i);
    out = ofmap.service(d.ofmap[i], i);
  }
  ifmap.complete_all();
  filter.complete_all();
  ofmap.empty_all(out);
  EXPECT_FALSE(ofmap.stalled);

  LayerReport r;
  r.total_cycles = out;
  double m = 0, u = 0;
  for (double x : d.mapping) m += x;
  for (double x : d.util) u += x;
  r.mapping_efficiency_pct = m / static_cast<double>(d.mapping.size()) * 100;
  r.compute_util_pct = u / static_cast<double>(d.util.size()) * 100;
  const i64 num_compute = l.ofmap_pixels() * l.num_filters * l.window();
  r.overall_util_pct = static_cast<double>(num_compute * 100) / static_cast<double>(out * a.rows * a.cols);
  auto span = [](const Mat& mat, i64 latency, i64& start, i64& stop) {  // get_*_sram_start_stop_cycles
    auto valid = [](const std::vector<i64>& row) { return *std::max_element(row.begin(), row.end()) != -1; };
    for (i64 i = 0; i < static_cast<i64>(mat.size()); ++i)
      if (valid(mat[i])) { start = i + latency; break; }
    for (i64 i = mat.size() - 1; i >= 0; --i)
      if (valid(mat[i])) { stop = i + latency; break; }
  };
  span(d.ifmap, 1, r.sram_ifmap_start, r.sram_ifmap_stop);
  span(d.filter, 1, r.sram_filter_start, r.sram_filter_stop);
  span(d.ofmap, 0, r.sram_ofmap_start, r.sram_ofmap_stop);
  r.sram_ifmap_reads = d.ifmap_reads, r.sram_filter_reads = d.filter_reads, r.sram_ofmap_writes = d.ofmap_writes;
  r.dram_ifmap_reads = ifmap.num_access, r.dram_ifmap_start = ifmap.trace_first, r.dram_ifmap_stop = ifmap.trace_last;
  r.dram_filter_reads = filter.num_access, r.dram_filter_start = filter.trace_first;
  r.dram_filter_stop = filter.trace_last;
  r.dram_ofmap_writes = ofmap.num_access, r.dram_ofmap_start = ofmap.first, r.dram_ofmap_stop = ofmap.last;
  return r;
}

}  // namespace direct

void expect_same(const LayerReport& a, const LayerReport& b) {
  EXPECT_EQ(a.total_cycles, b.total_cycles);
  EXPECT_EQ(a.overall_util_pct, b.overall_util_pct);
  EXPECT_EQ(a.mapping_efficiency_pct, b.mapping_efficiency_pct);
  EXPECT_EQ(a.compute_util_pct, b.compute_util_pct);
  EXPECT_EQ(a.sram_ifmap_start, b.sram_ifmap_start);
  EXPECT_EQ(a.sram_ifmap_stop, b.sram_ifmap_stop);
  EXPECT_EQ(a.sram_ifmap_reads, b.sram_ifmap_reads);
  EXPECT_EQ(a.sram_filter_start, b.sram_filter_start);
  EXPECT_EQ(a.sram_filter_stop, b.sram_filter_stop);
  EXPECT_EQ(a.sram_filter_reads, b.sram_filter_reads);
  EXPECT_EQ(a.sram_ofmap_start, b.sram_ofmap_start);
  EXPECT_EQ(a.sram_ofmap_stop, b.sram_ofmap_stop);
  EXPECT_EQ(a.sram_ofmap_writes, b.sram_ofmap_writes);
  EXPECT_EQ(a.dram_ifmap_start, b.dram_ifmap_start);
  EXPECT_EQ(a.dram_ifmap_stop, b.dram_ifmap_stop);
  EXPECT_EQ(a.dram_ifmap_reads, b.dram_ifmap_reads);
  EXPECT_EQ(a.dram_filter_start, b.dram_filter_start);
  EXPECT_EQ(a.dram_filter_stop, b.dram_filter_stop);
  EXPECT_EQ(a.dram_filter_reads, b.dram_filter_reads);
  EXPECT_EQ(a.dram_ofmap_start, b.dram_ofmap_start);
  EXPECT_EQ(a.dram_ofmap_stop, b.dram_ofmap_stop);
  EXPECT_EQ(a.dram_ofmap_writes, b.dram_ofmap_writes);
}

TEST(ScaleSimCompat, MatchesACycleByCycleTranscriptionOnRandomLayers) {
  std::mt19937 rng(20240611);
  auto pick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
  for (int n = 0; n < 300; ++n) {
    ArrayConfig a;
    a.rows = pick(1, 9), a.cols = pick(1, 9);
    a.dataflow = std::array{OS, WS, IS}[pick(0, 2)];
    // Small SRAMs (groups of 500 or 1,000 addresses, drains of 512 or 1,024 words) so that
    // group completions, in-run drains and padded drain lines all occur.
    a.ifmap_sram_kb = pick(1, 4) / 4 + 1, a.filter_sram_kb = pick(1, 4) / 4 + 1, a.ofmap_sram_kb = pick(1, 2);
    Layer l;
    if (pick(0, 2) == 0) {
      l = gemm_layer("g", pick(1, 64), pick(1, 64), pick(1, 64));
    } else {
      const i64 h = pick(1, 16), w = pick(1, 16);
      l = conv("c", h, w, pick(1, std::min<i64>(h, 4)), pick(1, std::min<i64>(w, 4)), pick(1, 6), pick(1, 16), pick(1, 4));
      if (pick(0, 3) == 0) l.stride_w = pick(1, 4);
    }
    SCOPED_TRACE(fmt::format("case {}: {}×{} df {} kb {}/{}/{}; {}×{} filter {}×{} ch {} nf {} stride {}/{}", n, a.rows,
                             a.cols, static_cast<int>(a.dataflow), a.ifmap_sram_kb, a.filter_sram_kb, a.ofmap_sram_kb,
                             l.ifmap_h, l.ifmap_w, l.filter_h, l.filter_w, l.channels, l.num_filters, l.stride,
                             l.stride_w));
    expect_same(simulate_layer(a, l), direct::run(a, l));
    if (::testing::Test::HasFailure()) break;
  }
}

TEST(ScaleSimCompat, MatchesTheTranscriptionOnATableLayer) {
  const Layer g = table_layer(1);
  for (const i64 size : {32, 128})
    for (const Dataflow df : {OS, WS, IS}) expect_same(simulate_layer(array(size, df), g), direct::run(array(size, df), g));
}

// ---------------------------------------------------------------------------------------------
// Files.

constexpr const char* kConfigV2 = R"([general]
run_name = a32_os
[architecture_presets]
ArrayHeight: 32
ArrayWidth: 16
IfmapSramSzkB: 64
FilterSramSzkB: 128
OfmapSramSzkB: 32
IfmapOffset: 0
FilterOffset: 10000000
OfmapOffset: 20000000
Bandwidth : 10
Dataflow : ws
MemoryBanks: 1
[run_presets]
InterfaceBandwidth: CALC
)";

TEST(ScaleSimFiles, ReadsAV2Config) {
  testing::TempDir dir;
  const ScaleSimConfig c = read_config(dir.write("a.cfg", kConfigV2));
  EXPECT_EQ(c.run_name, "a32_os");
  EXPECT_EQ(c.array.rows, 32);
  EXPECT_EQ(c.array.cols, 16);
  EXPECT_EQ(c.array.dataflow, WS);
  EXPECT_EQ(c.array.ifmap_sram_kb, 64);
  EXPECT_EQ(c.array.filter_sram_kb, 128);
  EXPECT_EQ(c.array.ofmap_sram_kb, 32);
  EXPECT_EQ(c.array.filter_offset, 10000000);
  EXPECT_TRUE(c.calc_bandwidth);
}

TEST(ScaleSimFiles, ReadsAV3Config) {
  testing::TempDir dir;
  const ScaleSimConfig c = read_config(dir.write("v3.cfg", R"(# SCALE-Sim v3
[general]
run_name = scale_example_run_32x32_os

[architecture_presets]
arrayheight =    8
ArrayWidth:     8
IFMAPSRAMSZKB :   64
FilterSramSzkB:  64
OfmapSramSzkB:   64
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : 10
Dataflow : is
MemoryBanks:   1
ReadRequestBuffer: 32
WriteRequestBuffer: 32

[layout]
IfmapCustomLayout: False
FilterCustomLayout: False

[sparsity]
SparsitySupport : false
SparseRep : ellpack_block

[run_presets]
InterfaceBandwidth: CALC
UseRamulatorTrace: False
)"));
  EXPECT_EQ(c.array.rows, 8);
  EXPECT_EQ(c.array.ifmap_sram_kb, 64);
  EXPECT_EQ(c.array.dataflow, IS);
}

// The error names the file, the line (and column) and the key.
void expect_input_error(const std::function<void()>& f, const std::string& where, const std::string& key) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  return s.replace(s.find(from), from.size(), to);
}

TEST(ScaleSimFiles, ConfigErrorsNameFileLineAndKey) {
  testing::TempDir dir;
  const std::string missing = dir.write("missing.cfg", replace(kConfigV2, "ArrayWidth: 16\n", ""));
  expect_input_error([&] { read_config(missing); }, "missing.cfg: error", "ArrayWidth");
  const std::string bad_df = dir.write("df.cfg", replace(kConfigV2, "Dataflow : ws", "Dataflow : rs"));
  expect_input_error([&] { read_config(bad_df); }, "df.cfg:13:12", "Dataflow");
  const std::string bad_num = dir.write("num.cfg", replace(kConfigV2, "ArrayHeight: 32", "ArrayHeight: 3x2"));
  expect_input_error([&] { read_config(bad_num); }, "num.cfg:4:14", "ArrayHeight");
  const std::string zero = dir.write("zero.cfg", replace(kConfigV2, "OfmapSramSzkB: 32", "OfmapSramSzkB: 0"));
  expect_input_error([&] { read_config(zero); }, "zero.cfg:8:", "OfmapSramSzkB");
  const std::string user = dir.write("user.cfg", replace(kConfigV2, "CALC", "USER"));
  expect_input_error([&] { read_config(user); }, "user.cfg:16", "InterfaceBandwidth");
  expect_input_error([&] { read_config(dir.file("nope.cfg")); }, "nope.cfg", "cannot open");
}

TEST(ScaleSimFiles, ReadsConvAndGemmTopologies) {
  testing::TempDir dir;
  const Topology conv_topo = read_topology(dir.write("conv.csv",
                                                     "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter "
                                                     "Width, Channels, Num Filter, Strides,\n"
                                                     "Conv1,  224, 224,    11, 11,    3,      96,     4,\n"
                                                     "\n"
                                                     ",,,,,,,,\n"
                                                     "Inc5b_3x3, 7, 7, 3, 3, 192, 384, 1,\n"
                                                     "CB1_DP, 9, 9, 3, 3, 2, 1, 1\n"));
  EXPECT_FALSE(conv_topo.gemm);
  ASSERT_EQ(conv_topo.layers.size(), 4u);  // the depthwise layer becomes one layer per channel
  EXPECT_EQ(conv_topo.layers[0].name, "Conv1");
  EXPECT_EQ(conv_topo.layers[0].stride, 4);
  EXPECT_EQ(conv_topo.layers[1].channels, 192);
  EXPECT_EQ(conv_topo.layers[3].name, "CB1_DPChannel_1");
  EXPECT_EQ(conv_topo.layers[3].channels, 1);
  EXPECT_TRUE(conv_topo.layers[3].depthwise);

  const Topology gemm = read_topology(dir.write("gemm.csv", "Layer,M,N,K,\nfc1, 1, 3072, 768,\nqkv,128,64,256,\n"));
  EXPECT_TRUE(gemm.gemm);
  ASSERT_EQ(gemm.layers.size(), 2u);
  EXPECT_EQ(gemm.layers[0].ifmap_h, 1);
  EXPECT_EQ(gemm.layers[0].num_filters, 3072);
  EXPECT_EQ(gemm.layers[0].window(), 768);
  EXPECT_EQ(gemm.layers[1].name, "qkv");

  const Topology batch = read_topology(dir.write("v3.csv", "Layer, M, N, K, Batch Size,\nfc, 4, 5, 6, 1,\n"));
  EXPECT_EQ(batch.layers[0].batch, 1);
}

TEST(ScaleSimFiles, TopologyErrorsNameFileLineAndColumn) {
  testing::TempDir dir;
  const std::string header = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";
  const std::string short_row = dir.write("short.csv", header + "Conv1, 224, 224, 11, 11, 3,\n");
  expect_input_error([&] { read_topology(short_row); }, "short.csv:2:", "Num Filter");
  const std::string bad = dir.write("bad.csv", header + "\nConv1, 224, 2x4, 11, 11, 3, 96, 4,\n");
  expect_input_error([&] { read_topology(bad); }, "bad.csv:3:13", "IFMAP Width");
  const std::string big = dir.write("big.csv", header + "Conv1, 5, 5, 7, 3, 3, 96, 4,\n");
  expect_input_error([&] { read_topology(big); }, "big.csv:2:", "Filter Height");
  const std::string unknown = dir.write("unknown.csv", "a,b,c\n1,2,3\n");
  expect_input_error([&] { read_topology(unknown); }, "unknown.csv:1:1", "header");
  expect_input_error([&] { read_topology(dir.file("none.csv")); }, "none.csv", "cannot open");
}

TEST(ScaleSimFiles, WritesScaleSimsReportHeaders) {
  testing::TempDir dir;
  const Layer g = gemm_layer("g", 128, 64, 256);
  const std::string out = (dir.path() / "run").string();
  write_reports(out, {g, g}, {simulate_layer(array(32, OS), g), simulate_layer(array(32, WS), g)});
  const std::string compute = testing::read_file(out + "/COMPUTE_REPORT.csv");
  EXPECT_EQ(compute.substr(0, compute.find('\n') + 1),
            "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n");
  EXPECT_NE(compute.find("\n0, 2543, 0, "), std::string::npos);
  EXPECT_NE(compute.find("\n1, 3551, 0, "), std::string::npos);
  const std::string bw = testing::read_file(out + "/BANDWIDTH_REPORT.csv");
  EXPECT_EQ(bw.substr(0, bw.find('\n') + 1),
            "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, Avg FILTER DRAM "
            "BW, Avg OFMAP DRAM BW,\n");
  const std::string detail = testing::read_file(out + "/DETAILED_ACCESS_REPORT.csv");
  EXPECT_EQ(detail.substr(0, detail.find('\n') + 1),
            "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM Filter Start Cycle, SRAM "
            "Filter Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, "
            "DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, DRAM Filter Start Cycle, DRAM Filter "
            "Stop Cycle, DRAM Filter Reads, DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n");
  EXPECT_EQ(std::count(detail.begin(), detail.end(), '\n'), 3);
  // No temporary files are left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(out), std::filesystem::directory_iterator()), 3);
}

TEST(ScaleSimFiles, PrintsFloatsAsPythonDoes) {
  EXPECT_EQ(python_float(100.0), "100.0");
  EXPECT_EQ(python_float(-3243.0), "-3243.0");
  EXPECT_EQ(python_float(0.1), "0.1");
  EXPECT_EQ(python_float(94.53125), "94.53125");
  EXPECT_EQ(python_float(1e-05), "1e-05");
  EXPECT_EQ(python_float(0.0001), "0.0001");
  EXPECT_EQ(python_float(1e16), "1e+16");
  EXPECT_EQ(python_float(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float(2.0 / 3), "0.6666666666666666");
  EXPECT_EQ(python_float(0.0), "0.0");
}

TEST(ScaleSimFiles, ShippedExamplesLoadAndRun) {
  const ScaleSimConfig c = read_config(testing::source_path("configs/scalesim/scalesim_32x32_os.cfg"));
  for (const char* topo : {"configs/scalesim/gemm_topology.csv", "configs/scalesim/conv_topology.csv"}) {
    const Topology t = read_topology(testing::source_path(topo));
    ASSERT_FALSE(t.layers.empty());
    for (const Layer& l : t.layers) EXPECT_GT(simulate_layer(c.array, l).total_cycles, 0u) << l.name;
  }
}

}  // namespace
}  // namespace strata::scalesim
