#include "accelerators/gpu/gpu_spec.h"

#include <fmt/format.h>

#include "accelerators/gpu/gpu_mapper.h"
#include "accelerators/package/package_device.h"
#include "sim/input_error.h"
#include "sim/ports.h"

namespace strata {

namespace {

constexpr double kMinTensorRate = 1.0 / 1024;

const KindSpec& sm_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "sm";
    s.category = "section";
    s.description = "one streaming multiprocessor: sub-cores, occupancy limits, pipes and shared memory";
    s.add(param::integer("sub_cores", "processing blocks, each with a warp scheduler issuing one warp instruction per cycle")
              .def("4")
              .range("1", "8"));
    s.add(param::integer("max_warps", "resident warps per SM").def("64").range("1", "256"));
    s.add(param::integer("max_ctas", "resident CTAs per SM").def("32").range("1", "256"));
    s.add(param::integer("max_threads_per_cta", "threads a CTA may have").def("1024").range("32", "4096"));
    s.add(param::integer("registers", "32-bit registers per SM, split evenly over the sub-cores").def("65536").range("1024", "1048576"));
    s.add(param::integer("max_registers_per_cta", "registers one CTA may hold").def("65536").range("1024", "1048576"));
    s.add(param::integer("max_registers_per_thread", "registers one thread may use").def("255").range("16", "1024"));
    s.add(param::integer("register_granularity", "registers per warp are allocated in units of this").def("256").range("1", "4096"));
    s.add(param::quantity("shared_memory", UnitFamily::Size, "the shared-memory carve-out of the L1/shared array")
              .def("228 KiB")
              .range("0 B", "16 MiB"));
    s.add(param::quantity("max_shared_per_cta", UnitFamily::Size, "shared memory one CTA may use").def("227 KiB").range("0 B", "16 MiB"));
    s.add(param::quantity("shared_reserved_per_cta", UnitFamily::Size, "shared memory the system reserves in every CTA")
              .def("1 KiB")
              .range("0 B", "64 KiB"));
    s.add(param::quantity("shared_granularity", UnitFamily::Size, "shared memory per CTA is allocated in units of this")
              .def("128 B")
              .range("1 B", "64 KiB"));
    s.add(param::choice("scheduler", {"gto", "lrr", "cggty"},
                        "gto: greedy then oldest; lrr: loose round robin; cggty: compiler-guided greedy then youngest "
                        "(stay on a warp until its yield bit, then the youngest ready warp)")
              .def("gto"));
    s.add(param::choice("dependences", {"scoreboard", "control_bits"},
                        "scoreboard: a per-register scoreboard; control_bits: the compiler's stall counts and "
                        "dependence counters carried by each instruction")
              .def("scoreboard"));
    const auto lanes = [&](const char* pipe, const char* def) {
      s.add(param::real(fmt::format("{}_lanes", pipe),
                        fmt::format("{} lanes per sub-core (a warp instruction holds the pipe 32 / lanes cycles; "
                                    "0.5: two sub-cores share one lane)",
                                    pipe))
                .def(def)
                .range("0.125", "64"));
    };
    const auto latency = [&](const char* pipe, const char* def) {
      s.add(param::integer(fmt::format("{}_latency", pipe), fmt::format("cycles from a {} instruction's issue to a dependent one's", pipe))
                .def(def)
                .range("1", "1000"));
    };
    lanes("int", "16");
    lanes("fp32", "32");
    lanes("fp64", "16");
    lanes("sfu", "4");
    latency("int", "4");
    latency("fp32", "4");
    latency("fp64", "8");
    latency("sfu", "21");
    s.add(param::integer("shared_banks", "shared-memory banks; one access per bank per cycle").def("32").range("1", "128"));
    s.add(param::quantity("bank_width", UnitFamily::Size, "bytes per bank access, a power of two").def("4 B").range("1 B", "64 B"));
    s.add(param::integer("shared_latency", "cycles from a conflict-free shared load's issue to its data").def("30").range("1", "1000"));
    s.add(
        param::quantity("l1_shared", UnitFamily::Size,
                        "the unified L1 data cache and shared-memory array; the L1 is what the shared_memory carve-out "
                        "leaves")
            .def("256 KiB")
            .range("0 B", "16 MiB"));
    s.add(param::integer("l1_ways", "L1 associativity (128 B lines of four 32 B sectors)").def("4").range("1", "64"));
    s.add(param::integer("l1_latency", "cycles from a global load's issue to its data on an L1 hit")
              .def("33")
              .range("1", "1000"));
    s.add(param::integer("dsm_latency",
                         "cycles from a load of another CTA's shared memory in the cluster (ld.shared::cluster on a "
                         "remote SM) to its data; a cluster access to the CTA's own shared memory takes shared_latency")
              .def("194")
              .range("1", "10000"));
    s.add(param::real("dsm_bytes_per_cycle",
                      "bytes a cycle the SM's port to the SM-to-SM network (distributed shared memory) moves for its "
                      "remote cluster loads and stores")
              .def("32")
              .range("1", "4096"));
    s.add(param::integer("shared_queue",
                         "wavefronts the shared-memory unit queues; a shared access issues only while fewer are waiting")
              .def("16")
              .range("1", "4096"));
    s.add(param::integer(
              "register_banks",
              "register-file banks per sub-core, each reading one warp-wide operand a cycle (register r in bank "
              "r mod banks); sources sharing a bank hold the issue a cycle each. 0: bank conflicts not modelled")
              .def("0")
              .range("0", "32"));
    s.add(
        param::boolean("tma", "a tensor memory accelerator (Hopper): TMA bulk copies into shared memory").def("true"));
    s.add(param::boolean("register_cache",
                         "a register-file cache per operand slot and bank: sources marked .reuse are read from it "
                         "without a bank cycle by the next instruction (needs register_banks)")
              .def("false"));
    return s;
  }();
  return spec;
}

