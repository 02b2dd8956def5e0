#include "workloads/gpu/warp_program.h"

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

const WarpProgram& KernelLaunch::program_of(std::uint64_t cta, std::uint32_t warp) const {
  static const WarpProgram kEmpty;
  if (warp_programs.empty()) return *program;
  const auto& p = warp_programs.at(cta * warps_per_cta() + warp);
  return p ? *p : kEmpty;
}

}  // namespace strata
