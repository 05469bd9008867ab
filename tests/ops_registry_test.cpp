// Tests generated from the op registry (ops/registry.h): they iterate over its entries, so an op
// added with its facts is covered without editing this file.
//  - every op has a type/shape rule or is declared rule-less (Def::no_rule);
//  - every elementwise fact: the op run by the interpreter on float32 data is its double
//    reference within a tolerance, and a chainable op run inside a fused elementwise chain
//    (exec/fusion.h) gives the node-by-node bytes and the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "ops/registry.h"
#include "support/exec_support.h"
#include "support/fusion_support.h"

using namespace ofg;
using namespace ofg::test;

namespace {

const exec::Shape kShape = {2, 3, 67};  // odd rows: every vector loop's tail runs
std::vector<DimSpec> dims() { return std::vector<DimSpec>(kShape.begin(), kShape.end()); }

// An opset the entry runs at: 17 when it covers it, else its nearest end.
int64_t opset_for(const ops::OpEntry& e) { return std::min(std::max<int64_t>(17, e.since), e.until); }

// The kernel parameters the op's node takes (ops/facts.h), alpha = beta = 0 without a reader.
bool params_of(const ops::OpFacts& f, const Model& m, const Node& n, double& alpha, double& beta) {
  float a = 0, b = 0;
  if (f.unary_params && !f.unary_params(m, n, a, b)) return false;
  alpha = a, beta = b;
  return true;
}

// got within the tolerance of the reference computed in double (NaN and infinities exactly).
void expect_near_ref(float got, double ref, const std::string& what) {
  if (std::isnan(ref)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", reference NaN";
  } else if (std::isinf(static_cast<float>(ref))) {
    EXPECT_EQ(got, static_cast<float>(ref)) << what;
  } else {
    EXPECT_NEAR(got, ref, 1e-6 + 2e-5 * std::fabs(ref)) << what;
  }
}

std::vector<const ops::OpEntry*> elementwise_entries() {
  std::vector<const ops::OpEntry*> out;
  for (const ops::OpEntry* e : ops::Registry::instance().all())
    if (e->facts.elementwise != ops::Elementwise::None && e->domain.empty()) out.push_back(e);
  return out;
}

const float* floats(const exec::RValue& v) { return v.t.data<float>(); }

}  // namespace

// Every op has a rule or says it has none; the ones that say so are listed here as the registry
// has them (a rule added to one of them fails this test until its no_rule() goes).
TEST(OpsRegistry, EveryOpHasATypeRuleOrIsDeclaredRuleLess) {
  const ops::Registry& r = ops::Registry::instance();
  std::set<std::string> rule_less;
  for (const ops::OpEntry* e : r.all_entries()) {
    const bool rule = r.rule(e->domain, e->op_type) != nullptr;
    const bool declared = (r.traits(e->domain, e->op_type) & ops::kNoRule) != 0;
    const std::string name = (e->domain.empty() ? std::string() : std::string(e->domain) + ":") + std::string(e->op_type);
    EXPECT_TRUE(rule || declared) << name << " has no type rule and is not declared rule-less";
    EXPECT_FALSE(rule && declared) << name << " has a type rule but is declared rule-less";
    if (declared) rule_less.insert(name);
  }
  EXPECT_FALSE(rule_less.empty());
  std::string list;
  for (const std::string& n : rule_less) list += n + " ";
  std::cout << rule_less.size() << " ops declared rule-less: " << list << "\n";
}

// Each elementwise fact, one node on float32 data, against its double reference.
TEST(OpsRegistry, ElementwiseOpsMatchTheirDoubleReference) {
  const std::vector<const ops::OpEntry*> entries = elementwise_entries();
  ASSERT_GE(entries.size(), 40u);  // the unary, binary and comparison ops of elementwise.cpp
  const size_t n = static_cast<size_t>(exec::shape_numel(kShape));
  const std::vector<float> xv = ramp(n, 7, -3.f, 3.f), yv = ramp(n, 11, -3.f, 3.f);
  for (const ops::OpEntry* e : entries) {
    const ops::OpFacts& f = e->facts;
    const std::string op(e->op_type);
    SCOPED_TRACE(op + " at opset " + std::to_string(opset_for(*e)));
    auto m = new_model(opset_for(*e));
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims());
    Value* y = nullptr;
    if (f.elementwise == ops::Elementwise::Unary) {
      b.output(b.op(op, {x}));
    } else {
      y = b.input("y", kFloat, dims());
      b.output(b.op(op, {x, y}));
    }
    double alpha = 0, beta = 0;
    ASSERT_TRUE(params_of(f, *m, *m->graph->first, alpha, beta));
    exec::Interpreter in(*m);
    std::vector<std::pair<std::string, exec::RValue>> inputs{{"x", tensor_f(kShape, xv)}};
    if (y) inputs.emplace_back("y", tensor_f(kShape, yv));
    const std::vector<exec::RValue> out = in.run(inputs);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].t.shape, kShape);
    if (f.elementwise == ops::Elementwise::Comparison) {
      ASSERT_EQ(out[0].t.dtype, kBool);
      ASSERT_NE(f.binary_ref, nullptr);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(out[0].t.data<bool>()[i], f.binary_ref(xv[i], yv[i]) != 0) << "element " << i;
      continue;
    }
    ASSERT_EQ(out[0].t.dtype, kFloat);
    for (size_t i = 0; i < n; ++i) {
      const double ref = f.elementwise == ops::Elementwise::Unary ? f.unary_ref(xv[i], alpha, beta) : f.binary_ref(xv[i], yv[i]);
      expect_near_ref(floats(out[0])[i], ref, "element " + std::to_string(i) + ", x " + std::to_string(xv[i]));
    }
  }
}

