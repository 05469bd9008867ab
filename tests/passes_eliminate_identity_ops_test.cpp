#include "passes_test_util.h"

using PassIdentity = ModelTest;

TEST_F(PassIdentity, RemovesIdentityDropoutAndNeutralArithmetic) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* h = b.op("Identity", {x});
  h = b.node("Dropout", {h}, 1, {b.f("ratio", 0.5f)})->outputs[0];
  h = b.op("Mul", {h, b.initializer("one", {}, {1.0f})});
  h = b.op("Add", {b.initializer("zero", {1}, {0.0f}), h});  // rank 1 <= rank 2 of x: shape kept
  h = b.op("Relu", {h});
  Value* y = b.op("Identity", {h}, {}, "y");  // a graph output: its name must survive
  b.output(y);
  passes::PassStats s = run_checked(*m, "eliminate_identity_ops");
  EXPECT_EQ(s.changes, 5);
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* relu = m->graph->first;
  EXPECT_EQ(m->str(relu->op_type), "Relu");
  EXPECT_EQ(relu->inputs[0], x);
  EXPECT_EQ(relu->outputs[0], y);
  EXPECT_EQ(m->str(m->graph->outputs[0].value->name), "y");
}

TEST_F(PassIdentity, KeepsWhatIsNotAnIdentity) {
  Value* x = b.input("x", kFloat, {2, 3});
  Node* drop = b.node("Dropout", {x}, 2);  // mask used: keep
  b.output(drop->outputs[1]);
  Value* u = b.op("Exp", {x});
  // Multiplying by a [1,1,1] one raises the rank of a 2-D x: not an identity.
  Value* r = b.op("Mul", {u, b.initializer("ones3", {1, 1, 1}, {1.0f})});
  Value* d = b.op("Div", {b.initializer("one", {}, {1.0f}), u});  // 1/x
  Value* s = b.op("Mul", {u, b.initializer("two", {}, {2.0f})});
  b.output(r);
  b.output(d);
  b.output(s);
  EXPECT_EQ(run_checked(*m, "eliminate_identity_ops").changes, 0);
  EXPECT_EQ(m->graph->node_count, 5u);
}

TEST_F(PassIdentity, GraphInputToGraphOutputIdentityStays) {
  Value* x = b.input("x", kFloat, {2});
  b.output(b.op("Identity", {x}, {}, "y"));
  EXPECT_EQ(run_checked(*m, "eliminate_identity_ops").changes, 0);
  EXPECT_EQ(m->graph->node_count, 1u);
}

TEST_F(PassIdentity, SameTypeCastFoundByInference) {
  // Exp's output declares no type; inference knows it is float: Cast(to=float) goes, a Cast to
  // float16 of the same value stays, and so does a Cast whose input type nobody knows.
  Value* x = b.input("x", kFloat, {2, 3});
  Value* e = b.op("Exp", {x});
  ASSERT_EQ(e->type, nullptr);
  Value* same = b.op("Cast", {e}, {b.i("to", kFloat)});
  Value* half = b.op("Cast", {e}, {b.i("to", kFloat16)}, "half");
  Value* mystery = b.node("Mystery", {x}, 1, {}, {}, "com.example")->outputs[0];
  Value* unknown = b.op("Cast", {mystery}, {b.i("to", kFloat)}, "unknown");
  b.output(b.op("Relu", {same}, {}, "y"));
  b.output(half);
  b.output(unknown);
  EXPECT_EQ(run_checked(*m, "eliminate_identity_ops").changes, 1);
  EXPECT_EQ(count_op(m->graph, "Cast"), 2);
  Node* relu = m->graph->outputs[0].value->producer;
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->inputs[0], e);
}

// A KV cache at prefill: the past has 0 positions, so Concat(past, new) is `new`. The Concat's
// output is a graph output ("present"): its name moves onto the Transpose that now makes it.
TEST_F(PassIdentity, ConcatWithAnEmptyPastIsItsOtherInput) {
  Value* past = b.input("past", kFloat, {1, 2, 0, 4});
  Value* x = b.input("x", kFloat, {1, 3, 2, 4});
  Value* now = b.op("Transpose", {x}, {b.ints("perm", {0, 2, 1, 3})});
  Value* present = b.op("Concat", {past, now}, {b.i("axis", -2)}, "present");
  b.output(present);
  b.output(b.op("Relu", {present}, {}, "y"));
  EXPECT_EQ(run_checked(*m, "eliminate_identity_ops").changes, 1);
  ASSERT_EQ(m->graph->node_count, 2u);
  Node* t = m->graph->first;
  EXPECT_EQ(m->str(t->op_type), "Transpose");
  EXPECT_EQ(m->str(m->graph->outputs[0].value->name), "present");
  EXPECT_EQ(t->outputs[0], m->graph->outputs[0].value);
  EXPECT_EQ(m->graph->first->next->inputs[0], t->outputs[0]);
}

// Must not fire: a past whose length is symbolic may have elements, so may two inputs of a
// static shape; a 0 on another axis than the Concat's says nothing.
TEST_F(PassIdentity, ConcatOfInputsThatMayHaveElementsStays) {
  Value* past = b.input("past", kFloat, {1, 2, "past_len", 4});
  Value* x = b.input("x", kFloat, {1, 2, 3, 4});
  Value* empty_batch = b.input("e", kFloat, {0, 2, 3, 4});
  b.output(b.op("Concat", {past, x}, {b.i("axis", 2)}, "a"));
  b.output(b.op("Concat", {x, x}, {b.i("axis", 2)}, "b"));
  b.output(b.op("Concat", {empty_batch, empty_batch}, {b.i("axis", 2)}, "c"));
  EXPECT_EQ(run_checked(*m, "eliminate_identity_ops").changes, 0);
  EXPECT_EQ(m->graph->node_count, 3u);
}

// Edge: every input empty along the axis (the output is empty too, with the first input's
// shape), and a one-input Concat.
TEST_F(PassIdentity, ConcatAllEmptyOrSingleInputRemoved) {
  Value* e1 = b.input("e1", kFloat, {2, 0});
  Value* e2 = b.input("e2", kFloat, {2, 0});
  Value* x = b.input("x", kFloat, {2, 3});
  b.output(b.op("Relu", {b.op("Concat", {e1, e2}, {b.i("axis", 1)})}, {}, "y"));
  b.output(b.op("Relu", {b.op("Concat", {x}, {b.i("axis", 0)})}, {}, "z"));
  EXPECT_EQ(run_checked(*m, "eliminate_identity_ops").changes, 2);
  ASSERT_EQ(m->graph->node_count, 2u);
  EXPECT_EQ(m->graph->first->inputs[0], e1);
  EXPECT_EQ(m->graph->first->next->inputs[0], x);
}
