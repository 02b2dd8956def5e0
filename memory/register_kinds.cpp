#include "memory/register_kinds.h"

#include "memory/memory_trace_workload.h"
#include "memory/simple_memory.h"
#include "sim/registry.h"

namespace strata {

void register_memory_kinds(Registry& r) {
  r.add_component<SimpleMemory>();
  r.add_workload<MemoryTraceWorkload>();
}

}  // namespace strata
