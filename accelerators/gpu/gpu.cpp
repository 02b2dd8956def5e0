#include "accelerators/gpu/gpu.h"

#include <algorithm>
#include <iterator>
#include <queue>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/gpu_analytic.h"
#include "sim/input_error.h"
#include "sim/interrupt.h"
#include "sim/kernel.h"
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

}  // namespace

KindSpec Gpu::spec() {
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

Gpu::Gpu(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      sms_(static_cast<int>(params().integer("sms"))),
      max_cluster_(static_cast<int>(params().integer("max_cluster_size"))),
      kernel_launch_(static_cast<std::uint64_t>(params().integer("kernel_launch"))),
      limits_(read_limits(cfg.child("sm").params)),
      timing_(read_timing(cfg.child("sm").params, cfg.child("tensor_core").params)),
      kernels_(counter("kernels", "kernels", "kernels run")),
      ctas_(counter("ctas", "CTAs", "CTAs run")),
      skipped_ctas_(counter("sample.skipped_ctas", "CTAs",
                            "CTAs not simulated: sim.sample: waves counted two measured steady waves again for them")),
      warp_instructions_(counter("warp_instructions", "instructions", "warp instructions issued")),
      sm_busy_cycles_(counter("sm_busy_cycles", "cycles", "SM-cycles with a CTA resident, summed over SMs")) {
  if (limits_.max_shared_per_cta > limits_.shared_bytes)
    throw InputError(cfg.child("sm").params.where("max_shared_per_cta"), cfg.path + ".sm.max_shared_per_cta",
                     "is larger than the SM's shared_memory");
  if (params().integer("gpcs") > sms_)
    throw InputError(params().where("gpcs"), cfg.path + ".gpcs", fmt::format("is more than the {} SMs", sms_));
  gpc_sizes_ = gpc_sizes(sms_, static_cast<int>(params().integer("gpcs")));
  const Params& sm = cfg.child("sm").params;
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
  try {
    for (int i = 0; i < sms_; ++i) cores_.push_back(std::make_unique<SmCore>(timing_, i));
  } catch (const std::invalid_argument& e) {
    throw InputError(sm.where("l1_ways"), cfg.path + ".sm.l1_ways", e.what());
  }
  for (auto& core : cores_)
    core->connect_clusters([this](std::uint64_t cluster, std::uint32_t phase,
                                  std::uint64_t cycle) { cluster_barrier(cluster, cycle, false, phase); },
                           [this](std::uint64_t cluster, std::uint32_t arrivals, std::uint64_t cycle) {
                             cluster_barrier(cluster, cycle, true, arrivals);
                           });
  if (cfg.children.count("memory")) {
    const Params& l2 = cfg.child("l2").params;
    L2Config c;
    c.bytes = static_cast<std::uint64_t>(l2.quantity("size"));
    c.ways = static_cast<int>(l2.integer("ways"));
    c.slices = static_cast<int>(l2.integer("slices"));
    c.partitions = static_cast<int>(l2.integer("partitions"));
    c.latency = static_cast<int>(l2.integer("latency"));
    c.far_latency = static_cast<int>(l2.integer("far_latency"));
    c.slice_sectors = static_cast<int>(l2.integer("slice_sectors"));
    c.dram_latency = static_cast<int>(l2.integer("dram_latency"));
    try {
      l2_ = std::make_unique<GpuL2>(
          c, sms_,
          [this](int s, std::uint64_t id, std::uint64_t cycle) {
            cores_[static_cast<std::size_t>(s)]->complete(id, cycle);
          },
          [this](std::uint64_t cycle, std::uint64_t address, std::uint32_t bytes, bool write, std::uint64_t tag) {
            DramPort& p = *dram_ports_[static_cast<std::size_t>(dram_->queue_of(address))];
            p.queue.push(DramRequest{cycle, dram_seq_++, address, tag, bytes, write});
            p.queued.notify(sc_core::SC_ZERO_TIME);
          });
    } catch (const std::invalid_argument& e) {
      throw InputError(l2.where("size"), cfg.path + ".l2.size", e.what());
    }
    for (auto& core : cores_) core->connect([this](const GlobalAccess& a) { window_.push_back(a); });
    memory_component_ = build_child("memory");
    dram_ = &dynamic_cast<MemoryTarget&>(*memory_component_);
    TargetSocket& target = dram_->target_socket();
    for (int i = 0; i < dram_->queues(); ++i) {
      auto p = std::make_unique<DramPort>();
      p->port = std::make_unique<AtInitiator>(
          fmt::format("dram_port{}", i).c_str(), [this](tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
            auto& d = static_cast<DramPayload&>(gp);
            if (!gp.is_write())
              l2_->dram_done(d.tag, clock().cycle_at(clock().next_edge(sc_core::sc_time_stamp() + delay)));
          });
      bind_at(ctx, p->port->socket(), target, fmt::format("{}.l2.port{}", basename(), i));
      dram_ports_.push_back(std::move(p));
    }
    scratch_.resize(kLineBytes);
  }
  declare_costs();
  ctx.report("warp_instructions", stat_name("warp_instructions"));
  SC_HAS_PROCESS(Gpu);
  SC_THREAD(run);
  for (std::size_t i = 0; i < dram_ports_.size(); ++i) {
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn(sc_bind(&Gpu::issue_dram, this, static_cast<int>(i)), fmt::format("l2_port{}", i).c_str(),
                      &options);
  }
}

Gpu::~Gpu() = default;

void Gpu::declare_costs() {
  const TechTable& t = tech();
  const double sms = sms_, subs = timing_.sub_cores;
  // A sub-core's register file: registers / sub-cores of 32 bits in two banks, read and
  // written a warp (1024 bits) at a time [V] Huerta et al.
  const SramCost rf = t.sram(limits_.registers * 4.0 / subs, 1024, 2);
  events_.rf_read = &energy_event("rf_read", rf.read_j, "warp-wide register reads (1024 bits)");
  events_.rf_write = &energy_event("rf_write", rf.write_j, "warp-wide register writes (1024 bits)");
  add_area("register_files", rf.area_mm2 * subs * sms, rf.leakage_w * subs * sms);
  // Shared memory: 32 banks of 4 B, one wavefront (1024 bits) an access.
  if (limits_.shared_bytes > 0) {
    const SramCost shared = t.sram(static_cast<double>(limits_.shared_bytes), timing_.shared_banks * timing_.bank_bytes * 8,
                                   timing_.shared_banks);
    events_.shared = &energy_event("shared_wavefront", shared.read_j, "shared-memory wavefronts");
    add_area("shared_memory", shared.area_mm2 * sms, shared.leakage_w * sms);
  }
  // The L1 (the rest of the L1/shared array) and the L2 slices, a 32 B sector an access.
  if (timing_.l1_bytes > 0) {
    const SramCost l1 = t.sram(static_cast<double>(timing_.l1_bytes), kSectorBytes * 8, 4);
    events_.l1 = &energy_event("l1_sector", l1.read_j, "L1 sectors read (hits) and filled");
    add_area("l1", l1.area_mm2 * sms, l1.leakage_w * sms);
  }
  if (l2_) {
    const Params& l2 = config().child("l2").params;
    const double slices = static_cast<double>(l2.integer("slices"));
    const SramCost slice = t.sram(l2.quantity("size") / slices, kSectorBytes * 8, 1);
    events_.l2 = &energy_event("l2_sector", slice.read_j, "L2 sectors read, written and filled");
    add_area("l2", slice.area_mm2 * slices, slice.leakage_w * slices);
  }
  const auto lanes = [&](const char* name, const UnitCost& c, double per_sub_core, const char* what) {
    add_area(name, c.area_mm2 * per_sub_core * subs * sms, c.leakage_w * per_sub_core * subs * sms);
    return &energy_event(name, c.energy_j, what);
  };
  UnitCost imad = t.op("mul.int32");
  imad.energy_j += t.op("add.int32").energy_j;
  imad.area_mm2 += t.op("add.int32").area_mm2;
  imad.leakage_w += t.op("add.int32").leakage_w;
  events_.fp32 = lanes("fp32_lanes", t.mac("fp32"), timing_.fp32_lanes, "FP32 lane operations (FFMA)");
  events_.fp64 = lanes("fp64_lanes", t.mac("fp64"), timing_.fp64_lanes, "FP64 lane operations (DFMA)");
  events_.integer = lanes("int_lanes", imad, timing_.int_lanes, "INT32 lane operations (IMAD)");
  events_.sfu = lanes("sfus", t.op("sfu.fp32"), timing_.sfu_lanes, "special-function lane operations");
  // Tensor cores: a lane that does r MACs of a format a cycle has r multipliers; the lane is
  // sized for the format that needs the most silicon.
  const double base = static_cast<double>(config().child("tensor_core").params.integer("macs_per_cycle"));
  double lane_mm2 = 0, lane_leak = 0;
  for (const auto& [format, macs] : timing_.tensor_macs) {
    const UnitCost mac = t.mac(format);
    const double rate = macs / base;
    lane_mm2 = std::max(lane_mm2, mac.area_mm2 * std::max(1.0, rate));
    lane_leak = std::max(lane_leak, mac.leakage_w * std::max(1.0, rate));
    events_.macs[format] = &energy_event("mac_" + format, mac.energy_j, fmt::format("tensor-core MACs in {}", format));
  }
  add_area("tensor_cores", lane_mm2 * base * subs * sms, lane_leak * base * subs * sms);
}

void Gpu::launch(KernelLaunch kernel, std::function<void(const KernelRun&)> done, bool may_sample) {
  const auto any = [&kernel](auto&& pred) {  // some warp program of the kernel has an instruction that...
    const auto in_program = [&pred](const WarpProgram* p) {
      if (!p) return false;
      for (const auto* part : {&p->prologue, &p->body, &p->epilogue})
        if (std::any_of(part->begin(), part->end(), pred)) return true;
      return false;
    };
    const auto in_any = [&](const auto& programs) {
      return std::any_of(programs.begin(), programs.end(), [&](const auto& p) { return in_program(p.get()); });
    };
    return in_program(kernel.program.get()) || in_any(kernel.warp_programs) || in_any(kernel.cta_programs);
  };
  const bool global = any([](const WarpInstruction& in) { return in.global(); });
  const bool barriers = any(
      [](const WarpInstruction& in) { return in.op == WarpOp::BarClusterArrive || in.op == WarpOp::BarClusterWait; });
  if (global && !l2_)
    throw std::invalid_argument(fmt::format(
        "kernel {}: global loads and stores need a memory behind the L2 (the gpu's `memory`)", kernel.name));
  Pending p;
  p.global = global;
  p.occupancy = occupancy(limits_, kernel.threads_per_cta(), kernel.registers_per_thread, kernel.shared_bytes);
  p.clusters = active_clusters(kernel, p.occupancy);
  p.cluster_barriers = barriers && kernel.cluster > 1;
  p.may_sample = may_sample;
  p.kernel = std::move(kernel);
  p.done = std::move(done);
  queue_.push_back(std::move(p));
  launched_.notify(sc_core::SC_ZERO_TIME);
}

void Gpu::cluster_barrier(std::uint64_t cluster, std::uint64_t cycle, bool exit, std::uint32_t count) {
  const auto it = clusters_.find(cluster);
  if (it == clusters_.end()) return;  // a kernel without cluster barriers
  ClusterBarrier& b = it->second.barrier;
  if (exit) b.exit(count);
  else b.arrive(count);
  // The arrive reaches the cluster's other SMs, and their release comes back, over the SM-to-SM
  // network: the phase completes dsm_latency after the last arrive [E].
  if (b.advance())
    for (int s : it->second.sms)
      cores_[static_cast<std::size_t>(s)]->cluster_release(cluster, b.phase,
                                                           cycle + static_cast<std::uint64_t>(timing_.dsm_latency));
}

std::uint64_t Gpu::active_clusters(const KernelLaunch& k, const Occupancy& o) const {
  return strata::active_clusters(gpc_sizes_, max_cluster_, k.ctas(), k.cluster, o.ctas_per_sm);
}

double Gpu::energy_of(const SmCounts& c) const {
  double j = events_.rf_read->joules_per_event() * static_cast<double>(c.rf_reads) +
             events_.rf_write->joules_per_event() * static_cast<double>(c.rf_writes);
  const auto lanes = [&](EnergyEvent* e, WarpOp op) {
    return e->joules_per_event() * static_cast<double>(c.thread_ops[static_cast<int>(op)]);
  };
  j += lanes(events_.fp32, WarpOp::Fp32) + lanes(events_.fp64, WarpOp::Fp64) + lanes(events_.integer, WarpOp::Int) +
       lanes(events_.sfu, WarpOp::Sfu);
  if (events_.shared) j += events_.shared->joules_per_event() * static_cast<double>(c.shared_wavefronts);
  if (events_.l1) j += events_.l1->joules_per_event() * static_cast<double>(c.l1_hit_sectors + c.l1_miss_sectors);
  for (const auto& [f, n] : c.tensor_macs) j += events_.macs.at(f)->joules_per_event() * static_cast<double>(n);
  return j;
}

SmCounts Gpu::totals() const {
  SmCounts total;
  std::vector<const SmCounts*> all{&analytic_, &reused_};
  for (const auto& c : cores_) all.push_back(&c->counts());
  for (const SmCounts* part : all) {
    total.add(*part);
    total.busy_cycles += part->busy_cycles;
    total.ctas += part->ctas;
  }
  return total;
}

KernelRun Gpu::evaluate(const KernelLaunch& kernel) {
  KernelRun r;
  r.occupancy = occupancy(limits_, kernel.threads_per_cta(), kernel.registers_per_thread, kernel.shared_bytes);
  r.clusters = active_clusters(kernel, r.occupancy);
  MemoryEstimate m;
  const double hz = static_cast<double>(clock().frequency_hz());
  AnalyticMemory* dram = dram_ ? &analytic_memory(*dram_, memory_component_->config()) : nullptr;
  if (l2_) {
    const Params& l2 = config().child("l2").params;
    m.l1_bytes = timing_.l1_bytes;
    m.l1_latency = timing_.l1_latency;
    m.l2_bytes = static_cast<std::uint64_t>(l2.quantity("size"));
    // Half the slices are in the other partition: half the far penalty on average.
    m.l2_latency = static_cast<double>(l2.integer("latency")) + static_cast<double>(l2.integer("far_latency")) / 2;
    m.dram_latency =
        m.l2_latency + 2.0 * static_cast<double>(l2.integer("dram_latency")) + dram->unloaded_latency(false) * hz;
    m.l2_bytes_per_cycle = static_cast<double>(l2.integer("slices") * l2.integer("slice_sectors") * kSectorBytes);
    m.dram_bytes_per_cycle = dram->sustained_bandwidth() / hz;
  }
  KernelEstimate e;
  const std::uint64_t last = clock().cycle_at(sc_core::sc_max_time());
  const double begin = static_cast<double>(analytic_cycle_ + kernel_launch_);
  try {
    e = estimate_kernel(kernel, r.occupancy, timing_, sms_, m, r.clusters * kernel.cluster);
  } catch (const CycleOverflow&) {
    throw unrepresentable(static_cast<double>(kMaxCycles) + begin);
  }
  if (begin + static_cast<double>(e.cycles) > static_cast<double>(last))
    throw unrepresentable(begin + static_cast<double>(e.cycles));
  r.launch_cycle = analytic_cycle_;
  r.start_cycle = analytic_cycle_ += kernel_launch_;
  r.end_cycle = analytic_cycle_ += e.cycles;
  r.dram_bytes = e.dram_bytes;
  if (dram && e.dram_bytes > 0) {
    // The DRAM counts the kernel's traffic as a stream from every SM over its run.
    AnalyticTransfer t;
    t.rows = 1;
    t.row_bytes = e.dram_bytes;
    t.requests = e.dram_bytes / kLineBytes;
    t.request_align = kLineBytes;
    t.streams = sms_;
    t.start_s = static_cast<double>(r.start_cycle) / hz;
    t.end_s = static_cast<double>(r.end_cycle) / hz;
    dram->account_analytic(t);
  }
  r.waves = e.waves;
  r.warp_instructions = e.counts.warp_instructions;
  const SmCounts& c = e.counts;
  analytic_.add(c);
  analytic_.busy_cycles += c.busy_cycles;
  analytic_.ctas += c.ctas;
  warp_instructions_.add(c.warp_instructions);
  ctas_.add(kernel.ctas());
  kernels_.add();
  return r;
}

double Gpu::dynamic_energy_j() const {
  if (!running_) return finished_energy_;
  // A kernel in step with SystemC time: its counts so far (its SMs are one window ahead).
  if (running_live_) return energy_of(totals());
  // A compute-only kernel's events are all counted when it starts (its SMs run ahead of
  // SystemC time): its energy is spread evenly over its run.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (now <= running_start_) return finished_energy_;  // still launching
  const double span = to_seconds(running_end_ - running_start_);
  const double done = span > 0 ? std::min(1.0, to_seconds(now - running_start_) / span) : 1.0;
  return finished_energy_ + running_energy_ * done;
}

void Gpu::free(tlm::tlm_generic_payload* gp) { payloads_.recycle(gp); }

std::vector<double> Gpu::reuse_totals(const sc_core::sc_time&) const {
  return l2_ ? l2_->counters() : std::vector<double>{};
}

void Gpu::repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time&) {
  if (l2_) l2_->repeat_counters(since, times);
}

void Gpu::issue_dram(int port) {
  DramPort& p = *dram_ports_[static_cast<std::size_t>(port)];
  for (;;) {
    while (p.queue.empty()) wait(p.queued);
    const sc_core::sc_time at = clock().time_of(p.queue.top().cycle);
    if (at > sc_core::sc_time_stamp()) {
      wait(at - sc_core::sc_time_stamp(), p.queued);  // an earlier request may come meanwhile
      continue;
    }
    while (p.port->request_open()) wait(p.port->progress());
    const DramRequest r = p.queue.top();
    p.queue.pop();
    DramPayload* gp = payloads_.allocate();
    gp->acquire();
    gp->tag = r.tag;
    gp->set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp->set_address(r.address);
    gp->set_data_ptr(scratch_.data());
    gp->set_data_length(r.bytes);
    gp->set_streaming_width(r.bytes);
    gp->set_byte_enable_ptr(nullptr);
    gp->set_dmi_allowed(false);
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p.port->begin_request(*gp);
    gp->release();
  }
}

// The CTAs of a kernel not yet placed, handed to SMs in grid order.
class Gpu::CtaQueue {
 public:
  explicit CtaQueue(const KernelLaunch& k) : k_(k), programs_(k.warps_per_cta()), end_(k.ctas()) {}
  bool empty() const { return next_ == end_; }
  int place(SmCore& core, std::uint64_t at) {  // the CTA's handle on `core`
    for (std::uint32_t w = 0; w < programs_.size(); ++w) programs_[w] = &k_.program_of(next_, w);
    const int id = core.add_cta(programs_, at, next_ * k_.warps_per_cta(), static_cast<int>(k_.cluster),
                                next_ / k_.cluster, k_.tile_of(next_));
    ++next_;
    return id;
  }
  std::uint64_t next() const { return next_; }  // the next CTA's number
  std::uint64_t left() const { return end_ - next_; }
  // The CTAs that run: the grid less those skipped.
  std::uint64_t total() const { return end_; }
  void skip(std::uint64_t n) { end_ -= std::min(n, left()); }  // the last `n` waiting CTAs never run

 private:
  const KernelLaunch& k_;
  std::vector<const WarpProgram*> programs_;
  std::uint64_t next_ = 0, end_;
};

Gpu::WaveSample Gpu::wave_sample(const Pending& p) const {
  WaveSample s;
  const KernelLaunch& k = p.kernel;
  if (!p.may_sample || !context().sample_waves() || !k.cta_sets.empty()) return s;  // CTAs that differ
  const std::uint64_t resident =
      k.cluster > 1 ? p.clusters * k.cluster : static_cast<std::uint64_t>(p.occupancy.ctas_per_sm) * sms_;
  if (resident > 0 && k.ctas() >= 4 * resident) s.resident = resident;
  return s;
}

void Gpu::sample_waves(WaveSample& s, std::uint64_t completed, CtaQueue& queue) {
  if (s.resident == 0 || s.decided) return;
  const auto start_span = [&] {
    s.span = std::make_unique<SpanRepeater::Mark>(context().repeater().mark());
    s.at_span = totals();
    s.completed_at_span = completed;
  };
  if (!s.span) {
    if (completed >= s.resident) start_span();  // the first wave is done
    return;
  }
  const std::uint64_t measured = completed - s.completed_at_span;
  if (measured < s.resident) return;
  const double rate = static_cast<double>(measured) / (sc_core::sc_time_stamp() - s.span->at).to_seconds();
  const std::uint64_t skip = queue.left() / s.resident * s.resident;  // whole waves
  if (skip == 0) {
    s.decided = true;
    return;
  }
  // Steady when this wave's rate is within kWaveSampleTolerance of the one before (the second
  // wave, which starts in step, often completes slower than those after it, which do not).
  if (!s.before || std::abs(rate - s.rate_before) > kWaveSampleTolerance * s.rate_before) {
    s.before = std::move(s.span);
    s.at_before = s.at_span;
    s.completed_at_before = s.completed_at_span;
    s.rate_before = rate;
    start_span();
    return;
  }
  s.decided = true;
  // Both steady waves are the measured span.
  const double times = static_cast<double>(skip) / static_cast<double>(completed - s.completed_at_before);
  // Skipped waves count in reported time, which must stay representable as simulated time does.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (context().reported_time()(now).to_seconds() + (now - s.before->at).to_seconds() * times >=
      to_seconds(sc_core::sc_max_time())) {
    halt_ = Halt::Unrepresentable;
    return;
  }
  repeat_span(*s.before, s.at_before, times);
  reused_.ctas += skip;
  skipped_ctas_.add(skip);
  queue.skip(skip);
}

