#include "accelerators/builtin_kinds.h"

#include "accelerators/chiplet/register_kinds.h"
#include "accelerators/gnn/register_kinds.h"
#include "accelerators/gpu/register_kinds.h"
#include "accelerators/npu/register_kinds.h"
#include "accelerators/package/register_kinds.h"
#include "accelerators/pim/register_kinds.h"
#include "memory/register_kinds.h"
#include "models/register_kinds.h"
#include "rtl/register_kinds.h"
#include "workloads/register_kinds.h"

namespace strata {

void register_builtin_kinds(Registry& registry) {
  register_model_kinds(registry);
  register_memory_kinds(registry);
  register_workload_kinds(registry);
  register_npu_kinds(registry);
  register_gpu_kinds(registry);
  register_package_kinds(registry);
  register_pim_kinds(registry);
  register_gnn_kinds(registry);
  register_chiplet_kinds(registry);
  register_rtl_kinds(registry);
}

}  // namespace strata
