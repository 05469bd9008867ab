// Legalisation for a target profile (src/targets/legalise.h): each rewrite fires on a toy graph
// for a profile that lacks the op (structure asserted, values checked by running the original
// and the result in the interpreter), and a legal model is left as it is.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ir/attributes.h"
#include "ir/builder.h"
#include "api/handles.h"
#include "ir/snapshot.h"
#include "onnxforge.h"
#include "passes/util.h"
#include "targets/legalise.h"
#include "verify/verify.h"

using namespace ofg;
using namespace ofg::targets;

namespace {

const std::string kHead = "target t\nsource s\nurl https://x\nversion 1\n";

size_t count_op(Model& m, const std::string& op) {
  size_t k = 0;
  for_each_graph(m.graph, [&](Graph* g) {
    for (Node* n = g->first; n; n = n->next)
      if (m.str(n->op_type) == op) ++k;
  });
  return k;
}

// Legalises a copy of m for p and checks it against m by execution.
std::unique_ptr<Model> legalised(Model& m, const Profile& p, LegaliseResult& r) {
  std::unique_ptr<Model> c = copy_model(m);
  r = legalise(c, p);
  EXPECT_EQ(check_consistency(*c), "");
  verify::Options o;
  verify::Report v = verify::verify_models(m, *c, o);
  EXPECT_TRUE(v.passed) << v.to_json();
  return c;
}

std::unique_ptr<Model> layer_norm_model(int64_t opset) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3, 8});
  Value* g = b.initializer("g", {8}, {1, 2, 3, 4, 5, 6, 7, 8});
  Value* be = b.initializer("be", {8}, {0, 1, 0, 1, 0, 1, 0, 1});
  b.output(b.op("LayerNormalization", {x, g, be}, {b.i("axis", -1), b.f("epsilon", 1e-5f)}));
  return m;
}

}  // namespace

// A profile at opset 17+ without LayerNormalization: the node is decomposed at the model's own
// opset (the opset does not move), into ops the profile has.
TEST(TargetLegalise, LayerNormDecomposedWhenTheProfileLacksIt) {
  Profile p = parse_profile(kHead + "opset 13 18\nop ReduceMean\nop Sub\nop Pow\nop Add\nop Sqrt\nop Div\nop Mul\n", "t.profile");
  auto m = layer_norm_model(17);
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(r.opset_before, 17);
  EXPECT_EQ(r.opset_after, 17);
  EXPECT_EQ(out->opset_version(""), 17);
  EXPECT_EQ(r.illegal_before, 1u);
  EXPECT_EQ(r.illegal_after, 0u);
  EXPECT_EQ(count_op(*out, "LayerNormalization"), 0u);
  EXPECT_EQ(count_op(*out, "ReduceMean"), 2u);
  EXPECT_EQ(count_op(*out, "Sqrt"), 1u);
  ASSERT_EQ(r.rewrites.size(), 1u);
  EXPECT_EQ(r.rewrites[0].op, "LayerNormalization");
  EXPECT_TRUE(r.after.findings.empty());
}

// A decomposition into ops the profile lacks as well does not lower the illegal count: undone,
// the node stays and is reported.
TEST(TargetLegalise, DecompositionIntoIllegalOpsIsUndone) {
  Profile p = parse_profile(kHead + "op Add\n", "t.profile");
  auto m = layer_norm_model(17);
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(count_op(*out, "LayerNormalization"), 1u);
  EXPECT_TRUE(r.rewrites.empty());
  EXPECT_EQ(r.illegal_after, 1u);
  ASSERT_EQ(r.after.findings.size(), 1u);
  EXPECT_EQ(r.after.findings[0].rule, "op");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("undone"), std::string::npos) << r.notes[0];
}

