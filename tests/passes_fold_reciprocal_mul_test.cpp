// fold_reciprocal_mul: x * (1 / y) -> x / y on float tensors, and where it must not fire.
#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

// h * (1 / Sqrt(ReduceMean(h^2) + eps)): the RMS norm as PyTorch exports rsqrt.
std::unique_ptr<Model> rms(bool one_first_in_mul) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* h = b.input("h", kFloat, {"n", 8});
  Value* v = b.op("ReduceMean", {b.op("Mul", {h, h})}, {b.ints("axes", {-1})});
  Value* s = b.op("Sqrt", {b.op("Add", {v, b.initializer("eps", {}, {1e-6f})})});
  Value* r = b.op("Div", {b.initializer("one", {}, {1.0f}), s});
  b.output(one_first_in_mul ? b.op("Mul", {r, h}) : b.op("Mul", {h, r}));
  return m;
}

TEST(PassFoldReciprocalMul, ReciprocalTimesXBecomesOneDivision) {
  for (bool first : {false, true}) {
    auto m = rms(first);
    auto ref = rms(first);
    EXPECT_EQ(run_checked(*m, "fold_reciprocal_mul").changes, 1);
    EXPECT_EQ(count_op(m->graph, "Mul"), 1);  // h * h only
    EXPECT_EQ(count_op(m->graph, "Div"), 1);
    Node* d = nullptr;
    for (Node* n = m->graph->first; n; n = n->next)
      if (passes::is_op(*m, n, "Div")) d = n;
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(m->str(d->inputs[0]->name), "h");  // the dividend is x, not the 1
    expect_same_outputs(*ref, *m, {{"n", 3}});
  }
}

TEST(PassFoldReciprocalMul, IntegersOtherConstantsAndSharedReciprocalsStay) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4});
  Value* y = b.input("y", kFloat, {4});
  Value* k = b.input("k", kInt64, {4});
  // Integer: 1 / k truncates, k2 * (1 / k) is not k2 / k.
  b.output(b.op("Mul", {b.input("k2", kInt64, {4}), b.op("Div", {b.initializer_i64("ione", {}, {1}), k})}));
  // Dividend 2, not 1.
  b.output(b.op("Mul", {x, b.op("Div", {b.initializer("two", {}, {2.0f}), y})}));
  // The reciprocal has a second reader.
  Value* r = b.op("Div", {b.initializer("one", {}, {1.0f}), y});
  b.output(b.op("Mul", {x, r}));
  b.output(r);
  // A 1 of rank 3 over y of rank 1 makes the output rank 3: x / y would be rank 1.
  b.output(b.op("Mul", {x, b.op("Div", {b.initializer("one3", {1, 1, 1}, {1.0f}), y})}));
  EXPECT_EQ(run_checked(*m, "fold_reciprocal_mul").changes, 0);
}

}  // namespace
}  // namespace ofg::test
