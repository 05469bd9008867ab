#include <cmath>

#include "onnx/serialize.h"
#include "passes_test_util.h"
#include "support/test_support.h"

using PassConvBn = ModelTest;

namespace {

struct Bn {
  Value *scale, *bias, *mean, *var;
};
Bn bn_params(GraphBuilder& b, const std::string& n) {
  return {b.initializer(n + ".s", {2}, {2.0f, 0.5f}), b.initializer(n + ".b", {2}, {0.1f, -0.2f}),
          b.initializer(n + ".m", {2}, {1.0f, -1.0f}), b.initializer(n + ".v", {2}, {3.0f, 0.25f})};
}
Node* bn_node(GraphBuilder& b, Value* y, const Bn& p, uint32_t outputs = 1) {
  return b.node("BatchNormalization", {y, p.scale, p.bias, p.mean, p.var}, outputs, {b.f("epsilon", 1e-5f)});
}
double s_of(int c) {
  const double scale[2] = {2.0, 0.5}, var[2] = {3.0, 0.25};
  return scale[c] / std::sqrt(var[c] + 1e-5f);
}

}  // namespace

TEST_F(PassConvBn, FusesWithBiasAndKeepsTheSharedWeight) {
  Value* x = b.input("x", kFloat, {1, 1, 4, 4});
  Value* w = b.initializer("w", {2, 1, 1, 1}, {3.0f, -4.0f});
  Value* bias = b.initializer("bias", {2}, {0.5f, 1.5f});
  Value* y = b.op("Conv", {x, w, bias});
  Node* bn = bn_node(b, y, bn_params(b, "bn"));
  Value* out = bn->outputs[0];
  b.output(out);
  Value* other = b.op("Conv", {x, w});  // shares w: must still see the original weight
  b.output(other);
  passes::PassStats s = run_checked(*m, "fuse_conv_batchnorm");
  EXPECT_EQ(s.changes, 1);
  EXPECT_EQ(count_op(m->graph, "BatchNormalization"), 0);
  Node* conv = out->producer;
  ASSERT_EQ(m->str(conv->op_type), "Conv");
  EXPECT_NE(conv->inputs[1], w);
  std::vector<float> nw = floats_of(conv->inputs[1]->initializer), nb = floats_of(conv->inputs[2]->initializer);
  ASSERT_EQ(nw.size(), 2u);
  const double beta[2] = {0.1, -0.2}, mean[2] = {1.0, -1.0}, wv[2] = {3, -4}, bv[2] = {0.5, 1.5};
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(nw[c], wv[c] * s_of(c), 1e-5);
    EXPECT_NEAR(nb[c], (bv[c] - mean[c]) * s_of(c) + beta[c], 1e-5);
  }
  EXPECT_EQ(floats_of(w->initializer), (std::vector<float>{3.0f, -4.0f}));
  EXPECT_EQ(other->producer->inputs[1], w);
}

TEST_F(PassConvBn, ConvWithoutBiasAndDepthwise) {
  Value* x = b.input("x", kFloat, {1, 2, 4, 4});
  Value* w = b.initializer("w", {2, 1, 1, 1}, {1.0f, 1.0f});
  Value* y = b.op("Conv", {x, w}, {b.i("group", 2)});
  Value* out = bn_node(b, y, bn_params(b, "bn"))->outputs[0];
  b.output(out);
  run_checked(*m, "fuse_conv_batchnorm");
  Node* conv = out->producer;
  ASSERT_EQ(m->str(conv->op_type), "Conv");
  ASSERT_EQ(conv->inputs.size, 3u);
  std::vector<float> nb = floats_of(conv->inputs[2]->initializer);
  EXPECT_NEAR(nb[0], (0 - 1.0) * s_of(0) + 0.1, 1e-5);
  EXPECT_NEAR(nb[1], (0 + 1.0) * s_of(1) - 0.2, 1e-5);
  EXPECT_NEAR(floats_of(conv->inputs[1]->initializer)[1], s_of(1), 1e-5);
}

