// The built-in demo: a small CNN + MLP exported the "dirty" way (unfused BatchNormalization,
// Identity and Dropout nodes, a Transpose pair that cancels, a duplicated constant, MatMul+Add),
// so every command has something to show with no file given.
#include "ir/demo_model.h"

#include <cmath>

#include "ir/builder.h"

using namespace ofg;

namespace {

// Deterministic pseudo-random weights (no dependence on the C library's rand).
struct Lcg {
  uint32_t state;
  float next(float scale) {
    state = state * 1664525u + 1013904223u;
    return (static_cast<float>(state >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
  }
  std::vector<float> fill(size_t n, float scale) {
    std::vector<float> v(n);
    for (float& x : v) x = next(scale);
    return v;
  }
};

Value* conv_bn(GraphBuilder& b, Lcg& rng, Value* x, int64_t cin, int64_t cout, const std::string& name) {
  Value* w = b.initializer(name + ".weight", {cout, cin, 3, 3}, rng.fill(size_t(cout * cin * 9), 0.3f));
  Value* y = b.op("Conv", {x, w}, {b.ints("kernel_shape", {3, 3}), b.ints("pads", {1, 1, 1, 1})});
  std::vector<float> var = rng.fill(size_t(cout), 0.2f);
  for (float& v : var) v = 1.0f + std::fabs(v);
  Value* scale = b.initializer(name + ".bn.scale", {cout}, rng.fill(size_t(cout), 1.0f));
  Value* bias = b.initializer(name + ".bn.bias", {cout}, rng.fill(size_t(cout), 0.1f));
  Value* mean = b.initializer(name + ".bn.mean", {cout}, rng.fill(size_t(cout), 0.1f));
  Value* variance = b.initializer(name + ".bn.var", {cout}, var);
  return b.op("BatchNormalization", {y, scale, bias, mean, variance}, {b.f("epsilon", 1e-5f)});
}

}  // namespace

namespace ofg {

std::unique_ptr<Model> make_demo_model() {
  auto m = new_model(13, 7);
  m->producer_name = m->intern("onnxforge-demo");
  GraphBuilder b(*m);
  Lcg rng{42};
  Value* x = b.input("image", kFloat, {"batch", 3, 16, 16});
  Value* h = conv_bn(b, rng, x, 3, 8, "conv1");
  h = b.op("Relu", {h});
  h = b.op("Identity", {h});
  h = conv_bn(b, rng, h, 8, 8, "conv2");
  Value* lo = b.constant("clip_min", {}, {0.0f});
  Value* hi = b.constant("clip_max", {}, {6.0f});
  h = b.op("Clip", {h, lo, hi});
  h = b.op("Transpose", {h}, {b.ints("perm", {0, 2, 3, 1})});
  h = b.op("Transpose", {h}, {b.ints("perm", {0, 3, 1, 2})});
  h = b.op("GlobalAveragePool", {h});
  h = b.op("Flatten", {h}, {b.i("axis", 1)});
  Value* w1 = b.initializer("fc1.weight", {8, 16}, rng.fill(8 * 16, 0.4f));
  Value* b1 = b.initializer("fc1.bias", {16}, rng.fill(16, 0.1f));
  h = b.op("Add", {b.op("MatMul", {h, w1}), b1});
  h = b.node("Dropout", {h}, 1, {b.f("ratio", 0.1f)})->outputs[0];
  h = b.op("Relu", {h});
  Value* w2 = b.initializer("fc2.weight", {16, 10}, rng.fill(16 * 10, 0.4f));
  Value* b2 = b.initializer("fc2.bias", {10}, std::vector<float>(10, 0.0f));
  Value* b2_copy = b.initializer("fc2.bias_copy", {10}, std::vector<float>(10, 0.0f));
  h = b.op("Add", {b.op("MatMul", {h, w2}), b2});
  h = b.op("Sub", {h, b2_copy});
  Value* logits = b.op("Identity", {h}, {}, "logits");
  b.set_type(logits, kFloat, {"batch", 10});
  b.output(logits);
  return m;
}

}  // namespace ofg