// A model above the profile's range goes to the highest opset the profile allows; the generic
// opset:N profile means exactly N (LayerNormalization lowered by the conversion below 17).
TEST(TargetLegalise, OpsetLoweredIntoRange) {
  Profile p = parse_profile(kHead + "opset 11 15\nop ReduceMean\nop Sub\nop Pow\nop Add\nop Sqrt\nop Div\nop Mul\n", "t.profile");
  auto m = layer_norm_model(17);
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(r.opset_after, 15);
  EXPECT_EQ(out->opset_version(""), 15);
  EXPECT_EQ(count_op(*out, "LayerNormalization"), 0u);
  EXPECT_EQ(r.illegal_after, 0u);
  LegaliseResult g;
  auto out13 = legalised(*m, find_profile("opset:13"), g);
  EXPECT_EQ(out13->opset_version(""), 13);
  EXPECT_EQ(g.illegal_after, 0u);
  EXPECT_EQ(count_op(*out13, "LayerNormalization"), 0u);
  // A model below the range goes to the lowest opset above it.
  Profile hi = parse_profile(kHead + "opset 18 20\nop LayerNormalization\n", "t.profile");
  LegaliseResult u;
  auto up = legalised(*m, hi, u);
  EXPECT_EQ(up->opset_version(""), 18);
  EXPECT_EQ(u.illegal_after, 0u);
}

// Gemm (transB, alpha, beta) -> MatMul/Mul/Add for a profile without Gemm; the constant B is
// stored transposed (no Transpose node). And 2-D MatMul -> Gemm for one without MatMul.
TEST(TargetLegalise, GemmAndMatMulSwapped) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {3, 4});
  std::vector<float> w(5 * 4), c(5);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  for (size_t i = 0; i < c.size(); ++i) c[i] = 0.5f * static_cast<float>(i);
  Value* wv = b.initializer("w", {5, 4}, w);
  Value* cv = b.initializer("c", {5}, c);
  b.output(b.op("Gemm", {x, wv, cv}, {b.i("transB", 1), b.f("alpha", 0.5f), b.f("beta", 2.0f)}));
  Profile no_gemm = parse_profile(kHead + "op MatMul\nop Add\nop Mul\n", "t.profile");
  LegaliseResult r;
  auto out = legalised(*m, no_gemm, r);
  EXPECT_EQ(count_op(*out, "Gemm"), 0u);
  EXPECT_EQ(count_op(*out, "MatMul"), 1u);
  EXPECT_EQ(count_op(*out, "Transpose"), 0u);
  EXPECT_EQ(count_op(*out, "Mul"), 2u);
  EXPECT_EQ(count_op(*out, "Add"), 1u);
  EXPECT_EQ(r.illegal_before, 1u);
  EXPECT_EQ(r.illegal_after, 0u);

  auto mm = new_model(13);
  GraphBuilder b2(*mm);
  Value* x2 = b2.input("x", kFloat, {3, 4});
  Value* w2 = b2.initializer("w", {4, 5}, w);
  b2.output(b2.op("MatMul", {x2, w2}));
  Profile no_matmul = parse_profile(kHead + "op Gemm\n", "t.profile");
  LegaliseResult r2;
  auto out2 = legalised(*mm, no_matmul, r2);
  EXPECT_EQ(count_op(*out2, "MatMul"), 0u);
  EXPECT_EQ(count_op(*out2, "Gemm"), 1u);
  EXPECT_EQ(r2.illegal_after, 0u);
}

// A model legal for the profile is not touched: no rewrite, same nodes, same opset.
TEST(TargetLegalise, LegalModelUnchanged) {
  auto m = layer_norm_model(17);
  LegaliseResult r;
  auto out = legalised(*m, find_profile("tensorrt"), r);
  EXPECT_TRUE(r.rewrites.empty());
  EXPECT_EQ(r.illegal_before, 0u);
  EXPECT_EQ(r.illegal_after, 0u);
  EXPECT_EQ(out->opset_version(""), 17);
  EXPECT_EQ(count_op(*out, "LayerNormalization"), 1u);
  EXPECT_EQ(out->graph->node_count, m->graph->node_count);
  std::string j = legalise_json(r, "nothing rewritten");
  EXPECT_NE(j.find("\"legal\":true"), std::string::npos) << j;
  EXPECT_NE(j.find("\"opset_after\":17"), std::string::npos) << j;
}

