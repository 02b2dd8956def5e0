#include "memory/register_kinds.h"

#include "memory/dram/dram.h"
#include "memory/dram/dram_interface_cost.h"
#include "memory/flash/nand_cost.h"
#include "memory/flash/nand_flash.h"
#include "memory/request_player_workload.h"
#include "memory/simple_memory.h"
#include "sim/registry.h"

namespace strata {

void register_memory_kinds(Registry& r) {
  r.add_component<SimpleMemory>();
  r.add_component<Dram>();
  r.add_component<NandFlash>();
  r.add_workload<MemoryTraceWorkload>();
  r.add_workload<MemorySyntheticWorkload>();
  r.tech_sections().add(dram_cost_section());
  r.tech_sections().add(nand_cost_section());
}

}  // namespace strata
