// Target profiles (targets/*.profile, src/targets): every built-in profile parses, a handful of
// entries per profile match the vendor document it names, the parser refuses malformed text with
// the line, and the checker reports what breaks a rule on small built graphs (and nothing on
// their legal twins). The C ABI's answers for a bad target name and NULL arguments too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/error.h"
#include "onnxforge.h"
#include "targets/check.h"
#include "targets/profile.h"

using namespace ofg;
using namespace ofg::targets;

namespace {

const Profile& builtin(const std::string& name) {
  for (const Profile& p : builtin_profiles())
    if (p.name == name) return p;
  throw std::runtime_error("no built-in profile " + name);
}

const OpRule* rule_of(const Profile& p, const std::string& op, OpRule::Kind kind, const std::string& domain = "") {
  const OpEntry* e = p.find(domain, op);
  if (!e) return nullptr;
  for (const OpRule& r : e->rules)
    if (r.kind == kind) return &r;
  return nullptr;
}

// The input a rule of `kind` on `op` names, -1 when `op` has no such rule.
int rule_input(const Profile& p, const std::string& op, OpRule::Kind kind) {
  const OpRule* r = rule_of(p, op, kind);
  return r ? r->input : -1;
}

std::vector<std::string> attr_values(const Profile& p, const std::string& op, const std::string& attr) {
  const OpEntry* e = p.find("", op);
  if (e)
    for (const OpRule& r : e->rules)
      if (r.kind == OpRule::kAttr && r.attr == attr) return r.values;
  return {};
}

// The rules found for nodes of `op` (model-level findings have op "").
std::vector<std::string> rules_for(const CheckResult& r, const std::string& op) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings)
    if (f.op == op) out.push_back(f.rule);
  return out;
}

// Every op of `listed` has an entry in `p` (default domain), no op of `unlisted` has one.
void expect_listed(const Profile& p, const std::vector<std::string>& listed, const std::vector<std::string>& unlisted) {
  for (const std::string& op : listed) EXPECT_NE(p.find("", op), nullptr) << p.name << " lacks " << op;
  for (const std::string& op : unlisted) EXPECT_EQ(p.find("", op), nullptr) << p.name << " lists " << op;
}

// A subgraph `name` of b's graph whose one output is `op` applied to the outer value x.
Graph* branch(Model& m, GraphBuilder& b, const std::string& name, const std::string& op, Value* x) {
  Graph* g = b.subgraph(name);
  GraphBuilder gb(m, g);
  gb.output(gb.op(op, {x}));
  return g;
}

CheckResult check(const Model& m, const std::string& target) { return check_model(m, find_profile(target)); }

}  // namespace

TEST(TargetProfiles, EveryBuiltInProfileParsesAndNamesItsSource) {
  std::vector<std::string> names;
  for (const Profile& p : builtin_profiles()) {
    names.push_back(p.name);
    EXPECT_FALSE(p.source.empty()) << p.name;
    EXPECT_EQ(p.url.rfind("https://", 0), 0u) << p.name;
    EXPECT_FALSE(p.version.empty()) << p.name;
    EXPECT_GT(p.ops.size(), 40u) << p.name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"coreml-ort", "openvino", "qnn", "rknn", "tensorrt"}));
}

// onnx-tensorrt docs/operators.md, branch 10.1-GA: "opset 9 to opset 20"; Unique, NonZero's
// neighbour Compress and ConvInteger are N; Resize's modes; CumSum's axis an initializer;
// DequantizeLinear's zero point zero; Where's data types.
TEST(TargetProfiles, TensorRtMatchesOnnxTensorRtOperatorsMd) {
  const Profile& p = builtin("tensorrt");
  EXPECT_EQ(p.opset_lo, 9);
  EXPECT_EQ(p.opset_hi, 20);
  expect_listed(p, {"NonZero", "LayerNormalization"}, {"Unique", "Compress", "ConvInteger"});
  EXPECT_EQ(attr_values(p, "Resize", "mode"), (std::vector<std::string>{"nearest", "linear"}));
  EXPECT_EQ(attr_values(p, "TopK", "sorted"), (std::vector<std::string>{"1"}));
  EXPECT_EQ(rule_input(p, "CumSum", OpRule::kConst), 1);
  EXPECT_EQ(rule_input(p, "DequantizeLinear", OpRule::kZero), 2);
  const OpRule* t = rule_of(p, "MatMul", OpRule::kTypes);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->types, (std::vector<int32_t>{1, 10, 16}));  // FP32, FP16, BF16
}

