// The OpGraph's checks (shapes, dependencies, cycles), its summary figures, and the JSON Lines
// form: round trip and every class of bad input with its line number.
#include <gtest/gtest.h>

#include "sim/input_error.h"
#include "test_util.h"
#include "workloads/opgraph/graph_summary.h"
#include "workloads/opgraph/opgraph_jsonl.h"

namespace strata {
namespace {

using testing::TempDir;

Operator gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k, std::vector<TensorId> in,
              std::vector<TensorId> out) {
  Operator op;
  op.name = std::move(name);
  op.kind = OpKind::Gemm;
  op.dims = {{"m", m}, {"n", n}, {"k", k}};
  op.inputs = std::move(in);
  op.outputs = std::move(out);
  return op;
}

// x[4,8] · W1[16,8]^T → h[4,16]; relu; h · W2[8,16]^T → y[4,8]
OpGraph small_mlp() {
  OpGraph g;
  g.name = "mlp";
  const TensorId x = g.add_tensor("x", TensorClass::Activations, {4, 8}, "fp16");
  const TensorId w1 = g.add_tensor("w1", TensorClass::Weights, {16, 8}, "int8_pc");
  const TensorId w2 = g.add_tensor("w2", TensorClass::Weights, {8, 16}, "mxfp4");
  const TensorId h = g.add_tensor("h", TensorClass::Activations, {4, 16}, "fp16");
  const TensorId r = g.add_tensor("r", TensorClass::Activations, {4, 16}, "fp16");
  const TensorId y = g.add_tensor("y", TensorClass::Activations, {4, 8}, "fp16");
  g.add_op(gemm("fc1", 4, 16, 8, {x, w1}, {h}));
  Operator relu;
  relu.name = "relu";
  relu.kind = OpKind::Relu;
  relu.dims = {{"elements", 64}};
  relu.inputs = {h};
  relu.outputs = {r};
  g.add_op(relu);
  g.add_op(gemm("fc2", 4, 8, 16, {r, w2}, {y}));
  return g;
}

TEST(OpGraph, DataDependenciesAndOrder) {
  const OpGraph g = small_mlp();
  ASSERT_EQ(g.ops().size(), 3u);
  EXPECT_TRUE(g.op(0).deps.empty());
  EXPECT_EQ(g.op(1).deps, std::vector<OpId>{0});
  EXPECT_EQ(g.op(2).deps, std::vector<OpId>{1});
  EXPECT_EQ(g.topological_order(), (std::vector<OpId>{0, 1, 2}));
  EXPECT_EQ(g.find_cycle(), -1);
}

TEST(OpGraph, TensorBytesIncludeScales) {
  const OpGraph g = small_mlp();
  EXPECT_EQ(g.tensor(g.find_tensor("x")).bytes, 64u);            // 32 × 2
  EXPECT_EQ(g.tensor(g.find_tensor("w1")).bytes, 128u + 16 * 2);  // int8 + an FP16 scale per row
  EXPECT_EQ(g.tensor(g.find_tensor("w2")).bytes, 64u + 8);        // 128 × 4 bits + one E8M0 per 16-wide row
  EXPECT_THROW(OpGraph().add_tensor("t", TensorClass::Weights, {4}, "fp16", 9), std::invalid_argument);
  EXPECT_THROW(OpGraph().add_tensor("t", TensorClass::Weights, {0, 4}, "fp16"), std::invalid_argument);
  EXPECT_THROW(OpGraph().add_tensor("t", TensorClass::Weights, {4}, "fp7"), std::invalid_argument);
}

TEST(OpGraph, SummaryFigures) {
  const GraphSummary s = summarize(small_mlp());
  EXPECT_EQ(s.flops, 2.0 * 4 * 16 * 8 + 64 + 2.0 * 4 * 8 * 16);
  EXPECT_EQ(s.parameters, 16 * 8 + 8 * 16);
  // Traffic: fc1 reads x (64) and w1 (160), writes h (128); relu reads h, writes r; fc2 reads r
  // (128) and w2 (72), writes y (64).
  EXPECT_EQ(s.bytes[static_cast<size_t>(TensorClass::Weights)], 160 + 72);
  EXPECT_EQ(s.bytes[static_cast<size_t>(TensorClass::Activations)], 64 + 128 + 128 + 128 + 128 + 64);
  EXPECT_EQ(s.footprint[static_cast<size_t>(TensorClass::Activations)], 64 + 128 + 128 + 64);
  EXPECT_DOUBLE_EQ(s.arithmetic_intensity(), s.flops / s.total_bytes());
  const auto j = summary_json(s);
  for (const char* key : {"parameters", "active_parameters", "flops", "bytes", "footprint_bytes", "arithmetic_intensity"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["bytes"]["total"].get<double>(), s.total_bytes());
}

TEST(OpGraph, ShapeMismatchAndBadOperatorsAreRejected) {
  OpGraph g = small_mlp();
  const TensorId x = g.find_tensor("x"), w1 = g.find_tensor("w1"), h = g.find_tensor("h");
  auto message = [&](Operator op) {
    try {
      g.add_op(std::move(op));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(gemm("bad", 4, 16, 9, {x, w1}, {h})).find("shape mismatch: input a ('x', 32 elements) must hold 36"),
            std::string::npos);
  Operator missing = gemm("m", 4, 16, 8, {x, w1}, {h});
  missing.dims.erase("k");
  EXPECT_NE(message(missing).find("missing dimension 'k'"), std::string::npos);
  Operator extra = gemm("e", 4, 16, 8, {x, w1}, {h});
  extra.dims["q"] = 1;
  EXPECT_NE(message(extra).find("unknown dimension 'q'"), std::string::npos);
  EXPECT_NE(message(gemm("n", 4, 16, 8, {x}, {h})).find("takes 2 to 3 inputs, got 1"), std::string::npos);
  Operator grouped;
  grouped.name = "g";
  grouped.kind = OpKind::GroupedGemm;
  grouped.dims = {{"groups", 2}, {"m", 4}, {"n", 16}, {"k", 8}};
  grouped.group_sizes = {1, 2};
  grouped.inputs = {x, g.add_tensor("we", TensorClass::Weights, {2, 16, 8}, "fp16")};
  grouped.outputs = {h};
  EXPECT_NE(message(grouped).find("group_sizes sum to 3 rows, but m = 4"), std::string::npos);
}

TEST(OpGraph, PartialOperandsMayTouchPartOfATensor) {
  OpGraph g;
  const TensorId q = g.add_tensor("q", TensorClass::Activations, {1, 8, 1, 64}, "fp16");
  const TensorId k = g.add_tensor("k", TensorClass::KvCache, {1, 8, 100, 64}, "fp16");
  const TensorId v = g.add_tensor("v", TensorClass::KvCache, {1, 8, 100, 64}, "fp16");
  const TensorId o = g.add_tensor("o", TensorClass::Activations, {1, 512}, "fp16");
  Operator a;
  a.name = "attn";
  a.kind = OpKind::Attention;
  a.dims = {{"batch", 1}, {"heads", 8}, {"kv_heads", 8}, {"head_dim", 64}, {"q_len", 1}, {"kv_len", 40}};
  a.inputs = {q, k, v};
  a.outputs = {o};
  g.add_op(a);
  EXPECT_EQ(op_flops(g.op(0)), 2.0 * 8 * 40 * (64 + 64));
  const GraphSummary s = summarize(g);
  EXPECT_EQ(s.bytes[static_cast<size_t>(TensorClass::KvCache)], 2.0 * 8 * 40 * 64 * 2);  // only 40 positions read
  a.dims["kv_len"] = 101;
  EXPECT_THROW(g.add_op(a), std::invalid_argument);
}

TEST(OpGraph, CausalAttentionPairs) {
  Operator a;
  a.kind = OpKind::Attention;
  a.dims = {{"q_len", 4}, {"kv_len", 4}, {"causal", 1}};
  EXPECT_EQ(attention_pairs(a), 10);  // 1 + 2 + 3 + 4
  a.dims = {{"q_len", 2}, {"kv_len", 5}, {"causal", 1}};
  EXPECT_EQ(attention_pairs(a), 4 + 5);
  a.dims = {{"q_len", 2}, {"kv_len", 5}, {"causal", 0}};
  EXPECT_EQ(attention_pairs(a), 10);
}

TEST(OpGraphJsonl, RoundTripIsExact) {
  TempDir d;
  OpGraph g = small_mlp();
  g.provenance = {{"tool", "test"}};
  g.parameters = 256;
  write_opgraph_jsonl(g, d.file("g.jsonl"));
  const OpGraph back = read_opgraph_jsonl(d.file("g.jsonl"));
  EXPECT_EQ(opgraph_jsonl(back), opgraph_jsonl(g));
  EXPECT_EQ(back.parameters, 256);
  EXPECT_EQ(back.provenance["tool"], "test");
}

class JsonlErrors : public ::testing::Test {
 protected:
  // The error for a trace whose lines follow a valid header and the small MLP's tensors.
  std::string error_of(const std::string& body) {
    std::string text = "{\"format\":\"strata-opgraph\",\"version\":1}\n"
                       "{\"tensor\":\"x\",\"class\":\"activations\",\"shape\":[4,8],\"format\":\"fp16\"}\n"
                       "{\"tensor\":\"w\",\"class\":\"weights\",\"shape\":[16,8],\"format\":\"fp16\"}\n"
                       "{\"tensor\":\"h\",\"class\":\"activations\",\"shape\":[4,16],\"format\":\"fp16\"}\n" +
                       body;
    try {
      read_opgraph_jsonl(d.write("t.jsonl", text));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  TempDir d;
};

const std::string kGemm = R"({"op":0,"kind":"gemm","dims":{"m":4,"n":16,"k":8},"inputs":["x","w"],"outputs":["h"]})";

TEST_F(JsonlErrors, ValidTraceReads) { EXPECT_EQ(error_of(kGemm + "\n"), ""); }

TEST_F(JsonlErrors, EachProblemNamesItsLine) {
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos && msg.find('\n') == std::string::npos;
  };
  EXPECT_PRED2(has, error_of("{not json\n"), "t.jsonl:5:3: error: not valid JSON: syntax error while parsing object key");
  EXPECT_PRED2(has, error_of(R"({"op":0,"kind":"relu","dims":{"elements":1e999}})"),
               "t.jsonl:5: error: not valid JSON: number overflow parsing '1e999'");
  EXPECT_PRED2(has, error_of(R"({"op":0,"kind":"gemmm","dims":{},"inputs":[],"outputs":[]})"),
               "t.jsonl:5: error: kind: unknown operator kind 'gemmm' (did you mean 'gemm'?)");
  EXPECT_PRED2(has, error_of(R"({"op":0,"kind":"gemm","dims":{"m":4,"n":16,"k":9},"inputs":["x","w"],"outputs":["h"]})"),
               "t.jsonl:5: error: operator 'gemm0' (gemm): shape mismatch");
  EXPECT_PRED2(has, error_of(R"({"op":0,"kind":"gemm","dims":{"m":4,"n":16,"k":8},"inputs":["x","v"],"outputs":["h"]})"),
               "t.jsonl:5: error: inputs: unknown tensor 'v'");
  EXPECT_PRED2(has, error_of(kGemm + "\n" + R"({"op":1,"kind":"relu","dims":{"elements":64},"inputs":["h"],"outputs":["h"],"deps":[7]})"),
               "t.jsonl:6: error: deps: dangling dependency: operator 7 does not exist");
  EXPECT_PRED2(has, error_of(R"({"op":3,"kind":"relu","dims":{"elements":64},"inputs":["h"],"outputs":["h"]})"),
               "t.jsonl:5: error: op: operator ids count up from 0");
  EXPECT_PRED2(has, error_of(R"({"op":0,"kind":"relu","dims":{"elements":64},"inputs":["h"],"outputs":["h"],"deps":[1]})"
                             "\n"
                             R"({"op":1,"kind":"relu","dims":{"elements":64},"inputs":["h"],"outputs":["h"],"deps":[0]})"),
               "t.jsonl:6: error: deps: operator 'relu1' is part of a dependency cycle");
  EXPECT_PRED2(has, error_of(R"({"tensor":"z","class":"weight","shape":[4],"format":"fp16"})"),
               "t.jsonl:5: error: class: unknown tensor class 'weight'");
  EXPECT_PRED2(has, error_of(R"({"tensor":"z","class":"weights","shape":[4],"format":"fp16","bytes":9})"),
               "t.jsonl:5: error: tensor 'z': bytes 9 disagree");
  EXPECT_PRED2(has, error_of(R"({"op":0,"kind":"gemm","dims":{"m":4,"n":16,"k":8},"inputs":["x","w"],"outputs":["h"],"colour":1})"),
               "t.jsonl:5: error: colour: unknown key");
  EXPECT_PRED2(has, error_of(R"({"something":1})"), "t.jsonl:5: error: a line must declare a tensor");
}

TEST_F(JsonlErrors, HeaderProblems) {
  auto read = [&](const std::string& text) {
    try {
      read_opgraph_jsonl(d.write("h.jsonl", text));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(read("{\"format\":\"strata-opgraph\",\"version\":2}\n").find("h.jsonl:1: error: version: schema version 2"),
            std::string::npos);
  EXPECT_NE(read("{\"format\":\"other\",\"version\":1}\n").find("format: must be \"strata-opgraph\""), std::string::npos);
  EXPECT_NE(read("# only a comment\n").find("empty operator trace"), std::string::npos);
  EXPECT_THROW(read_opgraph_jsonl(d.file("absent.jsonl")), InputError);
}

}  // namespace
}  // namespace strata
