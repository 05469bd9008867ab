// fuse_layer_norm (LayerNormalization and RMSNormalization), fuse_gelu, fuse_swish, cleanup_attention and the opt-in fuse_conv_relu: where they fire
// (and the result still computes the same), where the opset or a second consumer stops them.
#include <cmath>

#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

std::unique_ptr<Model> layer_norm(int64_t opset, bool extra_reader) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", 3, 4});
  Value* mean = b.op("ReduceMean", {x}, {b.ints("axes", {-1})});
  Value* d = b.op("Sub", {x, mean});
  Value* var = b.op("ReduceMean", {b.op("Pow", {d, b.initializer("two", {}, {2.0f})})}, {b.ints("axes", {-1})});
  Value* den = b.op("Sqrt", {b.op("Add", {var, b.initializer("eps", {}, {1e-5f})})});
  Value* y = b.op("Div", {d, den});
  Value* s = b.op("Mul", {y, b.initializer("gamma", {4}, {1, 2, 3, 4})});
  b.output(b.op("Add", {s, b.initializer("beta", {4}, {0.5f, 0, -1, 2})}));
  if (extra_reader) b.output(var);
  return m;
}

TEST(PassLayerNorm, FusesAtOpset17) {
  auto m = layer_norm(17, false);
  auto ref = layer_norm(17, false);
  EXPECT_EQ(run_checked(*m, "fuse_layer_norm").changes, 1);
  EXPECT_EQ(m->graph->node_count, 1u);
  EXPECT_EQ(count_op(m->graph, "LayerNormalization"), 1);
  EXPECT_EQ(m->graph->first->inputs.size, 3u);
  expect_same_outputs(*ref, *m, {{"batch", 3}});
}

TEST(PassLayerNorm, NotBelowOpset17NorWithASecondReader) {
  auto m = layer_norm(13, false);
  EXPECT_EQ(run_checked(*m, "fuse_layer_norm").changes, 0);
  auto k = layer_norm(17, true);
  EXPECT_EQ(run_checked(*k, "fuse_layer_norm").changes, 0);
  EXPECT_EQ(count_op(k->graph, "LayerNormalization"), 0);
}

// The RMS norm as exporters write it: square by Pow(h, 2) or Mul(h, h); 1/rms by Div(1, s),
// Reciprocal(s), or h divided by s directly; with or without the scale.
enum class RmsForm { kPowDivOneScaled, kMulReciprocalScaled, kDivideUnscaled };

std::unique_ptr<Model> rms_norm(int64_t opset, RmsForm form, bool extra_reader = false, int64_t axis = -1) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* h = b.input("h", kFloat, {"batch", 3, 8});
  Value* sq = form == RmsForm::kMulReciprocalScaled ? b.op("Mul", {h, h}) : b.op("Pow", {h, b.initializer("two", {}, {2.0f})});
  Value* axes = b.initializer_i64("axes", {1}, {axis});
  Value* v = opset >= 18 ? b.op("ReduceMean", {sq, axes}) : b.op("ReduceMean", {sq}, {b.ints("axes", {axis})});
  Value* s = b.op("Sqrt", {b.op("Add", {v, b.initializer("eps", {}, {1e-6f})})});
  Value* n = nullptr;
  if (form == RmsForm::kDivideUnscaled) {
    n = b.op("Div", {h, s});
  } else {
    Value* r = form == RmsForm::kPowDivOneScaled ? b.op("Div", {b.initializer("one", {}, {1.0f}), s}) : b.op("Reciprocal", {s});
    n = b.op("Mul", {h, r});
  }
  if (form != RmsForm::kDivideUnscaled) n = b.op("Mul", {b.initializer("w", {8}, {1, 2, 3, 4, -1, -2, 0.5f, 0.25f}), n});
  b.output(n);
  if (extra_reader) b.output(s);
  return m;
}

TEST(PassRmsNorm, EveryExportFormFusesAtOpset23) {
  for (RmsForm form : {RmsForm::kPowDivOneScaled, RmsForm::kMulReciprocalScaled, RmsForm::kDivideUnscaled}) {
    SCOPED_TRACE(static_cast<int>(form));
    auto m = rms_norm(23, form);
    auto ref = rms_norm(23, form);
    EXPECT_EQ(run_checked(*m, "fuse_layer_norm").changes, 1);
    ASSERT_EQ(m->graph->node_count, 1u);
    Node* rms = m->graph->first;
    EXPECT_EQ(m->str(rms->op_type), "RMSNormalization");
    EXPECT_FLOAT_EQ(attr_float(*m, rms, "epsilon", 0), 1e-6f);
    EXPECT_EQ(attr_int(*m, rms, "axis", 0), -1);
    const Tensor* w = passes::const_tensor(*m, rms->inputs[1]);
    ASSERT_NE(w, nullptr);
    std::vector<float> want = form == RmsForm::kDivideUnscaled ? std::vector<float>(8, 1.0f)
                                                               : std::vector<float>{1, 2, 3, 4, -1, -2, 0.5f, 0.25f};
    EXPECT_EQ(floats_of(w), want);
    expect_same_outputs(*ref, *m, {{"batch", 2}});
  }
}

TEST(PassRmsNorm, NotBelowOpset23NorWithASecondReaderNorOverAnotherAxis) {
  auto low = rms_norm(22, RmsForm::kPowDivOneScaled);
  EXPECT_EQ(run_checked(*low, "fuse_layer_norm").changes, 0);
  auto shared = rms_norm(23, RmsForm::kPowDivOneScaled, true);
  EXPECT_EQ(run_checked(*shared, "fuse_layer_norm").changes, 0);
  auto middle = rms_norm(23, RmsForm::kPowDivOneScaled, false, 1);
  EXPECT_EQ(run_checked(*middle, "fuse_layer_norm").changes, 0);
  EXPECT_EQ(count_op(middle->graph, "RMSNormalization"), 0);
}

