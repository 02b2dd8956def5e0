#include "accelerators/chiplet/cambricon_llm.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "models/dma/dma_engine.h"
#include "models/link/chip_link.h"
#include "sim/input_error.h"
#include "sim/rounding.h"
#include "sim/sim_context.h"
#include "sim/simulated_time.h"
#include "sim/tlm_at.h"

namespace strata {

KindSpec CambriconLlm::spec() {
  KindSpec s;
  s.name = "cambricon_llm";
  s.description = "NPU chiplet + NAND flash that computes next to its pages + LPDDR KV memory (Cambricon-LLM)";
  s.with_clock();
  s.add(param::integer("npu_macs", "the NPU's INT8 multiply-accumulators (16 x 16 systolic array: 256, 2 TOPS at 1 GHz)")
            .def("256")
            .range("1", "1048576"));
  s.add(param::integer("vector_lanes", "elements a cycle of the NPU's special-function and vector unit (norms, "
                                       "softmax, element-wise)")
            .def("16")
            .range("1", "65536"));
  s.add(param::real("core_macs", "multiply-accumulates a cycle of one flash compute core (one a die)")
            .def("2")
            .range("0.001", "65536"));
  s.add(param::quantity("core_clock", UnitFamily::Frequency, "the flash compute cores' clock").def("1 GHz"));
  s.add(param::string("split",
                       "the flash's share of each weight GEMV: rule (the published formula, flash_tiling.h), balanced "
                       "(the shares a channel's cores and its page reads finish together), or a number in [0, 1]")
            .def("balanced"));
  s.slot(SlotSpec{"flash",
                  "the NAND flash holding the weights, whose controller the NPU chiplet runs (a nand_flash role kind: "
                  "nand_flash)",
                  "component", kNandFlashRole, true, nullptr});
  s.slot(SlotSpec{"link", "the die-to-die link between the NPU chiplet and the flash (a chip_link)", "component",
                  kChipLinkRole, true, nullptr});
  s.slot(SlotSpec{"kv_memory", "the DRAM holding the KV cache (a memory_target kind: dram for LPDDR5X)", "component",
                  kMemoryTargetRole, true, nullptr});
  s.slot(SlotSpec{"dma", "the DMA engine in front of kv_memory (a dma role kind; default dma)", "component", kDmaRole,
                  false, nullptr, "dma"});
  // The NPU chiplet (its MACs, vector lanes and DMA) is one clock domain (sim/device_power.h); the
  // flash, its compute cores, the link and kv_memory keep their own clocks.
  add_power_management_params(s);
  return s;
}

CambriconLlm::CambriconLlm(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx) {
  flash_ = build_child<NandFlashDevice>("flash");
  flash_->direct_controller(ctx);
  link_ = build_part<ChipLink>("link");
  dma_ = build_part<DmaEngine>("dma");
  kv_ = build_child<MemoryTarget>("kv_memory");
  bind_at(ctx, dma_->initiator_socket(), kv_->target_socket(), dma_->basename());

  const FlashSpec& f = flash_->timeline().spec();
  tile_ = hardware_aware_tile(f);
  const std::string split = params().string("split");
  if (split == "rule" || split == "balanced") {
    const FlashSplit fs = flash_split(f, tile_);
    alpha_ = split == "rule" ? fs.alpha : fs.alpha_balanced;
  } else {
    char* end = nullptr;
    alpha_ = std::strtod(split.c_str(), &end);
    if (end == split.c_str() || *end != '\0' || !(alpha_ >= 0 && alpha_ <= 1))
      throw InputError(params().where("split"), cfg.path + ".split",
                       fmt::format("expected rule, balanced or a number in [0, 1], got \"{}\"", split));
  }
  const auto macs = static_cast<double>(params().integer("npu_macs"));
  const auto lanes = static_cast<double>(params().integer("vector_lanes"));
  core_macs_per_s_ = params().real("core_macs") * params().quantity("core_clock");

  // Energy and area: INT8 MACs on the NPU and in the flash cores (each core with 2 KB of input
  // and output buffers, Cambricon-LLM Table IV), the vector lanes as INT8 MACs.
  const TechTable& t = tech();
  const UnitCost mac = t.mac("int8");
  npu_mac_ = &energy_event("npu_mac", mac.energy_j, "NPU multiply-accumulates (INT8)");
  vector_op_ = &energy_event("vector_op", mac.energy_j, "NPU vector-unit element operations");
  core_mac_ = &energy_event("flash_core_mac", mac.energy_j, "flash compute cores' multiply-accumulates (INT8)");
  keep_at_table_supply(*core_mac_);  // in the flash dies, at core_clock
  add_area("npu", (macs + lanes) * mac.area_mm2, t.with_leakage(mac).leakage_w * (macs + lanes));
  const double cores = compute_cores(f);
  const SramCost buffers = t.sram(2048, 64, 1);
  add_area("flash_cores", cores * (params().real("core_macs") * mac.area_mm2 + buffers.area_mm2),
           cores * buffers.leakage_w);
  power_ = std::make_unique<DevicePower>(
      *this, std::vector<Component*>{dma_.get()},
      kv_->peak_bandwidth() * analytic_memory(*kv_, kv_.component().config()).streaming_energy_per_byte());
  npu_macs_per_s_ = macs * power_->clock_hz();
  vector_per_s_ = lanes * power_->clock_hz();
  scalar("tile_rows", "", "the hardware-aware tiling's H_req").set(static_cast<double>(tile_.rows));
  scalar("tile_cols", "", "the hardware-aware tiling's W_req").set(static_cast<double>(tile_.cols));
  scalar("flash_share", "fraction", "the share of each weight GEMV computed in the flash (alpha)").set(alpha_);
  ctx.report("latency_s", stat_name("latency"));
  ctx.report("tokens_per_s", stat_name("tokens_per_s"));
}

CambriconLlm::~CambriconLlm() = default;

void CambriconLlm::load_graph(std::shared_ptr<const OpGraph> graph) {
  graph_ = std::move(graph);
  tokens_ = report_per_token(*graph_, context());
  if (context().analytic())
    throw InputError(SourceLoc{}, "sim.fidelity", "cambricon_llm has no analytic model yet: run at cycle level");
  // The weights live in the flash, each tensor from a page boundary (run_graph), and the KV
  // cache in kv_memory: refused up front where they do not fit.
  const std::uint64_t page = flash_->timeline().spec().page_bytes;
  double weights = 0, kv = 0;
  for (const Tensor& t : graph_->tensors()) {
    if (t.cls == TensorClass::Weights) weights += static_cast<double>(ceil_div(t.bytes, page) * page);
    if (t.cls == TensorClass::KvCache) kv += static_cast<double>(t.bytes);
  }
  const std::string model = graph_->name.empty() ? "the workload" : graph_->name;
  require_capacity(flash_->capacity(), weights, fmt::format("the weights of {}, page-aligned", model));
  require_capacity(memory_capacity(kv_.component()), kv, fmt::format("the KV cache of {}", model));
  sc_core::sc_spawn([this] { run_graph(); }, "graph_runner");
}

std::optional<double> CambriconLlm::graph_progress() const {
  if (!graph_ || graph_->ops().empty()) return std::nullopt;
  return static_cast<double>(done_) / static_cast<double>(graph_->ops().size());
}

void CambriconLlm::link_bytes(std::uint64_t bytes) {
  if (bytes > 0) link_->carried(bytes, static_cast<double>(bytes) / link_->bandwidth());
}

double CambriconLlm::dram_transfer(std::uint64_t bytes, bool write) {
  if (bytes == 0) return 0;
  const double start = sc_core::sc_time_stamp().to_seconds();
  sc_core::sc_event done;
  // The KV cache's region: reads and writes from its start (a decode step reads it whole).
  dma_->submit(DmaDescriptor{std::uint64_t{1} << 32, 1, bytes, 0, write}, [&done] { done.notify(sc_core::SC_ZERO_TIME); });
  sc_core::wait(done);
  kv_bytes_ += bytes;
  return sc_core::sc_time_stamp().to_seconds() - start;
}

double CambriconLlm::weights_op(const Operator& op, const Tensor& w, std::uint64_t base) {
  FlashTimeline& flash = flash_->timeline();
  const FlashSpec& f = flash.spec();
  const double now = sc_core::sc_time_stamp().to_seconds();
  const double m = op.kind == OpKind::Gemm ? static_cast<double>(op.dim("m")) : 1.0;  // vectors multiplied
  const double per_byte = 1 / w.bytes_per_element();  // weights a byte of a page holds (INT4: 2)
  const std::uint64_t pages = ceil_div(w.bytes, f.page_bytes);
  const auto dies = static_cast<std::uint64_t>(compute_cores(f));
  const std::uint64_t stripes = ceil_div(pages, dies);
  const auto mb = static_cast<std::uint64_t>(m);
  // A round: the tile's input slice broadcast on each channel, each core's share of the
  // tile's rows back.
  const std::uint64_t in_bytes = static_cast<std::uint64_t>(tile_.cols / f.channels) * mb;
  const std::uint64_t out_bytes = ceil_div(static_cast<std::uint64_t>(tile_.rows) * mb, dies / static_cast<std::uint64_t>(f.channels));
  double flash_end = now, read_end = now;
  std::uint64_t computed = 0, read = 0, moved = 0;
  std::vector<char> fed(static_cast<std::size_t>(f.channels));
  for (std::uint64_t s = 0; s < stripes; ++s) {
    std::fill(fed.begin(), fed.end(), 0);
    for (std::uint64_t p = s * dies; p < std::min(pages, (s + 1) * dies); ++p) {
      const std::uint64_t address = base + p * f.page_bytes;
      const std::uint64_t bytes = std::min<std::uint64_t>(f.page_bytes, w.bytes - p * f.page_bytes);
      // Pages go to the flash's cores or to the NPU in the proportion alpha, evenly spread.
      const bool in_flash = std::floor(static_cast<double>(p + 1) * alpha_) > std::floor(static_cast<double>(p) * alpha_);
      if (in_flash) {
        const int ch = flash.decode(address).channel;
        const std::uint64_t in = fed[static_cast<std::size_t>(ch)] ? 0 : in_bytes;
        fed[static_cast<std::size_t>(ch)] = 1;
        flash_end =
            std::max(flash_end, flash.read_compute(address, in, out_bytes,
                                                   static_cast<double>(bytes) * per_byte * m / core_macs_per_s_, now));
        flash_->count_direct(1, in + out_bytes);
        moved += in + out_bytes;
        computed += bytes;
        ++pages_computed_;
      } else {
        read_end = std::max(read_end, flash.read(address, bytes, now));
        flash_->count_direct(1, bytes);
        moved += bytes;
        read += bytes;
        ++pages_read_;
      }
    }
  }
  link_bytes(moved);
  core_mac_->add(static_cast<std::uint64_t>(static_cast<double>(computed) * per_byte * m));
  npu_mac_->add(static_cast<std::uint64_t>(static_cast<double>(read) * per_byte * m));
  // The NPU multiplies its pages as they arrive: done a page's work after the last one, or
  // when all its work is done if that is later.
  const double page_work = static_cast<double>(f.page_bytes) * per_byte * m / npu_macs_per_s_;
  const double npu_end =
      std::max(read_end + page_work, now + static_cast<double>(read) * per_byte * m / npu_macs_per_s_);
  return std::max(flash_end, read > 0 ? npu_end : now) - now;
}

double CambriconLlm::attention_op(const Operator& op) {
  std::uint64_t kv = 0;
  for (std::size_t i = 1; i < op.inputs.size(); ++i) kv += graph_->tensor(op.inputs[i]).bytes;
  const double compute_start = sc_core::sc_time_stamp().to_seconds();
  const double macs = op_flops(op) / 2;
  npu_mac_->add(static_cast<std::uint64_t>(macs));
  const double softmax = static_cast<double>(op.dim("batch") * op.dim("heads") * op.dim("kv_len") * op.dim("q_len"));
  vector_op_->add(static_cast<std::uint64_t>(softmax));
  const double compute = macs / npu_macs_per_s_ + softmax / vector_per_s_;
  const double loaded = dram_transfer(kv, false);  // the products follow the stream
  const double elapsed = sc_core::sc_time_stamp().to_seconds() - compute_start;
  return std::max(0.0, std::max(loaded, compute) - elapsed);  // what is left to wait
}

void CambriconLlm::run_graph() {
  std::map<TensorId, std::uint64_t> flash_base;
  std::uint64_t next_page = 0;
  const std::uint64_t page = flash_->timeline().spec().page_bytes;
  const auto base_of = [&](TensorId t) {
    auto it = flash_base.find(t);
    if (it != flash_base.end()) return it->second;
    const std::uint64_t b = next_page * page;
    next_page += ceil_div(graph_->tensor(t).bytes, page);
    flash_base.emplace(t, b);
    return b;
  };
  const auto weights_of = [&](const Operator& op) -> const Tensor* {
    if (op.kind != OpKind::Gemv && op.kind != OpKind::Gemm) return nullptr;
    const Tensor& w = graph_->tensor(op.inputs.at(1));
    return w.cls == TensorClass::Weights ? &w : nullptr;
  };
  const std::vector<OpId> order = graph_->topological_order();
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Operator& op = graph_->op(order[i]);
    const double start = sc_core::sc_time_stamp().to_seconds();
    double wait_s = 0;
    if (weights_of(op)) {
      // Independent weight GEMVs in a row (a layer's Q, K and V; gate and up) go to the flash
      // together, so its cores and channels stay busy across them.
      std::vector<OpId> group{order[i]};
      const auto depends_on_group = [&](const Operator& o) {
        return std::any_of(o.deps.begin(), o.deps.end(),
                           [&](OpId d) { return std::find(group.begin(), group.end(), d) != group.end(); });
      };
      while (i + 1 < order.size() && weights_of(graph_->op(order[i + 1])) && !depends_on_group(graph_->op(order[i + 1])))
        group.push_back(order[++i]);
      for (const OpId g : group) {
        const Operator& w = graph_->op(g);
        wait_s = std::max(wait_s, weights_op(w, *weights_of(w), base_of(w.inputs.at(1))));
      }
      weights_s_ += wait_s;
      done_ += group.size() - 1;
    } else if (op.kind == OpKind::Embedding) {
      // One row of the table a token, read from flash.
      FlashTimeline& flash = flash_->timeline();
      const auto bytes = static_cast<std::uint64_t>(std::ceil(static_cast<double>(op.dim("dim")) *
                                                              graph_->tensor(op.inputs.at(0)).bytes_per_element()));
      double end = start;
      for (std::int64_t k = 0; k < op.dim("tokens"); ++k)
        end = std::max(end, flash.read(base_of(op.inputs.at(0)) + static_cast<std::uint64_t>(k) * bytes, bytes, start));
      flash_->count_direct(static_cast<std::uint64_t>(op.dim("tokens")), bytes * static_cast<std::uint64_t>(op.dim("tokens")));
      link_bytes(bytes * static_cast<std::uint64_t>(op.dim("tokens")));
      wait_s = end - start;
      weights_s_ += wait_s;
    } else if (op.kind == OpKind::Attention) {
      wait_s = attention_op(op);
      attention_s_ += sc_core::sc_time_stamp().to_seconds() - start + wait_s;
    } else if (op.kind == OpKind::Copy && !op.outputs.empty() &&
               graph_->tensor(op.outputs[0]).cls == TensorClass::KvCache) {
      const auto bytes = static_cast<std::uint64_t>(std::ceil(static_cast<double>(input_elements(op, 0)) *
                                                              graph_->tensor(op.inputs.at(0)).bytes_per_element()));
      attention_s_ += dram_transfer(bytes, true);
    } else {
      // Norms, softmax and element-wise operators on the vector lanes.
      const double elements = static_cast<double>(output_elements(op, 0));
      vector_op_->add(static_cast<std::uint64_t>(elements));
      wait_s = elements / vector_per_s_ + op_flops(op) / 2 / npu_macs_per_s_;
      vector_s_ += wait_s;
    }
    if (!reachable_time(*this, start + wait_s)) return;  // the run fails (and never finishes)
    if (wait_s > 0) sc_core::wait(sc_core::sc_time(wait_s, sc_core::SC_SEC));
    ++done_;
  }
  latency_s_ = sc_core::sc_time_stamp().to_seconds();
  finished_ = true;
}

