#include "accelerators/npu/scalesim_workload.h"

#include "accelerators/npu/scalesim_files.h"

namespace strata {

KindSpec ScaleSimTopologyWorkload::spec() {
  KindSpec s;
  s.name = "scalesim_topology";
  s.description = "layers of a SCALE-Sim topology CSV (convolution or GEMM form) as INT8 GEMMs";
  s.add(param::path("path", "the topology CSV; relative paths are relative to the config file that names it"));
  return s;
}

// Read at construction, so a bad file fails before anything is elaborated.
ScaleSimTopologyWorkload::ScaleSimTopologyWorkload(const ValidatedNode& cfg, SimContext& ctx) : GraphWorkload(cfg, ctx) {
  graph();
}

OpGraph ScaleSimTopologyWorkload::build() const {
  const scalesim::Topology topo = scalesim::read_topology(cfg_.params.path("path"));
  OpGraph g;
  g.name = "scalesim-topology";
  OpId previous = -1;
  for (const scalesim::Layer& l : topo.layers) {
    const std::int64_t m = l.ofmap_pixels(), n = l.num_filters, k = l.window();
    Operator op;
    op.name = l.name;
    op.kind = OpKind::Gemm;
    op.dims = {{"m", m}, {"n", n}, {"k", k}};
    op.inputs = {g.add_tensor(l.name + ".ifmap", TensorClass::Activations, {m, k}, "int8"),
                 g.add_tensor(l.name + ".filter", TensorClass::Weights, {n, k}, "int8")};
    op.outputs = {g.add_tensor(l.name + ".ofmap", TensorClass::Activations, {m, n}, "int8")};
    op.compute = "int8";
    op.accumulate = "int8";
    const OpId id = g.add_op(std::move(op));
    if (previous >= 0) g.add_dependency(id, previous);
    previous = id;
  }
  return g;
}

}  // namespace strata
