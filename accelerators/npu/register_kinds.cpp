#include "accelerators/npu/register_kinds.h"

#include "accelerators/npu/npu.h"
#include "accelerators/npu/scalesim_workload.h"
#include "models/cube/cube_engine.h"
#include "models/systolic/systolic_array.h"
#include "sim/registry.h"

namespace strata {

void register_npu_kinds(Registry& r) {
  r.add_component<SystolicArray>();
  r.add_component<CubeEngine>();
  r.add_component<Npu>();
  r.add_workload<ScaleSimTopologyWorkload>();
}

}  // namespace strata
