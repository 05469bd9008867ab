// fold_constants: fires on constant-only nodes, leaves runtime inputs, graph outputs, custom
// domains and oversized results alone, and works inside Loop bodies.
#include <cmath>

#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

std::unique_ptr<Model> add_of_constants() {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* a = b.initializer("a", {3}, {1, 2, 3});
  Value* c = b.constant("c", {3}, {10, 20, 30});
  Value* s = b.op("Add", {a, c});
  Value* e = b.op("Exp", {b.op("Neg", {s})});
  b.output(b.op("Mul", {x, e}));
  return m;
}

TEST(PassFoldConstants, FoldsAChainOfConstantNodes) {
  auto m = add_of_constants();
  auto ref = add_of_constants();
  auto st = run_checked(*m, "fold_constants");
  EXPECT_EQ(st.changes, 3);  // Constant stays for constants_to_initializers; Add, Neg, Exp fold
  EXPECT_EQ(count_op(m->graph, "Add"), 0);
  EXPECT_EQ(count_op(m->graph, "Exp"), 0);
  EXPECT_EQ(count_op(m->graph, "Mul"), 1);
  Node* mul = m->graph->last;
  const Tensor* t = passes::const_tensor(*m, mul->inputs[1]);
  ASSERT_NE(t, nullptr);
  auto v = floats_of(t);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_NEAR(v[0], std::exp(-11.0f), 1e-9);
  expect_same_outputs(*ref, *m);
}

TEST(PassFoldConstants, LeavesRuntimeInputsAndGraphOutputs) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {3});
  Value* a = b.initializer("a", {3}, {1, 2, 3});
  b.output(b.op("Add", {x, a}));
  b.output(b.op("Neg", {a}));  // constant but a graph output: kept as a node
  EXPECT_EQ(run_checked(*m, "fold_constants").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Neg"), 1);
}

TEST(PassFoldConstants, SkipsAHugeExpand) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1000, 1000});
  Value* one = b.initializer("one", {1}, {1.0f});
  Value* e = b.op("Expand", {one, b.initializer_i64("shape", {2}, {1000, 1000})});
  b.output(b.op("Mul", {x, e}));
  EXPECT_EQ(run_checked(*m, "fold_constants").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Expand"), 1);
  // the same fold is made under a budget large enough for it
  std::map<std::string, std::string> opts{{"fold_constants.budget_bytes", "8000000"}};
  EXPECT_EQ(passes::run_pass(*m, *passes::find_pass("fold_constants"), &opts).changes, 1);
  EXPECT_EQ(count_op(m->graph, "Expand"), 0);
}

TEST(PassFoldConstants, SharedWeightIsNotDuplicated) {
  // Transpose of a weight another node also reads would add a second copy: skipped.
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 64});
  Value* w = b.initializer("w", {64, 64}, std::vector<float>(64 * 64, 0.25f));
  Value* t = b.op("Transpose", {w}, {b.ints("perm", {1, 0})});
  b.output(b.op("MatMul", {x, t}));
  b.output(b.op("MatMul", {x, w}));
  EXPECT_EQ(run_checked(*m, "fold_constants").changes, 0);
}

TEST(PassFoldConstants, InsideALoopBodyAndNotCustomDomains) {
  auto build = [] {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {3});
    Value* a = b.initializer("a", {3}, {1, 2, 3});
    Graph* body = b.subgraph("body");
    GraphBuilder bb(*m, body);
    bb.input("i", kInt64, {});
    Value* cond = bb.input("c", kBool, {});
    Value* v = bb.input("v", kFloat, {3});
    bb.output(bb.op("Identity", {cond}));
    bb.output(bb.op("Add", {v, bb.op("Sqrt", {a})}));  // reads the outer constant
    Node* loop = b.node("Loop", {b.initializer_i64("trip", {}, {2}), nullptr, x}, 1, {b.g("body", body)});
    b.output(loop->outputs[0]);
    b.output(b.node("Custom", {a}, 1, {}, {}, "com.example")->outputs[0]);
    return m;
  };
  auto m = build();
  EXPECT_EQ(run_checked(*m, "fold_constants").changes, 1);
  Graph* body = m->graph->first->attributes[0].g;
  EXPECT_EQ(count_op(body, "Sqrt"), 0);
  EXPECT_EQ(count_op(m->graph, "Custom"), 1);
}

}  // namespace
}  // namespace ofg::test