SmCounts Gpu::repeat_span(const SpanRepeater::Mark& mark, const SmCounts& at_mark, double times) {
  const SmCounts span = totals().since(at_mark);
  context().repeater().repeat(mark, times);
  reused_.add(span, times);
  reused_.busy_cycles += scaled_count(span.busy_cycles, times);
  return span;
}

KernelRun Gpu::begin_kernel(const Pending& p, std::uint64_t start, CtaQueue& ctas) {
  KernelRun r;
  r.start_cycle = r.end_cycle = start;
  r.occupancy = p.occupancy;
  r.waves = waves(p.kernel.ctas(), p.occupancy, sms_);
  r.warp_instructions = totals().warp_instructions;  // made a difference by end_kernel
  // Breadth-first: every SM gets a CTA before any gets a second.
  for (int round = 0; round < p.occupancy.ctas_per_sm && !ctas.empty(); ++round)
    for (int s = 0; s < sms_ && !ctas.empty(); ++s) ctas.place(*cores_[static_cast<std::size_t>(s)], start);
  return r;
}

void Gpu::end_kernel(const Pending& p, KernelRun& r) {
  r.warp_instructions = totals().warp_instructions - r.warp_instructions;
  warp_instructions_.add(r.warp_instructions);
  ctas_.add(p.kernel.ctas());
  kernels_.add();
}

