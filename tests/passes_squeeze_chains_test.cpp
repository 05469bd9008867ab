// collapse_reshape_chains' Squeeze/Unsqueeze rules: chains of one op become one node with the
// axes renumbered, and a Squeeze of a sliced constant moves onto the constant (where it folds).
// Each rewrite is checked by running the result against the untouched model.
#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

Node* only(Model& m, const char* op) {
  Node* found = nullptr;
  for (Node* n = m.graph->first; n; n = n->next)
    if (passes::is_op(m, n, op)) found = n;
  return found;
}

std::vector<int64_t> axes_of(Model& m, Node* n) {
  std::vector<int64_t> v;
  if (n->inputs.size >= 2 && n->inputs[1]) passes::read_ints(passes::const_tensor(m, n->inputs[1]), v);
  else attr_ints(m, n, "axes", v);
  return v;
}

// Unsqueeze(Unsqueeze(x [3, 4], [1]), [0, 3]) -> Unsqueeze(x, [0, 2, 3]): [1, 3, 1, 1, 4].
std::unique_ptr<Model> unsqueeze_chain(int64_t opset, bool second_reader) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {3, "n"});
  Value* u;
  Value* y;
  if (opset >= 13) {
    u = b.op("Unsqueeze", {x, b.initializer_i64("a1", {1}, {1})});
    y = b.op("Unsqueeze", {u, b.initializer_i64("a2", {2}, {0, -2})});
  } else {
    u = b.op("Unsqueeze", {x}, {b.ints("axes", {1})});
    y = b.op("Unsqueeze", {u}, {b.ints("axes", {0, -2})});
  }
  b.output(y);
  if (second_reader) b.output(b.op("Neg", {u}));
  return m;
}

TEST(PassSqueezeChains, UnsqueezeChainBecomesOneUnsqueeze) {
  for (int64_t opset : {11, 13}) {
    auto m = unsqueeze_chain(opset, false);
    auto ref = unsqueeze_chain(opset, false);
    EXPECT_EQ(run_checked(*m, "collapse_reshape_chains").changes, 1) << opset;
    EXPECT_EQ(count_op(m->graph, "Unsqueeze"), 1);
    Node* n = only(*m, "Unsqueeze");
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(axes_of(*m, n), (std::vector<int64_t>{0, 2, 3})) << opset;
    expect_same_outputs(*ref, *m, {{"n", 4}});
  }
}

TEST(PassSqueezeChains, UnsqueezeReadTwiceStays) {
  auto m = unsqueeze_chain(13, true);
  EXPECT_EQ(run_checked(*m, "collapse_reshape_chains").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Unsqueeze"), 2);
}

TEST(PassSqueezeChains, SqueezeChainBecomesOneSqueeze) {
  auto build = [] {
    return model_of(13, [](GraphBuilder& b) {
      Value* x = b.input("x", kFloat, {1, "n", 1, 4, 1});
      Value* s = b.op("Squeeze", {x, b.initializer_i64("a1", {1}, {-3})});      // [1, n, 4, 1]
      b.output(b.op("Squeeze", {s, b.initializer_i64("a2", {2}, {3, 0})}));  // [n, 4]
    });
  };
  auto [m, ref, changes] = run_on_built(build, "collapse_reshape_chains");
  EXPECT_EQ(changes, 1);
  Node* n = only(*m, "Squeeze");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(count_op(m->graph, "Squeeze"), 1);
  EXPECT_EQ(axes_of(*m, n), (std::vector<int64_t>{0, 2, 4}));
  expect_same_outputs(*ref, *m, {{"n", 3}});
}

TEST(PassSqueezeChains, SqueezeWithoutAxesStays) {
  // The inner Squeeze names no axes: which dims it removes depends on the run (only checked, not run).
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, "n", 1, 1});
  Value* s = b.op("Squeeze", {x});
  b.output(b.op("Squeeze", {s, b.initializer_i64("z", {1}, {0})}));
  EXPECT_EQ(run_checked(*m, "collapse_reshape_chains").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Squeeze"), 2);
}

// Squeeze(Slice(C [1, 1, 8, 4], 0, Shape(x)[1], axis 2), [0, 1]) then Gather(., positions): the
// rotary cos cache sliced to the sequence length. After the rewrite and fold_constants only the
// Slice reads the (squeezed) constant.
std::unique_ptr<Model> sliced_cache(bool slice_squeezed_axis) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", "seq"});
  std::vector<float> cache(32);
  for (size_t i = 0; i < cache.size(); ++i) cache[i] = static_cast<float>(i);
  Value* c = b.initializer("cache", {1, 1, 8, 4}, cache);
  Value* end = b.op("Slice", {b.op("Shape", {x}), b.initializer_i64("s", {1}, {1}), b.initializer_i64("e", {1}, {2})});
  Value* axis = b.initializer_i64("ax", {1}, {slice_squeezed_axis ? 1 : 2});
  Value* sl = b.op("Slice", {c, b.initializer_i64("zero", {1}, {0}), end, axis});
  Value* sq = b.op("Squeeze", {sl, b.initializer_i64("sq", {2}, {0, 1})});
  b.output(b.op("Mul", {sq, b.initializer("k", {1}, {2.0f})}));
  return m;
}

TEST(PassSqueezeChains, SqueezeOfASlicedConstantMovesOntoTheConstant) {
  auto [m, ref, changes] = run_on_built([] { return sliced_cache(false); }, "collapse_reshape_chains", "fold_constants");
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(count_op(m->graph, "Squeeze"), 0);
  Node* s = only(*m, "Slice");
  ASSERT_NE(s, nullptr);
  const Tensor* data = passes::const_tensor(*m, s->inputs[0]);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(std::vector<int64_t>(data->dims.begin(), data->dims.end()), (std::vector<int64_t>{8, 4}));
  std::vector<int64_t> axes;
  ASSERT_TRUE(passes::read_ints(passes::const_tensor(*m, s->inputs[3]), axes));
  EXPECT_EQ(axes, (std::vector<int64_t>{0}));
  expect_same_outputs(*ref, *m, {{"batch", 2}, {"seq", 3}});
  expect_same_outputs(*ref, *m, {{"batch", 1}, {"seq", 8}});
}

TEST(PassSqueezeChains, SqueezeOfASlicedAxisStays) {
  // The Slice cuts axis 1, which the Squeeze removes: its size depends on the run.
  auto m = sliced_cache(true);
  EXPECT_EQ(run_checked(*m, "collapse_reshape_chains").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Squeeze"), 1);
}

}  // namespace
}  // namespace ofg::test