// Each chainable fact inside a fused elementwise chain: a chain is planned, it gives the bytes of
// the nodes run one by one, and those are the reference. Unary ops run after Add(x, 0.25),
// binary ones twice with a constant: op(op(x, c), c).
TEST(OpsRegistry, ChainableOpsRunFusedAsNodeByNode) {
  size_t chainable = 0;
  const size_t n = static_cast<size_t>(exec::shape_numel(kShape));
  const std::vector<float> xv = ramp(n, 5, -3.f, 3.f);
  for (const ops::OpEntry* e : elementwise_entries()) {
    const ops::OpFacts& f = e->facts;
    if (!f.chainable) continue;
    ++chainable;
    ASSERT_TRUE(f.has_kernel);
    const std::string op(e->op_type);
    SCOPED_TRACE(op);
    auto m = new_model(opset_for(*e));
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims());
    const float c = f.elementwise == ops::Elementwise::Unary ? 0.25f : 1.5f;
    Value* k = b.initializer("c", {}, {c});
    Node* node = nullptr;
    if (f.elementwise == ops::Elementwise::Unary) {
      b.output(b.op(op, {b.op("Add", {x, k})}));
      node = m->graph->last;
    } else {
      ASSERT_EQ(f.elementwise, ops::Elementwise::Binary);
      b.output(b.op(op, {b.op(op, {x, k}), k}));
    }
    double alpha = 0, beta = 0;
    if (node) ASSERT_TRUE(params_of(f, *m, *node, alpha, beta));
    Runs r = run_both(*m, {{"x", tensor_f(kShape, xv)}});
    EXPECT_EQ(r.chains, 1u);
    EXPECT_EQ(r.fused_stats.fused_chains, 1u);
    expect_same_bytes(r);
    ASSERT_EQ(r.fused.size(), 1u);
    for (size_t i = 0; i < n; ++i) {
      double ref;
      if (f.elementwise == ops::Elementwise::Unary) {
        ref = f.unary_ref(xv[i] + c, alpha, beta);  // the Add's float sum, as the op reads it
      } else {
        // The inner node's float result, as the outer node reads it.
        const float inner = static_cast<float>(f.binary_ref(xv[i], c));
        ref = f.binary_ref(inner, c);
      }
      expect_near_ref(floats(r.fused[0])[i], ref, "element " + std::to_string(i));
    }
  }
  EXPECT_GE(chainable, 20u);  // 5 binary and 15 unary ops today, Swish the 16th
}

// Swish's alpha reaches its kernel alone and inside a chain (the registry-driven tests above run
// the default alpha only).
TEST(OpsRegistry, SwishAlphaReachesTheKernelAloneAndFused) {
  const size_t n = static_cast<size_t>(exec::shape_numel(kShape));
  const std::vector<float> xv = ramp(n, 3, -8.f, 8.f);
  for (float alpha : {1.f, 0.5f, -2.f}) {
    auto m = new_model(24);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, dims());
    b.output(b.op("Neg", {b.op("Swish", {x}, {b.f("alpha", alpha)})}));
    Runs r = run_both(*m, {{"x", tensor_f(kShape, xv)}});
    EXPECT_EQ(r.chains, 1u);
    expect_same_bytes(r);
    for (size_t i = 0; i < n; ++i) {
      const double ref = -xv[i] / (1 + std::exp(-static_cast<double>(alpha) * xv[i]));
      expect_near_ref(floats(r.fused[0])[i], ref, "alpha " + std::to_string(alpha) + ", element " + std::to_string(i));
    }
  }
  // Double inputs take the double reference; the type rule keeps the input's type and shape.
  auto m = new_model(24);
  GraphBuilder b(*m);
  Value* x = b.input("x", kDouble, {4});
  b.output(b.op("Swish", {x}, {b.f("alpha", 2.f)}));
  exec::Interpreter in(*m);
  const std::vector<exec::RValue> out = in.run({{"x", tensor_value<double>(kDouble, {4}, {-1.0, 0.0, 0.5, 3.0})}});
  ASSERT_EQ(out[0].t.dtype, kDouble);
  for (int i = 0; i < 4; ++i) {
    const double v = std::vector<double>{-1.0, 0.0, 0.5, 3.0}[i];
    EXPECT_DOUBLE_EQ(out[0].t.data<double>()[i], v / (1 + std::exp(-2.0 * v)));
  }
  EXPECT_NE(ops::Registry::instance().rule("", "Swish"), nullptr);
}
