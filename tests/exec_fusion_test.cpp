// Plan-time fusions of the interpreter (exec/fusion.h): which chains the planner forms, and that
// running them fused gives the bytes running their nodes one by one gives, for every pattern and
// conv kernel path; where a chain must not form; errors naming the right node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "exec/fusion.h"
#include "exec/interp.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "kernels/parallel.h"
#include "onnx/serialize.h"
#include "support/branch_support.h"
#include "support/exec_support.h"
#include "support/fusion_support.h"
#include "support/test_support.h"
#include "verify/values.h"

using namespace ofg;
using namespace ofg::exec;
using ofg::test::chain_types;
using ofg::test::expect_same_bytes;
using ofg::test::ramp;
using ofg::test::run_both;
using ofg::test::Runs;

namespace {

// How the chain after the conv (or BatchNormalization) ends.
enum class Act { None, Relu, Clip, ClipConstantNodes, ClipAttr, Sigmoid, HardSigmoid, LeakyRelu, Tanh, HardSwish, SiluXS, SiluSX, HardSwishGate };

// Conv geometry: which kernel path runs it.
struct Geo {
  const char* name;
  int64_t C_in, C_out, group, k, stride, H, W;
  bool bias;
  bool one_d = false;
};

// x -> Conv -> BatchNormalization (when bn) -> act. opset 14 (HardSwish); ClipAttr uses opset 10.
struct ChainModel {
  std::unique_ptr<Model> m;
  std::vector<float> x;
  exec::Shape xs;
};

Value* add_act(GraphBuilder& b, Value* y, Act act) {
  switch (act) {
    case Act::None: return y;
    case Act::Relu: return b.op("Relu", {y});
    case Act::Clip: return b.op("Clip", {y, b.initializer("lo", {}, {0.f}), b.initializer("hi", {}, {6.f})});
    case Act::ClipConstantNodes: return b.op("Clip", {y, b.constant("lo", {}, {-1.f}), b.constant("hi", {}, {1.5f})});
    case Act::ClipAttr: return b.op("Clip", {y}, {b.f("min", -0.5f), b.f("max", 0.75f)});
    case Act::Sigmoid: return b.op("Sigmoid", {y});
    case Act::HardSigmoid: return b.op("HardSigmoid", {y}, {b.f("alpha", 0.25f), b.f("beta", 0.4f)});
    case Act::LeakyRelu: return b.op("LeakyRelu", {y}, {b.f("alpha", 0.1f)});
    case Act::Tanh: return b.op("Tanh", {y});
    case Act::HardSwish: return b.op("HardSwish", {y});
    case Act::SiluXS: return b.op("Mul", {y, b.op("Sigmoid", {y})});
    case Act::SiluSX: return b.op("Mul", {b.op("Sigmoid", {y}), y});
    case Act::HardSwishGate: return b.op("Mul", {y, b.op("HardSigmoid", {y}, {b.f("alpha", 1.f / 6), b.f("beta", 0.5f)})});
  }
  return y;
}

Value* add_bn(GraphBuilder& b, Value* y, int64_t C, uint32_t seed) {
  std::vector<float> var = ramp(C, seed + 4, 0.1f, 2.f);
  return b.op("BatchNormalization",
              {y, b.initializer("scale", {C}, ramp(C, seed + 1, -2.f, 2.f)), b.initializer("bias", {C}, ramp(C, seed + 2, -1.f, 1.f)),
               b.initializer("mean", {C}, ramp(C, seed + 3, -1.f, 1.f)), b.initializer("var", {C}, var)},
              {b.f("epsilon", 1e-3f)});
}

ChainModel conv_chain(const Geo& g, bool bn, Act act, int64_t N = 2) {
  ChainModel cm;
  cm.m = new_model(act == Act::ClipAttr ? 10 : 14);
  GraphBuilder b(*cm.m);
  cm.xs = g.one_d ? exec::Shape{N, g.C_in, g.W} : exec::Shape{N, g.C_in, g.H, g.W};
  cm.x = ramp(shape_numel(cm.xs), 7, -3.f, 3.f);
  Value* x = b.input("x", kFloat, std::vector<DimSpec>(cm.xs.begin(), cm.xs.end()));
  std::vector<int64_t> wd = g.one_d ? std::vector<int64_t>{g.C_out, g.C_in / g.group, g.k}
                                    : std::vector<int64_t>{g.C_out, g.C_in / g.group, g.k, g.k};
  Value* w = b.initializer("w", wd, ramp(shape_numel(wd), 11, -0.5f, 0.5f));
  std::vector<Value*> in{x, w};
  if (g.bias) in.push_back(b.initializer("b", {g.C_out}, ramp(g.C_out, 13, -1.f, 1.f)));
  const int64_t pad = g.k / 2;
  const size_t r = g.one_d ? 1 : 2;
  Value* y = b.op("Conv", in,
                  {b.i("group", g.group), b.ints("strides", std::vector<int64_t>(r, g.stride)),
                   b.ints("pads", std::vector<int64_t>(2 * r, pad))});
  if (bn) y = add_bn(b, y, g.C_out, 20);
  b.output(add_act(b, y, act));
  return cm;
}

const Geo kGeos[] = {
    {"pointwise", 24, 40, 1, 1, 1, 9, 11, true},    // implicit GEMM, partial tiles
    {"winograd", 64, 16, 1, 3, 1, 10, 10, true},    // 3x3 stride 1, 64 input channels
    {"depthwise", 12, 12, 12, 3, 2, 9, 13, true},   // depthwise stride 2: a whole and a partial group of lanes
    {"depthwise5x5", 16, 16, 16, 5, 1, 7, 7, false},  // rows narrower than a lane group's tile
    {"grouped", 8, 10, 2, 3, 1, 7, 7, false},       // implicit GEMM per group, no bias
    {"wide", 3, 7, 1, 3, 2, 17, 19, true},          // the first layer of a CNN
    {"stem", 3, 16, 1, 3, 2, 17, 19, true},         // ... with 16 channels: the direct conv
    {"conv1d", 6, 9, 1, 5, 1, 1, 40, true, true},   // 1-D through the 2-D kernels
};
const Act kActs[] = {Act::None, Act::Relu, Act::Clip, Act::ClipConstantNodes, Act::ClipAttr, Act::Sigmoid, Act::HardSigmoid, Act::LeakyRelu,
                     Act::Tanh, Act::HardSwish, Act::SiluXS, Act::SiluSX, Act::HardSwishGate};

}  // namespace

