#include "workloads/gpu/warp_program.h"

#include <algorithm>

namespace strata {

const char* warp_op_name(WarpOp op) {
  switch (op) {
    case WarpOp::Int: return "int";
    case WarpOp::Fp32: return "fp32";
    case WarpOp::Fp64: return "fp64";
    case WarpOp::Sfu: return "sfu";
    case WarpOp::Mma: return "mma";
    case WarpOp::Wgmma: return "wgmma";
    case WarpOp::WgmmaWait: return "wgmma_wait";
    case WarpOp::Lds: return "lds";
    case WarpOp::Sts: return "sts";
    case WarpOp::Ldg: return "ldg";
    case WarpOp::Stg: return "stg";
    case WarpOp::Bar: return "bar";
    case WarpOp::Nop: return "nop";
    case WarpOp::CpAsync: return "cp_async";
    case WarpOp::CpAsyncCommit: return "cp_async_commit";
    case WarpOp::CpAsyncWait: return "cp_async_wait";
    case WarpOp::Tma: return "tma";
    case WarpOp::MbarInit: return "mbarrier_init";
    case WarpOp::MbarArrive: return "mbarrier_arrive";
    case WarpOp::MbarWait: return "mbarrier_wait";
    case WarpOp::LdsCluster: return "lds_cluster";
    case WarpOp::StsCluster: return "sts_cluster";
    case WarpOp::BarClusterArrive: return "bar_cluster_arrive";
    case WarpOp::BarClusterWait: return "bar_cluster_wait";
  }
  return "?";
}

const std::string* KernelLaunch::tensor_format() const {
  for (std::uint32_t w = 0; w < warps_per_cta(); ++w) {
    const WarpProgram& p = program_of(0, w);
    for (const auto* part : {&p.prologue, &p.body, &p.epilogue})
      for (const WarpInstruction& in : *part)
        if ((in.op == WarpOp::Mma || in.op == WarpOp::Wgmma) && in.format < p.formats.size())
          return &p.formats[in.format];
  }
  return nullptr;
}

const WarpProgram& KernelLaunch::program_of(std::uint64_t cta, std::uint32_t warp) const {
  static const WarpProgram kEmpty;
  if (warp_programs.empty()) {
    if (!cta_programs.empty()) {
      const std::size_t set = set_of(cta);
      const auto& p = cta_programs.at(set * warps_per_cta() + warp);
      return p ? *p : kEmpty;
    }
    return *program;
  }
  const auto& p = warp_programs.at(cta * warps_per_cta() + warp);
  return p ? *p : kEmpty;
}

TileCoord KernelLaunch::tile_of(std::uint64_t cta) const {
  const std::uint64_t plane = std::uint64_t{grid[0]} * grid[1];
  const auto z = static_cast<std::uint32_t>(cta / plane);
  const auto rank = static_cast<std::uint32_t>(cta % std::max<std::uint32_t>(1, cluster));
  std::uint64_t c = cta % plane;
  if (swizzle <= 1 || grid[1] <= 1)
    return {static_cast<std::uint32_t>(c % grid[0]), static_cast<std::uint32_t>(c / grid[0]), z, rank};
  // Bands of `swizzle` rows (the last band may be narrower), each walked column by column.
  const std::uint64_t band_cells = std::uint64_t{swizzle} * grid[0];
  const std::uint64_t band = c / band_cells;
  c %= band_cells;
  const std::uint64_t rows = std::min<std::uint64_t>(swizzle, grid[1] - band * swizzle);
  return {static_cast<std::uint32_t>(c / rows), static_cast<std::uint32_t>(band * swizzle + c % rows), z, rank};
}

}  // namespace strata
