#include "workloads/gemm_workload.h"

#include "workloads/opgraph/graph_builder.h"

namespace strata {

KindSpec GemmWorkload::spec() {
  KindSpec s;
  s.name = "gemm";
  s.description = "one GEMM C[m,n] = A[m,k]·B[n,k]^T, or batch of them, in the quant section's formats";
  s.add(param::integer("m", "rows of A and C (tokens)").range("1", "1099511627776"));
  s.add(param::integer("n", "rows of B, columns of C (output features)").range("1", "1099511627776"));
  s.add(param::integer("k", "the reduction depth (input features)").range("1", "1099511627776"));
  s.add(param::integer("batch", "independent GEMMs of this shape (1: one, with B as weights)").def("1").range("1", "1048576"));
  s.slot(SlotSpec{"quant", "number formats: activations for A and C, weights for B, accumulate", "section", "", false,
                  &quant_section_spec(QuantExtras::None)});
  return s;
}

GemmWorkload::GemmWorkload(const ValidatedNode& cfg, SimContext& ctx)
    : GraphWorkload(cfg, ctx), quant_(read_quant_section(cfg.child("quant"))) {}

OpGraph GemmWorkload::build() const {
  const Params& p = cfg_.params;
  const std::int64_t m = p.integer("m"), n = p.integer("n"), k = p.integer("k"), batch = p.integer("batch");
  OpGraph g;
  g.name = batch > 1 ? "batched_gemm" : "gemm";
  g.provenance = {{"generator", "gemm"}, {"m", m}, {"n", n}, {"k", k}, {"batch", batch}};
  GraphBuilder b(g, quant_);
  if (batch == 1) {
    const TensorId a = b.activation("a", {m, k});
    const TensorId w = b.weight("b", {n, k});
    const TensorId c = b.activation("c", {m, n});
    b.emit(OpKind::Gemm, "gemm", {{"m", m}, {"n", n}, {"k", k}}, {a, w}, {c}, true);
  } else {
    const TensorId a = b.activation("a", {batch, m, k});
    const TensorId w = g.add_tensor("b", TensorClass::Activations, {batch, n, k}, quant_.weights);
    const TensorId c = b.activation("c", {batch, m, n});
    b.emit(OpKind::BatchedGemm, "batched_gemm", {{"batch", batch}, {"m", m}, {"n", n}, {"k", k}}, {a, w}, {c}, true);
  }
  g.parameters = batch == 1 ? n * k : 0;
  g.active_parameters = g.parameters;
  return g;
}

}  // namespace strata
