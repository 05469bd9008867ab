#include "passes_test_util.h"

using PassCse = ModelTest;

TEST_F(PassCse, MergesEqualNodesTransitively) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* s1 = b.op("Shape", {x});
  Value* s2 = b.op("Shape", {x});
  Value* idx = b.initializer_i64("i", {}, {0});
  Value* g1 = b.op("Gather", {s1, idx}, {b.i("axis", 0)});
  Value* g2 = b.op("Gather", {s2, idx}, {b.i("axis", 0)});
  b.output(b.op("Add", {g1, g2}));
  passes::PassStats s = run_checked(*m, "eliminate_common_subexpressions");
  EXPECT_EQ(s.changes, 2);
  EXPECT_EQ(count_op(m->graph, "Shape"), 1);
  EXPECT_EQ(count_op(m->graph, "Gather"), 1);
  Node* add = m->graph->last;
  EXPECT_EQ(add->inputs[0], add->inputs[1]);
}

TEST_F(PassCse, DifferentAttributesOutputsAndRandomOpsStay) {
  Value* x = b.input("x", kFloat, {2, 3});
  b.output(b.op("Softmax", {x}, {b.i("axis", 0)}));
  b.output(b.op("Softmax", {x}, {b.i("axis", 1)}));
  b.output(b.op("Relu", {x}, {}, "r1"));
  b.output(b.op("Relu", {x}, {}, "r2"));  // both are graph outputs: names must stay
  b.output(b.op("RandomNormalLike", {x}));
  b.output(b.op("RandomNormalLike", {x}));
  EXPECT_EQ(run_checked(*m, "eliminate_common_subexpressions").changes, 0);
  EXPECT_EQ(m->graph->node_count, 6u);
}