// openvino src/frontends/onnx/docs/supported_ops.md: LayerNormalization from 17, Resize from 10,
// GreaterOrEqual from 12; Bernoulli and DeformConv have no supported version.
TEST(TargetProfiles, OpenVinoMatchesSupportedOpsMd) {
  const Profile& p = builtin("openvino");
  EXPECT_EQ(p.opset_lo, 0);
  ASSERT_NE(p.find("", "LayerNormalization"), nullptr);
  EXPECT_EQ(p.find("", "LayerNormalization")->since, 17);
  EXPECT_EQ(p.find("", "Resize")->since, 10);
  EXPECT_EQ(p.find("", "GreaterOrEqual")->since, 12);
  EXPECT_EQ(p.find("", "Bernoulli"), nullptr);
  EXPECT_EQ(p.find("", "DeformConv"), nullptr);
  EXPECT_NE(p.find("", "RMSNormalization"), nullptr);
}

// rknn-toolkit2 doc/RKNNToolKit2_OP_Support-v2.1.0.md: opset 19; Abs and GatherND not supported;
// Resize nearest/bilinear; EyeLike only with a constant input.
TEST(TargetProfiles, RknnMatchesOpSupportV210) {
  const Profile& p = builtin("rknn");
  EXPECT_EQ(p.opset_hi, 19);
  EXPECT_EQ(p.find("", "Abs"), nullptr);
  EXPECT_EQ(p.find("", "GatherND"), nullptr);
  EXPECT_NE(p.find("", "LayerNormalization"), nullptr);
  EXPECT_EQ(attr_values(p, "Resize", "mode"), (std::vector<std::string>{"nearest", "linear"}));
  EXPECT_EQ(rule_input(p, "EyeLike", OpRule::kConst), 0);
}

// onnxruntime-qnn QNN-ExecutionProvider.md: no Loop or If; LpNormalization only p == 2;
// com.microsoft QuickGelu listed.
TEST(TargetProfiles, QnnMatchesQnnExecutionProviderMd) {
  const Profile& p = builtin("qnn");
  EXPECT_EQ(p.find("", "Loop"), nullptr);
  EXPECT_EQ(p.find("", "If"), nullptr);
  EXPECT_EQ(attr_values(p, "LpNormalization", "p"), (std::vector<std::string>{"2"}));
  EXPECT_NE(p.find("com.microsoft", "QuickGelu"), nullptr);
  EXPECT_NE(p.find("", "RMSNormalization"), nullptr);
}

// onnxruntime coreml_supported_mlprogram_ops.md: Gemm's B constant; 2D pools only; no Gather;
// ConvTranspose without SAME_* padding.
TEST(TargetProfiles, CoreMlMatchesMlProgramOpsMd) {
  const Profile& p = builtin("coreml-ort");
  EXPECT_EQ(rule_input(p, "Gemm", OpRule::kConst), 1);
  const OpRule* r = rule_of(p, "MaxPool", OpRule::kRank);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rank_lo, 4);
  EXPECT_EQ(r->rank_hi, 4);
  EXPECT_EQ(p.find("", "Gather"), nullptr);
  EXPECT_EQ(attr_values(p, "ConvTranspose", "auto_pad"), (std::vector<std::string>{"NOTSET", "VALID"}));
}