TEST_F(PassConvBn, ConvTransposeScalesItsOutputChannels) {
  Value* x = b.input("x", kFloat, {1, 1, 4, 4});
  Value* w = b.initializer("w", {1, 2, 1, 1}, {1.0f, 1.0f});  // [Cin, Cout, k, k]
  Value* y = b.op("ConvTranspose", {x, w});
  Value* out = bn_node(b, y, bn_params(b, "bn"))->outputs[0];
  b.output(out);
  run_checked(*m, "fuse_conv_batchnorm");
  Node* conv = out->producer;
  ASSERT_EQ(m->str(conv->op_type), "ConvTranspose");
  std::vector<float> nw = floats_of(conv->inputs[1]->initializer);
  EXPECT_NEAR(nw[0], s_of(0), 1e-5);
  EXPECT_NEAR(nw[1], s_of(1), 1e-5);
}

// Grouped ConvTranspose: weight [Cin=4, Cout/g=1, 1, 3] with group 2 gives Cout = 2, and input
// channels 0-1 feed output channel 0, channels 2-3 output channel 1.
TEST_F(PassConvBn, GroupedConvTransposeScalesByItsGroupsChannel) {
  Value* x = b.input("x", kFloat, {1, 4, 3, 3});
  std::vector<float> wv(12);
  for (int i = 0; i < 12; ++i) wv[i] = static_cast<float>(i + 1);
  Value* w = b.initializer("w", {4, 1, 1, 3}, wv);
  Value* y = b.op("ConvTranspose", {x, w}, {b.i("group", 2)});
  Value* out = bn_node(b, y, bn_params(b, "bn"))->outputs[0];
  b.output(out);
  EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 1);
  std::vector<float> nw = floats_of(out->producer->inputs[1]->initializer);
  ASSERT_EQ(nw.size(), 12u);
  for (int a = 0; a < 4; ++a)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(nw[a * 3 + k], wv[a * 3 + k] * s_of(a / 2), 1e-5) << a << "," << k;
}

TEST_F(PassConvBn, NoFusionWhenConvOutputSharedOrBnStatsUsed) {
  Value* x = b.input("x", kFloat, {1, 1, 4, 4});
  Value* w = b.initializer("w", {2, 1, 1, 1}, {1.0f, 2.0f});
  Value* y = b.op("Conv", {x, w});
  b.output(bn_node(b, y, bn_params(b, "bn1"))->outputs[0]);
  b.output(b.op("Relu", {y}));  // second reader of the Conv output
  Value* y2 = b.op("Conv", {x, w});
  Node* bn2 = bn_node(b, y2, bn_params(b, "bn2"), 3);  // running mean output used
  b.output(bn2->outputs[0]);
  b.output(bn2->outputs[1]);
  EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 0);
  EXPECT_EQ(count_op(m->graph, "BatchNormalization"), 2);
}

TEST_F(PassConvBn, InsideALoopBody) {
  Value* x = b.input("x", kFloat, {1, 1, 4, 4});
  Value* w = b.initializer("w", {2, 1, 1, 1}, {1.0f, 2.0f});
  Bn p = bn_params(b, "bn");
  Graph* body = b.subgraph("body");
  GraphBuilder bb(*m, body);
  Value* cond = loop_inputs(bb);
  Value* v = bb.input("v", kFloat, {1, 1, 4, 4});
  bb.output(bb.op("Identity", {cond}));
  Value* y = bb.op("Conv", {v, w});
  bb.output(bn_node(bb, y, p)->outputs[0]);
  Node* loop = b.node("Loop", {b.initializer_i64("trip", {}, {1}), nullptr, x}, 2, {b.g("body", body)});
  b.output(loop->outputs[1]);
  EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 1);
  EXPECT_EQ(count_op(body, "BatchNormalization"), 0);
  EXPECT_EQ(count_op(body, "Conv"), 1);
}

// Conv -> BN -> BN: the second fusion scales the weight the first one made, which is itself still
// to be computed (its recipe reads through the first one's).
TEST_F(PassConvBn, ChainedBatchNormsReadTheFirstFusedWeight) {
  Value* x = b.input("x", kFloat, {1, 1, 4, 4});
  Value* w = b.initializer("w", {2, 1, 1, 1}, {3.0f, -4.0f});
  Value* y = b.op("Conv", {x, w});
  Value* y1 = bn_node(b, y, bn_params(b, "bn1"))->outputs[0];
  Value* out = bn_node(b, y1, bn_params(b, "bn2"))->outputs[0];
  b.output(out);
  EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 2);
  EXPECT_EQ(count_op(m->graph, "BatchNormalization"), 0);
  std::vector<float> nw = floats_of(out->producer->inputs[1]->initializer);
  ASSERT_EQ(nw.size(), 2u);
  EXPECT_NEAR(nw[0], 3.0 * s_of(0) * s_of(0), 1e-4);
  EXPECT_NEAR(nw[1], -4.0 * s_of(1) * s_of(1), 1e-4);
}

