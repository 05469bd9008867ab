#include "passes_test_util.h"

using PassMatMulAdd = ModelTest;

TEST_F(PassMatMulAdd, TwoDimBecomesGemm) {
  Value* x = b.input("x", kFloat, {"batch", 3});
  Value* w = b.initializer("w", {3, 4}, std::vector<float>(12, 1.0f));
  Value* c = b.initializer("c", {4}, {1, 2, 3, 4});
  Value* y = b.op("Add", {b.op("MatMul", {x, w}), c}, {}, "y");
  b.output(y);
  run_checked(*m, "fuse_matmul_add");
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* g = m->graph->first;
  EXPECT_EQ(m->str(g->op_type), "Gemm");
  EXPECT_EQ(g->inputs[0], x);
  EXPECT_EQ(g->inputs[1], w);
  EXPECT_EQ(g->inputs[2], c);
  EXPECT_EQ(g->outputs[0], y);
}

TEST_F(PassMatMulAdd, ThreeDimInputSharedOutputOrBadBiasStay) {
  Value* x3 = b.input("x3", kFloat, {"batch", "seq", 3});
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.initializer("w", {3, 4}, std::vector<float>(12, 1.0f));
  Value* c = b.initializer("c", {4}, {1, 2, 3, 4});
  b.output(b.op("Add", {b.op("MatMul", {x3, w}), c}));  // 3-D: Gemm is 2-D only
  Value* y = b.op("MatMul", {x, w});
  b.output(b.op("Add", {y, c}));
  b.output(y);  // second reader
  b.output(b.op("Add", {b.op("MatMul", {x, w}), b.initializer("c2", {2, 4}, std::vector<float>(8, 1.0f))}));
  b.output(b.op("Add", {b.op("MatMul", {x, w}), b.input("rt", kFloat, {4})}));  // bias at run time
  EXPECT_EQ(run_checked(*m, "fuse_matmul_add").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Gemm"), 0);
}
