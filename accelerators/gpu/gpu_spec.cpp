#include "accelerators/gpu/gpu_spec.h"

#include <fmt/format.h>

#include "accelerators/gpu/gpu_mapper.h"
#include "accelerators/gpu/gpu_parts.h"
#include "accelerators/package/package_device.h"
#include "sim/input_error.h"
#include "sim/ports.h"
#include "sim/power_management.h"
#include "sim/registry.h"

namespace strata {

void check_gpu_config(const ValidatedNode& cfg) {
  const std::int64_t sms = cfg.params.integer("sms");
  if (cfg.params.integer("gpcs") > sms)
    throw InputError(cfg.params.where("gpcs"), cfg.path + ".gpcs", fmt::format("is more than the {} SMs", sms));
}

KindSpec gpu_spec() {
  KindSpec s;
  s.name = "gpu";
  s.description = "an NVIDIA-class GPU: streaming multiprocessors with sub-cores, tensor cores and shared memory";
  s.with_clock();  // the SM clock sustained under load (not only the boost clock)
  s.add(param::integer("sms", "streaming multiprocessors").def("132").range("1", "1024"));
  s.add(param::integer("kernel_launch",
                       "cycles from a kernel's turn to run (its launch, or the end of the kernel before it) to its "
                       "first CTA: the launch path through the driver and the GPU's front end")
            .def("0")
            .range("0", "100000000"));
  s.add(param::integer("gpcs",
                       "GPU processing clusters; the SMs are spread over them as evenly as whole TPCs (SM pairs) "
                       "allow, the larger GPCs first (H100 SXM: 132 SMs over 8 is 18, 18 and six of 16)")
            .def("8")
            .range("1", "1024"));
  s.add(param::integer(
            "max_cluster_size",
            "CTAs a thread-block cluster may have; 1: no clusters (before compute capability 9.0); 8: "
            "Hopper's portable limit; 16: its non-portable one (cudaFuncAttributeNonPortableClusterSizeAllowed)")
            .def("8")
            .range("1", "16"));
  add_power_management_params(s);
  s.add(param::quantity("die_area", UnitFamily::Area,
                        "the die's whole area, with clocks: the part the model does not build (I/O, NVLink, media "
                        "engines, control) leaks and is clocked like logic; 0 mm2: the modelled blocks only")
            .def("0 mm2")
            .range("0 mm2", "100000 mm2")
            .hash_only_when_changed());
  s.add(param::real("clock_gating",
                    "with clocks: the share of the clock tree that clock gating stops while the SMs hold no CTA "
                    "(the SMs' own, and the L2, crossbar and engines their work keeps busy), charged per SM-cycle "
                    "with a CTA resident; the rest runs whenever the clock does; 0: no gating")
            .def("0")
            .range("0", "1")
            .hash_only_when_changed());
  s.slot(SlotSpec{"sm", "one streaming multiprocessor (an sm role part; default sm)", kPartCategory, kSmRole, false,
                  nullptr, "sm"});
  s.slot(SlotSpec{"tensor_core", "the tensor core of each sub-core (a tensor_core role part; default tensor_core)",
                  kPartCategory, kTensorCoreRole, false, nullptr, "tensor_core"});
  s.slot(SlotSpec{"l2", "the L2 cache and the crossbar to it (a gpu_l2 role part; default l2)", kPartCategory,
                  kGpuL2Role, false, nullptr, "l2"});
  s.slot(SlotSpec{"kernels", "how operator graphs are lowered to kernels", "section", "", false, &gpu_kernels_spec()});
  s.slot(SlotSpec{"memory",
                  "the DRAM behind the L2 (a memory_target kind: dram, simple_memory); without it, kernels may not "
                  "touch global memory",
                  "component", kMemoryTargetRole, false, nullptr});
  s.provides(kGpuRole);
  s.provides(kPackageDeviceRole);
  return s;
}

ParamSpec sample_option() {
  return param::choice("sample", {"none", "waves"},
                       "waves: where a cycle-level GPU runs a kernel of an operator graph whose grid holds four or "
                       "more waves of identical CTAs, it simulates wave by wave until two consecutive waves after "
                       "the first complete within 3% of each other's rate, counts those two again for the later "
                       "whole waves (timing, energy and statistics; summary key skipped_ctas), and simulates the "
                       "wave in flight and the last partial wave. none: "
                       "simulate every CTA (as analytic runs, runs with a max_time and the GPUs of a package do). "
                       "docs/performance.md gives the error against full simulation (within 1% on latency and "
                       "energy on the shipped GEMMs)")
      .def("waves");
}

}  // namespace strata