// Flatten(axis 1) on a 4-D input -> Reshape [0, -1], and Neg -> Mul by -1, for a profile without
// Flatten and Neg; Flatten(axis 2) is left (it would need the leading dimensions' product).
TEST(TargetLegalise, FlattenAndNegRewritten) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", 3, 2, 2});
  Value* f = b.op("Flatten", {x}, {b.i("axis", 1)});
  b.output(b.op("Neg", {f}));
  b.output(b.op("Flatten", {x}, {b.i("axis", 2)}));
  Profile p = parse_profile(kHead + "op Reshape const=1\nop Mul\n", "t.profile");
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(count_op(*out, "Neg"), 0u);
  EXPECT_EQ(count_op(*out, "Mul"), 1u);
  EXPECT_EQ(count_op(*out, "Reshape"), 1u);
  EXPECT_EQ(count_op(*out, "Flatten"), 1u);
  EXPECT_EQ(r.illegal_before, 3u);
  EXPECT_EQ(r.illegal_after, 1u);
  ASSERT_EQ(r.after.findings.size(), 1u);
  EXPECT_EQ(r.after.findings[0].op, "Flatten");
  EXPECT_EQ(r.rewrites.size(), 2u);
}

// Not -> Equal(x, false) for a profile with Equal and without Not.
TEST(TargetLegalise, NotBecomesEqualFalse) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kBool, {4});
  b.output(b.op("Not", {x}));
  Profile p = parse_profile(kHead + "op Equal\n", "t.profile");
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(count_op(*out, "Not"), 0u);
  EXPECT_EQ(count_op(*out, "Equal"), 1u);
  EXPECT_EQ(r.illegal_before, 1u);
  EXPECT_EQ(r.illegal_after, 0u);
}

