#include "accelerators/gpu/kernels/grouped_gemm_kernel.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>


namespace strata {

GemmChoice choose_grouped_gemm(const GemmProblem& p, const std::vector<std::int64_t>& group_rows,
                               const GpuKernelTarget& target, const GemmConstraints& fixed) {
  std::int64_t rows = 0, active = 0;
  for (const std::int64_t m : group_rows)
    if (m > 0) {
      rows += m;
      ++active;
    }
  if (active == 0) throw std::invalid_argument(fmt::format("{}: no group has rows", p.name));
  GemmProblem mean = p;
  mean.m = (rows + active - 1) / active;
  mean.batch = 1;
  GemmConstraints c = fixed;
  c.split_k = 1;
  c.cluster_m = 1;
  return choose_gemm(mean, target, c);
}

GpuKernel make_grouped_gemm(const GemmProblem& p, const std::vector<std::int64_t>& group_rows, const GemmConfig& config,
                            const GpuKernelTarget& target) {
  if (config.split_k != 1 || config.cluster_m != 1)
    throw std::invalid_argument(fmt::format("{}: a grouped GEMM takes neither split-K nor clusters", p.name));
  const auto tile_m = static_cast<std::uint64_t>(config.tile_m);
  const auto pitch_a = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.k) * p.a_bytes));
  const auto pitch_b = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.k) * p.b_bytes));
  const auto pitch_c = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.n) * p.c_bytes));

  GpuKernel out;
  KernelLaunch& k = out.launch;
  std::vector<std::uint32_t> set_of_row;  // the CTA set (active group) of each tile row
  std::uint64_t first_row = 0, sets = 0;
  for (std::size_t g = 0; g < group_rows.size(); ++g) {
    const std::int64_t m = group_rows[g];
    if (m <= 0) continue;
    // Tile row y of the whole grid is the group's row (y - tile_y) * tile_m: the group's bases
    // are moved back by tile_y tiles (modular arithmetic, so the sum lands on the group's rows).
    const std::uint64_t tile_y = set_of_row.size();
    GemmProblem q = p;
    q.name = p.name;
    q.m = m;
    q.batch = 1;
    q.a = p.a + first_row * pitch_a - tile_y * tile_m * pitch_a;
    q.c = p.c + first_row * pitch_c - tile_y * tile_m * pitch_c;
    q.b = p.b + static_cast<std::uint64_t>(g) * static_cast<std::uint64_t>(p.n) * pitch_b;
    GpuKernel one = make_gemm(q, config, target, 0).front();
    if (sets == 0) {
      out = one;
      k.cta_programs.clear();
      out.flops = 0;
      out.min_bytes = 0;
      k.expected_dram_bytes = 0;
    }
    k.cta_programs.insert(k.cta_programs.end(), one.launch.cta_programs.begin(), one.launch.cta_programs.end());
    out.flops += one.flops;
    out.min_bytes += one.min_bytes;
    k.expected_dram_bytes += one.launch.expected_dram_bytes;
    set_of_row.insert(set_of_row.end(), one.launch.grid[1], static_cast<std::uint32_t>(sets));
    first_row += static_cast<std::uint64_t>(m);
    ++sets;
  }
  if (sets == 0) throw std::invalid_argument(fmt::format("{}: no group has rows", p.name));
  k.grid = {k.grid[0], static_cast<std::uint32_t>(set_of_row.size()), 1};
  k.cta_sets.resize(k.ctas());
  for (std::uint64_t c = 0; c < k.ctas(); ++c) k.cta_sets[c] = set_of_row[k.tile_of(c)[1]];
  out.generator = "grouped_" + out.generator;
  out.choices["groups"] = static_cast<double>(sets);
  return out;
}

}  // namespace strata
