// Elementwise chains of the interpreter's plan-time fusion (exec/fusion.h, fused_elementwise.cpp):
// GELU written out node by node as exporters give it, with the bias Add before it; run fused, the
// same bytes as the nodes one by one on odd lengths, rows of every size and special values; and
// where a chain must stop, not form, or run node by node.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "kernels/parallel.h"
#include "onnx/serialize.h"
#include "support/exec_support.h"
#include "support/fusion_support.h"
#include "support/test_support.h"
#include "verify/values.h"

using namespace ofg;
using namespace ofg::test;  // the fusion test helpers (support/fusion_support.h)
using Types = std::vector<std::vector<std::string>>;

namespace {

std::vector<DimSpec> dims_of(const exec::Shape& s) { return std::vector<DimSpec>(s.begin(), s.end()); }

// bias + x, then 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) with x^3 as x * (x * x),
// constants on either side as a GPT-2 export has them.
Value* gelu_tanh(GraphBuilder& b, Value* mm, int64_t D) {
  Value* x = b.op("Add", {b.initializer("bias", {D}, ramp(D, 3, -1.f, 1.f)), mm});
  Value* x3 = b.op("Mul", {x, b.op("Mul", {x, x})});
  Value* inner = b.op("Add", {x, b.op("Mul", {b.initializer("c0", {}, {0.044715f}), x3})});
  Value* t = b.op("Tanh", {b.op("Mul", {b.initializer("c1", {}, {0.7978845608f}), inner})});
  Value* g = b.op("Mul", {x, b.op("Add", {b.initializer("one", {}, {1.f}), t})});
  return b.op("Mul", {b.initializer("half", {}, {0.5f}), g});
}

// x * 0.5 * (1 + erf(x / sqrt 2)) with Constant nodes, as a BERT export has it.
Value* gelu_erf(GraphBuilder& b, Value* x) {
  Value* e = b.op("Erf", {b.op("Div", {x, b.constant("sqrt2", {}, {1.4142135f})})});
  Value* g = b.op("Mul", {x, b.op("Add", {e, b.constant("one", {}, {1.f})})});
  return b.op("Mul", {g, b.constant("half", {}, {0.5f})});
}

}  // namespace

// Both GELU forms on lengths around the vector widths and the block size: one chain each, the
// same bytes as node by node.
TEST(ExecFusionElementwise, GeluChainsMatchNodeByNodeBitForBit) {
  const exec::Shape shapes[] = {{2, 12, 512}, {3, 7, 37}, {1, 1, 1}, {5, 13}, {1, 1031}, {2, 3, 4, 9}};
  for (const exec::Shape& s : shapes) {
    const int64_t D = s.back();
    const std::vector<float> xv = ramp(exec::shape_numel(s), 5, -6.f, 6.f);
    {
      auto m = new_model(13);
      GraphBuilder b(*m);
      b.output(gelu_tanh(b, b.input("x", kFloat, dims_of(s)), D));
      SCOPED_TRACE("tanh form, shape " + exec::shape_str(s));
      EXPECT_EQ(chain_types(*m), (Types{{"Add", "Mul", "Mul", "Mul", "Add", "Mul", "Tanh", "Add", "Mul", "Mul"}}));
      Runs r = run_both(*m, {{"x", test::tensor_f(s, xv)}});
      EXPECT_EQ(r.fused_stats.fused_chains, 1u);
      expect_same_bytes(r);
    }
    {
      auto m = new_model(13);
      GraphBuilder b(*m);
      b.output(gelu_erf(b, b.input("x", kFloat, dims_of(s))));
      SCOPED_TRACE("erf form, shape " + exec::shape_str(s));
      EXPECT_EQ(chain_types(*m), (Types{{"Div", "Erf", "Add", "Mul", "Mul"}}));
      Runs r = run_both(*m, {{"x", test::tensor_f(s, xv)}});
      EXPECT_EQ(r.fused_stats.fused_chains, 1u);
      expect_same_bytes(r);
    }
  }
}

