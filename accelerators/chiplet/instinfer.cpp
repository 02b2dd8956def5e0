#include "accelerators/chiplet/instinfer.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "models/link/chip_link.h"
#include "sim/input_error.h"
#include "sim/rounding.h"
#include "sim/sim_context.h"
#include "sim/simulated_time.h"

namespace strata {

KindSpec InstInfer::spec() {
  KindSpec s;
  s.name = "instinfer";
  s.description = "host GPU/NPU + computational SSDs running decode attention next to the KV cache (InstInfer)";
  s.with_clock();
  s.add(param::integer("csds", "computational SSDs; the attention heads are split evenly over them").def("1").range("1", "64"));
  s.add(param::real("kv_read_fraction",
                    "share of a drive's KV cache its attention reads from flash (SparF's sparse loading: 1/8)")
            .def("0.125")
            .range("0.000001", "1"));
  s.add(param::real("engine_gflops", "a drive's attention engine, GFLOP/s").def("12.7").range("0.001", "1e7"));
  s.slot(SlotSpec{"host", "the GPU or NPU running the rest of the step (a package_device kind: gpu, npu)", "component",
                  kPackageDeviceRole, true, nullptr});
  s.slot(SlotSpec{"csd_flash",
                  "each drive's NAND flash, whose controller its engine runs (a nand_flash role kind: nand_flash)",
                  "component", kNandFlashRole, true, nullptr});
  s.slot(SlotSpec{"pcie", "each drive's link to the host, per direction (a chip_link)", "component", kChipLinkRole,
                  true, nullptr});
  return s;
}

InstInfer::InstInfer(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      read_fraction_(params().real("kv_read_fraction")),
      engine_flops_(params().real("engine_gflops") * 1e9) {
  host_ = build_child<PackageDevice>("host");
  host_graph_target_ = host_.get();
  const auto drives = static_cast<int>(params().integer("csds"));
  for (int i = 0; i < drives; ++i) {
    flashes_.push_back(build_child<NandFlashDevice>("csd_flash", fmt::format("csd{}_flash", i)));
    flashes_.back()->direct_controller(ctx);
    links_.push_back(build_part<ChipLink>("pcie", fmt::format("csd{}_pcie", i)));
  }
  const UnitCost mac = tech().mac("fp16");
  engine_op_ = &energy_event("engine_mac", mac.energy_j, "the drives' attention engines' multiply-accumulates (FP16)");
  ctx.report("latency_s", stat_name("latency"));
  ctx.report("tokens_per_s", stat_name("tokens_per_s"));
}

InstInfer::~InstInfer() = default;

bool InstInfer::graph_finished() const { return host_graph_target_->graph_finished(); }

void InstInfer::load_graph(std::shared_ptr<const OpGraph> graph) {
  graph_ = std::move(graph);
  if (context().analytic())
    throw InputError(SourceLoc{}, "sim.fidelity", "instinfer has no analytic model yet: run at cycle level");
  // The host's graph: the workload's, with each attention and KV-cache append a transfer the
  // host waits for.
  auto host = std::make_shared<OpGraph>();
  host->name = graph_->name;
  host->provenance = graph_->provenance;
  host->parameters = graph_->parameters;
  host->active_parameters = graph_->active_parameters;
  for (const Tensor& t : graph_->tensors()) {
    Tensor c = t;
    c.id = -1;
    host->add_tensor(std::move(c));
  }
  for (const OpId id : graph_->topological_order()) {
    const Operator& op = graph_->op(id);
    Operator o = op;
    o.id = -1;
    o.deps.clear();
    const bool append = op.kind == OpKind::Copy && !op.outputs.empty() &&
                        graph_->tensor(op.outputs[0]).cls == TensorClass::KvCache;
    if (op.kind == OpKind::Attention) {
      o.kind = OpKind::SendRecv;
      o.dims = {{"elements", output_elements(op, 0)}};
      o.inputs = {op.inputs.at(0)};
      o.accumulate.clear();
    } else if (append) {
      // The new key or value leaves for the drive: a tensor of its own size (the cache is there).
      const Tensor& in = graph_->tensor(op.inputs.at(0));
      o.kind = OpKind::SendRecv;
      o.dims = {{"elements", input_elements(op, 0)}};
      o.outputs = {host->add_tensor(op.name + ".to_csd", TensorClass::Activations, {input_elements(op, 0)},
                                    in.format == "mixed" ? "fp16" : in.format)};
    }
    const OpId added = host->add_op(std::move(o));
    if (op.kind == OpKind::Attention || append) original_[added] = id;
  }
  // Each drive holds its share of every attention's KV cache, page-aligned (attention_s):
  // refused up front where that does not fit its flash.
  NandFlashDevice& flash = *flashes_.front();
  const std::uint64_t page = flash.timeline().spec().page_bytes;
  std::set<TensorId> caches;
  double kv = 0;
  for (const Operator& op : graph_->ops())
    if (op.kind == OpKind::Attention)
      for (std::size_t i = 1; i < op.inputs.size(); ++i)
        if (caches.insert(op.inputs[i]).second)
          kv += static_cast<double>(ceil_div(drive_share(graph_->tensor(op.inputs[i])), page) * page);
  require_capacity(flash.capacity(), kv,
                   fmt::format("a drive's share of the KV cache of {}, page-aligned",
                               graph_->name.empty() ? "the workload" : graph_->name));
  tokens_ = report_per_token(*graph_, context());
  host_->join_package(*this, 0);
  host_->load_graph(host);
}

std::uint64_t InstInfer::drive_share(const Tensor& kv) const {
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(kv.bytes) / static_cast<double>(flashes_.size())));
}