// Every activation after Conv -> BatchNormalization and after a Conv alone, on every conv path:
// one chain, run fused, the same bytes as the nodes one by one.
TEST(ExecFusion, ConvChainsMatchNodeByNodeBitForBit) {
  for (const Geo& g : kGeos)
    for (Act act : kActs)
      for (bool bn : {true, false}) {
        if (!bn && act == Act::None) continue;
        ChainModel cm = conv_chain(g, bn, act);
        SCOPED_TRACE(std::string(g.name) + " act " + std::to_string(static_cast<int>(act)) + (bn ? " with BN" : ""));
        Runs r = run_both(*cm.m, {{"x", test::tensor_f(cm.xs, cm.x)}});
        EXPECT_EQ(r.chains, 1u);
        EXPECT_EQ(r.fused_stats.fused_chains, 1u);
        expect_same_bytes(r);
      }
}

// Values the activations treat specially (NaN, infinities, signed zeros, huge values) reach the
// epilogue through a 1x1 conv with an identity weight.
TEST(ExecFusion, SpecialValuesMatchNodeByNode) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> special{nan, inf, -inf, 0.f, -0.f, 1e30f, -1e30f, 6.f, -3.f, 3.f, 1e-40f, -1e-40f, 0.5f, -0.5f, 89.f, -89.f};
  for (Act act : kActs) {
    auto m = new_model(act == Act::ClipAttr ? 10 : 14);
    GraphBuilder b(*m);
    const int64_t C = 8, HW = static_cast<int64_t>(special.size());
    Value* x = b.input("x", kFloat, {1, C, 1, HW});
    std::vector<float> w(C * C, 0.f);
    for (int64_t c = 0; c < C; ++c) w[c * C + c] = 1.f;
    Value* y = b.op("Conv", {x, b.initializer("w", {C, C, 1, 1}, w)});
    b.output(add_act(b, add_bn(b, y, C, 3), act));
    std::vector<float> xv;
    for (int64_t c = 0; c < C; ++c) xv.insert(xv.end(), special.begin(), special.end());
    SCOPED_TRACE("act " + std::to_string(static_cast<int>(act)));
    Runs r = run_both(*m, {{"x", test::tensor_f({1, C, 1, HW}, xv)}});
    EXPECT_EQ(r.fused_stats.fused_chains, act == Act::None ? 1u : 1u);
    expect_same_bytes(r);
  }
}