const KindSpec& tensor_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "tensor_core";
    s.category = "section";
    s.description = "the tensor core of each sub-core";
    s.add(param::integer("macs_per_cycle", "dense multiply-accumulates per cycle per sub-core at rate 1 (FP16)")
              .def("512")
              .range("1", "1048576"));
    s.add(param::format_rates("rates",
                              "MACs per cycle of each operand format relative to macs_per_cycle, as format=rate "
                              "(tf32=0.5, int8=2), each from 1/1024 to 64; formats not listed have no tensor path")
              .def("fp16=1, bf16=1"));
    s.add(param::integer("mma_latency", "pipeline cycles of a synchronous mma after its MACs (dependent latency = MACs / rate + this)")
              .def("24")
              .range("0", "1000"));
    s.add(param::integer("wgmma_latency",
                         "pipeline cycles of an asynchronous warp-group wgmma after its MACs; 0: no wgmma (before Hopper)")
              .def("0")
              .range("0", "1000"));
    s.add(param::integer("wgmma_issue", "cycles a wgmma keeps its warp from issuing again").def("4").range("1", "100"));
    s.add(param::boolean("sparsity", "2:4 structured sparsity of A: twice the MACs per cycle").def("true"));
    return s;
  }();
  return spec;
}

const KindSpec& l2_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "l2";
    s.category = "section";
    s.description = "the L2 cache and the crossbar to it (gpu_l2.h)";
    s.add(param::quantity("size", UnitFamily::Size, "L2 capacity, all slices").def("50 MiB").range("128 KiB", "4 GiB"));
    s.add(param::integer("ways", "associativity (128 B lines of four 32 B sectors)").def("16").range("1", "64"));
    s.add(param::integer("slices", "slices the lines are hashed over").def("64").range("1", "1024"));
    s.add(param::integer("partitions", "partitions the slices and SMs are split into (a far slice costs far_latency)")
              .def("2")
              .range("1", "16"));
    s.add(param::integer("latency",
                         "cycles from a global load's issue to its data on a hit in a near slice (its lookahead: "
                         "the SMs run half of it ahead of the L2)")
              .def("260")
              .range("2", "10000"));
    s.add(
        param::integer("far_latency", "cycles more for a slice in the other partition").def("150").range("0", "10000"));
    s.add(param::integer("slice_sectors", "32 B sectors a slice reads or writes a cycle").def("2").range("1", "64"));
    s.add(param::integer("dram_latency",
                         "cycles from a slice's miss to its DRAM request, and again from the DRAM's answer "
                         "back to the slice (memory controller and fabric)")
              .def("100")
              .range("0", "10000"));
    return s;
  }();
  return spec;
}

}  // namespace

SmLimits read_limits(const Params& p) {
  SmLimits l;
  l.sub_cores = static_cast<int>(p.integer("sub_cores"));
  l.max_warps = static_cast<int>(p.integer("max_warps"));
  l.max_ctas = static_cast<int>(p.integer("max_ctas"));
  l.max_threads_per_cta = static_cast<int>(p.integer("max_threads_per_cta"));
  l.registers = static_cast<std::uint32_t>(p.integer("registers"));
  l.max_registers_per_cta = static_cast<std::uint32_t>(p.integer("max_registers_per_cta"));
  l.max_registers_per_thread = static_cast<int>(p.integer("max_registers_per_thread"));
  l.register_granularity = static_cast<int>(p.integer("register_granularity"));
  l.shared_bytes = static_cast<std::uint64_t>(p.quantity("shared_memory"));
  l.max_shared_per_cta = static_cast<std::uint64_t>(p.quantity("max_shared_per_cta"));
  l.shared_reserved_per_cta = static_cast<std::uint64_t>(p.quantity("shared_reserved_per_cta"));
  l.shared_granularity = static_cast<std::uint64_t>(p.quantity("shared_granularity"));
  return l;
}

