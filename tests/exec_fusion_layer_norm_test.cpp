// Layer norm written out node by node (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add)
// as the interpreter's plan-time fusion runs it (exec/fused_layer_norm.cpp): the same bytes as
// the nodes one by one on odd row lengths and special values, with the axes as attribute and as
// input, with and without the affine tail; and the variants that must not fuse or must run node
// by node.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "support/exec_support.h"
#include "support/fusion_support.h"
#include "support/test_support.h"

using namespace ofg;
using namespace ofg::test;  // the fusion test helpers (support/fusion_support.h)
using Types = std::vector<std::vector<std::string>>;

namespace {

struct Ln {
  int opset = 13;
  int64_t axis = -1;
  int64_t keepdims = -1;  // -1: attribute absent
  int affine = 2;         // 0: none, 1: Mul gamma, 2: Mul gamma and Add beta
  bool gamma_input = false;  // gamma a graph input instead of an initializer
  bool constants_first = false;  // Add(eps, var), Mul(gamma, x), Add(beta, x)
  float power = 2.f;
};

// The nodes PyTorch exports for LayerNorm over the last dim of x (of shape s).
std::unique_ptr<Model> ln_model(const exec::Shape& s, const Ln& o, Value** mean_out = nullptr) {
  auto m = new_model(o.opset);
  GraphBuilder b(*m);
  const int64_t D = s.back();
  Value* x = b.input("x", kFloat, std::vector<DimSpec>(s.begin(), s.end()));
  int means = 0;
  auto mean = [&](Value* v) {
    std::vector<Attribute> at;
    if (o.keepdims >= 0) at.push_back(b.i("keepdims", o.keepdims));
    if (o.opset >= 18) return b.op("ReduceMean", {v, b.initializer_i64("axes" + std::to_string(means++), {1}, {o.axis})}, at);
    at.push_back(b.ints("axes", {o.axis}));
    return b.op("ReduceMean", {v}, at);
  };
  Value* mu = mean(x);
  if (mean_out) *mean_out = mu;
  Value* d = b.op("Sub", {x, mu});
  Value* var = mean(b.op("Pow", {d, b.constant("p", {}, {o.power})}));
  Value* eps = b.constant("eps", {}, {1e-5f});
  Value* sd = b.op("Sqrt", {b.op("Add", o.constants_first ? std::vector<Value*>{eps, var} : std::vector<Value*>{var, eps})});
  Value* y = b.op("Div", {d, sd});
  if (o.affine >= 1) {
    Value* g = o.gamma_input ? b.input("gamma", kFloat, {D}) : b.initializer("gamma", {D}, ramp(D, 2, 0.5f, 1.5f));
    y = b.op("Mul", o.constants_first ? std::vector<Value*>{g, y} : std::vector<Value*>{y, g});
  }
  if (o.affine >= 2) {
    Value* be = b.initializer("beta", {1, D}, ramp(D, 3, -1.f, 1.f));
    y = b.op("Add", o.constants_first ? std::vector<Value*>{be, y} : std::vector<Value*>{y, be});
  }
  b.output(y);
  return m;
}

const std::vector<std::string> kFull{"ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt", "Div", "Mul", "Add"};

Runs run(Model& m, const exec::Shape& s, std::vector<float> xv, std::vector<std::pair<std::string, exec::RValue>> extra = {}) {
  extra.emplace_back("x", test::tensor_f(s, std::move(xv)));
  return run_both(m, extra);
}

}  // namespace

// Row lengths around the vector widths, one row and many, operands on either side, the axes as
// attribute (opset 13) and as input (opset 18), the affine tail in full, partly or absent.
TEST(ExecFusionLayerNorm, MatchesNodeByNodeBitForBit) {
  const exec::Shape shapes[] = {{2, 16, 256}, {3, 37}, {1, 1}, {5, 7, 13}, {1, 1031}, {9, 64}, {2, 2, 3, 5}};
  for (const exec::Shape& s : shapes)
    for (int variant = 0; variant < 5; ++variant) {
      Ln o;
      if (variant == 1) o.opset = 18;
      if (variant == 2) o.constants_first = true;
      if (variant == 3) o.affine = 1, o.keepdims = 1;
      if (variant == 4) o.affine = 0, o.axis = static_cast<int64_t>(s.size()) - 1;
      auto m = ln_model(s, o);
      SCOPED_TRACE("shape " + exec::shape_str(s) + " variant " + std::to_string(variant));
      std::vector<std::string> want(kFull.begin(), kFull.begin() + 7 + o.affine);
      EXPECT_EQ(chain_types(*m), (Types{want}));
      Runs r = run(*m, s, ramp(exec::shape_numel(s), 7, -4.f, 9.f));
      EXPECT_EQ(r.fused_stats.fused_chains, 1u);
      expect_same_bytes(r);
    }
}