// Chains without a conv: BatchNormalization -> activation, and x * Sigmoid(x) on a graph input.
TEST(ExecFusion, BatchNormAndGateChains) {
  for (Act act : {Act::Relu, Act::SiluXS, Act::HardSwishGate}) {
    auto m = new_model(14);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2, 5, 3, 7});
    b.output(add_act(b, add_bn(b, x, 5, 9), act));
    Runs r = run_both(*m, {{"x", test::tensor_f({2, 5, 3, 7}, ramp(210, 5, -4.f, 4.f))}});
    EXPECT_EQ(r.fused_stats.fused_chains, 1u);
    expect_same_bytes(r);
  }
  auto m = new_model(14);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {3, 1000});
  b.output(b.op("Mul", {b.op("Sigmoid", {x}), x}));
  EXPECT_EQ(chain_types(*m), (std::vector<std::vector<std::string>>{{"Sigmoid", "Mul"}}));
  Runs r = run_both(*m, {{"x", test::tensor_f({3, 1000}, ramp(3000, 8, -20.f, 20.f))}});
  EXPECT_EQ(r.fused_stats.fused_chains, 1u);
  expect_same_bytes(r);
}

// BatchNormalization + Relu alone (DenseNet's pre-activation over each Concat) and a lone
// BatchNormalization on planes large enough to be split between threads: fused and node by node,
// on 1, 2 and 3 threads, the same bytes; and each plane is x * a + b per channel as the scalar
// formula rounds it.
TEST(ExecFusion, BatchNormPlanesSplitBetweenThreads) {
  const exec::Shape s{2, 7, 61, 67};  // odd plane (4087 floats): vector tails in every plane
  const std::vector<float> xv = ramp(exec::shape_numel(s), 5, -4.f, 4.f);
  for (bool relu : {true, false}) {
    auto m = new_model(14);
    GraphBuilder b(*m);
    Value* y = add_bn(b, b.input("x", kFloat, {2, 7, 61, 67}), 7, 9);
    b.output(relu ? b.op("Relu", {y}) : y);
    kernels::ParallelFloorsScope floors(size_t{1} << 12, size_t{1} << 18);  // several planes per part at most
    Runs one;
    {
      kernels::ThreadsScope threads(1);
      one = run_both(*m, {{"x", test::tensor_f(s, xv)}});
    }
    EXPECT_EQ(one.fused_stats.fused_chains, relu ? 1u : 0u);
    expect_same_bytes(one);
    // The per-element formula of the reference: (x - mean) / sqrt(var + eps) * scale + bias as
    // x * a + b with a, b per channel; within 1e-5 relative of it (the factors round once each).
    const std::vector<float> sc = ramp(7, 10, -2.f, 2.f), bi = ramp(7, 11, -1.f, 1.f), mu = ramp(7, 12, -1.f, 1.f),
                             var = ramp(7, 13, 0.1f, 2.f);
    const float* got = one.fused[0].t.data<float>();
    const size_t plane = 61 * 67;
    for (size_t i = 0; i < xv.size(); i += 97) {
      const size_t c = i / plane % 7;
      double want = (xv[i] - mu[c]) / std::sqrt(double{var[c]} + 1e-3) * sc[c] + bi[c];
      if (relu) want = std::max(want, 0.0);
      ASSERT_NEAR(got[i], want, 1e-5 * (1 + std::fabs(want))) << i;
    }
    for (unsigned n : {2u, 3u}) {
      kernels::ThreadsScope threads(n);
      Runs many = run_both(*m, {{"x", test::tensor_f(s, xv)}});
      expect_same_bytes(many);
      Runs cross = one;
      cross.plain = many.fused;  // one thread fused against n threads fused
      expect_same_bytes(cross);
    }
  }
}

