#include "accelerators/package/placement.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace strata {
namespace {

bool is_data(const Tensor& t) { return t.cls == TensorClass::Activations || t.cls == TensorClass::KvCache; }

bool is_collective(const Operator& op) {
  return (op.kind == OpKind::AllReduce || op.kind == OpKind::AllToAll) && op.dim("devices") > 1;
}

bool is_elementwise(OpKind k) {
  return k == OpKind::Add || k == OpKind::Mul || k == OpKind::Gelu || k == OpKind::Silu || k == OpKind::Relu ||
         k == OpKind::Copy;
}

enum class Mode { Whole, Column, Row, Split };

class Placer {
 public:
  Placer(const OpGraph& g, const PlacementPlan& plan) : g_(g), plan_(plan), T_(plan.tensor) {}

  Placement run() {
    check_collectives();
    assign_stages();
    pin_experts();
    split_tensors();
    decide_modes();
    build();
    return std::move(out_);
  }

 private:
  // --- decisions -----------------------------------------------------------------------------

  void check_collectives() {
    for (const Operator& op : g_.ops()) {
      if (op.kind == OpKind::SendRecv)
        throw PlacementError(fmt::format("operator {} is a send_recv: the graph is already placed", op.name));
      if (!is_collective(op)) continue;
      if (op.dim("devices") != T_)
        throw PlacementError(fmt::format(
            "operator {} ({}) spans {} devices but the package's stages have {} (placement.tensor); the workload's "
            "routing.devices must equal placement.tensor",
            op.name, op_kind_name(op.kind), op.dim("devices"), T_));
      expert_parallel_ |= op.kind == OpKind::AllToAll;
    }
  }

  void assign_stages() {
    int layers = 0;
    for (const Operator& op : g_.ops()) layers = std::max(layers, op.layer + 1);
    if (plan_.pipeline > 1 && layers < plan_.pipeline)
      throw PlacementError(fmt::format("{} pipeline stages need at least {} layers; the graph has {}", plan_.pipeline,
                                       plan_.pipeline, layers));
    stage_.assign(g_.ops().size(), 0);
    int current = 0;
    for (const Operator& op : g_.ops()) {
      if (op.layer >= 0)
        current = static_cast<int>(static_cast<std::int64_t>(op.layer) * plan_.pipeline / std::max(1, layers));
      stage_[static_cast<size_t>(op.id)] = current;
    }
  }

  // The operator that last wrote each input before `op` (program order), per input.
  void pin_experts() {
    pinned_.assign(g_.ops().size(), -1);
    writer_before_.assign(g_.ops().size(), {});
    std::vector<OpId> last(g_.tensors().size(), -1);
    for (const Operator& op : g_.ops()) {
      auto& writers = writer_before_[static_cast<size_t>(op.id)];
      for (TensorId t : op.inputs) writers.push_back(last[static_cast<size_t>(t)]);
      int& pin = pinned_[static_cast<size_t>(op.id)];
      if (expert_parallel_ && op.device >= 0) {
        if (op.device >= T_)
          throw PlacementError(
              fmt::format("operator {} is placed on device {}, but a stage has {} devices", op.name, op.device, T_));
        pin = op.device;
      } else if (expert_parallel_ && !is_collective(op)) {
        for (OpId w : writers)
          if (w >= 0 && pinned_[static_cast<size_t>(w)] >= 0) pin = pinned_[static_cast<size_t>(w)];
      }
      for (TensorId t : op.outputs) last[static_cast<size_t>(t)] = op.id;
    }
  }

  bool linear(const Operator& op) const {
    return (op.kind == OpKind::Gemm || op.kind == OpKind::Gemv) && op.inputs.size() >= 2 &&
           g_.tensor(op.inputs[1]).cls == TensorClass::Weights;
  }