void Gpu::flush_window() {
  // The window's accesses reach the L2 in time order (ties: SM, then the SM's own order).
  std::stable_sort(window_.begin(), window_.end(), [](const GlobalAccess& a, const GlobalAccess& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.sm < b.sm;
  });
  for (const GlobalAccess& a : window_) l2_->access(a);
  window_.clear();
}

KernelRun Gpu::run_kernel_windowed(const Pending& p, std::uint64_t start) {
  CtaQueue queue(p.kernel);
  KernelRun r = begin_kernel(p, start, queue);
  WaveSample sample = wave_sample(p);
  std::uint64_t completed = 0;
  const auto window = static_cast<std::uint64_t>(l2_->lookahead());
  for (std::uint64_t t = start; completed < queue.total(); t += window) {
    if (halted(t)) return r;
    if (t > start) sample_waves(sample, completed, queue);  // SystemC time is at t
    for (int s = 0; s < sms_; ++s) {
      SmCore& core = *cores_[static_cast<std::size_t>(s)];
      int finished = 0;
      for (std::uint64_t c; (c = core.run(t + window, finished)) != SmCore::kNever;) {
        ++completed;
        r.end_cycle = std::max(r.end_cycle, c);
        if (!queue.empty()) queue.place(core, c);
      }
    }
    flush_window();
    if (completed < queue.total()) wait(clock().time_of(t + window) - sc_core::sc_time_stamp());
  }
  end_kernel(p, r);
  return r;
}