double CambriconLlm::peak_dynamic_j_per_cycle() const {
  return static_cast<double>(params().integer("npu_macs") + params().integer("vector_lanes")) *
         npu_mac_->joules_per_event();
}

void CambriconLlm::finalize(const sc_core::sc_time& end) {
  power_->finalize(reported_s(end));
  scalar("latency", "s", "the decode step").set(latency_s_);
  scalar("tokens_per_s", "tokens/s", "tokens the step produced over its latency")
      .set(latency_s_ > 0 ? tokens_ / latency_s_ : 0);
  scalar("breakdown.weights_s", "s", "weight GEMVs (flash compute and sliced page reads) and embeddings")
      .set(weights_s_);
  scalar("breakdown.attention_s", "s", "attention: the KV cache from the side DRAM, products and softmax on the NPU")
      .set(attention_s_);
  scalar("breakdown.vector_s", "s", "norms and element-wise operators on the NPU's vector lanes").set(vector_s_);
  scalar("flash_pages_computed", "pages", "weight pages multiplied in the flash").set(static_cast<double>(pages_computed_));
  scalar("flash_pages_read", "pages", "weight pages read to the NPU").set(static_cast<double>(pages_read_));
  scalar("kv_bytes", "B", "KV-cache bytes read and written in the side DRAM").set(static_cast<double>(kv_bytes_));
}

}  // namespace strata