  bool splittable_shape(const Tensor& t) const {
    if (t.format == "mixed" || t.format == "index" || t.shape.empty()) return false;
    if (t.cls == TensorClass::KvCache) return t.shape.size() == 4 && t.shape[1] % T_ == 0;
    return t.shape.back() % T_ == 0;
  }

  // Which data tensors are split over a stage's devices: all that can be, then undone where an
  // operator cannot take them, until nothing changes.
  void split_tensors() {
    split_.assign(g_.tensors().size(), false);
    if (T_ == 1) return;
    std::vector<bool> written(g_.tensors().size(), false);
    for (const Operator& op : g_.ops())
      for (TensorId t : op.outputs) written[static_cast<size_t>(t)] = true;
    for (const Tensor& t : g_.tensors())
      split_[static_cast<size_t>(t.id)] =
          is_data(t) && splittable_shape(t) && (written[static_cast<size_t>(t.id)] || t.cls == TensorClass::KvCache);
    bool changed = true;
    auto whole = [&](TensorId t) {
      if (split_[static_cast<size_t>(t)]) changed = true;
      split_[static_cast<size_t>(t)] = false;
    };
    auto data_operands = [&](const Operator& op) {
      std::vector<TensorId> v;
      for (TensorId t : op.inputs)
        if (is_data(g_.tensor(t))) v.push_back(t);
      for (TensorId t : op.outputs)
        if (is_data(g_.tensor(t))) v.push_back(t);
      return v;
    };
    auto all_split = [&](const std::vector<TensorId>& v) {
      return std::all_of(v.begin(), v.end(), [&](TensorId t) { return split_[static_cast<size_t>(t)]; });
    };
    while (changed) {
      changed = false;
      for (const Operator& op : g_.ops()) {
        const std::vector<TensorId> data = data_operands(op);
        if (pinned_[static_cast<size_t>(op.id)] >= 0 || is_collective(op)) {
          for (TensorId t : data) whole(t);
        } else if (linear(op)) {
          const TensorId x = op.inputs[0];
          if (split_[static_cast<size_t>(x)] && op.dim("k") % T_ != 0) whole(x);
          if (split_[static_cast<size_t>(x)] || op.dim("n") % T_ != 0)
            for (TensorId t : op.outputs) whole(t);
        } else if (op.kind == OpKind::Attention) {
          if (op.dim("heads") % T_ != 0 || op.dim("kv_heads") % T_ != 0 || !all_split(data))
            for (TensorId t : data) whole(t);
        } else if (is_elementwise(op.kind)) {
          if (op.dim("elements") % T_ != 0 || !all_split(data))
            for (TensorId t : data) whole(t);
        } else {
          for (TensorId t : data) whole(t);
        }
      }
    }
  }

  void decide_modes() {
    mode_.assign(g_.ops().size(), Mode::Whole);
    weight_mode_.assign(g_.tensors().size(), Mode::Whole);
    for (const Operator& op : g_.ops()) {
      Mode& m = mode_[static_cast<size_t>(op.id)];
      if (T_ == 1 || pinned_[static_cast<size_t>(op.id)] >= 0 || is_collective(op)) continue;
      const bool out_split = !op.outputs.empty() && split_[static_cast<size_t>(op.outputs[0])];
      if (linear(op)) {
        if (split_[static_cast<size_t>(op.inputs[0])]) m = Mode::Row;
        else if (out_split) m = Mode::Column;
        // A weight two layers read in different ways (tied embeddings) stays whole for the second.
        Mode& w = weight_mode_[static_cast<size_t>(op.inputs[1])];
        if (m != Mode::Whole && w != Mode::Whole && w != m) m = Mode::Whole;
        if (m != Mode::Whole) w = m;
        if (m == Mode::Column && op.inputs.size() > 2) weight_mode_[static_cast<size_t>(op.inputs[2])] = m;  // the bias
      } else if (out_split) {
        m = Mode::Split;
      }
    }
  }

  // --- per-device graphs ---------------------------------------------------------------------

