#include "accelerators/mapping/gemm_tiling.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/rounding.h"

namespace strata {

const char* loop_order_name(LoopOrder o) {
  return o == LoopOrder::OutputResident ? "output_resident" : "weight_resident";
}

namespace {

// Multiples of `align` doubling up to the dimension, and the dimension itself.
std::vector<std::int64_t> sizes(std::int64_t dim, std::int64_t align) {
  std::vector<std::int64_t> out;
  for (std::int64_t s = std::max<std::int64_t>(1, align); s < dim && out.size() < 20; s *= 2) out.push_back(s);
  out.push_back(dim);
  return out;
}

constexpr double kRowPenalty = 512;         // bytes-equivalent per non-contiguous row
constexpr double kTileOverheadCycles = 64;  // per tile: DMA descriptors, buffer hand-over

// A dimension cut into tiles: `full` tiles of `size` and one remainder tile (0 when none).
struct Cut {
  std::int64_t size, full, rest;
};
Cut cut(std::int64_t dim, std::int64_t t) { return {t, dim / t, dim % t}; }

}  // namespace

GemmTiling choose_gemm_tiling(const MapperTarget& target, const GemmShape& g, int sharing_cores) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, double> memo;
  auto tile_cycles = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    auto key = std::make_tuple(m, n, k);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    const double c = static_cast<double>(target.matrix(MatrixWork{m, n, k, g.format}).cycles);
    memo.emplace(key, c);
    return c;
  };
  const double bw = target.memory_bytes_per_cycle / std::max(1, sharing_cores);
  const double a_total = static_cast<double>(g.m * g.k) * g.a_bytes;
  const double b_total = static_cast<double>(g.n * g.k) * g.b_bytes;
  const double c_total = static_cast<double>(g.m * g.n) * g.c_bytes;

  GemmTiling best;
  bool found = false;
  std::uint64_t candidates = 0;
  for (std::int64_t tm : sizes(g.m, target.align_m))
    for (std::int64_t tn : sizes(g.n, target.align_n))
      for (std::int64_t tk : sizes(g.k, target.align_k)) {
        const double a_tile = std::ceil(static_cast<double>(tm * tk) * g.a_bytes);
        const double b_tile = std::ceil(static_cast<double>(tn * tk) * g.b_bytes);
        const double c_tile = static_cast<double>(tm * tn) * static_cast<double>(target.accumulator_bytes);
        const auto footprint = static_cast<std::uint64_t>(target.buffers * (a_tile + b_tile + c_tile));
        if (footprint > target.scratchpad_bytes) continue;
        // Engine cycles over every tile: full tiles and the remainders of each dimension.
        double compute = 0;
        const Cut cm = cut(g.m, tm), cn = cut(g.n, tn), ck = cut(g.k, tk);
        for (auto [sm, nm] : {std::pair{cm.size, cm.full}, std::pair{cm.rest, std::int64_t{1}}})
          for (auto [sn, nn] : {std::pair{cn.size, cn.full}, std::pair{cn.rest, std::int64_t{1}}})
            for (auto [sk, nk] : {std::pair{ck.size, ck.full}, std::pair{ck.rest, std::int64_t{1}}}) {
              if (sm == 0 || sn == 0 || sk == 0 || nm == 0 || nn == 0 || nk == 0) continue;
              compute += static_cast<double>(nm * nn * nk) * tile_cycles(sm, sn, sk);
            }
        const double mt = static_cast<double>(ceil_div(g.m, tm)), nt = static_cast<double>(ceil_div(g.n, tn)),
                     kt = static_cast<double>(ceil_div(g.k, tk));
        for (LoopOrder order : {LoopOrder::OutputResident, LoopOrder::WeightResident}) {
          ++candidates;
          double bytes = 0;
          if (order == LoopOrder::OutputResident) {
            // m outer, n inner, k innermost: an A row block spanning all of K stays for every n.
            bytes = (tk == g.k ? a_total : a_total * nt) + b_total * mt + c_total;
          } else {
            // n outer, k, m innermost: a B tile stays for every m; C partial sums go out per k
            // tile and come back for the next.
            bytes = a_total * nt + b_total + c_total * (kt == 1 ? 1 : 2 * kt - 1);
          }
          // Rows of a block that do not span the whole K are separate memory rows: each costs
          // about one extra access of DRAM efficiency (row switches, partial bursts), charged as
          // kRowPenalty bytes. Every tile also costs a fixed issue and synchronisation overhead.
          const double penalty =
              tk == g.k ? 1.0 : 1.0 + kRowPenalty / std::max(1.0, static_cast<double>(tk) * std::min(g.a_bytes, g.b_bytes));
          const double tiles = mt * nt * kt;
          const double first_load = (a_tile + b_tile) / bw;
          const double estimate = std::max(compute, bytes * penalty / bw) + first_load + tiles * kTileOverheadCycles;
          const bool better = !found || estimate < best.estimated_cycles ||
                              (estimate == best.estimated_cycles && bytes < best.memory_bytes);
          if (better) {
            found = true;
            best = GemmTiling{tm, tn, tk, order, footprint, compute, bytes, estimate, 0};
          }
        }
      }
  if (!found)
    throw InputError(SourceLoc{}, "",
                     fmt::format("no tile of the {}x{}x{} GEMM fits a {} B scratchpad with {} buffers", g.m, g.n, g.k,
                                 target.scratchpad_bytes, target.buffers));
  best.candidates = candidates;
  return best;
}

}  // namespace strata