// SiLU: x * Sigmoid(x) with the product in either order; `reader` gives the Sigmoid a second reader.
std::unique_ptr<Model> silu(int64_t opset, bool sigmoid_first, bool reader = false, bool other_factor = false) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"n", 6});
  Value* s = b.op("Sigmoid", {x});
  Value* f = other_factor ? b.input("z", kFloat, {"n", 6}) : x;
  b.output(b.op("Mul", sigmoid_first ? std::vector<Value*>{s, f} : std::vector<Value*>{f, s}));
  if (reader) b.output(b.op("Neg", {s}));
  return m;
}

TEST(PassSwish, SiluBecomesSwishAtOpset24InEitherOrder) {
  for (bool first : {false, true}) {
    auto m = silu(24, first);
    auto ref = silu(24, first);
    EXPECT_EQ(run_checked(*m, "fuse_swish").changes, 1);
    ASSERT_EQ(m->graph->node_count, 1u);
    EXPECT_EQ(m->str(m->graph->first->op_type), "Swish");
    EXPECT_EQ(m->graph->first->inputs[0], m->graph->inputs[0].value);
    expect_same_outputs(*ref, *m, {{"n", 3}});
  }
}

TEST(PassSwish, NotBelowOpset24NorWithASecondReaderNorAnotherFactor) {
  auto low = silu(23, false);
  EXPECT_EQ(run_checked(*low, "fuse_swish").changes, 0);
  auto shared = silu(24, false, true);
  EXPECT_EQ(run_checked(*shared, "fuse_swish").changes, 0);
  auto gate = silu(24, false, false, true);  // x * Sigmoid(y)-like gates stay
  EXPECT_EQ(run_checked(*gate, "fuse_swish").changes, 0);
  EXPECT_EQ(count_op(gate->graph, "Swish"), 0);
}

std::unique_ptr<Model> gelu(int64_t opset) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 5});
  Value* e = b.op("Erf", {b.op("Div", {x, b.initializer("r2", {}, {1.41421356f})})});
  Value* t = b.op("Mul", {x, b.op("Add", {e, b.initializer("one", {}, {1.0f})})});
  b.output(b.op("Mul", {t, b.initializer("half", {}, {0.5f})}));
  return m;
}

TEST(PassGelu, FusesAtOpset20Only) {
  auto m = gelu(20);
  auto ref = gelu(20);
  EXPECT_EQ(run_checked(*m, "fuse_gelu").changes, 1);
  EXPECT_EQ(m->graph->node_count, 1u);
  EXPECT_EQ(count_op(m->graph, "Gelu"), 1);
  expect_same_outputs(*ref, *m);
  auto old = gelu(17);
  EXPECT_EQ(run_checked(*old, "fuse_gelu").changes, 0);
  EXPECT_EQ(count_op(old->graph, "Gelu"), 0);
}

TEST(PassCleanupAttention, RemovesReshapeToTheSameShape) {
  auto build = [] {
    return model_of(13, [](GraphBuilder& b) {
      Value* x = b.input("x", kFloat, {"batch", 4, 8});
      Value* r = b.op("Reshape", {x, b.initializer_i64("s", {3}, {0, 4, 8})});
      Value* t = b.op("Softmax", {r}, {b.i("axis", -1)});
      b.output(b.op("Reshape", {t, b.initializer_i64("s2", {2}, {0, 32})}));  // changes the shape: stays
    });
  };
  auto [m, ref, changes] = run_on_built(build, "cleanup_attention");
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(count_op(m->graph, "Reshape"), 1);
  expect_same_outputs(*ref, *m, {{"batch", 3}});
}

std::unique_ptr<Model> conv_relu(bool second_consumer) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 5, 5});
  std::vector<float> w(4 * 2 * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(static_cast<float>(i));
  Value* c = b.op("Conv", {x, b.initializer("w", {4, 2, 3, 3}, w)}, {b.ints("pads", {1, 1, 1, 1})});
  b.output(b.op("Relu", {c}));
  if (second_consumer) b.output(b.op("Sigmoid", {c}));
  return m;
}

TEST(PassConvRelu, OptInFusedConvInCustomDomainRunsAndVerifies) {
  EXPECT_FALSE(passes::find_pass("fuse_conv_relu")->in_default_pipeline);
  auto m = conv_relu(false);
  auto ref = conv_relu(false);
  EXPECT_EQ(run_checked(*m, "fuse_conv_relu").changes, 1);
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* n = m->graph->first;
  EXPECT_EQ(m->str(n->op_type), "FusedConv");
  EXPECT_EQ(m->str(n->domain), "ai.onnxforge");
  EXPECT_EQ(attr_string(*m, n, "activation", ""), "Relu");
  EXPECT_EQ(m->opset_version("ai.onnxforge"), 1);
  expect_same_outputs(*ref, *m);
}

TEST(PassConvRelu, SecondConsumerKeepsAPlainConv) {
  auto m = conv_relu(true);
  EXPECT_EQ(run_checked(*m, "fuse_conv_relu").changes, 0);
  for (Node* n = m->graph->first; n; n = n->next)
    EXPECT_EQ(attr(*m, n, "activation"), nullptr);  // never on a standard Conv
  EXPECT_EQ(m->opset_version("ai.onnxforge"), 0);
}

}  // namespace
}  // namespace ofg::test