  std::vector<std::int64_t> shape_on_device(const Tensor& t) const {
    std::vector<std::int64_t> s = t.shape;
    if (is_data(t) && split_[static_cast<size_t>(t.id)]) {
      if (t.cls == TensorClass::KvCache) s[1] /= T_;
      else s.back() /= T_;
    } else if (t.cls == TensorClass::Weights) {
      const Mode m = weight_mode_[static_cast<size_t>(t.id)];
      // Weights are [n, k]; a bias [n] splits with the output columns only.
      if (m == Mode::Column) s.front() /= T_;
      if (m == Mode::Row && s.size() >= 2) s.back() /= T_;
    }
    return s;
  }

  Tensor device_tensor(const Tensor& t) const {
    Tensor d = t;
    d.id = -1;
    d.shape = shape_on_device(t);
    if (d.shape != t.shape) d.bytes = 0;  // recomputed from the shape and format
    return d;
  }

  std::map<std::string, std::int64_t> device_dims(const Operator& op) const {
    std::map<std::string, std::int64_t> d = op.dims;
    switch (mode_[static_cast<size_t>(op.id)]) {
      case Mode::Whole: break;
      case Mode::Column: d["n"] /= T_; break;
      case Mode::Row: d["k"] /= T_; break;
      case Mode::Split:
        if (op.kind == OpKind::Attention) {
          d["heads"] /= T_;
          d["kv_heads"] /= T_;
        } else {
          d["elements"] /= T_;
        }
        break;
    }
    return d;
  }

  int device_of(int stage, int rank) const { return stage * T_ + rank; }

  bool placed_on(const Operator& op, int rank) const {
    const int pin = pinned_[static_cast<size_t>(op.id)];
    return pin < 0 || pin == rank;
  }

  int collective(const std::string& key, CollectiveKind kind, const std::string& name, std::uint64_t bytes) {
    auto [it, fresh] = collective_index_.try_emplace(key, static_cast<int>(out_.collectives.size()));
    if (fresh) {
      PlacedCollective c;
      c.kind = kind;
      c.name = name;
      c.bytes = bytes;
      out_.collectives.push_back(std::move(c));
    }
    return it->second;
  }

  OpId add(int device, Operator op, int coll) {
    DevicePart& part = out_.devices[static_cast<size_t>(device)];
    op.id = -1;
    op.device = -1;
    const OpId id = part.graph->add_op(std::move(op));
    if (coll >= 0) {
      PlacedCollective& c = out_.collectives[static_cast<size_t>(coll)];
      c.members.push_back(device);
      c.ops.emplace_back(device, id);
      part.collective[id] = coll;
    }
    return id;
  }

  TensorId local(int device, TensorId t) const {
    return out_.devices[static_cast<size_t>(device)].graph->find_tensor(g_.tensor(t).name);
  }

  // A tensor of an earlier stage reaches `dst` from the same rank of the stage that wrote it.
  void receive(int dst, int src, TensorId t) {
    if (!received_[static_cast<size_t>(dst)].insert(t).second) return;
    flush(src, src % T_);  // the tensor's writer may be waiting there
    const OpGraph& dg = *out_.devices[static_cast<size_t>(dst)].graph;
    const Tensor& on_dst = dg.tensor(local(dst, t));
    const std::string name = fmt::format("{}.send.d{}_to_d{}", g_.tensor(t).name, src, dst);
    const int coll = collective(name, CollectiveKind::SendRecv, name, on_dst.bytes);
    Operator op;
    op.name = name;
    op.kind = OpKind::SendRecv;
    op.dims = {{"elements", on_dst.elements()}};
    op.compute = on_dst.format;
    for (int d : {src, dst}) {
      Operator o = op;
      o.inputs = {local(d, t)};
      o.outputs = {local(d, t)};
      add(d, std::move(o), coll);
    }
  }

