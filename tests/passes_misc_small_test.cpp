// constants_to_initializers, eliminate_unused_initializers, fold_weight_transposes, fuse_pad_into_conv.
#include "passes_test_util.h"

using PassConstantsToInitializers = ModelTest;
using PassFoldWeightTransposes = ModelTest;
using PassPadIntoConv = ModelTest;
using PassUnusedInitializers = ModelTest;
using PassUtil = ModelTest;

TEST_F(PassConstantsToInitializers, LiftsTensorConstantsKeepsNames) {
  Value* x = b.input("x", kFloat, {2});
  Value* c = b.constant("c", {2}, {1, 2});
  Value* out_c = b.constant("out_c", {1}, {7});  // a graph output: stays a node
  b.output(b.op("Add", {x, c}));
  b.output(out_c);
  EXPECT_EQ(run_checked(*m, "constants_to_initializers").changes, 1);
  EXPECT_EQ(count_op(m->graph, "Constant"), 1);
  ASSERT_NE(c->initializer, nullptr);
  EXPECT_EQ(m->str(c->name), "c");
  EXPECT_EQ(floats_of(c->initializer), (std::vector<float>{1, 2}));
}

TEST_F(PassUnusedInitializers, RemovesOnlyUnread) {
  Value* x = b.input("x", kFloat, {2});
  Value* used = b.initializer("used", {2}, {1, 2});
  b.initializer("unused", {2}, {1, 2});
  Value* out = b.initializer("out", {1}, {3});
  b.output(b.op("Add", {x, used}));
  b.output(out);
  EXPECT_EQ(run_checked(*m, "eliminate_unused_initializers").changes, 1);
  EXPECT_EQ(m->graph->initializers.size, 2u);
}

TEST_F(PassFoldWeightTransposes, GemmTransposeBecomesTransB) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.input("w", kFloat, {4, 3});
  Value* wt = b.op("Transpose", {w}, {b.ints("perm", {1, 0})});
  b.output(b.op("Gemm", {x, wt}, {b.i("transB", 0)}));
  run_checked(*m, "fold_weight_transposes");
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* g = m->graph->first;
  EXPECT_EQ(g->inputs[1], w);
  EXPECT_EQ(attr_int(*m, g, "transB", 0), 1);
}

TEST_F(PassFoldWeightTransposes, SharedTransposeStays) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.input("w", kFloat, {4, 3});
  Value* wt = b.op("Transpose", {w}, {b.ints("perm", {1, 0})});
  b.output(b.op("Gemm", {x, wt}));
  b.output(wt);
  EXPECT_EQ(run_checked(*m, "fold_weight_transposes").changes, 0);
}

TEST_F(PassPadIntoConv, ZeroPadMergesIntoPads) {
  Value* x = b.input("x", kFloat, {1, 2, 5, 5});
  Value* pads = b.initializer_i64("pads", {8}, {0, 0, 1, 2, 0, 0, 3, 4});
  Value* p = b.op("Pad", {x, pads});
  Value* w = b.initializer("w", {2, 2, 1, 1}, {1, 0, 0, 1});
  b.output(b.op("Conv", {p, w}, {b.ints("pads", {1, 1, 1, 1})}));
  run_checked(*m, "fuse_pad_into_conv");
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* conv = m->graph->first;
  EXPECT_EQ(conv->inputs[0], x);
  EXPECT_EQ(ints_attr(*m, conv, "pads"), (std::vector<int64_t>{2, 3, 4, 5}));
}

TEST_F(PassPadIntoConv, ReflectOrChannelPadStays) {
  Value* x = b.input("x", kFloat, {1, 2, 5, 5});
  Value* w = b.initializer("w", {2, 2, 1, 1}, {1, 0, 0, 1});
  Value* w3 = b.initializer("w3", {2, 3, 1, 1}, {1, 0, 0, 1, 0, 0});
  Value* p1 = b.op("Pad", {x, b.initializer_i64("p1", {8}, {0, 0, 1, 1, 0, 0, 1, 1})}, {b.s("mode", "reflect")});
  b.output(b.op("Conv", {p1, w}));
  Value* p2 = b.op("Pad", {x, b.initializer_i64("p2", {8}, {0, 1, 0, 0, 0, 0, 0, 0})});
  b.output(b.op("Conv", {p2, w3}));
  EXPECT_EQ(run_checked(*m, "fuse_pad_into_conv").changes, 0);
}

// Passes read ranks from the model's type inference: a deep chain of untyped activations (no
// depth limit), ops the inference knows beyond the elementwise ones (Conv), a value whose rank
// cannot be known (broadcast against an input of unknown rank), and a value made after the
// inference ran (unknown: the inference describes the model as the pass found it).
TEST_F(PassUtil, InferredRankComesFromTypeInference) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.initializer("w", {3, 3}, std::vector<float>(9, 0.5f));
  Value* c = b.initializer("c", {3}, {1, 2, 3});
  Value* u = b.input("u", kFloat, {});
  u->type->has_shape = false;  // declared without a shape: rank unknown
  Value* v = x;
  for (int i = 0; i < 300; ++i) v = b.op(i % 3 == 0 ? "MatMul" : "Relu", i % 3 == 0 ? std::vector<Value*>{v, w} : std::vector<Value*>{v});
  Value* deep = b.op("Add", {v, c});
  Value* unknown = b.op("Mul", {deep, u});
  Value* img = b.input("img", kFloat, {1, 3, 8, 8});
  Value* conv = b.op("Conv", {img, b.initializer("k", {2, 3, 3, 3}, std::vector<float>(54, 0.1f))});
  b.output(unknown);
  b.output(conv);
  passes::PassContext ctx(*m);
  EXPECT_EQ(passes::inferred_rank(ctx, deep), 2);
  EXPECT_EQ(passes::inferred_rank(ctx, conv), 4);
  EXPECT_EQ(passes::inferred_rank(ctx, unknown), -1);
  EXPECT_EQ(passes::inferred_rank(ctx, nullptr), -1);
  Value* later = b.op("Relu", {deep});
  EXPECT_EQ(passes::inferred_rank(ctx, later), -1);
}
