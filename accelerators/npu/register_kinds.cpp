#include "accelerators/npu/register_kinds.h"

#include "accelerators/npu/npu.h"
#include "accelerators/npu/scalesim_workload.h"
#include "sim/registry.h"

namespace strata {

void register_npu_kinds(Registry& r) {
  r.add_component<Npu>();
  r.add_workload<ScaleSimTopologyWorkload>();
}

}  // namespace strata