  void build() {
    const int devices = plan_.devices();
    out_.devices.resize(static_cast<size_t>(devices));
    received_.assign(static_cast<size_t>(devices), {});
    new_id_.assign(static_cast<size_t>(devices), std::vector<OpId>(g_.ops().size(), -1));
    // Tensors each device touches, added in the graph's order (so memory layouts follow it).
    std::vector<std::vector<bool>> used(static_cast<size_t>(devices), std::vector<bool>(g_.tensors().size(), false));
    for (const Operator& op : g_.ops())
      for (int r = 0; r < T_; ++r) {
        if (!placed_on(op, r)) continue;
        auto& u = used[static_cast<size_t>(device_of(stage_[static_cast<size_t>(op.id)], r))];
        for (TensorId t : op.inputs) u[static_cast<size_t>(t)] = true;
        for (TensorId t : op.outputs) u[static_cast<size_t>(t)] = true;
      }
    for (int d = 0; d < devices; ++d) {
      auto graph = std::make_shared<OpGraph>();
      graph->name = g_.name;
      graph->provenance = g_.provenance;
      graph->parameters = g_.parameters;
      graph->active_parameters = g_.active_parameters;
      for (const Tensor& t : g_.tensors())
        if (used[static_cast<size_t>(d)][static_cast<size_t>(t.id)]) graph->add_tensor(device_tensor(t));
      out_.devices[static_cast<size_t>(d)].graph = std::move(graph);
    }

    taint_remote();
    deferred_.assign(static_cast<size_t>(devices), {});
    for (const Operator& op : g_.ops()) {
      const Mode mode = mode_[static_cast<size_t>(op.id)];
      if (pinned_[static_cast<size_t>(op.id)] >= 0) ++out_.pinned_ops;
      else if (mode != Mode::Whole) ++out_.split_ops;
      else ++out_.whole_ops;
      for (int r = 0; r < T_; ++r) {
        if (!placed_on(op, r)) continue;
        const int d = device_of(stage_[static_cast<size_t>(op.id)], r);
        // Work that waits for another device's experts goes after this device's own; it is
        // emitted before the next collective, so every device meets collectives in one order.
        if (!is_collective(op) && remote_[static_cast<size_t>(op.id)][static_cast<size_t>(r)]) {
          deferred_[static_cast<size_t>(d)].push_back(op.id);
          continue;
        }
        if (is_collective(op) || needs_deferred(op, d)) flush(d, r);
        emit(op, r, d);
      }
    }
    for (int d = 0; d < devices; ++d) flush(d, d % T_);
  }

  // Whether an operator, on rank r, reads what another rank's pinned operators produced.
  void taint_remote() {
    remote_.assign(g_.ops().size(), std::vector<bool>(static_cast<size_t>(T_), false));
    if (!expert_parallel_) return;
    for (const Operator& op : g_.ops())
      for (int r = 0; r < T_; ++r) {
        const int pin = pinned_[static_cast<size_t>(op.id)];
        bool remote = pin >= 0 && pin != r;
        for (OpId w : writer_before_[static_cast<size_t>(op.id)])
          remote = remote || (w >= 0 && remote_[static_cast<size_t>(w)][static_cast<size_t>(r)]);
        remote_[static_cast<size_t>(op.id)][static_cast<size_t>(r)] = remote;
      }
  }

  bool needs_deferred(const Operator& op, int d) const {
    const auto& q = deferred_[static_cast<size_t>(d)];
    auto waiting = [&](OpId id) { return id >= 0 && std::find(q.begin(), q.end(), id) != q.end(); };
    const auto& writers = writer_before_[static_cast<size_t>(op.id)];
    return std::any_of(writers.begin(), writers.end(), waiting) || std::any_of(op.deps.begin(), op.deps.end(), waiting);
  }

  void flush(int d, int r) {
    std::vector<OpId> q;
    q.swap(deferred_[static_cast<size_t>(d)]);
    for (OpId id : q) emit(g_.op(id), r, d);
  }

