// Regressions found by the random model generator (tests/fuzz/modelgen.cpp): each test is the
// smallest graph or kernel call that showed the bug, and a neighbour that must stay as it is.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/kernels.h"
#include "support/model_test.h"

namespace k = ofg::kernels;

namespace {

// Direct definition of Conv2D (NCHW, weights [C_out, C_in/group, kH, kW]), the oracle.
std::vector<float> naive_conv(const k::Conv2DParams& p, const std::vector<float>& x, const std::vector<float>& w) {
  std::vector<float> y(p.N * p.C_out * p.H_out * p.W_out, 0.f);
  const size_t cg_in = p.C_in / p.group, cg_out = p.C_out / p.group;
  for (size_t n = 0; n < p.N; ++n)
    for (size_t oc = 0; oc < p.C_out; ++oc)
      for (size_t oh = 0; oh < p.H_out; ++oh)
        for (size_t ow = 0; ow < p.W_out; ++ow) {
          double acc = p.bias ? p.bias[oc] : 0.0;
          size_t g = oc / cg_out;
          for (size_t ic = 0; ic < cg_in; ++ic)
            for (size_t kh = 0; kh < p.kH; ++kh)
              for (size_t kw = 0; kw < p.kW; ++kw) {
                ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dil_h) - static_cast<ptrdiff_t>(p.pad_top);
                ptrdiff_t iw = static_cast<ptrdiff_t>(ow * p.stride_w + kw * p.dil_w) - static_cast<ptrdiff_t>(p.pad_left);
                if (ih < 0 || iw < 0 || ih >= static_cast<ptrdiff_t>(p.H) || iw >= static_cast<ptrdiff_t>(p.W)) continue;
                acc += x[((n * p.C_in + g * cg_in + ic) * p.H + ih) * p.W + iw] *
                       w[((oc * cg_in + ic) * p.kH + kh) * p.kW + kw];
              }
          y[((n * p.C_out + oc) * p.H_out + oh) * p.W_out + ow] = static_cast<float>(acc);
        }
  return y;
}

void expect_conv_matches(k::Conv2DParams p) {
  k::conv2d_fill_output_size(p);
  std::vector<float> x(p.N * p.C_in * p.H * p.W), w(p.C_out * (p.C_in / p.group) * p.kH * p.kW), b(p.C_out);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7f * static_cast<float>(i) + 0.3f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::cos(1.3f * static_cast<float>(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * static_cast<float>(i);
  p.bias = b.data();
  std::vector<float> want = naive_conv(p, x, w);
  std::vector<const k::KernelTable*> tables{&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (const k::KernelTable* t : tables) {
    std::vector<float> got(want.size(), 12345.f);
    t->conv2d(p, x.data(), w.data(), got.data());
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-4) << (t == &k::scalar_table() ? "scalar" : "simd") << " at " << i;
    size_t n = t->conv2d_packed_size(p);
    if (n) {
      std::vector<float> packed(n);
      t->conv2d_pack(p, w.data(), packed.data());
      std::fill(got.begin(), got.end(), 12345.f);
      t->conv2d_prepacked(p, x.data(), packed.data(), got.data());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-4) << "prepacked at " << i;
    }
  }
}

}  // namespace

// modelgen seed 1513: Conv [1,3,3,7] * [5,3,2,2], pads (0,1,0,0), dilations 2.
TEST(ModelgenRegressions, ConvDilatedWithOneSidedPad) {
  k::Conv2DParams p;
  p.N = 1; p.C_in = 3; p.H = 3; p.W = 7; p.C_out = 5; p.kH = 2; p.kW = 2;
  p.pad_left = 1; p.dil_h = 2; p.dil_w = 2;
  expect_conv_matches(p);
}

TEST(ModelgenRegressions, ConvUndilatedWithOneSidedPad) {
  k::Conv2DParams p;
  p.N = 1; p.C_in = 3; p.H = 3; p.W = 7; p.C_out = 5; p.kH = 2; p.kW = 2;
  p.pad_left = 1;
  expect_conv_matches(p);
}

#include "exec/interp.h"
#include "ir/builder.h"