// NaN, infinities, signed zeros, subnormals and huge values through every kind of step: a row
// operand on the left and right, scalars on both sides, Pow (x^2 takes the multiply), Sqrt, Log,
// Exp, Sigmoid, Reciprocal.
TEST(ExecFusionElementwise, SpecialValuesMatchNodeByNode) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xv{nan, inf, -inf, 0.f, -0.f, 1e30f, -1e30f, 6.f, -3.f, 3.f, 1e-40f, -1e-40f, 0.5f, -0.5f, 89.f, -89.f, 2.f};
  const int64_t D = static_cast<int64_t>(xv.size());
  for (int i = 0; i < 3; ++i) xv.insert(xv.end(), xv.begin(), xv.begin() + D);
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4, D});
  Value* row = b.initializer("row", {1, D}, ramp(D, 9, -2.f, 2.f));
  Value* p2 = b.op("Pow", {b.op("Sub", {row, x}), b.initializer("two", {}, {2.f})});
  Value* p3 = b.op("Pow", {p2, b.initializer("three", {1}, {3.f})});
  Value* s = b.op("Sqrt", {b.op("Div", {p3, row})});
  Value* l = b.op("Log", {b.op("Abs", {b.op("Sub", {b.initializer("k", {}, {1.f}), s})})});
  Value* e = b.op("Reciprocal", {b.op("Sigmoid", {b.op("Exp", {b.op("Mul", {l, x})})})});
  b.output(b.op("Add", {e, row}));
  ASSERT_EQ(chain_types(*m).size(), 1u);
  EXPECT_EQ(chain_types(*m)[0].size(), 13u);
  Runs r = run_both(*m, {{"x", test::tensor_f({4, D}, xv)}});
  EXPECT_EQ(r.fused_stats.fused_chains, 1u);
  expect_same_bytes(r);
}

// Where an elementwise chain must stop or not form; the results still match.
TEST(ExecFusionElementwise, ChainsStopWhereValuesAreNeededElsewhere) {
  const exec::Shape s{3, 40};
  const std::vector<float> xv = ramp(120, 4, -3.f, 3.f);
  auto check = [&](Model& m, const Types& want, size_t fused, std::vector<std::pair<std::string, exec::RValue>> extra = {}) {
    EXPECT_EQ(chain_types(m), want);
    extra.emplace_back("x", test::tensor_f(s, xv));
    Runs r = run_both(m, extra);
    EXPECT_EQ(r.fused_stats.fused_chains, fused);
    expect_same_bytes(r);
  };
  {  // the Tanh output is also a graph output: the chain ends there
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims_of(s));
    Value* t = b.op("Tanh", {b.op("Mul", {x, b.initializer("c", {}, {0.5f})})});
    b.output(t);
    b.output(b.op("Mul", {b.op("Add", {t, b.initializer("one", {}, {1.f})}), x}));
    check(*m, Types{{"Mul", "Tanh"}}, 1);
  }
  {  // an intermediate read by a node outside the chain (a Softmax): cut before it is made
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims_of(s));
    Value* a = b.op("Add", {x, b.initializer("c", {}, {1.f})});
    Value* e = b.op("Exp", {a});
    Value* sm = b.op("Softmax", {a});
    b.output(b.op("Mul", {e, sm}));
    check(*m, Types{}, 0);
  }
  {  // two non-constant inputs at the head (a residual Add): no chain starts there, one after
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims_of(s));
    Value* z = b.input("z", kFloat, dims_of(s));
    Value* a = b.op("Add", {x, z});
    b.output(b.op("Mul", {b.op("Relu", {a}), b.initializer("c", {}, {2.f})}));
    check(*m, Types{{"Relu", "Mul"}}, 1, {{"z", test::tensor_f(s, ramp(120, 6, -1.f, 1.f))}});
  }
  {  // a node reading the chain and a second non-constant value: the chain stops before it
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims_of(s));
    Value* z = b.input("z", kFloat, dims_of(s));
    Value* t = b.op("Sigmoid", {b.op("Neg", {x})});
    b.output(b.op("Mul", {t, z}));
    check(*m, Types{{"Neg", "Sigmoid"}}, 1, {{"z", test::tensor_f(s, ramp(120, 6, -1.f, 1.f))}});
  }
  {  // a constant broadcast along a column ([3, 1]): planned, run node by node
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims_of(s));
    Value* col = b.initializer("col", {3, 1}, {1.f, 2.f, 3.f});
    b.output(b.op("Tanh", {b.op("Mul", {x, col})}));
    check(*m, Types{{"Mul", "Tanh"}}, 0);
  }
  {  // a one-element constant of higher rank than x (the output takes its rank): node by node
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims_of(s));
    Value* c = b.initializer("c", {1, 1, 1}, {2.f});
    b.output(b.op("Tanh", {b.op("Mul", {x, c})}));
    check(*m, Types{{"Mul", "Tanh"}}, 0);
  }
  {  // a constant with a wrong last dim: node by node, and the Mul's own error
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims_of(s));
    b.output(b.op("Tanh", {b.op("Mul", {x, b.initializer("c", {7}, ramp(7, 1, 0.f, 1.f))})}));
    EXPECT_EQ(chain_types(*m), (Types{{"Mul", "Tanh"}}));
    test::expect_same_error(*m, {{"x", test::tensor_f(s, xv)}});
  }
}

