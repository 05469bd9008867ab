#include "passes_test_util.h"

using PassConvAddMul = ModelTest;

TEST_F(PassConvAddMul, PerChannelAddAndMulFold) {
  Value* x = b.input("x", kFloat, {1, 1, 3, 3});
  Value* w = b.initializer("w", {2, 1, 1, 1}, {1.0f, 2.0f});
  Value* y = b.op("Conv", {x, w});
  y = b.op("Add", {y, b.initializer("c", {2, 1, 1}, {10.0f, 20.0f})});
  y = b.op("Mul", {b.initializer("k", {1, 2, 1, 1}, {3.0f, 0.5f}), y}, {}, "y");
  b.output(y);
  // The Add folds first; the Conv then writes the Mul's input, so the Mul folds in the same run.
  EXPECT_EQ(run_checked(*m, "fuse_conv_add_mul").changes, 2);
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* conv = m->graph->first;
  EXPECT_EQ(conv->outputs[0], y);
  EXPECT_EQ(floats_of(conv->inputs[1]->initializer), (std::vector<float>{3.0f, 1.0f}));
  EXPECT_EQ(floats_of(conv->inputs[2]->initializer), (std::vector<float>{30.0f, 10.0f}));
  EXPECT_EQ(floats_of(w->initializer), (std::vector<float>{1.0f, 2.0f}));
}

TEST_F(PassConvAddMul, TwoDimBiasRuntimeBiasOrSharedOutputStay) {
  Value* x = b.input("x", kFloat, {1, 1, 3, 3});
  Value* w = b.initializer("w", {2, 1, 1, 1}, {1.0f, 2.0f});
  // [2,1] lines up with H and W of the 4-D output, not with the channels.
  b.output(b.op("Add", {b.op("Conv", {x, w}), b.initializer("c2", {2, 1}, {1.0f, 2.0f})}));
  Value* rt = b.input("rt", kFloat, {2, 1, 1});
  b.output(b.op("Add", {b.op("Conv", {x, w}), rt}));  // computed at run time
  Value* y = b.op("Conv", {x, w});
  b.output(b.op("Add", {y, b.initializer("c", {2, 1, 1}, {1.0f, 2.0f})}));
  b.output(y);  // the Conv output is needed as is
  EXPECT_EQ(run_checked(*m, "fuse_conv_add_mul").changes, 0);
}