SmTiming read_timing(const Params& sm, const Params& tc) {
  SmTiming t;
  t.sub_cores = static_cast<int>(sm.integer("sub_cores"));
  const std::string& sched = sm.string("scheduler");
  t.scheduler = sched == "lrr"     ? SmTiming::Scheduler::Lrr
                : sched == "cggty" ? SmTiming::Scheduler::Cggty
                                   : SmTiming::Scheduler::Gto;
  t.dependences = sm.string("dependences") == "control_bits" ? SmTiming::Dependences::ControlBits
                                                              : SmTiming::Dependences::Scoreboard;
  t.int_lanes = sm.real("int_lanes");
  t.fp32_lanes = sm.real("fp32_lanes");
  t.fp64_lanes = sm.real("fp64_lanes");
  t.sfu_lanes = sm.real("sfu_lanes");
  t.int_latency = static_cast<int>(sm.integer("int_latency"));
  t.fp32_latency = static_cast<int>(sm.integer("fp32_latency"));
  t.fp64_latency = static_cast<int>(sm.integer("fp64_latency"));
  t.sfu_latency = static_cast<int>(sm.integer("sfu_latency"));
  t.shared_banks = static_cast<int>(sm.integer("shared_banks"));
  t.bank_bytes = static_cast<int>(sm.quantity("bank_width"));
  t.shared_latency = static_cast<int>(sm.integer("shared_latency"));
  t.shared_queue = static_cast<int>(sm.integer("shared_queue"));
  t.register_banks = static_cast<int>(sm.integer("register_banks"));
  t.register_cache = sm.flag("register_cache");
  t.tma = sm.flag("tma");
  t.l1_ways = static_cast<int>(sm.integer("l1_ways"));
  t.l1_latency = static_cast<int>(sm.integer("l1_latency"));
  t.dsm_latency = static_cast<int>(sm.integer("dsm_latency"));
  t.dsm_bytes_per_cycle = sm.real("dsm_bytes_per_cycle");
  const double l1 = sm.quantity("l1_shared") - sm.quantity("shared_memory");
  t.l1_bytes = l1 > 0 ? static_cast<std::uint64_t>(l1) : 0;
  const auto base = static_cast<double>(tc.integer("macs_per_cycle"));
  for (const auto& [format, rate] : tc.format_rates("rates")) t.tensor_macs[format] = base * rate;
  t.mma_latency = static_cast<int>(tc.integer("mma_latency"));
  t.wgmma_latency = static_cast<int>(tc.integer("wgmma_latency"));
  t.wgmma_issue = static_cast<int>(tc.integer("wgmma_issue"));
  t.sparsity = tc.flag("sparsity");
  return t;
}


L2Config read_l2(const Params& l2) {
  L2Config c;
  c.bytes = static_cast<std::uint64_t>(l2.quantity("size"));
  c.ways = static_cast<int>(l2.integer("ways"));
  c.slices = static_cast<int>(l2.integer("slices"));
  c.partitions = static_cast<int>(l2.integer("partitions"));
  c.latency = static_cast<int>(l2.integer("latency"));
  c.far_latency = static_cast<int>(l2.integer("far_latency"));
  c.slice_sectors = static_cast<int>(l2.integer("slice_sectors"));
  c.dram_latency = static_cast<int>(l2.integer("dram_latency"));
  return c;
}

void check_gpu_config(const ValidatedNode& cfg) {
  const Params& sm = cfg.child("sm").params;
  if (const SmLimits l = read_limits(sm); l.max_shared_per_cta > l.shared_bytes)
    throw InputError(sm.where("max_shared_per_cta"), cfg.path + ".sm.max_shared_per_cta",
                     "is larger than the SM's shared_memory");
  const std::int64_t sms = cfg.params.integer("sms");
  if (cfg.params.integer("gpcs") > sms)
    throw InputError(cfg.params.where("gpcs"), cfg.path + ".gpcs", fmt::format("is more than the {} SMs", sms));
  if (const auto width = static_cast<std::uint64_t>(sm.quantity("bank_width")); (width & (width - 1)) != 0)
    throw InputError(sm.where("bank_width"), cfg.path + ".sm.bank_width",
                     fmt::format("{} B is not a power of two (banks are 1, 2, 4, ... 64 B wide)", width));
  // A rate far below any tensor core's (FP64 runs at 1/16 of FP16 on the A100 and H100) is a
  // typo, and its instructions would take longer than a run can represent.
  const Params& tc = cfg.child("tensor_core").params;
  for (const auto& [format, rate] : tc.format_rates("rates"))
    if (rate < kMinTensorRate)
      throw InputError(tc.where("rates"), cfg.path + ".tensor_core.rates",
                       fmt::format("{}={:g}: a rate is 1/1024 to 64", format, rate));
  if (sm.quantity("shared_memory") > sm.quantity("l1_shared"))
    throw InputError(sm.where("shared_memory"), cfg.path + ".sm.shared_memory",
                     "is larger than the SM's l1_shared array");
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
  s.slot(SlotSpec{"sm", "one streaming multiprocessor", "section", "", false, &sm_spec()});
  s.slot(SlotSpec{"tensor_core", "the tensor core of each sub-core", "section", "", false, &tensor_spec()});
  s.slot(SlotSpec{"l2", "the L2 cache and the crossbar to it", "section", "", false, &l2_spec()});
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