KernelRun Gpu::run_kernel_clustered(const Pending& p, std::uint64_t start) {
  CtaQueue queue(p.kernel);
  const int cluster = static_cast<int>(p.kernel.cluster);
  KernelRun r;
  r.start_cycle = r.end_cycle = start;
  r.occupancy = p.occupancy;
  r.clusters = p.clusters;
  r.waves = cluster_waves(p.kernel.ctas() / p.kernel.cluster, p.clusters);
  r.warp_instructions = totals().warp_instructions;  // made a difference by end_kernel
  ClusterPlacer placer(gpc_sizes_, p.occupancy.ctas_per_sm);
  std::vector<int> sms;
  const auto place = [&](std::uint64_t at) {  // every waiting cluster that fits, at `at`
    while (!queue.empty() && placer.place(cluster, sms)) {
      if (p.cluster_barriers)
        clusters_[queue.next() / p.kernel.cluster] =
            ClusterState{ClusterBarrier{p.kernel.cluster * p.kernel.warps_per_cta(), 0, {}}, sms};
      for (int s : sms) queue.place(*cores_[static_cast<std::size_t>(s)], at);
    }
  };
  place(start);
  WaveSample sample = wave_sample(p);
  std::uint64_t completed = 0;
  std::vector<std::pair<std::uint64_t, int>> done;  // (cycle a CTA completed, SM)
  // Every SM to `until`, noting its completions. An SM with nothing to do by then stays where
  // it is: a CTA placed on it later starts at its own cycle all the same.
  const auto advance = [&](std::uint64_t until) {
    int finished = 0;
    for (int s = 0; s < sms_; ++s) {
      SmCore& core = *cores_[static_cast<std::size_t>(s)];
      if (core.next_event() > until) continue;
      for (std::uint64_t c; (c = core.run(until, finished)) != SmCore::kNever;) done.emplace_back(c, s);
    }
  };
  const auto settle = [&] {  // the completions in time order (ties: SM order), each freeing a slot
    std::sort(done.begin(), done.end());
    for (const auto& [c, s] : done) {
      ++completed;
      r.end_cycle = std::max(r.end_cycle, c);
      placer.release(s);
      place(c);
    }
    done.clear();
  };
  // A cluster needs several SMs at once, so the SMs cannot run ahead of each other while
  // clusters wait: they go in step from the earliest event of any SM to the next, and a
  // waiting cluster is placed the cycle its slots free up. Once every cluster is placed, the
  // SMs run on by themselves, unless a cluster barrier keeps them in step to the end.
  const auto in_step = [&](std::uint64_t limit) {
    while (!queue.empty() || (p.cluster_barriers && completed < queue.total())) {
      std::uint64_t t = SmCore::kNever;
      for (const auto& core : cores_) t = std::min(t, core->next_event());
      if (t != SmCore::kNever && halted(t)) return;
      if (t >= limit) {
        if (limit != SmCore::kNever) {
          advance(limit);
          settle();
        }
        return;
      }
      advance(t);  // completions at t, before anything issues at t
      settle();
      advance(t + 1);  // the issues of cycle t, and completions at t + 1
      settle();
    }
  };
  if (p.global) {
    const auto window = static_cast<std::uint64_t>(l2_->lookahead());
    for (std::uint64_t t = start; completed < queue.total() && !halted(t); t += window) {
      if (t > start) sample_waves(sample, completed, queue);  // SystemC time is at t
      in_step(t + window);
      advance(t + window);
      settle();
      flush_window();
      // Nothing left to issue and no data on its way: warps wait at a cluster barrier for good.
      if (p.cluster_barriers && std::all_of(cores_.begin(), cores_.end(), [](const auto& core) {
            return core->next_event() == SmCore::kNever && !core->waits_for_memory();
          }))
        break;
      if (completed < queue.total()) wait(clock().time_of(t + window) - sc_core::sc_time_stamp());
    }
  } else {
    in_step(SmCore::kNever);
    if (halt_ == Halt::None && !queue.empty()) throw std::logic_error("clusters wait on a GPU with no CTA running");
    // Every cluster placed: the SMs run on by themselves, a span at a time (kHaltSpan).
    std::uint64_t h = SmCore::kNever;
    for (const auto& core : cores_) h = std::min(h, core->next_event());
    while (h != SmCore::kNever && !halted(h)) {
      h = h > SmCore::kNever - kHaltSpan ? SmCore::kNever : h + kHaltSpan;
      advance(h);
      settle();
      if (std::all_of(cores_.begin(), cores_.end(), [](const auto& core) { return core->next_event() == SmCore::kNever; }))
        break;
    }
  }
  clusters_.clear();
  if (halt_ != Halt::None) return r;
  if (completed < queue.total())
    throw std::runtime_error(fmt::format(
        "kernel {}: warps wait at a cluster barrier the rest of their cluster never reaches", p.kernel.name));
  end_kernel(p, r);
  return r;
}

