// fold_scales_into_matmul: a norm's per-channel weight moves into the MatMuls that read it; a
// scalar after a chain linear in constants (attention's 1/sqrt(d)) moves into those constants.
#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

// RMSNorm's tail: w * h read by three projections (Q, K, V) of 3, 2 and 2 columns.
std::unique_ptr<Model> norm_then_projections() {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* h = b.input("h", kFloat, {"n", 4});
  Value* w = b.initializer("w", {4}, {0.5f, 2.0f, -1.0f, 3.0f});
  Value* y = b.op("Mul", {w, h});  // the constant first, as PyTorch writes weight * x
  b.output(b.op("MatMul", {y, b.initializer("wq", {4, 3}, ramp(12, -1.0f, 0.25f))}, {}, "q"));
  b.output(b.op("MatMul", {y, b.initializer("wk", {4, 2}, ramp(8, 0.5f, -0.125f))}, {}, "k"));
  b.output(b.op("MatMul", {y, b.initializer("wv", {4, 2}, ramp(8, 1.0f, 0.5f))}, {}, "v"));
  return m;
}

TEST(PassFoldScalesIntoMatMul, ChannelScaleMovesIntoEveryReadingWeight) {
  auto r = run_on_built(norm_then_projections, "fold_scales_into_matmul");
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(count_op(r.m->graph, "Mul"), 0);
  ASSERT_EQ(count_op(r.m->graph, "MatMul"), 3);
  const float w[4] = {0.5f, 2.0f, -1.0f, 3.0f};
  std::vector<float> wq = ramp(12, -1.0f, 0.25f);
  Node* q = find_op(*r.m, "MatMul", 0);
  EXPECT_EQ(r.m->str(q->inputs[0]->name), "h");
  std::vector<float> got = floats_of(passes::const_tensor(*r.m, q->inputs[1]));
  ASSERT_EQ(got.size(), 12u);
  for (size_t i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(got[i], wq[i] * w[i / 3]) << i;  // row k times w[k]
  expect_same_outputs(*r.ref, *r.m, {{"n", 3}});
}

TEST(PassFoldScalesIntoMatMul, ChannelScaleStaysWhenSomeoneElseWouldSeeIt) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* h = b.input("h", kFloat, {"n", 4});
  Value* narrow = b.input("narrow", kFloat, {"n", 1});
  Value* w = b.initializer("w", {4}, ramp(4, 1.0f, 1.0f));
  Value* wq = b.initializer("wq", {4, 3}, ramp(12, 0.0f, 1.0f));
  // The product is also a graph output.
  Value* y1 = b.op("Mul", {h, w});
  b.output(b.op("MatMul", {y1, wq}));
  b.output(y1);
  // The product is also read by an Add.
  Value* y2 = b.op("Mul", {h, w});
  b.output(b.op("MatMul", {y2, b.initializer("wq2", {4, 3}, ramp(12, 0.0f, 1.0f))}));
  b.output(b.op("Add", {y2, h}));
  // The weight is shared with a MatMul of another input (scaling it would copy it).
  Value* shared = b.initializer("shared", {4, 3}, ramp(12, 0.0f, 1.0f));
  b.output(b.op("MatMul", {b.op("Mul", {h, w}), shared}));
  b.output(b.op("MatMul", {h, shared}));
  // The scale varies along the first axis ([4, 1] against x [4, 4]).
  Value* sq = b.input("sq", kFloat, {4, 4});
  b.output(b.op("MatMul", {b.op("Mul", {sq, b.initializer("wcol", {4, 1}, ramp(4, 1.0f, 1.0f))}),
                           b.initializer("wq3", {4, 3}, ramp(12, 0.0f, 1.0f))}));
  // x's last dim is 1: the Mul broadcasts it up to 4 columns, x alone would not fit the weight.
  b.output(b.op("MatMul", {b.op("Mul", {narrow, w}), b.initializer("wq4", {4, 3}, ramp(12, 0.0f, 1.0f))}));
  // The product is the MatMul's second operand.
  Value* left = b.input("left", kFloat, {2, 4});
  b.output(b.op("MatMul", {left, b.op("Mul", {sq, w})}));
  // The weight is computed at run time.
  b.output(b.op("MatMul", {b.op("Mul", {h, w}), b.input("wrt", kFloat, {4, 3})}));
  EXPECT_EQ(run_checked(*m, "fold_scales_into_matmul").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Mul"), 7);
}

// Scaled dot product as exporters write it: Q from a projection with bias, the rotate trick of
// rotary embeddings (Q * cos + Gather(Q) * sin, cos and sin computed at run time), Q.K^T, / 2.
std::unique_ptr<Model> attention_scores(bool q_also_output) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"n", 4});
  Value* cosv = b.input("cos", kFloat, {"n", 4});
  Value* sinv = b.input("sin", kFloat, {"n", 4});
  Value* q = b.op("Add", {b.op("MatMul", {x, b.initializer("wq", {4, 4}, ramp(16, -1.0f, 0.125f))}),
                          b.initializer("bq", {4}, {0.1f, 0.2f, 0.3f, 0.4f})});
  Value* qt = b.op("Transpose", {q}, {b.ints("perm", {1, 0})});
  Value* qn = b.op("Transpose", {qt}, {b.ints("perm", {1, 0})});
  Value* rot = b.op("Gather", {qn, b.initializer_i64("perm", {4}, {2, 3, 0, 1})}, {b.i("axis", 1)});
  Value* qr = b.op("Add", {b.op("Mul", {qn, cosv}), b.op("Mul", {rot, sinv})});
  Value* k = b.op("MatMul", {x, b.initializer("wk", {4, 4}, ramp(16, 0.5f, -0.0625f))});
  Value* kt = b.op("Transpose", {k}, {b.ints("perm", {1, 0})});
  b.output(b.op("Div", {b.op("MatMul", {qr, kt}), b.initializer("scale", {}, {2.0f})}, {}, "scores"));
  b.output(k);
  if (q_also_output) b.output(q);
  return m;
}