// A float16 source: planned, run node by node with the ops' promotion.
TEST(ExecFusionElementwise, NonFloatSourceRunsNodeByNode) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat16, {4});
  uint16_t two = 0x4000;
  b.output(b.op("Tanh", {b.op("Mul", {x, b.initializer("c", kFloat16, {}, &two, 2)})}));
  Runs r = run_both(*m, {{"x", test::tensor_value<uint16_t>(kFloat16, {4}, {0x3C00, 0xBC00, 0x0000, 0x3800})}});
  EXPECT_EQ(r.chains, 1u);
  EXPECT_EQ(r.fused_stats.fused_chains, 0u);
  expect_same_bytes(r);
}

// The shared transformers: GELU chains found, and the same output bytes with and without them.
TEST(ExecFusionElementwise, SharedTransformersMatchNodeByNode) {
  const std::string data = test::data_dir();
  if (data.empty()) GTEST_SKIP() << "no data folder (set ONNXFORGE_DATA)";
  size_t checked = 0;
  for (const char* name : {"gpt_tiny_dirty", "vit_tiny_dirty", "bert_tiny_dirty"}) {
    const std::string dir = data + "/models/" + name;
    if (!test::file_exists(dir + "/model.onnx")) continue;
    SCOPED_TRACE(name);
    auto m = load_model_file(dir + "/model.onnx", LoadOptions{});
    std::vector<std::pair<std::string, exec::RValue>> inputs;
    for (size_t i = 0; i < m->graph->inputs.size; ++i) {
      const std::string f = dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb";
      std::vector<uint8_t> pb = test::read_file(f);
      inputs.emplace_back(std::string(m->str(m->graph->inputs[i].value->name)),
                          verify::to_runtime(verify::read_tensor_pb(Bytes{pb.data(), pb.size()}, f)));
    }
    Runs r = run_both(*m, inputs);
    // Chains over shape arithmetic (int64) are planned too and run node by node.
    EXPECT_GE(r.fused_stats.fused_chains, 2u);
    expect_same_bytes(r);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "none of the transformer models in " << data;
}

// MatMul followed by its bias Add (either side), the GELU after it, or a scale: the chain runs in
// place over the MatMul's output with the same bytes; batched and 2-D, B constant or not.
TEST(ExecFusionElementwise, MatMulChainsMatchNodeByNode) {
  struct Case {
    exec::Shape a, b;
    bool b_constant;
  };
  const Case cases[] = {{{2, 12, 128}, {128, 384}, true}, {{3, 37}, {37, 19}, true}, {{2, 4, 12, 32}, {2, 4, 32, 12}, false},
                        {{1, 5}, {5, 1}, true}};
  for (const Case& k : cases)
    for (int tail = 0; tail < 4; ++tail) {
      auto m = new_model(13);
      GraphBuilder b(*m);
      const int64_t N = k.b.back();
      Value* a = b.input("a", kFloat, dims_of(k.a));
      Value* w = k.b_constant ? b.initializer("w", std::vector<int64_t>(k.b.begin(), k.b.end()), ramp(exec::shape_numel(k.b), 2, -0.3f, 0.3f))
                              : b.input("w", kFloat, dims_of(k.b));
      Value* y = b.op("MatMul", {a, w});
      Value* bias = b.initializer("bias_r", {N}, ramp(N, 4, -1.f, 1.f));
      Types want;
      if (tail == 0) y = b.op("Add", {bias, y}), want = {{"MatMul", "Add"}};
      if (tail == 1) y = b.op("Add", {y, bias}), want = {{"MatMul", "Add"}};
      if (tail == 2) y = gelu_tanh(b, y, N), want = {{"MatMul", "Add", "Mul", "Mul", "Mul", "Add", "Mul", "Tanh", "Add", "Mul", "Mul"}};
      if (tail == 3) y = b.op("Mul", {y, b.constant("scale", {}, {0.125f})}), want = {{"MatMul", "Mul"}};
      b.output(y);
      SCOPED_TRACE("A " + exec::shape_str(k.a) + " tail " + std::to_string(tail));
      EXPECT_EQ(chain_types(*m), want);
      std::vector<std::pair<std::string, exec::RValue>> in{{"a", test::tensor_f(k.a, ramp(exec::shape_numel(k.a), 6, -2.f, 2.f))}};
      if (!k.b_constant) in.emplace_back("w", test::tensor_f(k.b, ramp(exec::shape_numel(k.b), 8, -1.f, 1.f)));
      Runs r = run_both(*m, in);
      EXPECT_EQ(r.fused_stats.fused_chains, 1u);
      expect_same_bytes(r);
    }
}

// Where a MatMul does not join a chain, or its chain runs node by node.
TEST(ExecFusionElementwise, MatMulChainsStopWhereItsOutputIsNeededElsewhere) {
  auto build = [](int variant) {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* a = b.input("a", kFloat, {6, 8});
    Value* y = b.op("MatMul", {a, b.initializer("w", {8, 10}, ramp(80, 3, -1.f, 1.f))});
    if (variant == 0) {  // the MatMul output is also a graph output
      b.output(y);
      b.output(b.op("Add", {y, b.initializer("bias", {10}, ramp(10, 4, -1.f, 1.f))}));
    } else if (variant == 1) {  // read by a Softmax too
      b.output(b.op("Softmax", {y}));
      b.output(b.op("Add", {y, b.initializer("bias", {10}, ramp(10, 4, -1.f, 1.f))}));
    } else {  // a bias of the wrong length: planned, node by node, the Add's own error
      b.output(b.op("Add", {y, b.initializer("bias", {7}, ramp(7, 4, -1.f, 1.f))}));
    }
    return m;
  };
  const std::vector<float> av = ramp(48, 5, -1.f, 1.f);
  for (int variant = 0; variant < 2; ++variant) {
    auto m = build(variant);
    EXPECT_TRUE(chain_types(*m).empty()) << variant;
    Runs r = run_both(*m, {{"a", test::tensor_f({6, 8}, av)}});
    expect_same_bytes(r);
  }
  auto m = build(2);
  EXPECT_EQ(chain_types(*m), (Types{{"MatMul", "Add"}}));
  test::expect_same_error(*m, {{"a", test::tensor_f({6, 8}, av)}});
}

// Split between threads (parts of 32K elements, several per thread), the fused chains give the
// bytes of one thread and of the nodes one by one.
TEST(ExecFusionElementwise, ThreadsSplitTheSameBytes) {
  const exec::Shape s{3, 50001};
  auto m = new_model(13);
  GraphBuilder b(*m);
  b.output(gelu_erf(b, b.op("Tanh", {b.input("x", kFloat, dims_of(s))})));
  const std::vector<float> xv = ramp(exec::shape_numel(s), 9, -5.f, 5.f);
  Runs one;
  {
    kernels::ThreadsScope threads(1);
    one = run_both(*m, {{"x", test::tensor_f(s, xv)}});
  }
  kernels::ThreadsScope threads(3);
  Runs three = run_both(*m, {{"x", test::tensor_f(s, xv)}});
  EXPECT_EQ(three.fused_stats.fused_chains, 1u);
  expect_same_bytes(three);
  one.plain = three.fused;  // one thread fused against three threads fused
  expect_same_bytes(one);
}

// A chain value read again far down the graph (past the planner's scan window) stays a stored
// value: the chain does not take the node that makes it; the results match.
TEST(ExecFusionElementwise, ValueReadFarLaterStaysOutside) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4, 9});
  Value* r = b.op("Relu", {x});
  Value* e = b.op("Exp", {b.op("Neg", {r})});
  Value* z = b.input("z", kFloat, {4, 9});
  for (int i = 0; i < 300; ++i) z = b.op("Abs", {z});  // unrelated nodes in between
  b.output(b.op("Add", {e, r}));
  b.output(z);
  for (const auto& c : chain_types(*m)) EXPECT_NE(c.front(), "Relu");
  Runs out = run_both(*m, {{"x", test::tensor_f({4, 9}, ramp(36, 3, -2.f, 2.f))}, {"z", test::tensor_f({4, 9}, ramp(36, 4, -2.f, 2.f))}});
  expect_same_bytes(out);
}
