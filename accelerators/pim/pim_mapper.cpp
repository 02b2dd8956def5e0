#include "accelerators/pim/pim_mapper.h"

#include <map>

namespace strata {
namespace {

enum class Side { Host, Pim };

double operand_bytes(const OpGraph& g, const Operator& op, std::size_t i, bool output) {
  const Tensor& t = g.tensor(output ? op.outputs[i] : op.inputs[i]);
  const double elements = static_cast<double>(output ? output_elements(op, i) : input_elements(op, i));
  return elements * t.bytes_per_element();
}

bool is_activation(const Tensor& t) { return t.cls == TensorClass::Activations; }

}  // namespace

std::vector<PimTask> map_graph_to_pim(const OpGraph& graph, const PimMapping& m) {
  std::vector<PimTask> tasks;
  std::map<TensorId, Side> where;  // activations: the side that produced them (graph inputs: the host)
  const auto side_of = [&](TensorId t) {
    auto it = where.find(t);
    return it == where.end() ? Side::Host : it->second;
  };
  const bool gemv = m.offload.count("gemv") != 0, attention = m.offload.count("attention") != 0,
             elementwise = m.offload.count("elementwise") != 0;
  for (const OpId id : graph.topological_order()) {
    const Operator& op = graph.op(id);
    PimTask task;
    task.op = id;
    task.name = op.name;
    task.flops = op_flops(op);
    // Activations that cross to the side running the step (over the link, where the host has one).
    const auto crossing = [&](Side side) {
      double bytes = 0;
      if (m.host_on_dram_bus) return bytes;
      for (std::size_t i = 0; i < op.inputs.size(); ++i)
        if (is_activation(graph.tensor(op.inputs[i])) && side_of(op.inputs[i]) != side)
          bytes += operand_bytes(graph, op, i, false);
      return bytes;
    };
    const bool weights_in_b = op.inputs.size() > 1 && graph.tensor(op.inputs[1]).cls == TensorClass::Weights;
    const auto host_step = [&] {
      PimStep s;
      s.flops = task.flops;
      for (std::size_t i = 0; i < op.inputs.size(); ++i) s.host_bytes += operand_bytes(graph, op, i, false);
      for (std::size_t i = 0; i < op.outputs.size(); ++i) s.host_bytes += operand_bytes(graph, op, i, true);
      s.link_bytes = crossing(Side::Host);
      // A KV-cache append of a design whose attention runs in the PIM writes into the PIM's DRAM.
      if (!m.host_on_dram_bus && attention && op.kind == OpKind::Copy &&
          graph.tensor(op.outputs[0]).cls == TensorClass::KvCache)
        s.link_bytes += operand_bytes(graph, op, 0, true);
      return s;
    };
    const auto pim_wins = [&](const PimStep& s) { return !m.prefer_pim || m.prefer_pim(s, host_step()); };
    Side produced = Side::Host;
    PimStep gemm;  // a Gemm as GEMVs, one per row
    if (op.kind == OpKind::Gemm && gemv && weights_in_b && op.dim("m") <= m.max_gemv_batch) {
      gemm.kind = PimStep::Kind::Gemv;
      gemm.outputs = op.dim("n");
      gemm.inputs = op.dim("k");
      gemm.repeats = op.dim("m");
      gemm.link_bytes = crossing(Side::Pim);
    }
    PimStep ew;
    if ((op.kind == OpKind::Add || op.kind == OpKind::Mul || op.kind == OpKind::Relu) && elementwise) {
      ew.kind = PimStep::Kind::Elementwise;
      ew.elements = op.kind == OpKind::Relu ? input_elements(op, 0) : output_elements(op, 0);
      ew.op = op.kind == OpKind::Add   ? PimElementwise::Add
              : op.kind == OpKind::Mul ? PimElementwise::Mul
                                       : PimElementwise::Relu;
      ew.link_bytes = crossing(Side::Pim);
    }
    if (op.kind == OpKind::Gemv && gemv) {
      PimStep s;
      s.kind = PimStep::Kind::Gemv;
      s.outputs = op.dim("n");
      s.inputs = op.dim("k");
      s.link_bytes = crossing(Side::Pim);
      task.steps.push_back(s);
      produced = Side::Pim;
    } else if (gemm.kind == PimStep::Kind::Gemv && pim_wins(gemm)) {
      task.steps.push_back(gemm);
      produced = Side::Pim;
    } else if (op.kind == OpKind::Attention && attention && op.dim("q_len") == 1) {
      const std::int64_t queries = op.dim("batch") * op.dim("heads");
      const std::int64_t d = op.dim("head_dim"), kv = op.dim("kv_len");
      const std::int64_t dv = op.dims.count("v_head_dim") && op.dim("v_head_dim") > 0 ? op.dim("v_head_dim") : d;
      // Every query head's keys at once: a unit's outputs are consecutive keys of one head, and
      // the head's query is its input (loaded once where it fits the unit's registers).
      PimStep qk;
      qk.kind = PimStep::Kind::Gemv;
      qk.outputs = queries * kv;
      qk.inputs = d;
      qk.link_bytes = crossing(Side::Pim);
      PimStep softmax;  // the scores come out to the host and the probabilities go back in
      softmax.flops = 5.0 * static_cast<double>(queries * kv);
      softmax.link_bytes = m.host_on_dram_bus ? 0 : 2.0 * 2 * static_cast<double>(queries * kv);
      PimStep sv;
      sv.kind = PimStep::Kind::Gemv;
      sv.outputs = queries * dv;
      sv.inputs = kv;
      task.steps = {qk, softmax, sv};
      produced = Side::Pim;
    } else if (ew.kind == PimStep::Kind::Elementwise && pim_wins(ew)) {
      task.steps.push_back(ew);
      produced = Side::Pim;
    } else {
      task.steps.push_back(host_step());
    }
    task.on_pim = produced == Side::Pim;
    for (const TensorId t : op.outputs) where[t] = produced;
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace strata
