// simplify_shape_chains, two mechanisms that matter for decoder exports with a KV cache:
//  - a symbolic dim is read from its canonical source (the first graph input declaring it), so
//    chains that read the same dim from different tensors become equal and CSE merges them;
//  - Expand shape elements equal to the input's dim become 1 (repeat_kv's Expand shapes become
//    constants).
// Every rewrite is checked by running the result at sizes no export used.
#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

// n1 = Shape(a)[1] and n2 = Shape(k)[2] (both "seq", or "other" for k when `same_name` is false),
// each feeding a Range graph output: the LLaMA export's per-layer Shape(k)[2] next to
// Shape(input_ids)[1].
std::unique_ptr<Model> two_reads(bool same_name) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* a = b.input("a", kFloat, {"batch", "seq"});
  Value* k = b.input("k", kFloat, {"batch", 2, same_name ? "seq" : "other", 4});
  Value* zero = b.initializer_i64("zero", {}, {0});
  Value* one = b.initializer_i64("one", {}, {1});
  Value* n1 = b.op("Gather", {b.op("Shape", {a}), b.initializer_i64("i1", {}, {1})}, {b.i("axis", 0)});
  Value* n2 = b.op("Gather", {b.op("Shape", {k}), b.initializer_i64("i2", {}, {2})}, {b.i("axis", 0)});
  b.output(b.op("Range", {zero, n1, one}));
  b.output(b.op("Range", {zero, n2, one}));
  return m;
}

TEST(PassShapeSources, SameSymbolicDimIsReadFromTheFirstInputAndMerges) {
  auto m = two_reads(true);
  auto ref = two_reads(true);
  EXPECT_EQ(run_checked(*m, "simplify_shape_chains").changes, 1);  // only Shape(k)[2] moves
  run_checked(*m, "eliminate_dead_nodes");
  run_checked(*m, "eliminate_duplicate_constants");
  run_checked(*m, "eliminate_common_subexpressions");
  EXPECT_EQ(count_op(m->graph, "Shape"), 1);
  EXPECT_EQ(count_op(m->graph, "Gather"), 1);
  for (Node* n = m->graph->first; n; n = n->next)
    if (passes::is_op(*m, n, "Shape")) EXPECT_EQ(m->str(n->inputs[0]->name), "a");
  // Idempotent: the chain reads the canonical source now.
  EXPECT_EQ(run_checked(*m, "simplify_shape_chains").changes, 0);
  expect_same_outputs(*ref, *m, {{"batch", 2}, {"seq", 3}});
  expect_same_outputs(*ref, *m, {{"batch", 1}, {"seq", 7}});
}

TEST(PassShapeSources, DifferentlyNamedDimsKeepTheirOwnReads) {
  auto m = two_reads(false);
  EXPECT_EQ(run_checked(*m, "simplify_shape_chains").changes, 0);
  run_checked(*m, "eliminate_common_subexpressions");
  EXPECT_EQ(count_op(m->graph, "Shape"), 2);
}

// Expand(Unsqueeze(x, [2]), [Shape(x)[0], 2, 3, Shape(x)[2], 4]) then Reshape(., [0, 6, -1, 4]) on
// x [batch, 2, t, 4]: repeat_kv with 2 KV heads repeated 3 times.
std::unique_ptr<Model> repeat_kv() {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", 2, "t", 4});
  Value* sh = b.op("Shape", {x});
  auto dim = [&](int64_t i) {
    return b.op("Slice", {sh, b.initializer_i64("s" + std::to_string(i), {1}, {i}), b.initializer_i64("e" + std::to_string(i), {1}, {i + 1})});
  };
  Value* shape = b.op("Concat", {dim(0), b.initializer_i64("rep", {2}, {2, 3}), dim(2), b.initializer_i64("hd", {1}, {4})}, {b.i("axis", 0)});
  Value* u = b.op("Unsqueeze", {x, b.initializer_i64("ax", {1}, {2})});
  Value* y = b.op("Expand", {u, shape});
  b.output(b.op("Reshape", {y, b.initializer_i64("to", {4}, {0, 6, -1, 4})}));
  return m;
}

TEST(PassShapeSources, RepeatKvExpandShapeBecomesConstant) {
  auto [m, ref, changes] = run_on_built([] { return repeat_kv(); }, "simplify_shape_chains", "eliminate_dead_nodes");
  EXPECT_GE(changes, 1);
  EXPECT_EQ(count_op(m->graph, "Shape"), 0);
  EXPECT_EQ(count_op(m->graph, "Concat"), 0);
  Node* e = nullptr;
  for (Node* n = m->graph->first; n; n = n->next)
    if (passes::is_op(*m, n, "Expand")) e = n;
  ASSERT_NE(e, nullptr);
  std::vector<int64_t> shape;
  ASSERT_TRUE(passes::read_ints(passes::const_tensor(*m, e->inputs[1]), shape));
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 2, 3, 1, 4}));
  expect_same_outputs(*ref, *m, {{"batch", 2}, {"t", 5}});
  expect_same_outputs(*ref, *m, {{"batch", 3}, {"t", 1}});
}

