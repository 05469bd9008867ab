#include "passes_test_util.h"

using PassDuplicateConstants = ModelTest;

TEST_F(PassDuplicateConstants, MergesEqualInitializersAndConstants) {
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

TEST_F(PassDuplicateConstants, DifferentTypeOrGraphOutputIsKept) {
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

// Large constants are bucketed by a sample of their bytes: a difference outside the sampled
// windows must still keep them apart, and equal ones must still merge.
TEST_F(PassDuplicateConstants, LargeTensorsDifferingOutsideTheSampleAreKept) {
  const int64_t n = 100003;  // odd size: the windows do not fall on round offsets
  std::vector<float> base(n);
  for (int64_t i = 0; i < n; ++i) base[i] = static_cast<float>(i % 97) * 0.5f;
  std::vector<float> other = base;
  other[n / 2 + 1000] += 1.0f;  // between two sampled windows
  Value* x = b.input("x", kFloat, {n});
  Value* a = b.initializer("a", kFloat, {n}, base.data(), base.size() * 4);
  Value* diff = b.initializer("diff", kFloat, {n}, other.data(), other.size() * 4);
  Value* a2 = b.initializer("a2", kFloat, {n}, base.data(), base.size() * 4);
  Value* diff2 = b.initializer("diff2", kFloat, {n}, other.data(), other.size() * 4);
  Value* y = b.op("Add", {x, a});
  y = b.op("Add", {y, diff});
  y = b.op("Add", {y, a2});
  Value* last = b.op("Add", {y, diff2});
  b.output(last);
  passes::PassStats s = run_checked(*m, "eliminate_duplicate_constants");
  EXPECT_EQ(s.changes, 2);
  EXPECT_EQ(m->graph->initializers.size, 2u);
  EXPECT_EQ(y->producer->inputs[1], a);
  EXPECT_EQ(last->producer->inputs[1], diff);
}