// A large fused float weight is computed only when read: the pass leaves a recipe, a window read
// through it, the bytes streamed into a saved file and the materialised bytes all agree, and each
// output channel is scaled by its own factor. 64x9 weights per channel (2304 bytes) do not divide
// the saver's 256 KiB pieces, so runs are cut at piece boundaries.
namespace {
struct LargeConvBn {
  static constexpr int64_t kCout = 1024, kCin = 64;
  std::vector<float> wv, sc, bi, me, va;
  LargeConvBn() : wv(static_cast<size_t>(kCout * kCin * 9)), sc(kCout), bi(kCout, 0.1f), me(kCout, 0.2f), va(kCout) {
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 7919) % 1000) * 0.001f - 0.5f;
    for (int64_t c = 0; c < kCout; ++c) {
      sc[c] = 0.5f + static_cast<float>(c % 13) * 0.25f;
      va[c] = 0.5f + static_cast<float>(c % 7);
    }
  }
  float factor(int64_t c) const { return static_cast<float>(sc[c] / std::sqrt(static_cast<double>(va[c]) + 1e-5f)); }
  // x -> Conv(w) -> BN; returns the BN output.
  Value* build(GraphBuilder& b, Value* x, Value* w, const std::string& n) const {
    Value* y = b.op("Conv", {x, w});
    return b.node("BatchNormalization",
                  {y, b.initializer(n + ".s", {kCout}, sc), b.initializer(n + ".b", {kCout}, bi),
                   b.initializer(n + ".m", {kCout}, me), b.initializer(n + ".v", {kCout}, va)},
                  1, {b.f("epsilon", 1e-5f)})
        ->outputs[0];
  }
  // x -> Conv(w) -> BN as a model, after fuse_conv_batchnorm; `out` is the graph output.
  std::unique_ptr<Model> fused(Value*& out) const {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {1, kCin, 3, 3});
    out = build(b, x, b.initializer("w", {kCout, kCin, 3, 3}, wv), "bn");
    b.output(out);
    EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 1);
    return m;
  }
};

// The initializer of `model` named like `like` in `original` (to find a tensor after a reload).
const Tensor* same_initializer(const Model& model, const Model& original, const Value* like) {
  for (Value* v : model.graph->initializers)
    if (model.str(v->name) == original.str(like->name)) return v->initializer;
  return nullptr;
}
}  // namespace

TEST_F(PassConvBn, LargeFloatWeightIsComputedOnlyWhenRead) {
  LargeConvBn c;
  Value* out = nullptr;
  auto m = c.fused(out);
  const Tensor* t = out->producer->inputs[1]->initializer;
  ASSERT_NE(t->recipe, nullptr);
  EXPECT_EQ(t->data.data, nullptr);
  ASSERT_EQ(t->data.size, c.wv.size() * sizeof(float));
  // A window in the middle of channel 3's run, read without materialising.
  const size_t first = 3 * 64 * 9 + 5;
  std::vector<float> window(700);  // crosses into channel 4
  t->read(first * sizeof(float), window.size() * sizeof(float), reinterpret_cast<uint8_t*>(window.data()));
  EXPECT_NE(t->recipe, nullptr);
  // Saved: the weight is streamed into the file; loading it back gives the same bytes.
  MallocBuffer saved = save_model_memory(*m);
  EXPECT_NE(t->recipe, nullptr);
  std::unique_ptr<Model> back = load_model_memory(saved.data(), saved.size(), LoadOptions{});
  const Tensor* loaded = same_initializer(*back, *m, out->producer->inputs[1]);
  ASSERT_NE(loaded, nullptr);
  std::vector<float> streamed = floats_of(loaded);
  // Materialised on first read, then kept.
  std::vector<float> fused = floats_of(t);
  EXPECT_EQ(t->recipe, nullptr);
  ASSERT_NE(t->data.data, nullptr);
  EXPECT_EQ(t->bytes().data, t->data.data);
  ASSERT_EQ(fused.size(), c.wv.size());
  EXPECT_TRUE(streamed == fused);
  for (size_t i = 0; i < window.size(); ++i) ASSERT_EQ(window[i], fused[first + i]) << i;
  for (int64_t ch : {int64_t(0), int64_t(3), int64_t(4), int64_t(511), c.kCout - 1})
    for (int64_t k : {int64_t(0), c.kCin * 9 - 1}) {
      size_t i = static_cast<size_t>(ch * c.kCin * 9 + k);
      EXPECT_EQ(fused[i], c.wv[i] * c.factor(ch)) << ch << "," << k;
    }
}

