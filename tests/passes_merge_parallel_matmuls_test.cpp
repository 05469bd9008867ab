// merge_parallel_matmuls: projections of one input become one MatMul (+ Add) + Split; and
// cleanup_attention's expand_absorbed_by_broadcast, the mask plumbing beside them.
#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

// Q, K, V projections of x [batch, seq, 4] into 4, 2 and 2 columns, with or without biases.
std::unique_ptr<Model> qkv(int64_t opset, bool biases, bool one_bias_missing = false) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", "seq", 4});
  const char* names[3] = {"q", "k", "v"};
  const int64_t cols[3] = {4, 2, 2};
  for (int i = 0; i < 3; ++i) {
    std::string n = names[i];
    Value* y = b.op("MatMul", {x, b.initializer("w" + n, {4, cols[i]}, ramp(static_cast<size_t>(4 * cols[i]), 0.1f * i, 0.25f))});
    bool bias = biases && !(one_bias_missing && i == 2);
    if (bias) y = b.op("Add", {b.initializer("b" + n, {cols[i]}, ramp(static_cast<size_t>(cols[i]), i, 0.5f)), y});
    b.output(b.op("Relu", {y}, {}, n));
  }
  return m;
}

TEST(PassMergeParallelMatMuls, ThreeProjectionsBecomeOneMatMulAndSplit) {
  for (int64_t opset : {11, 17}) {
    auto r = run_on_built([opset] { return qkv(opset, false); }, "merge_parallel_matmuls");
    EXPECT_EQ(r.changes, 1);
    ASSERT_EQ(count_op(r.m->graph, "MatMul"), 1);
    ASSERT_EQ(count_op(r.m->graph, "Split"), 1);
    Node* mm = find_op(*r.m, "MatMul");
    const Tensor* w = passes::const_tensor(*r.m, mm->inputs[1]);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(std::vector<int64_t>(w->dims.begin(), w->dims.end()), (std::vector<int64_t>{4, 8}));
    // Row 1: wq's row 1, then wk's, then wv's.
    std::vector<float> got = floats_of(w);
    std::vector<float> wq = ramp(16, 0.0f, 0.25f), wk = ramp(8, 0.1f, 0.25f), wv = ramp(8, 0.2f, 0.25f);
    std::vector<float> row1 = {wq[4], wq[5], wq[6], wq[7], wk[2], wk[3], wv[2], wv[3]};
    EXPECT_EQ(std::vector<float>(got.begin() + 8, got.begin() + 16), row1);
    Node* split = find_op(*r.m, "Split");
    EXPECT_EQ(attr_int(*r.m, split, "axis", 0), 2);
    if (opset >= 13) {
      std::vector<int64_t> sizes;
      ASSERT_TRUE(passes::read_ints(passes::const_tensor(*r.m, split->inputs[1]), sizes));
      EXPECT_EQ(sizes, (std::vector<int64_t>{4, 2, 2}));
    } else {
      EXPECT_EQ(ints_attr(*r.m, split, "split"), (std::vector<int64_t>{4, 2, 2}));
    }
    expect_same_outputs(*r.ref, *r.m, {{"batch", 2}, {"seq", 3}});
  }
}

TEST(PassMergeParallelMatMuls, BiasesJoinWhenEveryProjectionHasOne) {
  auto r = run_on_built([] { return qkv(17, true); }, "merge_parallel_matmuls");
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(count_op(r.m->graph, "MatMul"), 1);
  EXPECT_EQ(count_op(r.m->graph, "Add"), 1);
  Node* add = find_op(*r.m, "Add");
  std::vector<float> bias = floats_of(passes::const_tensor(*r.m, add->inputs[1]));
  EXPECT_EQ(bias, (std::vector<float>{0, 0.5f, 1, 1.5f, 1, 1.5f, 2, 2.5f}));
  expect_same_outputs(*r.ref, *r.m, {{"batch", 2}, {"seq", 3}});

  // One projection without a bias: the MatMuls merge, the two Adds stay after the Split.
  auto s = run_on_built([] { return qkv(17, true, true); }, "merge_parallel_matmuls");
  EXPECT_EQ(s.changes, 1);
  EXPECT_EQ(count_op(s.m->graph, "MatMul"), 1);
  EXPECT_EQ(count_op(s.m->graph, "Add"), 2);
  expect_same_outputs(*s.ref, *s.m, {{"batch", 2}, {"seq", 3}});
}

