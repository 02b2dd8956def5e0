// The placement pass on generated transformer graphs: tensor parallel reproduces Megatron-LM's
// split (column-parallel q/k/v, gate/up and LM head; row-parallel o_proj and down, each
// followed by an all-reduce of its FP32 partial sums; attention by heads), conserves the
// matrix FLOPs and halves every device's weight bytes; pipeline parallel splits layers and
// sends the residual stream between stages; expert parallel keeps each expert on its device.
#include <gtest/gtest.h>

#include <map>

#include "accelerators/package/placement.h"
#include "workloads/transformer/transformer_generator.h"

namespace strata {
namespace {

TransformerModel llama_like(std::int64_t layers) {
  TransformerModel m;
  m.name = "tiny-llama";
  m.layers = layers;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_hidden = 2816;
  m.vocab = 4000;
  m.max_positions = 4096;
  return m;
}

OpGraph decode_graph(const TransformerModel& m) {
  TransformerGraphOptions o;
  o.shape.phase = InferenceShape::Phase::Decode;
  o.shape.prompt_len = 256;
  o.quant = QuantChoice{"int8", "int8", "int8", "fp32", {}, {}, {}};
  return generate_transformer(m, o);
}

const Operator* find_op(const OpGraph& g, const std::string& name) {
  for (const Operator& op : g.ops())
    if (op.name == name) return &op;
  return nullptr;
}

double weight_bytes(const OpGraph& g) {
  double b = 0;
  for (const Tensor& t : g.tensors())
    if (t.cls == TensorClass::Weights) b += static_cast<double>(t.bytes);
  return b;
}

TEST(Placement, TensorParallelIsMegatronSplit) {
  const OpGraph g = decode_graph(llama_like(2));
  const Placement p = place_graph(g, PlacementPlan{2, 1});
  ASSERT_EQ(p.devices.size(), 2u);
  for (const DevicePart& part : p.devices) {
    const OpGraph& d = *part.graph;
    for (const char* column :
         {"s0.l0.q_proj", "s0.l0.k_proj", "s0.l0.v_proj", "s0.l1.ffn.gate", "s0.l1.ffn.up", "s0.lm_head"}) {
      const Operator* op = find_op(d, column);
      ASSERT_NE(op, nullptr) << column;
      EXPECT_EQ(op->dim("n"), find_op(g, column)->dim("n") / 2) << column;
      EXPECT_EQ(op->dim("k"), find_op(g, column)->dim("k")) << column;
    }
    for (const char* row : {"s0.l0.o_proj", "s0.l1.ffn.down"}) {
      const Operator* op = find_op(d, row);
      EXPECT_EQ(op->dim("k"), find_op(g, row)->dim("k") / 2) << row;
      const Operator* ar = find_op(d, std::string(row) + ".all_reduce");
      ASSERT_NE(ar, nullptr) << row;
      EXPECT_EQ(ar->kind, OpKind::AllReduce);
      EXPECT_EQ(ar->dim("elements"), 1024);
      EXPECT_EQ(ar->dim("devices"), 2);
      EXPECT_EQ(ar->deps, std::vector<OpId>{op->id});
    }
    EXPECT_EQ(find_op(d, "s0.l0.attn")->dim("heads"), 4);
    EXPECT_EQ(find_op(d, "s0.l0.attn")->dim("kv_heads"), 4);
    EXPECT_EQ(find_op(d, "s0.l0.norm1")->dims, find_op(g, "s0.l0.norm1")->dims);  // whole
    EXPECT_EQ(find_op(d, "s0.l0.add1")->dims, find_op(g, "s0.l0.add1")->dims);
    EXPECT_EQ(find_op(d, "s0.l0.ffn.silu")->dim("elements"), 2816 / 2);
    // Every weight but the norms' and the embedding table is split in two.
    double whole = 0;
    for (const Tensor& t : g.tensors())
      if (t.cls == TensorClass::Weights && (t.name == "embed.tokens" || t.name.find("norm") != std::string::npos))
        whole += static_cast<double>(t.bytes);
    EXPECT_NEAR(weight_bytes(d) - whole, (weight_bytes(g) - whole) / 2, 1e-3 * weight_bytes(g));
    EXPECT_EQ(part.collective.size(), 4u);  // two per layer
  }
  ASSERT_EQ(p.collectives.size(), 4u);
  for (const PlacedCollective& c : p.collectives) {
    EXPECT_EQ(c.kind, CollectiveKind::AllReduce);
    EXPECT_EQ(c.members, (std::vector<int>{0, 1}));
    EXPECT_EQ(c.bytes, 1024u * 4);  // FP32 partial sums
  }
  // Matrix FLOPs are conserved: every device does half of each split operator.
  double split = 0, whole = 0;
  for (const Operator& op : g.ops())
    if (op.kind == OpKind::Gemv || op.kind == OpKind::Attention) whole += op_flops(op);
  for (const DevicePart& part : p.devices)
    for (const Operator& op : part.graph->ops())
      if (op.kind == OpKind::Gemv || op.kind == OpKind::Attention) split += op_flops(op);
  EXPECT_DOUBLE_EQ(split, whole);
}

TEST(Placement, OneDeviceKeepsTheGraph) {
  const OpGraph g = decode_graph(llama_like(2));
  const Placement p = place_graph(g, PlacementPlan{1, 1});
  const OpGraph& d = *p.devices.at(0).graph;
  ASSERT_EQ(d.ops().size(), g.ops().size());
  ASSERT_EQ(d.tensors().size(), g.tensors().size());
  for (size_t i = 0; i < g.ops().size(); ++i) {
    EXPECT_EQ(d.ops()[i].name, g.ops()[i].name);
    EXPECT_EQ(d.ops()[i].dims, g.ops()[i].dims);
    EXPECT_EQ(d.ops()[i].deps, g.ops()[i].deps);
  }
  for (size_t i = 0; i < g.tensors().size(); ++i) EXPECT_EQ(d.tensors()[i].bytes, g.tensors()[i].bytes);
  EXPECT_TRUE(p.collectives.empty());
}

TEST(Placement, PipelineStagesSendTheResidualStream) {
  const OpGraph g = decode_graph(llama_like(4));
  const Placement p = place_graph(g, PlacementPlan{1, 2});
  const OpGraph& first = *p.devices.at(0).graph;
  const OpGraph& second = *p.devices.at(1).graph;
  EXPECT_NE(find_op(first, "s0.embed"), nullptr);
  EXPECT_NE(find_op(first, "s0.l1.add2"), nullptr);
  EXPECT_EQ(find_op(first, "s0.l2.norm1"), nullptr);
  EXPECT_NE(find_op(second, "s0.l2.norm1"), nullptr);
  EXPECT_NE(find_op(second, "s0.lm_head"), nullptr);
  EXPECT_EQ(find_op(second, "s0.embed"), nullptr);
  ASSERT_EQ(p.collectives.size(), 1u);  // layer 2 reads layer 1's output, once
  const PlacedCollective& c = p.collectives[0];
  EXPECT_EQ(c.kind, CollectiveKind::SendRecv);
  EXPECT_EQ(c.members, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.bytes, g.tensor(g.find_tensor("s0.l1.add2")).bytes);
  // The receiver's copy writes the tensor its first layer reads.
  const Operator* recv = &second.op(c.ops[1].second);
  EXPECT_EQ(second.tensor(recv->outputs[0]).name, "s0.l1.add2");
  EXPECT_EQ(second.producer(second.find_tensor("s0.l1.add2")), recv->id);
}

TEST(Placement, TensorAndPipelineTogether) {
  const OpGraph g = decode_graph(llama_like(4));
  const Placement p = place_graph(g, PlacementPlan{2, 2});
  ASSERT_EQ(p.devices.size(), 4u);
  int sends = 0, reduces = 0;
  for (const PlacedCollective& c : p.collectives) {
    if (c.kind == CollectiveKind::SendRecv) {
      ++sends;
      EXPECT_EQ(c.members[1] - c.members[0], 2);  // rank r of stage 0 to rank r of stage 1
    } else {
      ++reduces;
      EXPECT_TRUE(c.members == (std::vector<int>{0, 1}) || c.members == (std::vector<int>{2, 3}));
    }
  }
  EXPECT_EQ(sends, 2);
  EXPECT_EQ(reduces, 8);
}

TEST(Placement, HeadsThatDoNotDivideStayWhole) {
  TransformerModel m = llama_like(1);
  m.heads = m.kv_heads = 6;
  m.hidden = 768;
  const OpGraph g = decode_graph(m);
  const Placement p = place_graph(g, PlacementPlan{4, 1});
  const OpGraph& d = *p.devices.at(0).graph;
  EXPECT_EQ(find_op(d, "s0.l0.attn")->dim("heads"), 6);
  EXPECT_EQ(find_op(d, "s0.l0.q_proj")->dim("n"), 768);         // its consumer takes it whole
  EXPECT_EQ(find_op(d, "s0.l0.ffn.gate")->dim("n"), 2816 / 4);  // the FFN still splits
}

TEST(Placement, ErrorsSayWhatToChange) {
  const OpGraph g = decode_graph(llama_like(2));
  EXPECT_THROW(place_graph(g, PlacementPlan{1, 3}), PlacementError);  // more stages than layers
  OpGraph moe;
  const TensorId x = moe.add_tensor("x", TensorClass::Activations, {64}, "fp16");
  const TensorId y = moe.add_tensor("y", TensorClass::Activations, {64}, "fp16");
  Operator a2a;
  a2a.name = "a2a";
  a2a.kind = OpKind::AllToAll;
  a2a.dims = {{"elements", 64}, {"devices", 4}};
  a2a.inputs = {x};
  a2a.outputs = {y};
  moe.add_op(a2a);
  try {
    place_graph(moe, PlacementPlan{2, 1});
    FAIL();
  } catch (const PlacementError& e) {
    EXPECT_NE(std::string(e.what()).find("routing.devices must equal placement.tensor"), std::string::npos);
  }
}

}  // namespace
}  // namespace strata
