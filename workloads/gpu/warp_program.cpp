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
    case WarpOp::Nop: return "nop";
  }
  return "?";
}

}  // namespace strata
