#include "accelerators/gpu/gpu_part_kinds.h"

#include <fmt/format.h>

#include "accelerators/gpu/gpu_parts.h"
#include "sim/input_error.h"
#include "sim/registry.h"

namespace strata {

namespace {

// A rate far below any tensor core's (FP64 runs at 1/16 of FP16 on the A100 and H100) is a
// typo, and its instructions would take longer than a run can represent.
constexpr double kMinTensorRate = 1.0 / 1024;

KindSpec sm_spec() {
  KindSpec s;
  s.name = "sm";
  s.category = kPartCategory;
  s.description = "one streaming multiprocessor: sub-cores, occupancy limits, pipes and shared memory";
  s.add(param::integer("sub_cores",
                       "processing blocks, each with a warp scheduler issuing one warp instruction per cycle")
            .def("4")
            .range("1", "8"));
  s.add(param::integer("max_warps", "resident warps per SM").def("64").range("1", "256"));
  s.add(param::integer("max_ctas", "resident CTAs per SM").def("32").range("1", "256"));
  s.add(param::integer("max_threads_per_cta", "threads a CTA may have").def("1024").range("32", "4096"));
  s.add(param::integer("registers", "32-bit registers per SM, split evenly over the sub-cores")
            .def("65536")
            .range("1024", "1048576"));
  s.add(param::integer("max_registers_per_cta", "registers one CTA may hold").def("65536").range("1024", "1048576"));
  s.add(param::integer("max_registers_per_thread", "registers one thread may use").def("255").range("16", "1024"));
  s.add(param::integer("register_granularity", "registers per warp are allocated in units of this")
            .def("256")
            .range("1", "4096"));
  s.add(param::quantity("shared_memory", UnitFamily::Size, "the shared-memory carve-out of the L1/shared array")
            .def("228 KiB")
            .range("0 B", "16 MiB"));
  s.add(param::quantity("max_shared_per_cta", UnitFamily::Size, "shared memory one CTA may use")
            .def("227 KiB")
            .range("0 B", "16 MiB"));
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
    s.add(param::integer(fmt::format("{}_latency", pipe),
                         fmt::format("cycles from a {} instruction's issue to a dependent one's", pipe))
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
  s.add(
      param::integer("shared_banks", "shared-memory banks; one access per bank per cycle").def("32").range("1", "128"));
  s.add(param::quantity("bank_width", UnitFamily::Size, "bytes per bank access, a power of two")
            .def("4 B")
            .range("1 B", "64 B"));
  s.add(param::integer("shared_latency", "cycles from a conflict-free shared load's issue to its data")
            .def("30")
            .range("1", "1000"));
  s.add(param::quantity("l1_shared", UnitFamily::Size,
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
  s.add(param::integer("store_queue",
                       "store lines the SM may have on their way to the L2 and not yet acknowledged by their slice; a "
                       "further store stalls at issue until an acknowledgement is back. 0: no limit")
            .def("1024")
            .range("0", "65536"));
  s.add(
      param::integer("register_banks",
                     "register-file banks per sub-core, each reading one warp-wide operand a cycle (register r in bank "
                     "r mod banks); sources sharing a bank hold the issue a cycle each. 0: bank conflicts not modelled")
          .def("0")
          .range("0", "32"));
  s.add(param::boolean("tma", "a tensor memory accelerator (Hopper): TMA bulk copies into shared memory").def("true"));
  s.add(param::boolean("register_cache",
                       "a register-file cache per operand slot and bank: sources marked .reuse are read from it "
                       "without a bank cycle by the next instruction (needs register_banks)")
            .def("false"));
  s.provides(kSmRole);
  return s;
}

KindSpec tensor_core_spec() {
  KindSpec s;
  s.name = "tensor_core";
  s.category = kPartCategory;
  s.description = "the tensor core of each sub-core";
  s.add(param::integer("macs_per_cycle", "dense multiply-accumulates per cycle per sub-core at rate 1 (FP16)")
            .def("512")
            .range("1", "1048576"));
  s.add(param::format_rates("rates",
                            "MACs per cycle of each operand format relative to macs_per_cycle, as format=rate "
                            "(tf32=0.5, int8=2), each from 1/1024 to 64; formats not listed have no tensor path")
            .def("fp16=1, bf16=1"));
  s.add(param::integer("mma_latency",
                       "pipeline cycles of a synchronous mma after its MACs (dependent latency = MACs / rate + this)")
            .def("24")
            .range("0", "1000"));
  s.add(
      param::integer("wgmma_latency",
                     "pipeline cycles of an asynchronous warp-group wgmma after its MACs; 0: no wgmma (before Hopper)")
          .def("0")
          .range("0", "1000"));
  s.add(param::integer("wgmma_issue", "cycles a wgmma keeps its warp from issuing again").def("4").range("1", "100"));
  s.add(param::boolean("sparsity", "2:4 structured sparsity of A: twice the MACs per cycle").def("true"));
  s.provides(kTensorCoreRole);
  return s;
}

KindSpec l2_spec() {
  KindSpec s;
  s.name = "l2";
  s.category = kPartCategory;
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
  s.add(param::integer("far_latency", "cycles more for a slice in the other partition").def("150").range("0", "10000"));
  s.add(param::integer("slice_sectors", "32 B sectors a slice reads or writes a cycle").def("2").range("1", "64"));
  s.add(param::integer("dram_latency",
                       "cycles from a slice's miss to its DRAM request, and again from the DRAM's answer "
                       "back to the slice (memory controller and fabric)")
            .def("100")
            .range("0", "10000"));
  s.add(param::integer("writeback_queue",
                       "dirty lines' write-backs a slice may have on their way to the DRAM's controller; a store that "
                       "evicts dirty data waits while its slice's queue is full, and acknowledges later")
            .def("64")
            .range("1", "65536"));
  s.provides(kGpuL2Role);
  return s;
}

// `sm`: the SM of the NVIDIA GPUs from Volta to Hopper, its figures as written.
class StreamingMultiprocessor final : public SmPart {
 public:
  explicit StreamingMultiprocessor(const ValidatedNode& node) : p_(node.params) {
    limits_.sub_cores = static_cast<int>(p_.integer("sub_cores"));
    limits_.max_warps = static_cast<int>(p_.integer("max_warps"));
    limits_.max_ctas = static_cast<int>(p_.integer("max_ctas"));
    limits_.max_threads_per_cta = static_cast<int>(p_.integer("max_threads_per_cta"));
    limits_.registers = static_cast<std::uint32_t>(p_.integer("registers"));
    limits_.max_registers_per_cta = static_cast<std::uint32_t>(p_.integer("max_registers_per_cta"));
    limits_.max_registers_per_thread = static_cast<int>(p_.integer("max_registers_per_thread"));
    limits_.register_granularity = static_cast<int>(p_.integer("register_granularity"));
    limits_.shared_bytes = static_cast<std::uint64_t>(p_.quantity("shared_memory"));
    limits_.max_shared_per_cta = static_cast<std::uint64_t>(p_.quantity("max_shared_per_cta"));
    limits_.shared_reserved_per_cta = static_cast<std::uint64_t>(p_.quantity("shared_reserved_per_cta"));
    limits_.shared_granularity = static_cast<std::uint64_t>(p_.quantity("shared_granularity"));
    if (limits_.max_shared_per_cta > limits_.shared_bytes)
      throw InputError(p_.where("max_shared_per_cta"), node.path + ".max_shared_per_cta",
                       "is larger than the SM's shared_memory");
    if (const auto width = static_cast<std::uint64_t>(p_.quantity("bank_width")); (width & (width - 1)) != 0)
      throw InputError(p_.where("bank_width"), node.path + ".bank_width",
                       fmt::format("{} B is not a power of two (banks are 1, 2, 4, ... 64 B wide)", width));
    if (p_.quantity("shared_memory") > p_.quantity("l1_shared"))
      throw InputError(p_.where("shared_memory"), node.path + ".shared_memory",
                       "is larger than the SM's l1_shared array");
  }
  const SmLimits& limits() const override { return limits_; }
  void time(SmTiming& t) const override {
    t.sub_cores = static_cast<int>(p_.integer("sub_cores"));
    const std::string& sched = p_.string("scheduler");
    t.scheduler = sched == "lrr"     ? SmTiming::Scheduler::Lrr
                  : sched == "cggty" ? SmTiming::Scheduler::Cggty
                                     : SmTiming::Scheduler::Gto;
    t.dependences = p_.string("dependences") == "control_bits" ? SmTiming::Dependences::ControlBits
                                                               : SmTiming::Dependences::Scoreboard;
    t.int_lanes = p_.real("int_lanes");
    t.fp32_lanes = p_.real("fp32_lanes");
    t.fp64_lanes = p_.real("fp64_lanes");
    t.sfu_lanes = p_.real("sfu_lanes");
    t.int_latency = static_cast<int>(p_.integer("int_latency"));
    t.fp32_latency = static_cast<int>(p_.integer("fp32_latency"));
    t.fp64_latency = static_cast<int>(p_.integer("fp64_latency"));
    t.sfu_latency = static_cast<int>(p_.integer("sfu_latency"));
    t.shared_banks = static_cast<int>(p_.integer("shared_banks"));
    t.bank_bytes = static_cast<int>(p_.quantity("bank_width"));
    t.shared_latency = static_cast<int>(p_.integer("shared_latency"));
    t.shared_queue = static_cast<int>(p_.integer("shared_queue"));
    t.store_queue = static_cast<int>(p_.integer("store_queue"));
    t.register_banks = static_cast<int>(p_.integer("register_banks"));
    t.register_cache = p_.flag("register_cache");
    t.tma = p_.flag("tma");
    t.l1_ways = static_cast<int>(p_.integer("l1_ways"));
    t.l1_latency = static_cast<int>(p_.integer("l1_latency"));
    t.dsm_latency = static_cast<int>(p_.integer("dsm_latency"));
    t.dsm_bytes_per_cycle = p_.real("dsm_bytes_per_cycle");
    const double l1 = p_.quantity("l1_shared") - p_.quantity("shared_memory");
    t.l1_bytes = l1 > 0 ? static_cast<std::uint64_t>(l1) : 0;
  }

 private:
  const Params& p_;  // the validated tree outlives the part (the GPU reads it while it elaborates)
  SmLimits limits_;
};

// `tensor_core`: MACs per cycle by format as multiples of one FP16 rate.
class TensorCore final : public TensorCorePart {
 public:
  explicit TensorCore(const ValidatedNode& node) : p_(node.params) {
    for (const auto& [format, rate] : p_.format_rates("rates"))
      if (rate < kMinTensorRate)
        throw InputError(p_.where("rates"), node.path + ".rates",
                         fmt::format("{}={:g}: a rate is 1/1024 to 64", format, rate));
  }
  void time(SmTiming& t) const override {
    const auto base = static_cast<double>(p_.integer("macs_per_cycle"));
    for (const auto& [format, rate] : p_.format_rates("rates")) t.tensor_macs[format] = base * rate;
    t.mma_latency = static_cast<int>(p_.integer("mma_latency"));
    t.wgmma_latency = static_cast<int>(p_.integer("wgmma_latency"));
    t.wgmma_issue = static_cast<int>(p_.integer("wgmma_issue"));
    t.sparsity = p_.flag("sparsity");
  }
  double base_macs_per_cycle() const override { return static_cast<double>(p_.integer("macs_per_cycle")); }

 private:
  const Params& p_;
};

// `l2`: the sliced, sectored L2 of gpu_l2.h.
class SlicedL2 final : public L2Part {
 public:
  explicit SlicedL2(const ValidatedNode& node) {
    c_.bytes = static_cast<std::uint64_t>(node.params.quantity("size"));
    c_.ways = static_cast<int>(node.params.integer("ways"));
    c_.slices = static_cast<int>(node.params.integer("slices"));
    c_.partitions = static_cast<int>(node.params.integer("partitions"));
    c_.latency = static_cast<int>(node.params.integer("latency"));
    c_.far_latency = static_cast<int>(node.params.integer("far_latency"));
    c_.slice_sectors = static_cast<int>(node.params.integer("slice_sectors"));
    c_.dram_latency = static_cast<int>(node.params.integer("dram_latency"));
    c_.writeback_queue = static_cast<int>(node.params.integer("writeback_queue"));
  }
  const L2Config& config() const override { return c_; }

 private:
  L2Config c_;
};

template <class Base, class Kind>
void add_part(Registry& r, KindSpec spec) {
  r.add_kind<Base>(std::move(spec),
                   [](const ValidatedNode& node) { return std::unique_ptr<Base>(std::make_unique<Kind>(node)); });
}

}  // namespace

void register_gpu_parts(Registry& r) {
  add_part<SmPart, StreamingMultiprocessor>(r, sm_spec());
  add_part<TensorCorePart, TensorCore>(r, tensor_core_spec());
  add_part<L2Part, SlicedL2>(r, l2_spec());
}

}  // namespace strata