KernelRun Gpu::run_kernel(const Pending& p, std::uint64_t start) {
  if (p.kernel.cluster > 1) return run_kernel_clustered(p, start);
  if (p.global) return run_kernel_windowed(p, start);
  CtaQueue queue(p.kernel);
  KernelRun r = begin_kernel(p, start, queue);
  // Without global memory the SMs do not interact: each runs to its next CTA completion, and
  // completions are taken in time order (ties in SM order) to place the waiting CTAs.
  // The SMs run in spans of kHaltSpan cycles, so a halt comes between them however long a
  // CTA is; an SM with no completion in a span waits in `behind` for the next.
  using Event = std::pair<std::uint64_t, int>;  // (cycle a CTA completes, SM)
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  std::vector<int> behind(static_cast<std::size_t>(sms_)), next;
  for (int s = 0; s < sms_; ++s) behind[static_cast<std::size_t>(s)] = s;
  int finished = 0;
  const auto step = [&](int s, std::uint64_t horizon) {  // SM s on to its next completion, or to the horizon
    SmCore& core = *cores_[static_cast<std::size_t>(s)];
    const std::uint64_t c = core.run(horizon, finished);
    if (c != SmCore::kNever) events.emplace(c, s);
    else if (core.next_event() != SmCore::kNever) next.push_back(s);
  };
  for (std::uint64_t horizon = start; !halted(horizon);) {
    horizon = horizon > SmCore::kNever - kHaltSpan ? SmCore::kNever : horizon + kHaltSpan;
    next.clear();
    for (int s : behind) step(s, horizon);
    // Every SM is at the horizon or has its next completion queued: those before the horizon in
    // time order (ties in SM order), each placing a waiting CTA.
    while (!events.empty() && !halted(events.top().first)) {
      const auto [cycle, s] = events.top();
      events.pop();
      r.end_cycle = std::max(r.end_cycle, cycle);
      if (!queue.empty()) queue.place(*cores_[static_cast<std::size_t>(s)], cycle);
      step(s, horizon);
    }
    if (events.empty() && next.empty()) break;
    behind.swap(next);
  }
  if (halt_ != Halt::None) return r;
  end_kernel(p, r);
  return r;
}

