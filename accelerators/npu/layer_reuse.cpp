#include "accelerators/npu/layer_reuse.h"

#include <iterator>
#include <string>

#include <fmt/format.h>

namespace strata {
namespace {

struct Layer {
  std::int32_t number = -1;
  std::size_t begin = 0, end = 0;  // lowered operators [begin, end)
  std::string key;                 // empty: never reused
};

void append_descriptor(std::string& out, const DmaDescriptor& d) {
  fmt::format_to(std::back_inserter(out), "{}x{}/{}{} ", d.rows, d.row_bytes, d.stride, d.write ? "w" : "r");
}

// Everything the cores execute for the layer, with dependencies by position: the key two layers
// must share to be identical.
std::string layer_key(const OpGraph& graph, const NpuProgram& program, const Layer& layer, std::size_t previous_begin) {
  std::string out;
  auto it = std::back_inserter(out);
  for (std::size_t i = layer.begin; i < layer.end; ++i) {
    const LoweredOp& l = program.ops[i];
    if (l.external) return {};
    const Operator& op = graph.op(l.op);
    fmt::format_to(it, "op {} {} {} {} [{}] ", op_kind_name(op.kind), op.compute, op.accumulate, l.mapping,
                   fmt::join(op.group_sizes, ","));
    for (const auto& [dim, v] : op.dims) fmt::format_to(it, "{}={} ", dim, v);
    for (const auto& tensors : {op.inputs, op.outputs})
      for (TensorId t : tensors) {
        const Tensor& x = graph.tensor(t);
        fmt::format_to(it, "t{} {} [{}] {} ", static_cast<int>(x.cls), x.format, fmt::join(x.shape, ","), x.bytes);
      }
    for (int d : l.deps) {
      const auto dep = static_cast<std::size_t>(d);
      if (dep >= layer.begin) fmt::format_to(it, "dep+{} ", dep - layer.begin);
      else if (dep >= previous_begin) fmt::format_to(it, "dep-{} ", layer.begin - dep);
      else out += "dep-older ";
    }
    fmt::format_to(it, "{} {} {} {}\n", l.flops, l.dram_bytes, l.memory_bound, l.cores.size());
    for (const auto& tiles : l.cores) {
      out += "core\n";
      for (const Tile& t : tiles) {
        fmt::format_to(it, "{} {} L ", t.footprint, t.operand_bytes);
        for (const TileLoad& ld : t.loads) {
          out += ld.after_deps ? "a" : "p";
          append_descriptor(out, ld.d);
        }
        out += "S ";
        for (const TileStep& s : t.steps) {
          if (s.unit == TileStep::Unit::Matrix)
            fmt::format_to(it, "m{}x{}x{}{} ", s.matrix.m, s.matrix.n, s.matrix.k, s.matrix.format);
          else fmt::format_to(it, "v{} {}x{} ", s.vector_kind, s.rows, s.cols);
        }
        out += "W ";
        for (const DmaDescriptor& d : t.stores) append_descriptor(out, d);
        out += "\n";
      }
    }
  }
  return out;
}

}  // namespace

std::size_t LayerReusePlan::reused() const {
  std::size_t n = 0;
  for (const LayerRun& r : runs) n += r.repeats.size();
  return n;
}

LayerReusePlan plan_layer_reuse(const OpGraph& graph, const NpuProgram& program, bool find_runs) {
  std::vector<Layer> layers;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const std::int32_t number = graph.op(program.ops[i].op).layer;
    if (number < 0) continue;
    if (!layers.empty() && layers.back().number == number && layers.back().end == i) {
      ++layers.back().end;
      continue;
    }
    layers.push_back(Layer{number, i, i + 1, {}});
  }
  LayerReusePlan plan;
  plan.layers = layers.size();
  if (!find_runs) return plan;
  for (std::size_t i = 0; i < layers.size(); ++i)
    layers[i].key = layer_key(graph, program, layers[i], i > 0 ? layers[i - 1].begin : 0);
  // Identical neighbours: the same key, the next layer number, right after each other.
  const auto continues = [&](std::size_t i) {
    const Layer &a = layers[i - 1], &b = layers[i];
    return !b.key.empty() && b.key == a.key && b.number == a.number + 1 && b.begin == a.end;
  };
  for (std::size_t start = 0; start < layers.size();) {
    std::size_t stop = start + 1;
    while (stop < layers.size() && continues(stop)) ++stop;
    if (stop - start >= 3) {
      LayerRun run;
      const auto ops = [&](const Layer& l) {
        std::vector<std::size_t> v;
        for (std::size_t i = l.begin; i < l.end; ++i) v.push_back(i);
        return v;
      };
      run.first = ops(layers[start]);
      run.second = ops(layers[start + 1]);
      for (std::size_t i = start + 2; i < stop; ++i) run.repeats.push_back(ops(layers[i]));
      plan.runs.push_back(std::move(run));
    }
    start = stop;
  }
  return plan;
}

}  // namespace strata
