// Vector unit timing: primitive passes and every composite operator worked by hand on a 4-lane
// unit with a small cost table, the default table's assumptions, monotonicity.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "models/vector/vector_timing.h"

namespace strata {
namespace {

using Op = VectorOp;

// 4 lanes; add/max/compare/reduce latency 2, mul 3, all one element per lane per cycle; exp
// latency 8 and reciprocal 10 at a quarter of that.
VectorConfig small() {
  VectorConfig cfg;
  cfg.lanes = 4;
  cfg.ops = {{Op::Add, {2, 1}},  {Op::Mul, {3, 1}},  {Op::Max, {2, 1}},         {Op::Compare, {2, 1}},
             {Op::Reduce, {2, 1}}, {Op::Exp, {8, 0.25}}, {Op::Reciprocal, {10, 0.25}}};
  return cfg;
}

const std::vector<std::string> kKinds = {"softmax", "layer_norm", "rms_norm", "gelu",   "silu",
                                         "relu",    "add",        "mul",      "top_k", "scatter",
                                         "attention_softmax"};

// A pass is latency + ⌈n / (lanes·throughput)⌉ − 1. On 4 lanes with 16 elements: add 2 + 4 − 1
// = 5, mul 6, exp 8 + ⌈16/1⌉ − 1 = 23, reciprocal 25; a reduction of 2 rows adds 2·log2(4) = 4:
// 2 + 3 + 4 = 9. Per-row passes over 2 elements: reciprocal 10 + 2 − 1 = 11, mul 3 + 1 − 1 = 3.
TEST(VectorTiming, PrimitivePasses) {
  const VectorConfig cfg = small();
  EXPECT_EQ(vector_pass(cfg, Op::Add, 16).cycles, 5u);
  EXPECT_EQ(vector_pass(cfg, Op::Add, 17).cycles, 6u);
  EXPECT_EQ(vector_pass(cfg, Op::Add, 1).cycles, 2u);
  EXPECT_EQ(vector_pass(cfg, Op::Mul, 16).cycles, 6u);
  EXPECT_EQ(vector_pass(cfg, Op::Exp, 16).cycles, 23u);
  EXPECT_EQ(vector_pass(cfg, Op::Reciprocal, 16).cycles, 25u);
  EXPECT_EQ(vector_pass(cfg, Op::Reciprocal, 2).cycles, 11u);
  EXPECT_EQ(vector_pass(cfg, Op::Reduce, 16, 2).cycles, 9u);
  EXPECT_EQ(vector_pass(cfg, Op::Reduce, 16).cycles, 7u);
  const VectorTiming t = vector_pass(cfg, Op::Exp, 16);
  ASSERT_EQ(t.elements.size(), 1u);
  EXPECT_EQ(t.elements.at(Op::Exp), 16u);
  // One lane: no tree; 5 lanes: a 3-deep tree.
  VectorConfig one = cfg;
  one.lanes = 1;
  EXPECT_EQ(vector_pass(one, Op::Reduce, 16, 2).cycles, 2u + 16 - 1);
  VectorConfig five = cfg;
  five.lanes = 5;
  EXPECT_EQ(vector_pass(five, Op::Reduce, 10, 1).cycles, 2u + 2 - 1 + 3);
}

// Composites on 2 rows × 8 cols (E = 16, R = 2), pass costs as above.
TEST(VectorTiming, CompositesWorkedByHand) {
  const VectorConfig cfg = small();
  struct Case { std::string kind; std::uint64_t cycles; std::map<Op, std::uint64_t> elements; };
  const std::vector<Case> cases = {
      // max-reduce 9, subtract 5, exp 23, sum-reduce 9, reciprocal per row 11, multiply 6.
      {"softmax", 63, {{Op::Reduce, 32}, {Op::Add, 16}, {Op::Exp, 16}, {Op::Reciprocal, 2}, {Op::Mul, 16}}},
      {"attention_softmax", 63, {{Op::Reduce, 32}, {Op::Add, 16}, {Op::Exp, 16}, {Op::Reciprocal, 2}, {Op::Mul, 16}}},
      // Σx 9, mean per row 3, x − mean 5, square 6, Σd² 9, rsqrt per row 11, ·rstd 6, ·γ 6, +β 5.
      {"layer_norm", 60, {{Op::Reduce, 32}, {Op::Mul, 50}, {Op::Add, 32}, {Op::Reciprocal, 2}}},
      // square 6, Σ 9, rsqrt per row 11, ·r 6, ·γ 6.
      {"rms_norm", 38, {{Op::Mul, 48}, {Op::Reduce, 16}, {Op::Reciprocal, 2}}},
      // x² 6, ·c2 6, +c1 5, ·x 6, exp 23, +1 5, reciprocal 25, ·x 6.
      {"gelu", 82, {{Op::Mul, 64}, {Op::Add, 32}, {Op::Exp, 16}, {Op::Reciprocal, 16}}},
      // exp 23, +1 5, reciprocal 25, ·x 6.
      {"silu", 59, {{Op::Exp, 16}, {Op::Add, 16}, {Op::Reciprocal, 16}, {Op::Mul, 16}}},
      {"relu", 5, {{Op::Max, 16}}},
      {"add", 5, {{Op::Add, 16}}},
      {"mul", 6, {{Op::Mul, 16}}},
      // k = 1: one compare pass (running max).
      {"top_k", 5, {{Op::Compare, 16}}},
      // mul 6 + add 5.
      {"scatter", 11, {{Op::Mul, 16}, {Op::Add, 16}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kind);
    const VectorTiming t = vector_operator(cfg, c.kind, 2, 8);
    EXPECT_EQ(t.cycles, c.cycles);
    EXPECT_EQ(t.elements, c.elements);
  }
  // top_k: ⌈log2 k⌉ compare passes of 5 cycles: k = 2 → 1, 4 → 2, 5 → 3, 8 → 3.
  EXPECT_EQ(vector_operator(cfg, "top_k", 2, 8, 2).cycles, 5u);
  EXPECT_EQ(vector_operator(cfg, "top_k", 2, 8, 4).cycles, 10u);
  EXPECT_EQ(vector_operator(cfg, "top_k", 2, 8, 5).cycles, 15u);
  EXPECT_EQ(vector_operator(cfg, "top_k", 2, 8, 8).elements.at(Op::Compare), 48u);
}

// The default table: ALU ops 2-4 cycles at full rate, exp and reciprocal as SFUs at a quarter.
// 128 lanes, softmax over one row of 1024: reduce 3 + 8 − 1 + 7 = 17, add 3 + 7 = 10,
// exp 12 + 32 − 1 = 43, reduce 17, reciprocal 10 + 1 − 1 = 10, mul 4 + 7 = 11: 108.
TEST(VectorTiming, DefaultTable) {
  const VectorConfig cfg;
  EXPECT_EQ(cfg.lanes, 128);
  for (Op op : {Op::Add, Op::Mul, Op::Max, Op::Compare}) {
    EXPECT_GE(cfg.ops.at(op).latency, 2);
    EXPECT_LE(cfg.ops.at(op).latency, 4);
    EXPECT_EQ(cfg.ops.at(op).throughput, 1.0);
  }
  for (Op op : {Op::Exp, Op::Reciprocal}) {
    EXPECT_GE(cfg.ops.at(op).latency, 8);
    EXPECT_LE(cfg.ops.at(op).latency, 12);
    EXPECT_EQ(cfg.ops.at(op).throughput, 0.25);
  }
  EXPECT_EQ(cfg.ops.size(), 7u);
  EXPECT_EQ(vector_operator(cfg, "softmax", 1, 1024).cycles, 108u);
}

TEST(VectorTiming, MonotoneInRowsAndCols) {
  for (const VectorConfig& cfg : {VectorConfig{}, small()})
    for (const std::string& kind : kKinds)
      for (std::int64_t rows : {1, 2, 3, 7, 64})
        for (std::int64_t cols : {1, 2, 5, 16, 127, 128, 1000}) {
          SCOPED_TRACE(::testing::Message() << kind << " " << rows << "x" << cols);
          const VectorTiming t = vector_operator(cfg, kind, rows, cols);
          const VectorTiming more_rows = vector_operator(cfg, kind, rows + 1, cols);
          const VectorTiming more_cols = vector_operator(cfg, kind, rows, cols + 1);
          EXPECT_GT(t.cycles, 0u);
          EXPECT_GE(more_rows.cycles, t.cycles);
          EXPECT_GE(more_cols.cycles, t.cycles);
          for (const auto& [op, n] : t.elements) {
            EXPECT_GE(more_rows.elements.at(op), n);
            EXPECT_GE(more_cols.elements.at(op), n);
          }
        }
  // More lanes never slow an element-wise operator.
  for (const char* kind : {"gelu", "silu", "relu", "add", "mul", "scatter"}) {
    VectorConfig narrow = small(), wide = small();
    wide.lanes = 8;
    EXPECT_LE(vector_operator(wide, kind, 1, 100).cycles, vector_operator(narrow, kind, 1, 100).cycles);
  }
}

TEST(VectorTiming, SumOfTimings) {
  const VectorConfig cfg = small();
  VectorTiming a = vector_pass(cfg, Op::Add, 16);
  a += vector_pass(cfg, Op::Add, 8);
  a += vector_pass(cfg, Op::Exp, 4);
  EXPECT_EQ(a.cycles, 5u + 3 + 11);
  EXPECT_EQ(a.elements.at(Op::Add), 24u);
  EXPECT_EQ(a.elements.at(Op::Exp), 4u);
}

TEST(VectorTiming, Names) {
  EXPECT_STREQ(vector_op_name(Op::Add), "add");
  EXPECT_STREQ(vector_op_name(Op::Mul), "mul");
  EXPECT_STREQ(vector_op_name(Op::Exp), "exp");
  EXPECT_STREQ(vector_op_name(Op::Reciprocal), "reciprocal");
  EXPECT_STREQ(vector_op_name(Op::Max), "max");
  EXPECT_STREQ(vector_op_name(Op::Reduce), "reduce");
  EXPECT_STREQ(vector_op_name(Op::Compare), "compare");
}

TEST(VectorTiming, RejectsBadArguments) {
  const VectorConfig cfg = small();
  EXPECT_THROW(vector_operator(cfg, "conv", 1, 8), std::invalid_argument);
  EXPECT_THROW(vector_operator(cfg, "add", 0, 8), std::invalid_argument);
  EXPECT_THROW(vector_operator(cfg, "add", 1, -8), std::invalid_argument);
  EXPECT_THROW(vector_operator(cfg, "top_k", 1, 8, 0), std::invalid_argument);
  EXPECT_THROW(vector_operator(cfg, "top_k", 1, 8, 9), std::invalid_argument);
  EXPECT_THROW(vector_pass(cfg, Op::Add, 0), std::invalid_argument);
  EXPECT_THROW(vector_pass(cfg, Op::Reduce, 4, 5), std::invalid_argument);
  EXPECT_THROW(vector_pass(cfg, Op::Reduce, 4, 0), std::invalid_argument);
  VectorConfig bad = cfg;
  bad.lanes = 0;
  EXPECT_THROW(vector_pass(bad, Op::Add, 4), std::invalid_argument);
  bad = cfg;
  bad.ops.erase(Op::Exp);
  EXPECT_THROW(vector_operator(bad, "silu", 1, 4), std::invalid_argument);
  bad = cfg;
  bad.ops[Op::Mul].throughput = 0;
  EXPECT_THROW(vector_pass(bad, Op::Mul, 4), std::invalid_argument);
  bad = cfg;
  bad.ops[Op::Mul].latency = 0;
  EXPECT_THROW(vector_pass(bad, Op::Mul, 4), std::invalid_argument);
}

}  // namespace
}  // namespace strata
