#include "passes_test_util.h"

using PassReshapeChains = ModelTest;

TEST_F(PassReshapeChains, ChainEndingInReshapeCollapses) {
  Value* x = b.input("x", kFloat, {2, 3, 4});
  Value* h = b.op("Reshape", {x, b.initializer_i64("s1", {2}, {6, 4})});
  h = b.op("Flatten", {h}, {b.i("axis", 1)});
  h = b.op("Unsqueeze", {h, b.initializer_i64("ax", {1}, {0})});
  Value* shape = b.initializer_i64("s2", {2}, {4, -1});
  b.output(b.op("Reshape", {h, shape}, {}, "y"));
  passes::PassStats s = run_checked(*m, "collapse_reshape_chains");
  EXPECT_EQ(s.nodes_removed, 3);
  ASSERT_EQ(m->graph->node_count, 1u);
  EXPECT_EQ(m->graph->first->inputs[0], x);
  EXPECT_EQ(m->graph->first->inputs[1], shape);
}

TEST_F(PassReshapeChains, ZeroInShapeOrSecondReaderStops) {
  Value* x = b.input("x", kFloat, {2, 3, 4});
  Value* h = b.op("Reshape", {x, b.initializer_i64("s1", {2}, {6, 4})});
  b.output(b.op("Reshape", {h, b.initializer_i64("s0", {2}, {0, -1})}));  // 0 copies h's dim
  Value* k = b.op("Flatten", {x});
  b.output(k);
  b.output(b.op("Reshape", {k, b.initializer_i64("s3", {1}, {-1})}));
  EXPECT_EQ(run_checked(*m, "collapse_reshape_chains").changes, 0);
  EXPECT_EQ(m->graph->node_count, 4u);
}