// The C ABI: bad arguments leave the model and *out_json untouched; the demo model (opset 13)
// legalised for opset:17 is raised, verified by execution, and the handle holds the result.
TEST(TargetLegaliseAbi, BadArgumentsThenRaisedAndVerified) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  char* out = reinterpret_cast<char*>(1);
  EXPECT_EQ(ofg_legalize_for_target(m, "trt", nullptr, &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, reinterpret_cast<char*>(1));
  EXPECT_NE(std::string(ofg_last_error()).find("known targets"), std::string::npos) << ofg_last_error();
  EXPECT_EQ(ofg_legalize_for_target(nullptr, "tensorrt", nullptr, &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_legalize_for_target(m, nullptr, nullptr, &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_legalize_for_target(m, "tensorrt", nullptr, nullptr), OFG_ERR_INVALID_ARGUMENT);
  char* json = nullptr;
  ASSERT_EQ(ofg_legalize_for_target(m, "opset:17", nullptr, &json), OFG_OK) << ofg_last_error();
  std::string j = json;
  ofg_buffer_free(json);
  EXPECT_NE(j.find("\"opset_before\":13,\"opset_after\":17"), std::string::npos) << j;
  EXPECT_NE(j.find("\"verified\":\"verified by execution"), std::string::npos) << j;
  EXPECT_NE(j.find("\"legal\":true"), std::string::npos) << j;
  ASSERT_EQ(ofg_check_target(m, "opset:17", &json), OFG_OK);
  EXPECT_NE(std::string(json).find("\"legal\":true"), std::string::npos) << json;
  ofg_buffer_free(json);
  ofg_model_free(m);
}

// A rewrite whose numbers move by rounding only (LayerNormalization lowered from opset 17 to 13),
// checked with no tolerance at all: ofg_legalize_for_target and ofg_convert_opset fail with
// OFG_ERR_VERIFY_FAILED naming the output (src/api/verify_copy.cpp, which both use), and the
// caller's model keeps its node and opset. With the default tolerance the same legalisation passes
// and the handle takes the lowered copy.
TEST(TargetLegaliseAbi, VerifyFailureLeavesTheModelUnchanged) {
  auto* h = new ofg_model;  // the handle ofg_load would make, around the model built here
  h->model = layer_norm_model(17);
  ofg_options* o = nullptr;
  ASSERT_EQ(ofg_options_create(&o), OFG_OK);
  ASSERT_EQ(ofg_options_set(o, "verify.atol", "0"), OFG_OK);
  ASSERT_EQ(ofg_options_set(o, "verify.rtol", "0"), OFG_OK);
  char* json = reinterpret_cast<char*>(1);
  ASSERT_EQ(ofg_legalize_for_target(h, "opset:13", o, &json), OFG_ERR_VERIFY_FAILED) << ofg_last_error();
  const std::string e = ofg_last_error();
  EXPECT_NE(e.find("ofg_legalize_for_target: the model legalised for 'opset:13' differs from the original: output '"),
            std::string::npos) << e;
  EXPECT_NE(e.find("(model unchanged)"), std::string::npos) << e;
  EXPECT_EQ(json, reinterpret_cast<char*>(1));
  EXPECT_EQ(h->model->opset_version(""), 17);
  EXPECT_EQ(count_op(*h->model, "LayerNormalization"), 1u);
  ofg_pass_report* report = nullptr;
  ASSERT_EQ(ofg_convert_opset(h, 13, o, &report), OFG_ERR_VERIFY_FAILED) << ofg_last_error();
  const std::string e2 = ofg_last_error();
  EXPECT_NE(e2.find("ofg_convert_opset: the model converted to opset 13 differs from the original: output '"),
            std::string::npos) << e2;
  EXPECT_EQ(report, nullptr);
  EXPECT_EQ(h->model->opset_version(""), 17);
  ofg_options_free(o);
  json = nullptr;
  ASSERT_EQ(ofg_legalize_for_target(h, "opset:13", nullptr, &json), OFG_OK) << ofg_last_error();
  EXPECT_NE(std::string(json).find("\"verified\":\"verified by execution"), std::string::npos) << json;
  ofg_buffer_free(json);
  EXPECT_EQ(h->model->opset_version(""), 13);
  EXPECT_EQ(count_op(*h->model, "LayerNormalization"), 0u);
  ofg_model_free(h);
}

namespace {

// x -> erf GELU (x * 0.5 * (1 + Erf(x / sqrt(2)))) at `opset`.
std::unique_ptr<Model> erf_gelu_model(int64_t opset) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 8});
  Value* e = b.op("Erf", {b.op("Div", {x, b.initializer("sqrt2", {}, {1.4142135f})})});
  Value* h = b.op("Mul", {b.op("Mul", {x, b.op("Add", {e, b.initializer("one", {}, {1.0f})})}),
                          b.initializer("half", {}, {0.5f})});
  b.output(h);
  return m;
}

}  // namespace

// The fusing direction: the profile takes Gelu (opset 20) but not Erf, and the model is at 13:
// raised to the profile's top opset and optimized again, the erf form becomes Gelu.
TEST(TargetLegalise, RaisedToFuseWhenTheProfileHasTheFusedOpOnly) {
  Profile p = parse_profile(kHead + "opset 13 20\nop Gelu since=20\nop Div\nop Mul\nop Add\n", "t.profile");
  auto m = erf_gelu_model(13);
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(r.illegal_before, 1u);  // the Erf
  EXPECT_EQ(r.illegal_after, 0u);
  EXPECT_EQ(r.opset_after, 20);
  EXPECT_EQ(out->opset_version(""), 20);
  EXPECT_EQ(count_op(*out, "Gelu"), 1u);
  EXPECT_EQ(count_op(*out, "Erf"), 0u);
}

// Neighbour: without Gelu in the profile, raising does not help, so the model stays at 13 with
// its Erf reported.
TEST(TargetLegalise, NotRaisedWhenRaisingLeavesAsManyIllegal) {
  Profile p = parse_profile(kHead + "opset 13 20\nop Div\nop Mul\nop Add\n", "t.profile");
  auto m = erf_gelu_model(13);
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(r.opset_after, 13);
  EXPECT_EQ(out->opset_version(""), 13);
  EXPECT_EQ(r.illegal_after, 1u);
  EXPECT_EQ(count_op(*out, "Erf"), 1u);
}

