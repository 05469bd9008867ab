#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace {

using PassInlineIf = ModelTest;

// x -> If(cond) { then: Relu(x) * w_then ; else: Neg(x) } -> y (a graph output), then Exp(y).
std::unique_ptr<Model> branchy(bool cond_constant, uint8_t cond_value) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* c = cond_constant ? b.initializer("cond", kBool, {}, &cond_value, 1) : b.input("cond", kBool, {});
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(*m, then_g);
  Value* w = tb.initializer("w_then", {3}, {1.f, 2.f, 3.f});
  tb.output(tb.op("Mul", {tb.op("Relu", {x}), w}, {}, "t_out"));
  Graph* else_g = b.subgraph("else");
  GraphBuilder eb(*m, else_g);
  eb.output(eb.op("Neg", {x}, {}, "e_out"));
  Node* n = b.node("If", {c}, 1, {b.g("then_branch", then_g), b.g("else_branch", else_g)});
  Value* y = n->outputs[0];
  b.output(b.op("Exp", {y}, {}, "z"));
  recompute_captures(m->graph);
  return m;
}

// If(true) { then_g } else { Abs(x) }, its output read by Relu -> graph output "y".
void if_true_else_abs_then_relu(Model& m, GraphBuilder& b, Graph* then_g, Value* x) {
  Graph* else_g = b.subgraph("else");
  GraphBuilder eb(m, else_g);
  eb.output(eb.op("Abs", {x}));
  Node* n = if_true(b, then_g, else_g);
  b.output(b.op("Relu", {n->outputs[0]}, {}, "y"));
  recompute_captures(m.graph);
}

TEST_F(PassInlineIf, ConstantTrueTakesThenBranchWithItsInitializer) {
  auto m = branchy(true, 1);
  auto reference = branchy(true, 1);
  passes::PassStats s = run_checked(*m, "inline_constant_if");
  EXPECT_EQ(s.changes, 1);
  EXPECT_EQ(count_op(m->graph, "If"), 0);
  EXPECT_EQ(count_op(m->graph, "Relu"), 1);
  EXPECT_EQ(count_op(m->graph, "Mul"), 1);
  EXPECT_EQ(count_op(m->graph, "Neg"), 0);  // the other branch is gone
  // The branch's weight is now an initializer of the main graph, read by the moved Mul.
  bool found = false;
  for (Value* v : m->graph->initializers) found |= m->str(v->name) == "w_then" && v->uses.size == 1 && v->graph == m->graph;
  EXPECT_TRUE(found);
  expect_same_outputs(*reference, *m);
}

TEST_F(PassInlineIf, ConstantFalseTakesElseBranch) {
  auto m = branchy(true, 0);
  auto reference = branchy(true, 0);
  EXPECT_EQ(run_checked(*m, "inline_constant_if").changes, 1);
  EXPECT_EQ(count_op(m->graph, "If"), 0);
  EXPECT_EQ(count_op(m->graph, "Neg"), 1);
  EXPECT_EQ(count_op(m->graph, "Relu"), 0);
  EXPECT_EQ(m->graph->initializers.size, 1u);  // only the condition; the then branch's weight went with it
  expect_same_outputs(*reference, *m);
}

TEST_F(PassInlineIf, RuntimeConditionIsKept) {
  auto m = branchy(false, 0);
  EXPECT_EQ(run_checked(*m, "inline_constant_if").changes, 0);
  EXPECT_EQ(count_op(m->graph, "If"), 1);
}