std::vector<KernelRun> Gpu::run_concurrent(const std::vector<Pending>& batch, std::uint64_t now) {
  const std::size_t n = batch.size();
  const auto subs = static_cast<std::size_t>(limits_.sub_cores);
  struct Live {
    std::unique_ptr<CtaQueue> ctas;
    std::uint64_t start = SmCore::kNever;  // its first CTA may go at this cycle (kNever: not yet known)
    bool started = false, finished = false, placed = false;
    std::uint64_t completed = 0;
    int warps = 0;
    std::uint64_t regs_per_warp = 0, shared = 0;  // allocated, at the granularities
    int next = -1;                                // the next kernel of its stream in the batch
  };
  std::vector<Live> live(n);
  std::vector<KernelRun> runs(n);
  std::map<int, std::size_t> last;  // stream -> its latest kernel in the batch
  for (std::size_t k = 0; k < n; ++k) {
    const KernelLaunch& kl = batch[k].kernel;
    Live& l = live[k];
    l.ctas = std::make_unique<CtaQueue>(kl);
    l.warps = static_cast<int>(kl.warps_per_cta());
    l.regs_per_warp = batch[k].occupancy.registers_per_warp;  // as the occupancy rules allocate them
    l.shared = batch[k].occupancy.shared_per_cta;
    KernelRun& r = runs[k];
    r.occupancy = batch[k].occupancy;
    r.waves = waves(kl.ctas(), r.occupancy, sms_);
    // Each warp issues each of its program's instructions once: the kernel's own count, though
    // its SMs also run other kernels' warps. CTAs of one set of programs count as the first.
    const bool same = kl.warp_programs.empty() && kl.cta_sets.empty();
    for (std::uint64_t c = 0; c < (same ? 1 : kl.ctas()); ++c)
      for (std::uint32_t w = 0; w < kl.warps_per_cta(); ++w)
        r.warp_instructions += kl.program_of(c, w).instructions() * (same ? kl.ctas() : 1);
    const auto [it, first] = last.try_emplace(kl.stream, k);
    if (first) {
      r.launch_cycle = now;
      l.start = now + kernel_launch_;
    } else {
      live[it->second].next = static_cast<int>(k);
      it->second = k;
    }
  }
  // What each SM has allocated, and what each of its CTAs holds (by handle).
  struct Room {
    int warps = 0, ctas = 0;
    std::uint64_t shared = 0;
    std::vector<std::uint64_t> regs;  // per sub-core
  };
  struct Held {
    std::size_t kernel;
    std::vector<std::uint64_t> regs;
  };
  std::vector<Room> room(static_cast<std::size_t>(sms_), Room{0, 0, 0, std::vector<std::uint64_t>(subs, 0)});
  std::vector<std::map<int, Held>> held(static_cast<std::size_t>(sms_));
  const std::uint64_t regs_per_sub = limits_.registers / subs;
  std::vector<std::uint64_t> need(subs);
  // Kernel k's next CTA on SM s: its warps dealt round-robin from the SM's next sub-core, each
  // sub-core's file holding whole warps' allocations (occupancy.cpp's rules, CTA by CTA).
  const auto fits = [&](std::size_t k, int s) {
    const Room& r = room[static_cast<std::size_t>(s)];
    const Live& l = live[k];
    if (r.warps + l.warps > limits_.max_warps || r.ctas + 1 > limits_.max_ctas ||
        r.shared + l.shared > limits_.shared_bytes)
      return false;
    std::fill(need.begin(), need.end(), 0);
    const auto first = static_cast<std::size_t>(cores_[static_cast<std::size_t>(s)]->next_sub_core());
    for (int w = 0; w < l.warps; ++w) need[(first + static_cast<std::size_t>(w)) % subs] += l.regs_per_warp;
    for (std::size_t i = 0; i < subs; ++i)
      if (r.regs[i] + need[i] > regs_per_sub) return false;
    return true;
  };
  const auto place = [&](std::size_t k, int s, std::uint64_t at) {  // after fits(k, s), which left `need`
    Room& r = room[static_cast<std::size_t>(s)];
    Live& l = live[k];
    r.warps += l.warps;
    ++r.ctas;
    r.shared += l.shared;
    for (std::size_t i = 0; i < subs; ++i) r.regs[i] += need[i];
    const int id = l.ctas->place(*cores_[static_cast<std::size_t>(s)], at);
    held[static_cast<std::size_t>(s)][id] = Held{k, need};
    if (!l.placed) runs[k].start_cycle = at;
    l.placed = true;
  };
  // An SM's free resources: the waiting CTAs of the older kernels first.
  const auto fill = [&](int s, std::uint64_t at) {
    for (std::size_t k = 0; k < n; ++k)
      while (live[k].started && !live[k].ctas->empty() && fits(k, s)) place(k, s, at);
  };
  const auto finish = [&](std::size_t k, std::uint64_t at) {
    live[k].finished = true;
    runs[k].end_cycle = at;
    if (live[k].next >= 0) {  // the stream's next kernel: its turn
      const auto j = static_cast<std::size_t>(live[k].next);
      runs[j].launch_cycle = at;
      live[j].start = at + kernel_launch_;
    }
  };
  // Kernels whose first CTA may go by `t`, breadth-first: each CTA to the SM with room that
  // holds the fewest CTAs (ties: the lower SM), as the lone kernel's placement on idle SMs.
  const auto arrive = [&](std::uint64_t t) {
    for (std::size_t k = 0; k < n; ++k) {
      Live& l = live[k];
      if (l.started || l.start > t) continue;
      l.started = true;
      runs[k].start_cycle = runs[k].end_cycle = t;
      if (l.ctas->empty()) finish(k, t);  // an empty grid
      while (!l.ctas->empty()) {
        int best = -1;
        for (int s = 0; s < sms_; ++s)
          if ((best < 0 || room[static_cast<std::size_t>(s)].ctas < room[static_cast<std::size_t>(best)].ctas) &&
              fits(k, s))
            best = s;
        if (best < 0) break;
        fits(k, best);  // its allocation in `need`
        place(k, best, t);
      }
    }
  };
  struct Done {
    std::uint64_t cycle;
    int sm, cta;
  };
  std::vector<Done> done;
  const auto advance = [&](std::uint64_t until) {  // every SM to `until`, noting its completions
    for (int s = 0; s < sms_; ++s) {
      SmCore& core = *cores_[static_cast<std::size_t>(s)];
      if (core.next_event() > until) continue;
      int finished = 0;
      for (std::uint64_t c; (c = core.run(until, finished)) != SmCore::kNever;) done.push_back(Done{c, s, finished});
    }
  };
  const auto settle = [&] {  // the completions in time order (ties: SM order), freeing their resources
    std::stable_sort(done.begin(), done.end(),
                     [](const Done& a, const Done& b) { return a.cycle != b.cycle ? a.cycle < b.cycle : a.sm < b.sm; });
    for (const Done& d : done) {
      auto& on = held[static_cast<std::size_t>(d.sm)];
      const auto it = on.find(d.cta);
      if (it == on.end()) throw std::logic_error("a CTA completed that the GPU did not place");
      const std::size_t k = it->second.kernel;
      Room& r = room[static_cast<std::size_t>(d.sm)];
      r.warps -= live[k].warps;
      --r.ctas;
      r.shared -= live[k].shared;
      for (std::size_t i = 0; i < subs; ++i) r.regs[i] -= it->second.regs[i];
      on.erase(it);
      runs[k].end_cycle = std::max(runs[k].end_cycle, d.cycle);
      if (++live[k].completed == batch[k].kernel.ctas()) finish(k, d.cycle);
    }
    // Then the freed resources (all at one cycle) taken, SM by SM: the SM may hand a completed
    // CTA's handle to a new one, so no placement comes before every completion is accounted.
    for (const Done& d : done) fill(d.sm, d.cycle);
    done.clear();
  };
  // The SMs in step from the earliest event (an issue, a completion or a kernel's turn) to the
  // next: a kernel may start on any SM at its cycle, so none may run ahead of it.
  const std::uint64_t instructions = totals().warp_instructions;
  while (std::any_of(live.begin(), live.end(), [](const Live& l) { return !l.finished; })) {
    std::uint64_t t = SmCore::kNever;
    for (const Live& l : live)
      if (!l.started) t = std::min(t, l.start);
    for (const auto& core : cores_) t = std::min(t, core->next_event());
    if (t == SmCore::kNever) throw std::logic_error("concurrent kernels wait on a GPU with nothing running");
    if (halted(t)) return runs;
    advance(t);  // completions at t, before anything issues at t
    settle();
    arrive(t);
    advance(t + 1);  // the issues of cycle t, and completions at t + 1
    settle();
    arrive(t + 1);
  }
  std::uint64_t counted = 0;
  for (std::size_t k = 0; k < n; ++k) {
    counted += runs[k].warp_instructions;
    warp_instructions_.add(runs[k].warp_instructions);
    ctas_.add(batch[k].kernel.ctas());
    kernels_.add();
  }
  if (counted != totals().warp_instructions - instructions)
    throw std::logic_error("concurrent kernels: warp instructions issued differ from their programs'");
  return runs;
}