// Rows of equal values (variance 0), NaN, infinities, huge and subnormal values, and a power
// other than 2 (Pow's libm path).
TEST(ExecFusionLayerNorm, SpecialValuesMatchNodeByNode) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xv(6 * 8, 3.f);  // row 0: all equal
  const float special[] = {nan, inf, -inf, 1e30f, -1e30f, 1e-40f, -0.f, 0.f};
  for (int i = 0; i < 8; ++i) xv[8 + i] = special[i];                   // row 1: everything
  for (int i = 0; i < 8; ++i) xv[16 + i] = i % 2 ? 1e30f : -1e30f;     // row 2: overflowing squares
  for (int i = 0; i < 8; ++i) xv[24 + i] = 1e-40f * static_cast<float>(i);  // row 3: subnormals
  for (int i = 32; i < 48; ++i) xv[i] = static_cast<float>(i) * 0.37f - 5.f;
  for (float power : {2.f, 3.f}) {
    Ln o;
    o.power = power;
    auto m = ln_model({6, 8}, o);
    Runs r = run(*m, {6, 8}, xv);
    EXPECT_EQ(r.fused_stats.fused_chains, 1u);
    expect_same_bytes(r);
  }
}

// What must not fuse, or must run node by node; the results match either way.
TEST(ExecFusionLayerNorm, VariantsThatDoNotFuse) {
  const exec::Shape s{4, 24};
  const std::vector<float> xv = ramp(96, 5, -2.f, 2.f);
  {  // keepdims 0: the mean does not broadcast as a layer norm's (Sub's shapes differ)
    Ln o;
    o.keepdims = 0;
    auto m = ln_model({4, 4}, o);
    for (const auto& c : chain_types(*m)) EXPECT_NE(c.front(), "ReduceMean");
  }
  {  // the mean over the first axis: planned (the rank is known when it runs), run node by node
    Ln o;
    o.axis = 0;
    auto m = ln_model(s, o);
    EXPECT_EQ(chain_types(*m), (Types{kFull}));
    Runs r = run(*m, s, xv);
    EXPECT_EQ(r.fused_stats.fused_chains, 0u);
    expect_same_bytes(r);
  }
  {  // gamma a graph input: the chain ends at the Div; Mul and Add run alone
    Ln o;
    o.gamma_input = true;
    auto m = ln_model(s, o);
    EXPECT_EQ(chain_types(*m), (Types{{kFull.begin(), kFull.begin() + 7}}));
    Runs r = run(*m, s, xv, {{"gamma", test::tensor_f({24}, ramp(24, 9, 0.f, 1.f))}});
    EXPECT_EQ(r.fused_stats.fused_chains, 1u);
    expect_same_bytes(r);
  }
  {  // the mean is also a graph output: no layer norm chain
    Value* mu = nullptr;
    auto m = ln_model(s, Ln{}, &mu);
    GraphBuilder(*m).output(mu);
    for (const auto& c : chain_types(*m)) EXPECT_NE(c.front(), "ReduceMean");
    Runs r = run(*m, s, xv);
    expect_same_bytes(r);
  }
  {  // a gamma of the wrong length: node by node, with the Mul's own error
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {4, 24});
    Value* mu = b.op("ReduceMean", {x}, {b.ints("axes", {-1})});
    Value* d = b.op("Sub", {x, mu});
    Value* var = b.op("ReduceMean", {b.op("Pow", {d, b.constant("p", {}, {2.f})})}, {b.ints("axes", {-1})});
    Value* y = b.op("Div", {d, b.op("Sqrt", {b.op("Add", {var, b.constant("eps", {}, {1e-5f})})})});
    b.output(b.op("Mul", {y, b.initializer("g", {5}, ramp(5, 1, 0.f, 1.f))}));
    EXPECT_EQ(chain_types(*m), (Types{{kFull.begin(), kFull.begin() + 8}}));
    test::expect_same_error(*m, {{"x", test::tensor_f(s, xv)}});
  }
}