// Saving with external data streams the computed weight into the data file.
TEST_F(PassConvBn, ComputedWeightSavedAsExternalData) {
  LargeConvBn c;
  Value* out = nullptr;
  auto m = c.fused(out);
  std::string path = temp_dir() + "/fused.onnx";
  SaveOptions so;
  so.external_data = true;
  so.external_threshold = 1024;
  save_model_file(*m, path, so);
  EXPECT_TRUE(file_exists(path + ".data"));
  std::unique_ptr<Model> back = load_model_file(path, LoadOptions{});
  std::vector<float> loaded = floats_of(same_initializer(*back, *m, out->producer->inputs[1]));
  EXPECT_TRUE(loaded == floats_of(out->producer->inputs[1]->initializer));
  ASSERT_EQ(loaded.size(), c.wv.size());
  EXPECT_EQ(loaded[100], c.wv[100] * c.factor(0));
}

// Two Convs share a weight and are followed by BNs with equal statistics: the two computed
// weights are equal and eliminate_duplicate_constants merges them (it samples them without
// materialising, then compares in full); with different statistics nothing is merged.
TEST_F(PassConvBn, EqualComputedWeightsAreMergedByDuplicateElimination) {
  LargeConvBn c;
  for (bool equal : {true, false}) {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {1, c.kCin, 3, 3});
    Value* w = b.initializer("w", {c.kCout, c.kCin, 3, 3}, c.wv);
    Value* out1 = c.build(b, x, w, "bn1");
    LargeConvBn other;
    if (!equal) other.va[700] += 1.0f;  // one channel differs
    Value* out2 = other.build(b, x, w, "bn2");
    b.output(out1);
    b.output(out2);
    EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 2);
    run_checked(*m, "eliminate_duplicate_constants");
    Value* w1 = out1->producer->inputs[1];
    Value* w2 = out2->producer->inputs[1];
    EXPECT_EQ(w1 == w2, equal);
    EXPECT_EQ(out1->producer->inputs[2] == out2->producer->inputs[2], equal);
  }
}

// Weights loaded from a file are views into its mapping; the computed weight reads them when the
// model is saved over that same file, and the pages of the dead old weight are let go after the
// save. Reading the weight again afterwards (re-read from the replaced file's mapping) and
// loading the new file both give the fused values.
TEST_F(PassConvBn, ComputedWeightSavedOverItsOwnSourceFile) {
  LargeConvBn c;
  std::string path = temp_dir() + "/own.onnx";
  {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {1, c.kCin, 3, 3});
    b.output(c.build(b, x, b.initializer("w", {c.kCout, c.kCin, 3, 3}, c.wv), "bn"));
    save_model_file(*m, path, SaveOptions{});
  }
  std::unique_ptr<Model> m = load_model_file(path, LoadOptions{});
  EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 1);
  Value* out = m->graph->outputs[0].value;
  const Tensor* t = out->producer->inputs[1]->initializer;
  ASSERT_NE(t->recipe, nullptr);
  save_model_file(*m, path, SaveOptions{});
  std::unique_ptr<Model> back = load_model_file(path, LoadOptions{});
  std::vector<float> loaded = floats_of(same_initializer(*back, *m, out->producer->inputs[1]));
  std::vector<float> again = floats_of(t);
  ASSERT_EQ(loaded.size(), c.wv.size());
  EXPECT_TRUE(loaded == again);
  for (size_t i : {size_t(0), size_t(5000), c.wv.size() - 1})
    EXPECT_EQ(loaded[i], c.wv[i] * c.factor(static_cast<int64_t>(i / (c.kCin * 9)))) << i;
}