void Gpu::wait_in_windows(const sc_core::sc_time& end) {
  // One wake-up per statistics window, so the power monitor samples a kernel's energy as it is
  // spread over the run (dynamic_energy_j), not as one spike at its end.
  const sc_core::sc_time window(context().stats_window_s(), sc_core::SC_SEC);
  while (sc_core::sc_time_stamp() < end) wait(std::min(window, end - sc_core::sc_time_stamp()));
}

bool Gpu::halted(std::uint64_t cycle) {
  if (halt_ == Halt::None) {
    if (interrupt_flag().load(std::memory_order_relaxed)) halt_ = Halt::Interrupt;
    else if (cycle > last_cycle_) halt_ = Halt::Unrepresentable;
    else if (cycle > limit_cycle_) halt_ = Halt::TimeLimit;
  }
  return halt_ != Halt::None;
}

InputError Gpu::unrepresentable(double cycles, bool at_least) const {
  const double hz = static_cast<double>(clock().frequency_hz());
  return InputError(config().loc, config().path,
                    fmt::format("the run reaches {}{:.4g} s of simulated time, past the {:.0f} s SystemC's 64-bit time "
                                "holds at 1 fs: refused rather than wrapped; simulate less (a smaller grid, shape or "
                                "iteration count)",
                                at_least ? "at least " : "", cycles / hz, to_seconds(sc_core::sc_max_time())));
}

void Gpu::stop_halted() {
  if (halt_ == Halt::Unrepresentable) context().fail(unrepresentable(static_cast<double>(last_cycle_) + 1));
  // The runner ends a run at sim.max_time once SystemC time reaches it.
  const sc_core::sc_time limit(context().time_limit_s(), sc_core::SC_SEC);
  if (halt_ == Halt::TimeLimit && limit > sc_core::sc_time_stamp()) {
    running_energy_ = energy_of(totals()) - finished_energy_;  // what ran, spread up to the limit
    running_end_ = limit;
    wait(limit - sc_core::sc_time_stamp());
  }
  for (;;) wait(never_);
}

