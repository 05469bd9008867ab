// The float32 recurrent path (GEMMs, kernel-table activations) against the double-precision
// reference: the same RNN/GRU/LSTM call run on float32 and on float64 tensors of the same values
// must agree, over directions, layouts, sequence lengths, clip, peepholes, linear_before_reset,
// input_forget and custom activations.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "exec/interp.h"
#include "ir/builder.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

struct Case {
  const char* op;  // RNN, GRU, LSTM
  const char* direction;
  bool batch_major = false;
  bool short_lens = false;  // sequence_lens below S for some entries
  bool clip = false;
  bool peepholes = false;
  bool lbr = false;
  bool input_forget = false;
  std::vector<std::string> activations;  // empty: defaults
  bool constant_r = false;  // R an initializer, the float32 run repeated with a kept ExecCache
  int64_t hidden = 6;  // 50: the gate rows span several panels of the transposed R (64 rows each)
};

int gates(const std::string& op) { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }

// Runs the call with element type `dtype` on the given float values; returns every output.
std::vector<RValue> run_call(const Case& k, int32_t dtype, const std::vector<std::vector<float>>& data,
                             const std::vector<Shape>& shapes, const std::vector<int32_t>& lens) {
  auto m = new_model(14);
  GraphBuilder b(*m);
  const char* names[] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  std::vector<Value*> ins;
  std::vector<std::pair<std::string, RValue>> feeds;
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i].empty() && i != 4) {
      ins.push_back(nullptr);
      continue;
    }
    std::vector<DimSpec> dims(shapes[i].begin(), shapes[i].end());
    if (i == 4) {
      ins.push_back(lens.empty() ? nullptr : b.input(names[i], kInt32, dims));
      if (!lens.empty()) feeds.emplace_back(names[i], ofg::test::tensor_value(kInt32, shapes[i], lens));
      continue;
    }
    if (i == 2 && k.constant_r && dtype == kFloat) {
      ins.push_back(b.initializer(names[i], shapes[i], data[i]));
      continue;
    }
    ins.push_back(b.input(names[i], dtype, dims));
    if (dtype == kFloat) {
      feeds.emplace_back(names[i], ofg::test::tensor_value(kFloat, shapes[i], data[i]));
    } else {
      std::vector<double> d(data[i].begin(), data[i].end());
      feeds.emplace_back(names[i], ofg::test::tensor_value(kDouble, shapes[i], d));
    }
  }
  while (!ins.empty() && ins.back() == nullptr) ins.pop_back();
  const int64_t hidden = shapes[2][2];
  std::vector<Attribute> attrs = {b.s("direction", k.direction), b.i("hidden_size", hidden),
                                  b.i("layout", k.batch_major ? 1 : 0)};
  if (k.clip) attrs.push_back(b.f("clip", 0.7f));
  if (k.lbr) attrs.push_back(b.i("linear_before_reset", 1));
  if (k.input_forget) attrs.push_back(b.i("input_forget", 1));
  if (!k.activations.empty()) {
    attrs.push_back(b.strings("activations", k.activations));
    attrs.push_back(b.floats("activation_alpha", {0.3f, 0.6f, 0.2f, 0.4f, 0.5f, 0.7f}));
    attrs.push_back(b.floats("activation_beta", {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}));
  }
  const uint32_t n_out = std::string(k.op) == "LSTM" ? 3 : 2;
  Node* n = b.node(k.op, ins, n_out, attrs);
  for (uint32_t i = 0; i < n_out; ++i) b.output(n->outputs[i]);
  if (!k.constant_r || dtype != kFloat) {
    Interpreter in(*m);
    return in.run(feeds);
  }
  // The transposed R is made on the first run and read from the cache on the second: both runs
  // must give the same values.
  ExecCache cache;
  Interpreter in(*m, &cache);
  std::vector<RValue> first = in.run(feeds), second = in.run(feeds);
  EXPECT_EQ(first.size(), second.size());
  for (size_t o = 0; o < std::min(first.size(), second.size()); ++o)
    for (int64_t i = 0; i < first[o].t.numel(); ++i)
      EXPECT_EQ(get_f64(first[o].t, i), get_f64(second[o].t, i)) << "output " << o << " element " << i;
  return second;
}