namespace {

// Resize(x [1, 2, 3, 4]) by constant scales with the given modes.
std::unique_ptr<Model> resize_model(const std::string& mode, const std::string& cm, const std::string& nm,
                                    std::vector<float> scales) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 3, 4});
  Value* sc = b.initializer("scales", {4}, scales);
  b.output(b.op("Resize", {x, nullptr, sc}, {b.s("mode", mode), b.s("coordinate_transformation_mode", cm), b.s("nearest_mode", nm)}));
  return m;
}

std::string attr_of(Model& m, const std::string& op, const std::string& name) {
  std::string v;
  for (Node* n = m.graph->first; n; n = n->next)
    if (m.str(n->op_type) == op)
      if (const Attribute* a = n->attribute(m, name)) v = std::string(a->s.view());
  return v;
}

const std::string kHalfPixelOnly =
    "op Resize attr:coordinate_transformation_mode=half_pixel attr:nearest_mode=round_prefer_floor,round_prefer_ceil\n";

}  // namespace

// Nearest by whole factors: asymmetric + floor reads the same input pixels as half_pixel with
// rounding, so the node is rewritten for a target that takes half_pixel only (values verified).
TEST(TargetLegalise, ResizeNearestIntegerUpscaleTakesAnEquivalentMode) {
  auto m = resize_model("nearest", "asymmetric", "floor", {1, 1, 2, 3});
  Profile p = parse_profile(kHead + kHalfPixelOnly, "t.profile");
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(r.illegal_before, 1u);
  EXPECT_EQ(r.illegal_after, 0u);
  EXPECT_EQ(attr_of(*out, "Resize", "coordinate_transformation_mode"), "half_pixel");
  EXPECT_EQ(attr_of(*out, "Resize", "nearest_mode"), "round_prefer_floor");
  ASSERT_EQ(r.rewrites.size(), 1u);
  EXPECT_EQ(r.rewrites[0].op, "Resize");
}

// Must not fire: a fractional scale (1.5) makes asymmetric + floor differ from half_pixel
// rounding, and linear interpolation has no such equivalence: both stay, named as illegal.
TEST(TargetLegalise, ResizeModesKeptWhereNoEquivalentIsExact) {
  Profile p = parse_profile(kHead + kHalfPixelOnly, "t.profile");
  for (auto [mode, scale] : {std::pair<const char*, float>{"nearest", 1.5f}, {"linear", 2.0f}}) {
    auto m = resize_model(mode, "asymmetric", "floor", {1, 1, scale, scale});
    LegaliseResult r;
    auto out = legalised(*m, p, r);
    EXPECT_EQ(r.illegal_after, 1u) << mode;
    EXPECT_EQ(attr_of(*out, "Resize", "coordinate_transformation_mode"), "asymmetric") << mode;
    EXPECT_TRUE(r.rewrites.empty()) << mode;
    ASSERT_FALSE(r.notes.empty()) << mode;
    EXPECT_NE(r.notes[0].find("no coordinate mode the target takes"), std::string::npos) << r.notes[0];
  }
}

// pytorch_half_pixel is half_pixel where every resized axis has more than one output element
// (linear, fractional scale: the first rule, any mode); with an axis resized to one element it
// is not, and the node stays.
TEST(TargetLegalise, ResizePytorchHalfPixelBecomesHalfPixelOnlyWhereExact) {
  Profile p = parse_profile(kHead + kHalfPixelOnly, "t.profile");
  {
    auto m = resize_model("linear", "pytorch_half_pixel", "round_prefer_floor", {1, 1, 1.5f, 0.5f});
    LegaliseResult r;
    auto out = legalised(*m, p, r);
    EXPECT_EQ(r.illegal_after, 0u);
    EXPECT_EQ(attr_of(*out, "Resize", "coordinate_transformation_mode"), "half_pixel");
  }
  {
    auto m = resize_model("linear", "pytorch_half_pixel", "round_prefer_floor", {1, 1, 0.34f, 1.0f});  // 3 -> 1 row
    LegaliseResult r;
    auto out = legalised(*m, p, r);
    EXPECT_EQ(r.illegal_after, 1u);
    EXPECT_EQ(attr_of(*out, "Resize", "coordinate_transformation_mode"), "pytorch_half_pixel");
  }
}