void Gpu::run() {
  last_cycle_ = clock().cycle_at(sc_core::sc_max_time());
  const double limit = context().time_limit_s();
  limit_cycle_ =
      limit > 0 ? std::min(last_cycle_, clock().cycle_at(sc_core::sc_time(limit, sc_core::SC_SEC))) : last_cycle_;
  // An instruction's cycles past kMaxCycles (SmCore::tensor_cycles) are past representable time too.
  const auto guarded = [this](auto&& f) {
    try {
      return f();
    } catch (const CycleOverflow&) {
      halt_ = Halt::Unrepresentable;
      stop_halted();
    }
  };
  for (;;) {
    while (queue_.empty()) wait(launched_);
    running_ = true;
    // The queued compute-only kernels without clusters, up to the first that is not: when they
    // are of several streams, they run concurrently. A kernel that reaches global memory or has
    // clusters runs alone, after them.
    std::size_t prefix = 0;
    std::set<int> streams;
    while (prefix < queue_.size() && !queue_[prefix].global && queue_[prefix].kernel.cluster <= 1)
      streams.insert(queue_[prefix++].kernel.stream);
    if (streams.size() > 1) {
      std::vector<Pending> batch(std::make_move_iterator(queue_.begin()),
                                 std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(prefix)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(prefix));
      const std::uint64_t launched = clock().cycle_at(clock().next_edge(sc_core::sc_time_stamp()));
      running_live_ = false;
      running_start_ = clock().time_of(launched + kernel_launch_);
      const std::vector<KernelRun> runs = guarded([&] { return run_concurrent(batch, launched); });
      if (halt_ != Halt::None) stop_halted();
      running_energy_ = energy_of(totals()) - finished_energy_;
      std::vector<std::size_t> order(runs.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return runs[a].end_cycle < runs[b].end_cycle; });
      running_end_ = clock().time_of(runs[order.back()].end_cycle);
      for (std::size_t k : order) {  // each kernel's `done` at its end
        wait_in_windows(clock().time_of(runs[k].end_cycle));
        if (k == order.back()) {
          finished_energy_ = energy_of(totals());
          running_ = false;
        }
        batch[k].done(runs[k]);
      }
      continue;
    }
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    const std::uint64_t launched = clock().cycle_at(clock().next_edge(sc_core::sc_time_stamp()));
    const std::uint64_t start = launched + kernel_launch_;
    // A kernel that reaches global memory runs window by window in step with SystemC time, so
    // its counts are live; a compute-only one runs ahead at once and its energy is spread.
    running_live_ = p.global;
    running_start_ = clock().time_of(start);
    KernelRun r = guarded([&] { return run_kernel(p, start); });
    if (halt_ != Halt::None || r.end_cycle > last_cycle_) {
      halt_ = halt_ == Halt::None ? Halt::Unrepresentable : halt_;
      stop_halted();
    }
    r.launch_cycle = launched;
    running_energy_ = energy_of(totals()) - finished_energy_;
    running_end_ = clock().time_of(r.end_cycle);
    wait_in_windows(running_end_);
    finished_energy_ = energy_of(totals());
    running_ = false;
    p.done(r);
  }
}

void Gpu::finalize(const sc_core::sc_time& end) {
  finalize_graph();
  const SmCounts total = totals();
  sm_busy_cycles_.add(total.busy_cycles);
  for (int op = 0; op < kWarpOps; ++op)
    if (total.by_op[op] > 0)
      counter(fmt::format("instructions.{}", warp_op_name(static_cast<WarpOp>(op))), "instructions",
              fmt::format("{} warp instructions issued", warp_op_name(static_cast<WarpOp>(op))))
          .add(total.by_op[op]);
  for (const auto& [f, n] : total.tensor_macs)
    counter(fmt::format("tensor_macs.{}", f), "MACs", fmt::format("tensor-core MACs in {}", f)).add(n);
  counter("shared_wavefronts", "wavefronts", "shared-memory wavefronts (one access per bank each)").add(total.shared_wavefronts);
  counter("shared_bytes", "B", "bytes moved by shared-memory instructions").add(total.shared_bytes);
  if (total.dsm_bytes > 0)
    counter("dsm_bytes", "B",
            "bytes remote cluster accesses moved over the SM-to-SM network (distributed shared memory)")
        .add(total.dsm_bytes);
  // Over the reported run (sim.reuse adds the repeated layers' spans).
  const double cycles = static_cast<double>(clock().cycle_at(end)) +
                        (reported_s(end) - end.to_seconds()) * static_cast<double>(clock().frequency_hz());
  scalar("sm_utilization", "fraction", "SM-cycles with a CTA resident over SMs x cycles")
      .set(cycles > 0 ? static_cast<double>(total.busy_cycles) / (cycles * sms_) : 0);
  // The energy events, counted at the end (dynamic_energy_j() gave the power monitor a live figure).
  events_.rf_read->add(total.rf_reads);
  events_.rf_write->add(total.rf_writes);
  events_.fp32->add(total.thread_ops[static_cast<int>(WarpOp::Fp32)]);
  events_.fp64->add(total.thread_ops[static_cast<int>(WarpOp::Fp64)]);
  events_.integer->add(total.thread_ops[static_cast<int>(WarpOp::Int)]);
  events_.sfu->add(total.thread_ops[static_cast<int>(WarpOp::Sfu)]);
  if (events_.shared) events_.shared->add(total.shared_wavefronts);
  for (const auto& [f, n] : total.tensor_macs) events_.macs.at(f)->add(n);
  if (events_.l1) events_.l1->add(total.l1_hit_sectors + total.l1_miss_sectors);
  const auto rate = [](std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  if (timing_.l1_bytes > 0 || total.l1_miss_sectors > 0) {
    counter("l1.hit_sectors", "sectors", "global-load sectors found in the L1").add(total.l1_hit_sectors);
    counter("l1.miss_sectors", "sectors", "global-load sectors sent to the L2").add(total.l1_miss_sectors);
    counter("l1.store_sectors", "sectors", "global-store sectors (written through to the L2)").add(total.store_sectors);
    scalar("l1.hit_rate", "fraction", "L1 hit sectors over global-load sectors")
        .set(rate(total.l1_hit_sectors, total.l1_hit_sectors + total.l1_miss_sectors));
  }
  if (l2_) {
    const std::uint64_t l2_sectors = l2_->hit_sectors() + l2_->miss_sectors() + l2_->write_sectors();
    events_.l2->add(l2_sectors + l2_->dram_read_bytes() / kSectorBytes);
    counter("l2.hit_sectors", "sectors", "load sectors found in the L2").add(l2_->hit_sectors());
    counter("l2.miss_sectors", "sectors", "load sectors the L2 asked the DRAM for (or waited on)")
        .add(l2_->miss_sectors());
    counter("l2.write_sectors", "sectors", "store sectors written into the L2").add(l2_->write_sectors());
    counter("l2.far_accesses", "accesses", "accesses to a slice in the other partition than their SM")
        .add(l2_->far_accesses());
    counter("l2.dram_read_bytes", "B", "bytes the L2 read from the DRAM").add(l2_->dram_read_bytes());
    counter("l2.dram_write_bytes", "B", "dirty bytes the L2 wrote back to the DRAM").add(l2_->dram_write_bytes());
    scalar("l2.hit_rate", "fraction", "L2 hit sectors over load sectors")
        .set(rate(l2_->hit_sectors(), l2_->hit_sectors() + l2_->miss_sectors()));
  }
}

}  // namespace strata
