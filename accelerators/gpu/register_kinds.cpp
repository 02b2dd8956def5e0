#include "accelerators/gpu/register_kinds.h"

#include "accelerators/gpu/accelsim_trace_workload.h"
#include "accelerators/gpu/gpu.h"
#include "accelerators/gpu/gpu_microbenchmark.h"
#include "accelerators/gpu/gpu_part_kinds.h"
#include "accelerators/gpu/gpu_spec.h"
#include "sim/registry.h"

namespace strata {

void register_gpu_kinds(Registry& r) {
  register_gpu_parts(r);
  r.add_component<Gpu>();
  r.add_sim_option(sample_option());
  r.add_workload<GpuMicrobenchmarkWorkload>();
  r.add_workload<AccelSimTraceWorkload>();
}

}  // namespace strata