// A Resize the profile already takes is not touched, and neither is one in a model whose
// profile says nothing about Resize's modes.
TEST(TargetLegalise, ResizeLegalModesUntouched) {
  auto m = resize_model("nearest", "half_pixel", "round_prefer_ceil", {1, 1, 2, 2});
  Profile p = parse_profile(kHead + kHalfPixelOnly, "t.profile");
  LegaliseResult r;
  auto out = legalised(*m, p, r);
  EXPECT_EQ(r.illegal_before, 0u);
  EXPECT_TRUE(r.rewrites.empty());
  EXPECT_TRUE(r.notes.empty());
  EXPECT_EQ(attr_of(*out, "Resize", "nearest_mode"), "round_prefer_ceil");
}

// A target that takes pools and convolutions on 4-D tensors only (Core ML's pools, TensorRT's):
// the 1-D ones run as their 2-D form on [N, C, 1, L], between an Unsqueeze and a Squeeze, with
// the same values; a 2-D one is left alone.
TEST(TargetLegalise, OneDimensionalConvAndPoolLiftedTo2d) {
  for (int64_t opset : {11, 13}) {
    auto m = new_model(opset);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {1, 2, 9});
    std::vector<float> wv(3 * 2 * 3);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
    Value* w = b.initializer("w", {3, 2, 3}, wv);
    Value* y = b.op("Conv", {x, w}, {b.ints("kernel_shape", {3}), b.ints("strides", {2}), b.ints("pads", {1, 2}),
                                     b.ints("dilations", {1})});
    y = b.op("MaxPool", {y}, {b.ints("kernel_shape", {2}), b.ints("pads", {0, 1})});
    b.output(b.op("AveragePool", {y}, {b.ints("kernel_shape", {2}), b.i("count_include_pad", 1), b.ints("pads", {1, 0})}, "y"));
    Value* img = b.input("img", kFloat, {1, 2, 4, 4});
    b.output(b.op("MaxPool", {img}, {b.ints("kernel_shape", {2, 2})}, "z"));
    Profile p = parse_profile(kHead + "op Conv rank=4\nop MaxPool rank=4\nop AveragePool rank=4\nop Unsqueeze\nop Squeeze\n", "t.profile");
    LegaliseResult r;
    auto out = legalised(*m, p, r);
    EXPECT_EQ(r.illegal_before, 3u) << opset;
    EXPECT_EQ(r.illegal_after, 0u) << opset;
    EXPECT_EQ(count_op(*out, "Unsqueeze"), 3u) << opset;  // x of each 1-D node (the weights are a new constant)
    EXPECT_EQ(count_op(*out, "Squeeze"), 3u) << opset;
    for (Node* n = out->graph->first; n; n = n->next) {
      if (out->str(n->op_type) != "Conv") continue;
      const Tensor* t = passes::const_tensor(*out, n->inputs[1]);
      ASSERT_NE(t, nullptr);
      EXPECT_EQ(t->dims.size, 4u);
      std::vector<int64_t> pads;
      ASSERT_TRUE(attr_ints(*out, n, "pads", pads));
      EXPECT_EQ(pads, (std::vector<int64_t>{0, 1, 0, 2}));
    }
  }
}

// Must not fire when the target takes rank 3 as well, or lacks Squeeze to undo the lift.
TEST(TargetLegalise, OneDimensionalPoolKeptWhenLegalOrNotLiftable) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 9});
  b.output(b.op("MaxPool", {x}, {b.ints("kernel_shape", {2})}, "y"));
  for (const char* profile : {"op MaxPool rank=3-4\nop Unsqueeze\nop Squeeze\n", "op MaxPool rank=4\nop Unsqueeze\n"}) {
    Profile p = parse_profile(kHead + profile, "t.profile");
    LegaliseResult r;
    auto out = legalised(*m, p, r);
    EXPECT_EQ(count_op(*out, "Squeeze"), 0u) << profile;
    EXPECT_TRUE(r.rewrites.empty()) << profile;
  }
}
