// constants_to_initializers, eliminate_unused_initializers, fold_weight_transposes, fuse_pad_into_conv.
#include "passes_test_util.h"

using namespace ofg;
using namespace ofg::test;

TEST(PassConstantsToInitializers, LiftsTensorConstantsKeepsNames) {
  auto m = new_model(13);
  GraphBuilder b(*m);
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

TEST(PassUnusedInitializers, RemovesOnlyUnread) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2});
  Value* used = b.initializer("used", {2}, {1, 2});
  b.initializer("unused", {2}, {1, 2});
  Value* out = b.initializer("out", {1}, {3});
  b.output(b.op("Add", {x, used}));
  b.output(out);
  EXPECT_EQ(run_checked(*m, "eliminate_unused_initializers").changes, 1);
  EXPECT_EQ(m->graph->initializers.size, 2u);
}

TEST(PassFoldWeightTransposes, GemmTransposeBecomesTransB) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.input("w", kFloat, {4, 3});
  Value* wt = b.op("Transpose", {w}, {b.ints("perm", {1, 0})});
  b.output(b.op("Gemm", {x, wt}, {b.i("transB", 0)}));
  run_checked(*m, "fold_weight_transposes");
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* g = m->graph->first;
  EXPECT_EQ(g->inputs[1], w);
  EXPECT_EQ(passes::attr_i(*m, g, "transB", 0), 1);
}

TEST(PassFoldWeightTransposes, SharedTransposeStays) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.input("w", kFloat, {4, 3});
  Value* wt = b.op("Transpose", {w}, {b.ints("perm", {1, 0})});
  b.output(b.op("Gemm", {x, wt}));
  b.output(wt);
  EXPECT_EQ(run_checked(*m, "fold_weight_transposes").changes, 0);
}

TEST(PassPadIntoConv, ZeroPadMergesIntoPads) {
  auto m = new_model(13);
  GraphBuilder b(*m);
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

TEST(PassPadIntoConv, ReflectOrChannelPadStays) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 5, 5});
  Value* w = b.initializer("w", {2, 2, 1, 1}, {1, 0, 0, 1});
  Value* w3 = b.initializer("w3", {2, 3, 1, 1}, {1, 0, 0, 1, 0, 0});
  Value* p1 = b.op("Pad", {x, b.initializer_i64("p1", {8}, {0, 0, 1, 1, 0, 0, 1, 1})}, {b.s("mode", "reflect")});
  b.output(b.op("Conv", {p1, w}));
  Value* p2 = b.op("Pad", {x, b.initializer_i64("p2", {8}, {0, 1, 0, 0, 0, 0, 0, 0})});
  b.output(b.op("Conv", {p2, w3}));
  EXPECT_EQ(run_checked(*m, "fuse_pad_into_conv").changes, 0);
}

// value_rank through a RankMemo must answer exactly like the plain walk, including where the
// walk's depth limit makes the answer depend on how deep a value lies below the queried one:
// chains longer than the limit, queried shallow-first, deep-first and in a scattered order.
TEST(PassUtil, RankMemoAnswersLikeTheWalk) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.initializer("w", {3, 3}, std::vector<float>(9, 0.5f));
  Value* c = b.initializer("c", {3}, {1, 2, 3});
  Value* u = b.input("u", kFloat, {});  // no shape: unknown rank
  std::vector<Value*> vals{x};
  for (int i = 0; i < 200; ++i) {
    Value* prev = vals.back();
    switch (i % 5) {
      case 0: vals.push_back(b.op("MatMul", {prev, w})); break;
      case 1: vals.push_back(b.op("Relu", {prev})); break;
      case 2: vals.push_back(b.op("Add", {prev, c})); break;
      case 3: vals.push_back(b.op("Mul", {prev, i % 4 == 0 ? u : c})); break;
      default: vals.push_back(b.op("Add", {prev, b.op("Sigmoid", {prev})})); break;  // both sides lead back
    }
  }
  b.output(vals.back());
  std::vector<std::vector<Value*>> orders{vals, std::vector<Value*>(vals.rbegin(), vals.rend()), {}};
  for (size_t i = 0; i < vals.size(); ++i) orders[2].push_back(vals[(i * 37) % vals.size()]);
  int found = 0, unknown = 0;
  for (const auto& order : orders) {
    passes::RankMemo memo;
    for (Value* v : order) {
      int expected = passes::value_rank(*m, v);
      EXPECT_EQ(passes::value_rank(*m, v, memo), expected) << m->str(v->name);
      (expected >= 0 ? found : unknown) += 1;
    }
  }
  EXPECT_GT(found, 0);    // the test covers both answers
  EXPECT_GT(unknown, 0);
}