  void emit(const Operator& op, int r, int d) {
    const int stage = stage_[static_cast<size_t>(op.id)];
    // Inputs an earlier stage wrote arrive first.
    const auto& writers = writer_before_[static_cast<size_t>(op.id)];
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const OpId w = writers[i];
      if (w < 0 || stage_[static_cast<size_t>(w)] == stage) continue;
      const int from_rank = pinned_[static_cast<size_t>(w)] >= 0 ? pinned_[static_cast<size_t>(w)] : r;
      receive(d, device_of(stage_[static_cast<size_t>(w)], from_rank), op.inputs[i]);
    }
    auto& ids = new_id_[static_cast<size_t>(d)];
    Operator o;
    o.name = op.name;
    o.kind = op.kind;
    o.dims = device_dims(op);
    o.group_sizes = op.group_sizes;
    o.compute = op.compute;
    o.accumulate = op.accumulate;
    o.layer = op.layer;
    for (TensorId t : op.inputs) o.inputs.push_back(local(d, t));
    for (TensorId t : op.outputs) o.outputs.push_back(local(d, t));
    for (OpId dep : op.deps)
      if (ids[static_cast<size_t>(dep)] >= 0) o.deps.push_back(ids[static_cast<size_t>(dep)]);
    int coll = -1;
    if (is_collective(op)) {
      const Tensor& x = g_.tensor(op.inputs[0]);
      const auto data = static_cast<std::uint64_t>(static_cast<double>(op.dim("elements")) * x.bytes_per_element());
      const bool a2a = op.kind == OpKind::AllToAll;
      coll = collective(op.name, a2a ? CollectiveKind::AllToAll : CollectiveKind::AllReduce, op.name,
                        a2a ? (data + static_cast<std::uint64_t>(T_) - 1) / static_cast<std::uint64_t>(T_) : data);
    }
    OpId id = add(d, std::move(o), coll);
    if (mode_[static_cast<size_t>(op.id)] == Mode::Row) {
      // The partial sums of a row-parallel layer are summed over the stage's devices.
      const TensorId y = local(d, op.outputs[0]);
      const std::int64_t elements = output_elements(op, 0);
      const std::string format = op.accumulate.empty() ? g_.tensor(op.outputs[0]).format : op.accumulate;
      const std::string name = op.name + ".all_reduce";
      const int c = collective(name, CollectiveKind::AllReduce, name, tensor_storage_bytes(format, {elements}));
      Operator ar;
      ar.name = name;
      ar.kind = OpKind::AllReduce;
      ar.dims = {{"elements", elements}, {"devices", T_}};
      ar.inputs = {y};
      ar.outputs = {y};
      ar.compute = format;
      ar.layer = op.layer;
      id = add(d, std::move(ar), c);
    }
    ids[static_cast<size_t>(op.id)] = id;
  }

  const OpGraph& g_;
  PlacementPlan plan_;
  int T_;
  bool expert_parallel_ = false;
  std::vector<int> stage_, pinned_;
  std::vector<std::vector<OpId>> writer_before_;
  std::vector<bool> split_;
  std::vector<Mode> mode_, weight_mode_;
  std::map<std::string, int> collective_index_;
  std::vector<std::set<TensorId>> received_;
  std::vector<std::vector<OpId>> new_id_;    // per device: its operator for each of the graph's
  std::vector<std::vector<bool>> remote_;    // per operator and rank: reads another rank's experts' work
  std::vector<std::vector<OpId>> deferred_;  // per device: operators waiting to be emitted
  Placement out_;
};

}  // namespace

Placement place_graph(const OpGraph& graph, const PlacementPlan& plan) {
  if (plan.tensor < 1 || plan.pipeline < 1) throw PlacementError("placement: tensor and pipeline must be at least 1");
  return Placer(graph, plan).run();
}

}  // namespace strata