double InstInfer::attention_s(const Operator& op, double now) {
  const auto drives = static_cast<double>(flashes_.size());
  const ChipLink& link = *links_.front();
  const double q = static_cast<double>(graph_->tensor(op.inputs.at(0)).bytes) / drives;
  const double out = static_cast<double>(graph_->tensor(op.outputs.at(0)).bytes) / drives;
  const double arrived = now + link.latency() + q / link.bandwidth();
  double read_done = arrived;
  for (std::size_t i = 1; i < op.inputs.size(); ++i) {
    const std::uint64_t share = drive_share(graph_->tensor(op.inputs[i]));
    const auto read = static_cast<std::uint64_t>(std::ceil(static_cast<double>(share) * read_fraction_));
    auto [it, fresh] = kv_base_.emplace(op.inputs[i], next_kv_);
    if (fresh) next_kv_ += ceil_div(share, flashes_.front()->timeline().spec().page_bytes) * flashes_.front()->timeline().spec().page_bytes;
    for (std::size_t d = 0; d < flashes_.size(); ++d) {
      FlashTimeline& t = flashes_[d]->timeline();
      const std::uint64_t pages_before = t.page_reads();
      read_done = std::max(read_done, t.read(it->second, read, arrived));
      flashes_[d]->count_direct(t.page_reads() - pages_before, read);
      kv_read_bytes_ += read;
    }
  }
  // The products over the loaded share of the keys and values, on each drive's engine.
  const double flops = op_flops(op) * read_fraction_;
  engine_op_->add(static_cast<std::uint64_t>(flops / 2));
  const double computed = arrived + flops / drives / engine_flops_;
  const double back = link.latency() + out / link.bandwidth();
  for (const auto& l : links_) l->carried(static_cast<std::uint64_t>(q + out), (q + out) / l->bandwidth());
  return std::max(read_done, computed) + back - now;
}

double InstInfer::append_s(const Operator& op) {
  const auto drives = static_cast<double>(flashes_.size());
  const double bytes = std::ceil(static_cast<double>(input_elements(op, 0)) * graph_->tensor(op.inputs.at(0)).bytes_per_element()) / drives;
  for (const auto& l : links_) l->carried(static_cast<std::uint64_t>(bytes), bytes / l->bandwidth());
  return links_.front()->latency() + bytes / links_.front()->bandwidth();
}

void InstInfer::reached(int, OpId op) {
  const Operator& original = graph_->op(original_.at(op));
  const double now = sc_core::sc_time_stamp().to_seconds();
  double seconds = 0;
  if (original.kind == OpKind::Attention) {
    seconds = attention_s(original, now);
    attention_s_ += seconds;
  } else {
    seconds = append_s(original);
  }
  if (!reachable_time(*this, now + seconds)) return;  // the run fails; the host waits no further
  sc_core::sc_spawn([this, op, seconds] {
    sc_core::wait(sc_core::sc_time(seconds, sc_core::SC_SEC));
    host_->complete_collective(op);
  });
}

void InstInfer::finalize(const sc_core::sc_time&) {
  const double latency = host_->finished_at();
  scalar("latency", "s", "the decode step: the host's last operator's end").set(latency);
  scalar("tokens_per_s", "tokens/s", "tokens the step produced over its latency").set(latency > 0 ? tokens_ / latency : 0);
  scalar("csd.attention_s", "s", "attention offloaded to the drives, from the query leaving to the output back")
      .set(attention_s_);
  scalar("csd.kv_read_bytes", "B", "KV-cache bytes the drives read from flash").set(static_cast<double>(kv_read_bytes_));
}

}  // namespace strata
