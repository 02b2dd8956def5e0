#include "models/register_kinds.h"

#include "models/cube/cube_engine.h"
#include "models/dma/dma_engine.h"
#include "models/host/roofline_host.h"
#include "models/link/chip_link.h"
#include "models/link/link_cost.h"
#include "models/noc/noc.h"
#include "models/noc/router_cost.h"
#include "models/scratchpad/scratchpad.h"
#include "models/systolic/systolic_array.h"
#include "models/vector/vector_unit.h"
#include "sim/registry.h"

namespace strata {

void register_model_kinds(Registry& r) {
  r.add_component<SystolicArray>();
  r.add_component<CubeEngine>();
  r.add_component<VectorUnit>();
  r.add_component<Scratchpad>();
  r.add_component<DmaEngine>();
  r.add_component<ChipLink>();
  r.add_component<Noc>();
  r.add_kind<CompanionHost>(roofline_host_spec(), make_roofline_host);
  r.tech_sections().add(link_cost_section());
  r.tech_sections().add(router_cost_section());
}

}  // namespace strata