namespace {

ofg::exec::RValue tensor_of(ofg::exec::Shape s, size_t salt) {
  ofg::exec::RTensor t = ofg::exec::RTensor::alloc(ofg::kFloat, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::sin(0.37f * static_cast<float>(i + salt)) * 2;
  return ofg::exec::RValue::tensor(t);
}

}  // namespace

// modelgen seed 1513: Min of [2,1] and [1,5,1,6] (both operands broadcast).
TEST(ModelgenRegressions, BinaryOpsBroadcastingBothOperands) {
  using namespace ofg;
  for (const char* op : {"Min", "Max", "Add", "Sub", "Mul", "Div"}) {
    auto m = new_model(17);
    GraphBuilder b(*m);
    Value* a = b.input("a", kFloat, {2, 1});
    Value* c = b.input("c", kFloat, {1, 5, 1, 6});
    b.output(b.op(op, {a, c}));
    exec::Interpreter in(*m);
    exec::RValue av = tensor_of({2, 1}, 1), cv = tensor_of({1, 5, 1, 6}, 7);
    auto out = in.run({{"a", av}, {"c", cv}});
    const exec::RTensor& y = out[0].t;
    ASSERT_EQ(y.shape, (exec::Shape{1, 5, 2, 6}));
    for (int64_t ch = 0; ch < 5; ++ch)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 6; ++j) {
          float x1 = av.t.data<float>()[i], x2 = cv.t.data<float>()[ch * 6 + j];
          float want = std::string(op) == "Min" ? std::min(x1, x2) : std::string(op) == "Max" ? std::max(x1, x2)
                       : std::string(op) == "Add" ? x1 + x2 : std::string(op) == "Sub" ? x1 - x2
                       : std::string(op) == "Mul" ? x1 * x2 : x1 / x2;
          EXPECT_FLOAT_EQ(y.data<float>()[(ch * 2 + i) * 6 + j], want) << op << " " << ch << "," << i << "," << j;
        }
  }
}

#include "passes/pass.h"
#include "ir/graph_ops.h"

namespace {

// x -> Reshape(x, same shape) read by both branches of an If with a constant condition.
std::unique_ptr<ofg::Model> reshape_read_by_branches(const std::vector<int64_t>& target) {
  using namespace ofg;
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* r = b.op("Reshape", {x, b.initializer_i64("shape", {static_cast<int64_t>(target.size())}, target)});
  Graph* then_g = b.subgraph("then");
  { GraphBuilder tb(*m, then_g); tb.output(tb.op("Relu", {r})); }
  Graph* else_g = b.subgraph("else");
  { GraphBuilder eb(*m, else_g); eb.output(eb.op("Neg", {r})); }
  Node* n = ofg::test::if_true(b, then_g, else_g);
  b.output(n->outputs[0]);
  b.output(b.op("Sigmoid", {x}));  // x is also read after the If
  recompute_captures(m->graph);
  return m;
}

}  // namespace