// Where a chain must stop or not form at all; the results still match.
TEST(ExecFusion, ChainsStopWhereValuesAreNeededElsewhere) {
  using Types = std::vector<std::vector<std::string>>;
  const Geo g = kGeos[0];
  const std::vector<float> xv = ramp(2 * 24 * 9 * 11, 3, -2.f, 2.f);
  auto check = [&](Model& m, const Types& want, std::vector<std::pair<std::string, RValue>> extra = {}) {
    EXPECT_EQ(chain_types(m), want);
    extra.emplace_back("x", test::tensor_f({2, 24, 9, 11}, xv));
    Runs r = run_both(m, extra);
    EXPECT_EQ(r.fused_stats.fused_chains, want.size());
    expect_same_bytes(r);
  };
  auto start = [&](std::unique_ptr<Model>& m, GraphBuilder*& b, Value*& y) {
    m = new_model(14);
    b = new GraphBuilder(*m);
    Value* x = b->input("x", kFloat, {2, 24, 9, 11});
    y = b->op("Conv", {x, b->initializer("w", {40, 24, 1, 1}, ramp(960, 2, -0.5f, 0.5f))});
  };
  std::unique_ptr<Model> m;
  GraphBuilder* b = nullptr;
  Value* y = nullptr;
  {  // the conv output read twice: only BatchNormalization -> Relu
    start(m, b, y);
    b->output(add_act(*b, add_bn(*b, y, 40, 1), Act::Relu));
    b->output(b->op("Sigmoid", {y}));
    check(*m, Types{{"BatchNormalization", "Relu"}});
    delete b;
  }
  {  // the BatchNormalization output is a graph output: Conv -> BatchNormalization only
    start(m, b, y);
    Value* n = add_bn(*b, y, 40, 1);
    b->output(n);
    b->output(b->op("Relu", {n}));
    check(*m, Types{{"Conv", "BatchNormalization"}});
    delete b;
  }
  {  // BatchNormalization's mean is a graph input (not constant): nothing
    start(m, b, y);
    Value* mean = b->input("mean", kFloat, {40});
    Value* n = b->op("BatchNormalization", {y, b->initializer("s", {40}, ramp(40, 1, 0.5f, 1.f)),
                                            b->initializer("c", {40}, ramp(40, 2, 0.5f, 1.f)), mean,
                                            b->initializer("v", {40}, ramp(40, 3, 0.5f, 1.f))});
    b->output(b->op("Relu", {n}));
    check(*m, Types{}, {{"mean", test::tensor_f({40}, ramp(40, 4, -1.f, 1.f))}});
    delete b;
  }
  {  // Clip with a bound from a graph input: Conv -> BatchNormalization, the Clip alone
    start(m, b, y);
    Value* hi = b->input("hi", kFloat, {});
    b->output(b->op("Clip", {add_bn(*b, y, 40, 1), b->initializer("lo", {}, {0.f}), hi}));
    check(*m, Types{{"Conv", "BatchNormalization"}}, {{"hi", test::tensor_f({}, {0.5f})}});
    delete b;
  }
  {  // a Mul whose other operand is not the activation's input: no gate
    start(m, b, y);
    Value* s = b->op("Sigmoid", {y});
    b->output(b->op("Mul", {s, b->initializer("k", {}, {2.f})}));
    check(*m, Types{{"Conv", "Sigmoid"}});
    delete b;
  }
  {  // x * Sigmoid(x) where x is also a graph output: Conv stays alone, no gate; the Sigmoid and
     // the Mul run as an elementwise chain over the stored x
    start(m, b, y);
    b->output(y);
    b->output(b->op("Mul", {y, b->op("Sigmoid", {y})}));
    check(*m, Types{{"Sigmoid", "Mul"}});
    delete b;
  }
}

// A subgraph reading the conv output keeps it a real value.
TEST(ExecFusion, NoChainThroughAValueASubgraphReads) {
  auto m = new_model(14);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 4, 3, 3});
  Value* y = b.op("Conv", {x, b.initializer("w", {4, 4, 1, 1}, ramp(16, 1, -1.f, 1.f))});
  Value* r = b.op("Relu", {y});
  uint8_t one = 1;
  Node* iff = ofg::test::unary_if(b, b.initializer("cond", kBool, {}, &one, 1), y, "Neg", "Abs");
  b.output(r);
  b.output(iff->outputs[0]);
  EXPECT_TRUE(chain_types(*m).empty());
  Runs rr = run_both(*m, {{"x", test::tensor_f({1, 4, 3, 3}, ramp(36, 2, -1.f, 1.f))}});
  expect_same_bytes(rr);
}

// Training-mode BatchNormalization never fuses; running it fails the same way either way.
TEST(ExecFusion, TrainingModeBatchNormIsNotFused) {
  auto m = new_model(15);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 3, 2, 2});
  Value* y = b.op("Conv", {x, b.initializer("w", {3, 3, 1, 1}, ramp(9, 1, -1.f, 1.f))});
  Value* n = b.op("BatchNormalization",
                  {y, b.initializer("s", {3}, {1, 1, 1}), b.initializer("c", {3}, {0, 0, 0}),
                   b.initializer("mu", {3}, {0, 0, 0}), b.initializer("v", {3}, {1, 1, 1})},
                  {b.i("training_mode", 1)});
  b.output(b.op("Relu", {n}));
  EXPECT_TRUE(chain_types(*m).empty());
  Interpreter in(*m);
  try {
    in.run({{"x", test::tensor_f({1, 3, 2, 2}, ramp(12, 1, -1.f, 1.f))}});
    FAIL() << "training mode ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("training mode"), std::string::npos) << e.what();
  }
}

