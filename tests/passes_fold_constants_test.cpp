// fold_constants: fires on constant-only nodes, leaves runtime inputs, graph outputs, custom
// domains and oversized results alone, and works inside Loop bodies.
#include <cmath>

#include "passes_test_util.h"
#include "passes_verify_util.h"

using PassFoldConstants = ModelTest;

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

TEST_F(PassFoldConstants, FoldsAChainOfConstantNodes) {
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

// Reshape-like ops of a constant become views of the same bytes with the inferred dims (no
// interpreter run, no copy); the values and every consumer's result stay the same.
TEST_F(PassFoldConstants, ReshapesOfConstantsViewTheSameBytes) {
  auto build = [] {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {3, 2});
    Value* w = b.initializer("w", {2, 3}, {1, 2, 3, 4, 5, 6});
    Value* r = b.op("Reshape", {w, b.initializer_i64("shape", {2}, {3, -1})});
    Value* u = b.op("Unsqueeze", {r, b.initializer_i64("axes", {1}, {0})});
    Value* q = b.op("Squeeze", {u, b.initializer_i64("axes0", {1}, {0})});
    Value* f = b.op("Flatten", {b.op("Neg", {w})}, {b.i("axis", 0)});
    b.output(b.op("Add", {x, q}));
    b.output(b.op("Mul", {b.op("Identity", {x}), b.op("Reshape", {f, b.initializer_i64("s2", {2}, {3, 2})})}));
    return m;
  };
  auto m = build();
  auto ref = build();
  const uint8_t* w_bytes = m->graph->initializers[0]->initializer->data.data;
  EXPECT_EQ(run_checked(*m, "fold_constants").changes, 6);
  EXPECT_EQ(count_op(m->graph, "Reshape") + count_op(m->graph, "Unsqueeze") + count_op(m->graph, "Squeeze") +
                count_op(m->graph, "Flatten") + count_op(m->graph, "Neg"),
            0);
  Node* add = m->graph->first;
  while (add && m->str(add->op_type) != "Add") add = add->next;
  ASSERT_NE(add, nullptr);
  const Tensor* q = passes::const_tensor(*m, add->inputs[1]);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(std::vector<int64_t>(q->dims.begin(), q->dims.end()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(q->data.data, w_bytes);  // a view of w's bytes
  EXPECT_EQ(floats_of(q), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  expect_same_outputs(*ref, *m);
}

TEST_F(PassFoldConstants, LeavesRuntimeInputsAndGraphOutputs) {
  Value* x = b.input("x", kFloat, {3});
  Value* a = b.initializer("a", {3}, {1, 2, 3});
  b.output(b.op("Add", {x, a}));
  b.output(b.op("Neg", {a}));  // constant but a graph output: kept as a node
  EXPECT_EQ(run_checked(*m, "fold_constants").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Neg"), 1);
}

TEST_F(PassFoldConstants, SkipsAHugeExpand) {
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

TEST_F(PassFoldConstants, SharedWeightIsNotDuplicated) {
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

TEST_F(PassFoldConstants, InsideALoopBodyAndNotCustomDomains) {
  auto build = [] {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {3});
    Value* a = b.initializer("a", {3}, {1, 2, 3});
    Graph* body = b.subgraph("body");
    GraphBuilder bb(*m, body);
    Value* cond = loop_inputs(bb);
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

// Large Transposes are folded without the interpreter (2-D ones computed when read, the others
// by the kernel straight into memory the model keeps): the values must be
// exactly those of the reference transposition, for every element size, a default perm, an N-D
// perm, and weights whose bytes are not aligned (as raw data at an odd offset of a file is).
TEST_F(PassFoldConstants, LargeTransposesMatchTheReference) {
  struct Case {
    int32_t dtype;
    std::vector<int64_t> dims;
    std::vector<int64_t> perm;  // empty: attribute absent (reversed axes)
    size_t misalign;            // byte offset of the weight's data from an aligned address
  };
  const std::vector<Case> cases = {
      {kFloat, {256, 100}, {1, 0}, 0},    {kFloat, {100, 257}, {}, 1},     {kFloat16, {300, 129}, {1, 0}, 3},
      {kInt64, {64, 130}, {1, 0}, 4},     {kUint8, {300, 301}, {1, 0}, 0}, {kFloat, {8, 50, 70}, {2, 0, 1}, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(dtype_name(c.dtype)) + " misalign " + std::to_string(c.misalign));
    size_t es = dtype_size(c.dtype);
    int64_t numel = 1;
    for (int64_t d : c.dims) numel *= d;
    size_t nbytes = static_cast<size_t>(numel) * es;
    // Outlives the model: the weight is a view of these bytes, like a mapped file.
    std::vector<uint8_t> storage(nbytes + 64 + c.misalign);
    uint8_t* base = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 + c.misalign;
    for (size_t i = 0; i < nbytes; ++i) base[i] = static_cast<uint8_t>(i * 7 + i / 251);
    if (c.dtype == kFloat16)  // keep the values finite half floats (exponent bits below all-ones)
      for (size_t i = 1; i < nbytes; i += 2) base[i] &= 0x3f;
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* w = new_value(m->graph, m->intern("w"));
    Tensor* t = make_tensor_view(*m, c.dtype, c.dims.data(), c.dims.size(), Bytes{base, nbytes});
    set_initializer(w, t);
    w->type = make_tensor_type(*m, c.dtype, c.dims.data(), c.dims.size());
    std::vector<Attribute> attrs;
    if (!c.perm.empty()) attrs.push_back(b.ints("perm", c.perm));
    Value* y = b.op("Transpose", {w}, attrs);
    b.output(b.op("Identity", {y}));
    std::vector<int64_t> perm = c.perm;
    if (perm.empty())
      for (size_t i = c.dims.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    const Tensor* expected = passes::transpose_tensor(*m, t, perm);
    ASSERT_NE(expected, nullptr);
    EXPECT_EQ(run_checked(*m, "fold_constants").changes, 1);
    EXPECT_EQ(count_op(m->graph, "Transpose"), 0);
    const Tensor* got = passes::const_tensor(*m, m->graph->last->inputs[0]);
    ASSERT_NE(got, nullptr);
    ASSERT_EQ(got->data_type, c.dtype);
    ASSERT_EQ(std::vector<int64_t>(got->dims.begin(), got->dims.end()),
              std::vector<int64_t>(expected->dims.begin(), expected->dims.end()));
    ASSERT_EQ(got->data.size, nbytes);
    // A 2-D transpose is left to be computed when read (Tensor::recipe).
    const bool computed = got->recipe != nullptr;
    EXPECT_EQ(computed, c.dims.size() == 2);
    if (computed) {
      // A window that starts and ends inside output rows, read without materialising.
      const size_t at = 3 * es, len = static_cast<size_t>(2 * c.dims[0] + 5) * es;
      std::vector<uint8_t> window(len);
      got->read(at, len, window.data());
      EXPECT_EQ(std::memcmp(window.data(), expected->data.data + at, len), 0);
      EXPECT_NE(got->recipe, nullptr);
    }
    EXPECT_EQ(std::memcmp(got->bytes().data, expected->data.data, nbytes), 0);
    if (!computed) EXPECT_EQ(reinterpret_cast<uintptr_t>(got->data.data) % 64, 0u);
  }
}

}  // namespace
}  // namespace ofg::test