// Expand(Unsqueeze(x, [1]), [Shape(x)[0], Shape(x)[1], Shape(x)[1], 4]) on x [batch, t, 4]: the
// element at position 1 faces the inserted axis (size 1, not t) and must stay; the one at
// position 2 faces x's dim 1 and becomes 1.
std::unique_ptr<Model> expand_over_inserted_axis() {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", "t", 4});
  Value* sh = b.op("Shape", {x});
  auto dim = [&](int64_t i, const char* tag) {
    return b.op("Slice", {sh, b.initializer_i64(std::string("s") + tag, {1}, {i}), b.initializer_i64(std::string("e") + tag, {1}, {i + 1})});
  };
  Value* shape = b.op("Concat", {dim(0, "a"), dim(1, "b"), dim(1, "c"), b.initializer_i64("hd", {1}, {4})}, {b.i("axis", 0)});
  Value* u = b.op("Unsqueeze", {x, b.initializer_i64("ax", {1}, {1})});
  b.output(b.op("Expand", {u, shape}));
  return m;
}

TEST(PassShapeSources, ExpandKeepsTheElementFacingAnInsertedAxis) {
  auto [m, ref, changes] = run_on_built([] { return expand_over_inserted_axis(); }, "simplify_shape_chains", "eliminate_dead_nodes");
  EXPECT_GE(changes, 1);
  // [1, t, 1, 4]: one Shape read of t stays (the batch and the second t are now 1).
  EXPECT_EQ(count_op(m->graph, "Shape"), 1);
  expect_same_outputs(*ref, *m, {{"batch", 2}, {"t", 3}});
  expect_same_outputs(*ref, *m, {{"batch", 1}, {"t", 4}});
}

TEST(PassShapeSources, ExpandToAnotherTensorsDimStays) {
  // x [batch, 1, 4] expanded to z's [batch, n, 4]: n is not x's dim, nothing may change but the batch.
  auto build = [] {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {"batch", 1, 4});
    Value* z = b.input("z", kFloat, {"batch", "n", 4});
    b.output(b.op("Expand", {x, b.op("Shape", {z})}));
    return m;
  };
  auto m = build();
  auto ref = build();
  run_checked(*m, "simplify_shape_chains");
  run_checked(*m, "eliminate_dead_nodes");
  EXPECT_EQ(count_op(m->graph, "Shape"), 1);
  expect_same_outputs(*ref, *m, {{"batch", 2}, {"n", 3}});
}

}  // namespace
}  // namespace ofg::test

namespace ofg::test {
namespace {

// Expand(x, Where(s == -1, 1, s)) with s = [Shape(x)[0], Shape(x)[1] + Shape(y)[0]]: PyTorch's
// expand. Dims are never negative, so the Where is s itself (Equal and Where go); with `+ -5`
// instead of a dim the sum may be -1 and nothing changes.
std::unique_ptr<Model> expand_where(bool may_be_negative) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  // With `may_be_negative` x's second dim is symbolic, so w - 5 is unknown (only checked, not run).
  Value* x = may_be_negative ? b.input("x", kFloat, {"a", "w"}) : b.input("x", kFloat, {"a", 1});
  Value* y = b.input("y", kFloat, {"n"});
  auto slice = [&](Value* v, int64_t i, const char* tag) {
    return b.op("Slice", {b.op("Shape", {v}), b.initializer_i64(std::string("s") + tag, {1}, {i}),
                          b.initializer_i64(std::string("e") + tag, {1}, {i + 1})});
  };
  Value* other = may_be_negative ? b.initializer_i64("minus5", {1}, {-5}) : slice(y, 0, "y");
  Value* width = b.op("Add", {slice(x, 1, "x1"), other});
  Value* s = b.op("Concat", {slice(x, 0, "x0"), width}, {b.i("axis", 0)});
  Value* eq = b.op("Equal", {s, b.initializer_i64("m1", {2}, {-1, -1})});
  Value* w = b.op("Where", {eq, b.initializer_i64("ones", {2}, {1, 1}), s});
  b.output(b.op("Expand", {x, w}));
  return m;
}

TEST(PassShapeSources, WhereOnAShapeWithAKnownConditionIsItsBranch) {
  auto [m, ref, changes] = run_on_built([] { return expand_where(false); }, "simplify_shape_chains", "eliminate_dead_nodes");
  EXPECT_GE(changes, 1);
  EXPECT_EQ(count_op(m->graph, "Where"), 0);
  EXPECT_EQ(count_op(m->graph, "Equal"), 0);
  expect_same_outputs(*ref, *m, {{"a", 2}, {"n", 3}});
}

TEST(PassShapeSources, WhereWhoseConditionMayHoldStays) {
  auto m = expand_where(true);
  run_checked(*m, "simplify_shape_chains");
  run_checked(*m, "eliminate_dead_nodes");
  EXPECT_EQ(count_op(m->graph, "Where"), 1);
}

}  // namespace
}  // namespace ofg::test
