#include "passes_test_util.h"

using namespace ofg;
using namespace ofg::test;

TEST(PassDuplicateConstants, MergesEqualInitializersAndConstants) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {3});
  Value* a = b.initializer("a", {3}, {1, 2, 3});
  Value* a2 = b.initializer("a2", {3}, {1, 2, 3});
  Value* other_shape = b.initializer("a3", {1, 3}, {1, 2, 3});
  Value* c = b.constant("c", {3}, {1, 2, 3});
  Value* y1 = b.op("Add", {x, a});
  Value* y2 = b.op("Add", {y1, a2});
  Value* y3 = b.op("Add", {y2, c});
  b.output(b.op("Add", {y3, other_shape}));
  passes::PassStats s = run_checked(*m, "eliminate_duplicate_constants");
  EXPECT_EQ(s.changes, 2);
  EXPECT_EQ(y2->producer->inputs[1], a);
  EXPECT_EQ(y3->producer->inputs[1], a);
  EXPECT_EQ(m->graph->initializers.size, 2u);  // a and a3 (different shape) remain
  EXPECT_EQ(count_op(m->graph, "Constant"), 0);
}

TEST(PassDuplicateConstants, DifferentTypeOrGraphOutputIsKept) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kInt32, {2});
  int32_t i32[2] = {1, 2};
  float f32[2];
  std::memcpy(f32, i32, sizeof i32);  // same bytes, other type
  Value* a = b.initializer("a", kInt32, {2}, i32, sizeof i32);
  Value* f = b.initializer("f", kFloat, {2}, f32, sizeof f32);
  Value* a2 = b.initializer("a2", kInt32, {2}, i32, sizeof i32);
  b.output(b.op("Add", {x, a}));
  b.output(b.op("Cast", {f}, {b.i("to", kInt32)}));
  b.output(a2);
  EXPECT_EQ(run_checked(*m, "eliminate_duplicate_constants").changes, 0);
  EXPECT_EQ(m->graph->initializers.size, 3u);
}