// opset:N from the op-version table: LayerNormalization from 17, Gelu from 20, Upsample until 9.
TEST(TargetProfiles, GenericOpsetProfilesFollowTheOpVersionTable) {
  const Profile& p17 = find_profile("opset:17");
  EXPECT_EQ(p17.opset_lo, 17);
  EXPECT_EQ(p17.opset_hi, 17);
  expect_listed(p17, {"LayerNormalization", "Conv"}, {"Gelu", "Upsample"});
  const Profile& p9 = find_profile("opset:9");
  EXPECT_NE(p9.find("", "Upsample"), nullptr);
  EXPECT_EQ(p9.find("", "Resize"), nullptr);
  EXPECT_NE(find_profile("opset:20").find("", "Gelu"), nullptr);
}

TEST(TargetProfiles, UnknownNamesListTheKnownOnes) {
  for (const char* bad : {"tensorrt9", "", "opset:", "opset:99", "opset:x", "TensorRT"}) {
    try {
      find_profile(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::kInvalidArgument);
      std::string w = e.what();
      EXPECT_NE(w.find("unknown target '" + std::string(bad) + "'"), std::string::npos) << w;
      EXPECT_NE(w.find("coreml-ort, openvino, qnn, rknn, tensorrt, opset:N"), std::string::npos) << w;
    }
  }
}

TEST(TargetProfiles, MalformedProfilesAreRefusedWithTheLine) {
  const std::string head = "target t\nsource s\nurl https://x\nversion 1\n";
  struct Case {
    std::string text, expect;
  } cases[] = {
      {head + "op Abs types=float99\n", "t.profile:5: 'types=float99': unknown element type 'float99'"},
      {head + "op Abs frobnicate=1\n", "t.profile:5: unknown rule 'frobnicate'"},
      {head + "op Abs\nop Abs\n", "t.profile:6: op Abs listed twice"},
      {head + "opset 12 9\nop Abs\n", "t.profile:5: 'opset LO HI'"},
      {head + "op Abs rank=5-4\n", "t.profile:5: 'rank=5-4'"},
      {head + "widget 3\n", "t.profile:5: unknown directive 'widget'"},
      {head + "typeset fp\n", "t.profile:5: 'typeset NAME=T,...'"},
      {head + "typeset fp=float32,half\n", "t.profile:5: typeset: unknown element type 'half'"},
      {"target t\nurl https://x\nversion 1\nop Abs\n", "no 'source' line"},
      {head, "no 'op' line"},
  };
  for (const Case& c : cases) {
    try {
      parse_profile(c.text, "t.profile");
      ADD_FAILURE() << c.text;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
  Profile ok = parse_profile(head + "opset 9 *\ntypeset fp=float32,float16\nop com.x:Foo const=1,2 attr:mode=a,b since=3\n"
                             "op Bar types=fp,int8\n", "t.profile");
  const OpRule* bar = rule_of(ok, "Bar", OpRule::kTypes);
  ASSERT_TRUE(bar);
  EXPECT_EQ(bar->types, (std::vector<int32_t>{1, 10, 3}));
  EXPECT_EQ(ok.opset_lo, 9);
  EXPECT_EQ(ok.opset_hi, 0);
  ASSERT_NE(ok.find("com.x", "Foo"), nullptr);
  EXPECT_EQ(ok.find("com.x", "Foo")->rules.size(), 3u);
  EXPECT_EQ(ok.find("com.x", "Foo")->since, 3);
}

// ---- the checker on built graphs

TEST(TargetCheck, UnsupportedOpAndModelOpset) {
  auto m = new_model(21);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4});
  Node* u = b.node("Unique", {x}, 1);
  m->graph->first->name = m->strings.intern("my_unique");
  b.output(b.op("Relu", {u->outputs[0]}));
  CheckResult r = check(*m, "tensorrt");
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].rule, "model_opset");
  EXPECT_NE(r.findings[0].message.find("opset 21 is outside tensorrt's 9 to 20"), std::string::npos);
  EXPECT_EQ(r.findings[1].node, "my_unique");
  EXPECT_EQ(r.findings[1].op, "Unique");
  EXPECT_EQ(r.findings[1].rule, "op");
  EXPECT_EQ(r.illegal_nodes, 1u);
  EXPECT_EQ(r.nodes, 2u);
  // At opset 13 the model's opset is fine; Relu is legal either way.
  auto m13 = new_model(13);
  GraphBuilder b13(*m13);
  b13.output(b13.op("Relu", {b13.input("x", kFloat, {4})}));
  CheckResult r13 = check(*m13, "tensorrt");
  EXPECT_TRUE(r13.findings.empty()) << check_json(r13);
}