// modelgen seeds 180, 195: cleanup_attention bypassed the Reshape, rewiring the branches to read
// x, but the branches' captures still named the Reshape output; the interpreter then released x
// before the If ran ("input 'x' has no value").
TEST(ModelgenRegressions, BypassRecomputesCapturesOfBranches) {
  using namespace ofg;
  auto m = reshape_read_by_branches({2, 3});
  passes::PassStats s = passes::run_pass(*m, *passes::find_pass("cleanup_attention"));
  EXPECT_EQ(s.changes, 1);
  Graph* then_g = nullptr;
  for (Node* n = m->graph->first; n; n = n->next)
    if (m->str(n->op_type) == "If") then_g = n->attributes[0].g;
  ASSERT_NE(then_g, nullptr);
  ASSERT_EQ(then_g->captures.size, 1u);
  EXPECT_EQ(m->str(then_g->captures[0]->name), "x");
  exec::Interpreter in(*m);
  auto out = in.run({{"x", tensor_of({2, 3}, 0)}});
  ASSERT_EQ(out.size(), 2u);
  for (int i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(out[0].t.data<float>()[i], std::max(0.f, std::sin(0.37f * static_cast<float>(i)) * 2));
}

TEST(ModelgenRegressions, ReshapeThatChangesTheShapeStaysForTheBranches) {
  using namespace ofg;
  auto m = reshape_read_by_branches({3, 2});
  passes::PassStats s = passes::run_pass(*m, *passes::find_pass("cleanup_attention"));
  EXPECT_EQ(s.changes, 0);
  exec::Interpreter in(*m);
  auto out = in.run({{"x", tensor_of({2, 3}, 0)}});
  EXPECT_EQ(out[0].t.shape, (exec::Shape{3, 2}));
}

// modelgen seed 30487: fuse_layer_norm on a row of equal values (a Tile of a size-1 axis). The
// decomposed form gives exactly 0; the AVX2 kernel's float mean was a few ulps off, and with a
// variance of 0 the deviation is divided by sqrt(eps), so outputs of 1e-4 came out.
TEST(ModelgenRegressions, LayerNormOfEqualValuesIsZero) {
  std::vector<const k::KernelTable*> tables{&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (const k::KernelTable* t : tables)
    for (size_t D : {3u, 5u, 7u, 11u, 13u, 24u, 37u})
      for (float v : {-4.3721f, 0.1f, 3.14159f, -1234.567f}) {
        std::vector<float> x(D * 2, v), scale(D, 1.f), y(D * 2, 7.f);
        for (size_t i = D; i < 2 * D; ++i) x[i] = static_cast<float>(i % 3) - 1.f;  // a normal row after it
        t->layer_norm(x.data(), scale.data(), nullptr, y.data(), 2, D, 1e-5f, nullptr, nullptr);
        for (size_t i = 0; i < D; ++i) ASSERT_EQ(y[i], 0.f) << "D " << D << " v " << v;
        double var = 0;
        for (size_t i = D; i < 2 * D; ++i) var += x[i] * x[i];
        var = var / D - std::pow(std::accumulate(x.begin() + D, x.end(), 0.0) / D, 2);
        double mean = std::accumulate(x.begin() + D, x.end(), 0.0) / D;
        for (size_t i = D; i < 2 * D; ++i) EXPECT_NEAR(y[i], (x[i] - mean) / std::sqrt(var + 1e-5), 1e-5);
      }
}

#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace {

// `producer_op` in the main graph; its output is read only inside the then-branch of an If with a
// constant condition, by `consumer_op` with a per-channel constant.
std::unique_ptr<ofg::Model> fusion_across_branch(const char* producer_op, const char* consumer_op, bool same_graph) {
  using namespace ofg;
  auto m = new_model(17);
  GraphBuilder b(*m);
  bool conv = std::string(producer_op) == "Conv";
  Value* x = conv ? b.input("x", kFloat, {1, 2, 3, 3}) : b.input("x", kFloat, {3, 2});
  Value* w = conv ? b.initializer("w", {2, 2, 1, 1}, {0.5f, -1.0f, 2.0f, 0.25f})
                  : b.initializer("w", {2, 2}, {0.5f, -1.0f, 2.0f, 0.25f});
  Value* y = b.op(producer_op, {x, w});
  Graph* then_g = b.subgraph("then");
  {
    GraphBuilder tb(*m, then_g);
    Value* src = same_graph ? tb.op("Identity", {y}) : y;
    Value* out;
    if (std::string(consumer_op) == "BatchNormalization") {
      out = tb.op("BatchNormalization", {src, tb.initializer("s", {2}, {2.0f, 0.5f}), tb.initializer("bb", {2}, {0.1f, -0.2f}),
                                         tb.initializer("mu", {2}, {1.0f, -1.0f}), tb.initializer("var", {2}, {3.0f, 0.25f})});
    } else {
      std::vector<int64_t> cd = conv ? std::vector<int64_t>{2, 1, 1} : std::vector<int64_t>{2};
      out = tb.op(consumer_op, {src, tb.initializer("c", cd, {1.5f, -0.5f})});
    }
    tb.output(out);
  }
  Graph* else_g = b.subgraph("else");
  { GraphBuilder eb(*m, else_g); eb.output(eb.op("Neg", {x})); }
  Node* n = ofg::test::if_true(b, then_g, else_g);
  b.output(n->outputs[0]);
  recompute_captures(m->graph);
  return m;
}

}  // namespace

// modelgen seed 1669 (with recipes inside If branches): a Conv of the main graph whose output
// only a Mul inside a branch read was fused with it; the scaled weight was made an initializer of
// the branch, so the main graph's Conv read a value defined in the branch ("reads 'w13_bn_scaled'
// before it is defined"), and the Conv wrote the branch's value. Same for BatchNormalization and
// MatMul + Add: fusions now stay within one graph.
TEST(ModelgenRegressions, FusionsDoNotJoinABranchWithTheEnclosingGraph) {
  using namespace ofg;
  struct Case { const char* producer; const char* consumer; const char* pass; };
  for (const Case& k : {Case{"Conv", "Mul", "fuse_conv_add_mul"}, Case{"Conv", "Add", "fuse_conv_add_mul"},
                        Case{"Conv", "BatchNormalization", "fuse_conv_batchnorm"}, Case{"MatMul", "Add", "fuse_matmul_add"}}) {
    auto m = fusion_across_branch(k.producer, k.consumer, false);
    auto reference = fusion_across_branch(k.producer, k.consumer, false);
    passes::PassStats s = test::run_checked(*m, k.pass);
    EXPECT_EQ(s.changes, 0) << k.pass << " " << k.consumer;
    test::expect_same_outputs(*reference, *m);
  }
}

// Within one graph (the branch reads the value through an Identity of its own, which
// eliminate_identity_ops would remove) the branch's own Conv -> Mul still fuses.
TEST(ModelgenRegressions, FusionsInsideOneBranchStillHappen) {
  using namespace ofg;
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 3, 3});
  Graph* then_g = b.subgraph("then");
  {
    GraphBuilder tb(*m, then_g);
    Value* y = tb.op("Conv", {x, tb.initializer("w", {2, 2, 1, 1}, {0.5f, -1.0f, 2.0f, 0.25f})});
    tb.output(tb.op("Mul", {y, tb.initializer("c", {2, 1, 1}, {1.5f, -0.5f})}));
  }
  Graph* else_g = b.subgraph("else");
  { GraphBuilder eb(*m, else_g); eb.output(eb.op("Neg", {x})); }
  Node* n = ofg::test::if_true(b, then_g, else_g);
  b.output(n->outputs[0]);
  recompute_captures(m->graph);
  passes::PassStats s = test::run_checked(*m, "fuse_conv_add_mul");
  EXPECT_EQ(s.changes, 1);
  EXPECT_EQ(test::count_op(then_g, "Mul"), 0);
}