void check_case(const Case& k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const int64_t S = 5, B = 3, I = 7, H = k.hidden, G = gates(k.op);
  const int64_t D = std::string(k.direction) == "bidirectional" ? 2 : 1;
  auto fill = [&](int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = u(rng);
    return v;
  };
  const Shape x_shape = k.batch_major ? Shape{B, S, I} : Shape{S, B, I};
  const Shape state = k.batch_major ? Shape{B, D, H} : Shape{D, B, H};
  std::vector<Shape> shapes = {x_shape, {D, G * H, I}, {D, G * H, H}, {D, 2 * G * H}, {B}, state, state, {D, 3 * H}};
  std::vector<std::vector<float>> data = {fill(S * B * I), fill(D * G * H * I), fill(D * G * H * H),
                                          fill(D * 2 * G * H), {}, fill(D * B * H)};
  const bool lstm = std::string(k.op) == "LSTM";
  if (lstm) {
    data.push_back(fill(D * B * H));
    data.push_back(k.peepholes ? fill(D * 3 * H) : std::vector<float>{});
  }
  std::vector<int32_t> lens;
  if (k.short_lens) lens = {5, 2, 0};
  std::vector<RValue> f32 = run_call(k, kFloat, data, shapes, lens);
  std::vector<RValue> f64 = run_call(k, kDouble, data, shapes, lens);
  ASSERT_EQ(f32.size(), f64.size());
  for (size_t o = 0; o < f32.size(); ++o) {
    ASSERT_EQ(f32[o].t.dtype, kFloat);
    ASSERT_EQ(f32[o].t.shape, f64[o].t.shape) << "output " << o;
    ASSERT_GT(f32[o].t.numel(), 0);
    for (int64_t i = 0; i < f32[o].t.numel(); ++i) {
      const double want = get_f64(f64[o].t, i), got = get_f64(f32[o].t, i);
      ASSERT_NEAR(got, want, 2e-5 + 2e-5 * std::fabs(want)) << k.op << " " << k.direction << " output " << o
                                                           << " element " << i;
    }
  }
}

}  // namespace

TEST(ExecRnn, Float32PathMatchesDoubleReference) {
  const std::vector<Case> cases = {
      {"RNN", "forward"},
      {"RNN", "reverse", true, true},
      {"RNN", "bidirectional", false, true, true, false, false, false, {"Relu", "LeakyRelu"}},
      {"GRU", "forward"},
      {"GRU", "forward", false, false, false, false, true},
      {"GRU", "bidirectional", true, true, true},
      {"GRU", "reverse", false, true, false, false, true, false, {"HardSigmoid", "ScaledTanh"}},
      {"LSTM", "forward"},
      {"LSTM", "forward", false, false, false, true},
      {"LSTM", "reverse", true, true, true, true},
      {"LSTM", "bidirectional", false, true, false, true, false, true},
      {"LSTM", "bidirectional", true, false, false, false, false, false,
       {"Sigmoid", "Softsign", "Elu", "HardSigmoid", "Affine", "ThresholdedRelu"}},
      {"LSTM", "bidirectional", false, false, false, false, false, false, {}, true},
      {"LSTM", "forward", false, true, true, true, false, false, {}, true, 50},
      {"GRU", "reverse", false, true, false, false, false, false, {}, true, 50},
      {"GRU", "bidirectional", false, false, true, false, true, false, {}, true, 50},
      {"RNN", "forward", false, false, false, false, false, false, {}, true, 70},
  };
  unsigned seed = 1;
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.op) + " " + k.direction);
    check_case(k, seed++);
  }
}

TEST(ExecRnn, UnknownActivationIsRejected) {
  Case k{"GRU", "forward"};
  k.activations = {"Sigmoid", "NoSuchFunction"};
  EXPECT_ANY_THROW(check_case(k, 3));
}
