// simplify_shape_chains: static chains become constants; symbolic dims stay dynamic (checked by
// running the result at other sizes than any export would use).
#include "passes_test_util.h"
#include "passes_verify_util.h"

using PassShapeChains = ModelTest;

namespace ofg::test {
namespace {

// Reshape(x, Concat(Unsqueeze(Shape(x)[0]), Unsqueeze(Shape(x)[1] * Shape(x)[2]))) on x [batch, 4, 6]
std::unique_ptr<Model> flatten_tail(bool second_consumer) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", 4, 6});
  Value* sh = b.op("Shape", {x});
  auto dim = [&](int64_t i) { return b.op("Gather", {sh, b.initializer_i64("i" + std::to_string(i), {}, {i})}, {b.i("axis", 0)}); };
  Value* ax = b.initializer_i64("ax", {1}, {0});
  Value* d0 = b.op("Unsqueeze", {dim(0), ax});
  Value* d12 = b.op("Unsqueeze", {b.op("Mul", {dim(1), dim(2)}), ax});
  Value* shape = b.op("Concat", {d0, d12}, {b.i("axis", 0)});
  b.output(b.op("Reshape", {x, shape}));
  if (second_consumer) b.output(b.op("Expand", {b.initializer("one", {1, 1}, {1.0f}), shape}));
  return m;
}

TEST_F(PassShapeChains, ReshapeShapeBecomesConstantWithCopiedBatch) {
  auto [m, ref, changes] = run_on_built([] { return flatten_tail(false); }, "simplify_shape_chains", "eliminate_dead_nodes");
  EXPECT_GE(changes, 1);
  EXPECT_EQ(m->graph->node_count, 1u);  // Reshape(x, [0, 24])
  Node* r = m->graph->first;
  std::vector<int64_t> shape;
  ASSERT_TRUE(passes::read_ints(passes::const_tensor(*m, r->inputs[1]), shape));
  EXPECT_EQ(shape, (std::vector<int64_t>{0, 24}));
  expect_same_outputs(*ref, *m, {{"batch", 3}});
  expect_same_outputs(*ref, *m, {{"batch", 7}});
}

TEST_F(PassShapeChains, SecondConsumerKeepsAShapeThatStaysDynamic) {
  auto m = flatten_tail(true);
  auto ref = flatten_tail(true);
  run_checked(*m, "simplify_shape_chains");
  run_checked(*m, "eliminate_dead_nodes");
  // The Expand still needs the batch at run time: a Shape remains, the arithmetic does not.
  EXPECT_EQ(count_op(m->graph, "Mul"), 0);
  EXPECT_GE(count_op(m->graph, "Shape"), 1);
  expect_same_outputs(*ref, *m, {{"batch", 5}});
}

TEST_F(PassShapeChains, StaticShapesFoldCompletely) {
  Value* x = b.input("x", kFloat, {2, 3, 4});
  Value* sh = b.op("Shape", {x});
  Value* s = b.op("Slice", {sh, b.initializer_i64("s", {1}, {1}), b.initializer_i64("e", {1}, {3})});
  Value* y = b.op("ConstantOfShape", {s});
  b.output(b.op("Add", {x, y}));
  EXPECT_EQ(run_checked(*m, "simplify_shape_chains").changes, 1);
  run_checked(*m, "eliminate_dead_nodes");
  EXPECT_EQ(count_op(m->graph, "Shape"), 0);
}

TEST_F(PassShapeChains, DoesNotFireOnUnknownDimsOrGraphOutputs) {
  Value* x = b.input("x", kFloat, {"n", "m"});
  Value* sh = b.op("Shape", {x});
  b.output(sh);  // a graph output: stays
  Value* r = b.op("Reshape", {x, b.op("Concat", {b.op("Slice", {sh, b.initializer_i64("s", {1}, {1}), b.initializer_i64("e", {1}, {2})}),
                                                b.op("Slice", {sh, b.initializer_i64("s0", {1}, {0}), b.initializer_i64("e0", {1}, {1})})},
                                         {b.i("axis", 0)})});
  b.output(r);
  EXPECT_EQ(run_checked(*m, "simplify_shape_chains").changes, 0);  // [m, n]: two unknowns, no copy
}

TEST_F(PassShapeChains, InsideALoopBody) {
  auto build = [] {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2, 6});
    Graph* body = b.subgraph("body");
    GraphBuilder bb(*m, body);
    Value* cond = loop_inputs(bb);
    Value* v = bb.input("v", kFloat, {2, 6});
    bb.output(bb.op("Identity", {cond}));
    Value* n = bb.op("Gather", {bb.op("Shape", {v}), bb.initializer_i64("k", {}, {1})}, {bb.i("axis", 0)});
    Value* shape = bb.op("Concat", {bb.op("Unsqueeze", {n, bb.initializer_i64("ax", {1}, {0})}), bb.initializer_i64("m1", {1}, {-1})},
                         {bb.i("axis", 0)});
    bb.output(bb.op("Reshape", {bb.op("Reshape", {v, shape}), bb.initializer_i64("back", {2}, {2, 6})}));
    Node* loop = b.node("Loop", {b.initializer_i64("trip", {}, {2}), nullptr, x}, 1, {b.g("body", body)});
    b.output(loop->outputs[0]);
    return m;
  };
  auto m = build();
  auto ref = build();
  EXPECT_GE(run_checked(*m, "simplify_shape_chains").changes, 1);
  Graph* body = m->graph->first->attributes[0].g;
  run_checked(*m, "eliminate_dead_nodes");
  EXPECT_EQ(count_op(body, "Shape"), 0);
  expect_same_outputs(*ref, *m);
}

}  // namespace
}  // namespace ofg::test
