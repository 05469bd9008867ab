#include "passes_test_util.h"

using PassDeadNodes = ModelTest;

TEST_F(PassDeadNodes, RemovesUnreadChainKeepsOutputsAndCustomNodes) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* y = b.op("Relu", {x}, {}, "y");
  Value* dead = b.op("Neg", {b.op("Exp", {x})});
  (void)dead;
  b.node("Mystery", {x}, 1, {}, {}, "com.example");  // unread custom node stays
  b.output(y);
  passes::PassStats s = run_checked(*m, "eliminate_dead_nodes");
  EXPECT_EQ(s.nodes_removed, 2);
  EXPECT_EQ(m->graph->node_count, 2u);
  EXPECT_EQ(count_op(m->graph, "Relu"), 1);
  EXPECT_EQ(count_op(m->graph, "Mystery"), 1);
  // Nothing left to do.
  EXPECT_EQ(run_checked(*m, "eliminate_dead_nodes").changes, 0);
}

TEST_F(PassDeadNodes, InsideLoopBody) {
  Value* x = b.input("x", kFloat, {2});
  Graph* body = b.subgraph("body");
  GraphBuilder bb(*m, body);
  Value* cond = loop_inputs(bb);
  Value* carried = bb.input("v", kFloat, {2});
  bb.op("Exp", {carried});  // dead inside the body
  bb.output(bb.op("Identity", {cond}));
  bb.output(bb.op("Relu", {carried}));
  Value* trip = b.initializer_i64("trip", {}, {3});
  Node* loop = b.node("Loop", {trip, nullptr, x}, 1, {b.g("body", body)});
  b.output(loop->outputs[0]);
  run_checked(*m, "eliminate_dead_nodes");
  EXPECT_EQ(count_op(body, "Exp"), 0);
  EXPECT_EQ(count_op(body, "Relu"), 1);
  EXPECT_EQ(count_op(m->graph, "Loop"), 1);
}
