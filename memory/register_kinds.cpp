#include "memory/register_kinds.h"

#include "memory/dram/dram.h"
#include "memory/request_player_workload.h"
#include "memory/simple_memory.h"
#include "sim/registry.h"

namespace strata {

void register_memory_kinds(Registry& r) {
  r.add_component<SimpleMemory>();
  r.add_component<Dram>();
  r.add_workload<MemoryTraceWorkload>();
  r.add_workload<MemorySyntheticWorkload>();
}

}  // namespace strata
