#include "passes_test_util.h"

using PassTransposes = ModelTest;

TEST_F(PassTransposes, InversePairCancels2To0) {
  Value* x = b.input("x", kFloat, {1, 2, 3, 4});
  Value* t = b.op("Transpose", {x}, {b.ints("perm", {0, 2, 3, 1})});
  t = b.op("Transpose", {t}, {b.ints("perm", {0, 3, 1, 2})});
  b.output(b.op("Relu", {t}));
  run_checked(*m, "eliminate_redundant_transposes");
  EXPECT_EQ(count_op(m->graph, "Transpose"), 0);
  EXPECT_EQ(m->graph->first->inputs[0], x);
}

TEST_F(PassTransposes, TripleChainBecomesOneWithComposedPerm) {
  Value* x = b.input("x", kFloat, {1, 2, 3});
  Value* t = b.op("Transpose", {x}, {b.ints("perm", {1, 0, 2})});
  t = b.op("Transpose", {t}, {b.ints("perm", {0, 2, 1})});
  t = b.op("Transpose", {t}, {b.ints("perm", {2, 1, 0})});
  b.output(b.op("Relu", {t}));
  run_checked(*m, "eliminate_redundant_transposes");
  ASSERT_EQ(count_op(m->graph, "Transpose"), 1);
  Node* only = m->graph->first;
  EXPECT_EQ(only->inputs[0], x);
  // mid1 = x[1,0,2]; mid2[i] = mid1[(0,2,1)[i]] = x[1,2,0]; out[i] = mid2[(2,1,0)[i]] = x[0,2,1]
  EXPECT_EQ(ints_attr(*m, only, "perm"), (std::vector<int64_t>{0, 2, 1}));
}

TEST_F(PassTransposes, FirstWithSecondConsumerStays) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* t1 = b.op("Transpose", {x}, {b.ints("perm", {1, 0})});
  Value* t2 = b.op("Transpose", {t1}, {b.ints("perm", {1, 0})});
  b.output(b.op("Relu", {t1}));
  b.output(b.op("Relu", {t2}));
  EXPECT_EQ(run_checked(*m, "eliminate_redundant_transposes").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Transpose"), 2);
}

TEST_F(PassTransposes, ConstantIsStoredTransposed) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* w = b.initializer("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  Value* wt = b.op("Transpose", {w}, {b.ints("perm", {1, 0})});
  b.output(b.op("Add", {x, wt}));
  run_checked(*m, "eliminate_redundant_transposes");
  EXPECT_EQ(count_op(m->graph, "Transpose"), 0);
  const Tensor* t = passes::const_tensor(*m, m->graph->first->inputs[1]);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::vector<int64_t>(t->dims.begin(), t->dims.end()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(floats_of(t), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(floats_of(w->initializer), (std::vector<float>{1, 2, 3, 4, 5, 6}));  // original untouched
}