TEST_F(PassInlineIf, IfOutputThatIsAGraphOutputKeepsItsName) {
  Value* x = b.input("x", kFloat, {4});
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(*m, then_g);
  tb.output(tb.op("Sigmoid", {x}, {}, "inner"));
  Graph* else_g = b.subgraph("else");
  GraphBuilder eb(*m, else_g);
  eb.output(eb.op("Tanh", {x}));
  Node* n = if_true(b, then_g, else_g);
  Value* y = n->outputs[0];
  y->name = m->intern("y");
  b.output(y);
  recompute_captures(m->graph);
  EXPECT_EQ(run_checked(*m, "inline_constant_if").changes, 1);
  ASSERT_EQ(m->graph->outputs.size, 1u);
  Value* out = m->graph->outputs[0].value;
  EXPECT_EQ(m->str(out->name), "y");
  ASSERT_NE(out->producer, nullptr);
  EXPECT_EQ(m->str(out->producer->op_type), "Sigmoid");
  EXPECT_EQ(out->producer->inputs[0], x);
}

TEST_F(PassInlineIf, BranchReturningAnOuterValueGoesThroughIdentity) {
  // then: returns x itself (a captured value); the If output is read by Relu.
  Value* x = b.input("x", kFloat, {4});
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(*m, then_g);
  tb.output(x);
  if_true_else_abs_then_relu(*m, b, then_g, x);
  EXPECT_EQ(run_checked(*m, "inline_constant_if").changes, 1);
  EXPECT_EQ(count_op(m->graph, "If"), 0);
  ASSERT_EQ(count_op(m->graph, "Identity"), 1);
  // eliminate_identity_ops then wires Relu to x directly.
  run_checked(*m, "eliminate_identity_ops");
  EXPECT_EQ(count_op(m->graph, "Identity"), 0);
  Node* relu = m->graph->outputs[0].value->producer;
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->inputs[0], x);
}

TEST_F(PassInlineIf, BranchValueNamedLikeAnOuterValueIsRenamed) {
  // The branch defines "t", and so does the main graph after the If.
  Value* x = b.input("x", kFloat, {4});
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(*m, then_g);
  Value* inner = tb.op("Exp", {x}, {}, "t");
  tb.output(tb.op("Neg", {inner}, {}, "u"));
  Graph* else_g = b.subgraph("else");
  GraphBuilder eb(*m, else_g);
  eb.output(eb.op("Abs", {x}));
  Node* n = if_true(b, then_g, else_g);
  Value* outer = b.op("Relu", {n->outputs[0]}, {}, "t");
  b.output(outer);
  recompute_captures(m->graph);
  EXPECT_EQ(run_checked(*m, "inline_constant_if").changes, 1);
  EXPECT_EQ(m->str(outer->name), "t");
  EXPECT_NE(m->str(inner->name), "t");
  EXPECT_EQ(inner->graph, m->graph);
}

TEST_F(PassInlineIf, NestedConstantIfsAllGoInThePipeline) {
  // then: If(true) { Exp(x) } else { Log(x) }; the outer If's else: Abs(x).
  Value* x = b.input("x", kFloat, {4});
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(*m, then_g);
  Graph* inner_then = tb.subgraph("inner_then");
  GraphBuilder itb(*m, inner_then);
  itb.output(itb.op("Exp", {x}));
  Graph* inner_else = tb.subgraph("inner_else");
  GraphBuilder ieb(*m, inner_else);
  ieb.output(ieb.op("Log", {x}));
  uint8_t one = 1;
  Value* c2 = tb.initializer("cond2", kBool, {}, &one, 1);
  Node* inner_if = tb.node("If", {c2}, 1, {tb.g("then_branch", inner_then), tb.g("else_branch", inner_else)});
  tb.output(inner_if->outputs[0]);
  if_true_else_abs_then_relu(*m, b, then_g, x);
  // The inner If comes up into the main graph with the outer branch and is inlined in the same
  // run (the rule index lists subgraph nodes after their parents').
  EXPECT_EQ(run_checked(*m, "inline_constant_if").changes, 2);
  EXPECT_EQ(count_op(m->graph, "If"), 0);
  EXPECT_EQ(count_op(m->graph, "Exp"), 1);
  EXPECT_EQ(count_op(m->graph, "Log"), 0);
  EXPECT_EQ(count_op(m->graph, "Abs"), 0);
}

}  // namespace