TEST(TargetCheck, AttributeValues) {
  for (const char* mode : {"cubic", "linear"}) {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {1, 1, 4, 4});
    Value* scales = b.initializer("scales", {4}, {1, 1, 2, 2});
    b.output(b.op("Resize", {x, nullptr, scales}, {b.s("mode", mode)}));
    CheckResult r = check(*m, "tensorrt");
    if (std::string(mode) == "cubic") {
      ASSERT_EQ(rules_for(r, "Resize"), std::vector<std::string>{"attribute"});
      EXPECT_NE(r.findings[0].message.find("mode=cubic: tensorrt allows nearest, linear"), std::string::npos)
          << r.findings[0].message;
    } else {
      EXPECT_TRUE(r.findings.empty()) << check_json(r);
    }
  }
}

TEST(TargetCheck, ConstantInputsAndZeroPoints) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* axis_in = b.input("axis", kInt64, {});
  Value* dyn = b.op("CumSum", {x, axis_in});  // axis from a graph input: not constant
  Value* axis_c = b.constant_i64("axis_c", {}, {1});
  Value* fixed = b.op("CumSum", {dyn, axis_c});  // axis from a Constant node: fine
  uint8_t q[6] = {1, 2, 3, 4, 5, 6};
  Value* xq = b.initializer("xq", kUint8, {2, 3}, q, 6);
  Value* scale = b.initializer("scale", {}, {0.5f});
  uint8_t zp_bad = 3, zp_ok = 0;
  Value* zb = b.initializer("zb", kUint8, {}, &zp_bad, 1);
  Value* zo = b.initializer("zo", kUint8, {}, &zp_ok, 1);
  Value* d1 = b.op("DequantizeLinear", {xq, scale, zb});
  Value* d2 = b.op("DequantizeLinear", {xq, scale, zo});
  Value* zin = b.input("zin", kUint8, {});
  Value* d3 = b.op("DequantizeLinear", {xq, scale, zin});  // a zero point only known at run time
  Value* zc = b.constant_i64("zc", {}, {0});
  Value* d4 = b.op("DequantizeLinear", {xq, scale, zc});  // zero from a Constant node
  b.output(b.op("Add", {b.op("Add", {b.op("Add", {b.op("Add", {fixed, d1}), d2}), d3}), d4}));
  CheckResult r = check(*m, "tensorrt");
  EXPECT_EQ(rules_for(r, "CumSum"), std::vector<std::string>{"constant"});
  // Every DequantizeLinear reads uint8, which TensorRT's table does not list; the first (3) and
  // the third (a graph input) break the zero-point rule.
  std::vector<std::string> dq = rules_for(r, "DequantizeLinear");
  EXPECT_EQ(std::count(dq.begin(), dq.end(), "zero_point"), 2);
  EXPECT_EQ(std::count(dq.begin(), dq.end(), "dtype"), 4);
  EXPECT_EQ(r.illegal_nodes, 5u) << check_json(r);
  bool named = false;
  for (const Finding& f : r.findings)
    if (f.rule == "zero_point" && f.message.find("('zin') must be a constant of zeros") != std::string::npos) named = true;
  EXPECT_TRUE(named) << check_json(r);
}