TEST(PassMergeParallelMatMuls, SharedComputedOrLoneWeightsStay) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"n", 4});
  Value* shared = b.initializer("shared", {4, 3}, ramp(12, 0.0f, 1.0f));
  b.output(b.op("MatMul", {x, shared}));
  b.output(b.op("MatMul", {b.input("other", kFloat, {"n", 4}), shared}));  // a shared weight is not copied
  b.output(b.op("MatMul", {x, b.input("rt", kFloat, {4, 3})}));           // computed at run time
  b.output(b.op("MatMul", {b.input("left", kFloat, {3, "n"}), x}));        // x as the second operand
  b.output(b.op("MatMul", {x, b.initializer("lone", {4, 2}, ramp(8, 0.0f, 1.0f))}));  // alone with its kind
  EXPECT_EQ(run_checked(*m, "merge_parallel_matmuls").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Split"), 0);
}

// A padding mask [2,1,1,8] expanded to [2,1,8,8], turned into 0 / -1e9 and added to a causal mask
// of the full shape: the Expand changes nothing the Add would not broadcast anyway.
std::unique_ptr<Model> padding_mask(bool expanded_is_output, bool softmax_reader, bool causal_full) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* mask = b.input("mask", kInt64, {2, 1, 1, 8});
  Value* e = b.op("Expand", {mask, b.initializer_i64("shape", {4}, {2, 1, 8, 8})});
  Value* f = b.op("Cast", {e}, {b.i("to", kFloat)});
  Value* inv = b.op("Sub", {b.initializer("one", {}, {1.0f}), f});
  Value* cond = b.op("Cast", {inv}, {b.i("to", kBool)});
  Value* neg = b.op("Where", {cond, b.initializer("big", {}, {-1e9f}), inv});
  std::vector<int64_t> cdims = causal_full ? std::vector<int64_t>{2, 1, 8, 8} : std::vector<int64_t>{1, 1, 1, 8};
  Value* causal = b.initializer("causal", cdims, ramp(causal_full ? 128 : 8, -3.0f, 0.5f));
  b.output(b.op("Add", {causal, neg}, {}, "bias"));
  if (expanded_is_output) b.output(f);
  if (softmax_reader) b.output(b.op("Softmax", {f}, {b.i("axis", -1)}));
  return m;
}

TEST(PassCleanupAttention, ExpandAbsorbedByBroadcastIsRemoved) {
  auto r = run_on_built([] { return padding_mask(false, false, true); }, "cleanup_attention");
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(count_op(r.m->graph, "Expand"), 0);
  EXPECT_EQ(r.m->str(find_op(*r.m, "Cast")->inputs[0]->name), "mask");
  expect_same_outputs(*r.ref, *r.m);
}

// A node that reads the expanded value twice counts as two reads: the scan still reaches every
// later reader (here a Softmax, which needs the expanded shape).
TEST(PassCleanupAttention, ExpandReadTwiceByOneNodeStillChecksEveryReader) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 1, 1, 8});
  Value* e = b.op("Expand", {x, b.initializer_i64("shape", {4}, {2, 1, 8, 8})});
  b.output(b.op("Add", {b.op("Add", {e, e}), b.initializer("full", {2, 1, 8, 8}, ramp(128, 0.0f, 1.0f))}));
  b.output(b.op("Softmax", {b.op("Mul", {e, e})}, {b.i("axis", 2)}));
  EXPECT_EQ(run_checked(*m, "cleanup_attention").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Expand"), 1);
}

TEST(PassCleanupAttention, ExpandStaysWhenItsShapeIsNeeded) {
  for (int c = 0; c < 3; ++c) {
    // 0: a value whose shape would shrink is a graph output; 1: a Softmax (not elementwise)
    // reads it; 2: nothing downstream has the expanded shape (the causal mask is one row).
    auto m = padding_mask(c == 0, c == 1, c != 2);
    EXPECT_EQ(run_checked(*m, "cleanup_attention").changes, 0) << c;
    EXPECT_EQ(count_op(m->graph, "Expand"), 1) << c;
  }
}

}  // namespace
}  // namespace ofg::test