// A float16 input: the chain is planned but runs node by node (with the ops' promotion).
TEST(ExecFusion, NonFloatChainRunsNodeByNode) {
  auto m = new_model(14);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat16, {1, 2, 2, 2});
  std::vector<uint16_t> w16(4, 0x3C00);  // 1.0
  Value* w = b.initializer("w", kFloat16, {2, 2, 1, 1}, w16.data(), w16.size() * 2);
  b.output(b.op("Relu", {b.op("Conv", {x, w})}));
  std::vector<uint16_t> xv{0x3C00, 0xBC00, 0x4000, 0xC000, 0x3800, 0xB800, 0x0000, 0x8000};
  Runs r = run_both(*m, {{"x", test::tensor_value<uint16_t>(kFloat16, {1, 2, 2, 2}, xv)}});
  EXPECT_EQ(r.chains, 1u);
  EXPECT_EQ(r.fused_stats.fused_chains, 0u);
  expect_same_bytes(r);
}

// An error inside a fused chain names the node whose check failed, with the message the node
// gives when run alone.
TEST(ExecFusion, ErrorsNameTheNodeOfTheChain) {
  auto message = [](Model& m, bool fuse) {
    Interpreter in(m);
    in.set_plan_fusion(fuse);
    try {
      in.run({{"x", test::tensor_f({1, 3, 2, 2}, ramp(12, 1, -1.f, 1.f))}});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (bool bad_bn : {true, false}) {
    auto m = new_model(14);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {1, 3, 2, 2});
    // The bad conv: weights for 4 input channels.
    Value* w = b.initializer("w", {3, bad_bn ? 3 : 4, 1, 1}, ramp(bad_bn ? 9 : 12, 1, -1.f, 1.f));
    Node* conv = b.node("Conv", {x, w}, 1, {}, {"y"});
    conv->name = m->intern("the_conv");
    // The bad BatchNormalization: 2 scale values for 3 channels.
    Node* bn = b.node("BatchNormalization",
                      {conv->outputs[0], b.initializer("s", {bad_bn ? 2 : 3}, bad_bn ? std::vector<float>{1, 1} : std::vector<float>{1, 1, 1}),
                       b.initializer("c", {3}, {0, 0, 0}), b.initializer("mu", {3}, {0, 0, 0}),
                       b.initializer("v", {3}, {1, 1, 1})},
                      1, {}, {"n"});
    bn->name = m->intern("the_bn");
    b.output(b.op("Relu", {bn->outputs[0]}));
    ASSERT_EQ(chain_types(*m).size(), 1u);
    const std::string fused = message(*m, true), plain = message(*m, false);
    EXPECT_EQ(fused, plain);
    EXPECT_NE(fused.find(bad_bn ? "node 'the_bn'" : "node 'the_conv'"), std::string::npos) << fused;
  }
}

// The shared CNN models: many chains, and the same output bytes with and without them.
TEST(ExecFusion, SharedModelsMatchNodeByNode) {
  const std::string data = test::data_dir();
  if (data.empty()) GTEST_SKIP() << "no data folder (set ONNXFORGE_DATA)";
  size_t checked = 0;
  for (const char* name : {"mobilenetv2_dirty", "efficientnet_b0_dirty", "mobilenetv3_small_dirty", "resnet18_dirty"}) {
    const std::string dir = data + "/models/" + name;
    if (!test::file_exists(dir + "/model.onnx")) continue;
    SCOPED_TRACE(name);
    auto m = load_model_file(dir + "/model.onnx", LoadOptions{});
    std::vector<uint8_t> pb = test::read_file(dir + "/test_data_set_0/input_0.pb");
    verify::Value in = verify::read_tensor_pb(Bytes{pb.data(), pb.size()}, "input_0.pb");
    Runs r = run_both(*m, {{std::string(m->str(m->graph->inputs[0].value->name)), verify::to_runtime(in)}});
    EXPECT_GT(r.chains, 10u);
    EXPECT_EQ(r.fused_stats.fused_chains, r.chains);
    expect_same_bytes(r);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "none of the CNN models in " << data;
}