TEST(PassFoldScalesIntoMatMul, ScalarAfterLinearChainMovesIntoItsConstants) {
  auto r = run_on_built([] { return attention_scores(false); }, "fold_scales_into_matmul");
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(count_op(r.m->graph, "Div"), 0);
  EXPECT_EQ(r.m->str(find_op(*r.m, "MatMul", 2)->outputs[0]->name), "scores");  // the output keeps its name
  // Q's weight and bias are halved; K's weight (K is also an output) is not.
  std::vector<float> wq = floats_of(passes::const_tensor(*r.m, find_op(*r.m, "MatMul", 0)->inputs[1]));
  std::vector<float> want = ramp(16, -1.0f, 0.125f);
  ASSERT_EQ(wq.size(), 16u);
  for (size_t i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(wq[i], want[i] / 2) << i;
  std::vector<float> bq = floats_of(passes::const_tensor(*r.m, find_op(*r.m, "Add", 0)->inputs[1]));
  EXPECT_EQ(bq, (std::vector<float>{0.05f, 0.1f, 0.15f, 0.2f}));
  std::vector<float> wk = floats_of(passes::const_tensor(*r.m, find_op(*r.m, "MatMul", 1)->inputs[1]));
  EXPECT_EQ(wk, ramp(16, 0.5f, -0.0625f));
  expect_same_outputs(*r.ref, *r.m, {{"n", 3}});
}

TEST(PassFoldScalesIntoMatMul, ScalarStaysWhenTheChainIsSeenElsewhereOrNotLinear) {
  // A value on the way (Q) is a graph output.
  auto m = attention_scores(true);
  EXPECT_EQ(run_checked(*m, "fold_scales_into_matmul").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Div"), 1);

  auto m2 = new_model(17);
  GraphBuilder b(*m2);
  Value* x = b.input("x", kFloat, {"n", 4});
  Value* shared = b.initializer("shared", {4, 4}, ramp(16, 0.0f, 1.0f));
  // The weight is read by another MatMul too.
  b.output(b.op("Div", {b.op("MatMul", {x, shared}), b.initializer("c1", {}, {4.0f})}));
  b.output(b.op("MatMul", {b.input("x2", kFloat, {"n", 4}), shared}));
  // Not linear: Relu on the way; a square.
  Value* w = b.initializer("w", {4, 4}, ramp(16, 0.0f, 1.0f));
  b.output(b.op("Mul", {b.op("Relu", {b.op("MatMul", {x, w})}), b.initializer("c2", {}, {3.0f})}));
  Value* p = b.op("MatMul", {x, b.initializer("w3", {4, 4}, ramp(16, 0.0f, 1.0f))});
  b.output(b.op("Mul", {b.op("Mul", {p, p}), b.initializer("c3", {}, {3.0f})}));
  // The constant divides (c / v), a zero factor, and no constant upstream at all.
  b.output(b.op("Div", {b.initializer("c4", {}, {2.0f}), b.op("MatMul", {x, b.initializer("w4", {4, 4}, ramp(16, 1.0f, 1.0f))})}));
  b.output(b.op("Mul", {b.op("MatMul", {x, b.initializer("w5", {4, 4}, ramp(16, 1.0f, 1.0f))}), b.initializer("zero", {}, {0.0f})}));
  b.output(b.op("Div", {b.op("Transpose", {x}, {b.ints("perm", {1, 0})}), b.initializer("c5", {}, {2.0f})}));
  EXPECT_EQ(run_checked(*m2, "fold_scales_into_matmul").changes, 0);
}

}  // namespace
}  // namespace ofg::test