TEST(TargetCheck, RankAndElementTypes) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x3 = b.input("x3", kFloat, {1, 3, 8});
  Value* x4 = b.input("x4", kFloat, {1, 3, 8, 8});
  Value* p3 = b.op("MaxPool", {x3}, {b.ints("kernel_shape", {2})});
  Value* p4 = b.op("MaxPool", {x4}, {b.ints("kernel_shape", {2, 2})});
  b.output(p3);
  b.output(p4);
  CheckResult r = check(*m, "coreml-ort");
  ASSERT_EQ(rules_for(r, "MaxPool"), std::vector<std::string>{"rank"});
  EXPECT_NE(r.findings[0].message.find("input 0 has rank 3: coreml-ort takes rank 4"), std::string::npos);

  auto d = new_model(13);
  GraphBuilder bd(*d);
  bd.output(bd.op("Abs", {bd.input("xd", kDouble, {4})}));
  bd.output(bd.op("Abs", {bd.input("xf", kFloat, {4})}));
  CheckResult rd = check(*d, "tensorrt");
  ASSERT_EQ(rules_for(rd, "Abs"), std::vector<std::string>{"dtype"});
  EXPECT_NE(rd.findings[0].message.find("input 0 is float64"), std::string::npos) << rd.findings[0].message;
}

TEST(TargetCheck, PerOpOpsetAndSubgraphs) {
  auto m = new_model(11);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4});
  Value* c = b.input("c", kBool, {});
  b.output(b.op("GreaterOrEqual", {x, x}));  // OpenVINO implements it from opset 12
  Graph* then_g = branch(*m, b, "then", "Unique", x);
  Graph* else_g = branch(*m, b, "else", "Identity", x);
  Node* n_if = b.node("If", {c}, 1, {b.g("then_branch", then_g), b.g("else_branch", else_g)});
  n_if->name = m->strings.intern("if0");
  b.output(n_if->outputs[0]);
  CheckResult r = check(*m, "openvino");
  EXPECT_EQ(rules_for(r, "GreaterOrEqual"), std::vector<std::string>{"opset"});
  // Unique is in OpenVINO's table (from 11): legal inside the branch.
  EXPECT_TRUE(rules_for(r, "Unique").empty());
  CheckResult q = check(*m, "qnn");  // QNN has neither If nor Unique
  EXPECT_EQ(rules_for(q, "If"), std::vector<std::string>{"op"});
  bool found = false;
  for (const Finding& f : q.findings)
    if (f.op == "Unique") {
      found = true;
      EXPECT_EQ(f.graph, "if0/then_branch");
    }
  EXPECT_TRUE(found) << check_json(q);
}

// ---- the C ABI

TEST(TargetCheckAbi, BadNamesAndNullArguments) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  char* out = reinterpret_cast<char*>(1);
  EXPECT_EQ(ofg_check_target(m, "trt", &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, reinterpret_cast<char*>(1));  // untouched on failure
  EXPECT_NE(std::string(ofg_last_error()).find("known targets: coreml-ort, openvino, qnn, rknn, tensorrt"), std::string::npos)
      << ofg_last_error();
  EXPECT_EQ(ofg_check_target(nullptr, "tensorrt", &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_check_target(m, nullptr, &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_check_target(m, "tensorrt", nullptr), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_targets_json(nullptr), OFG_ERR_INVALID_ARGUMENT);
  char* json = nullptr;
  ASSERT_EQ(ofg_check_target(m, "opset:17", &json), OFG_OK);
  EXPECT_NE(std::string(json).find("\"target\":\"opset:17\""), std::string::npos) << json;
  ofg_buffer_free(json);
  ASSERT_EQ(ofg_targets_json(&json), OFG_OK);
  std::string t = json;
  ofg_buffer_free(json);
  EXPECT_NE(t.find("\"name\":\"tensorrt\""), std::string::npos);
  EXPECT_NE(t.find("https://github.com/onnx/onnx-tensorrt/"), std::string::npos);
  EXPECT_NE(t.find("\"generic\":\"opset:N\""), std::string::npos);
  ofg_model_free(m);
}
