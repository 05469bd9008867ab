// Opset conversion (src/convert): each adapter on a toy graph, converted up and down; the
// structure is asserted (op, inputs, attributes) and the values are checked by running the
// original and the converted model in the interpreter on the same seeded inputs (verify).
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "convert/opset_convert.h"
#include "ir/attributes.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "ir/snapshot.h"
#include "passes/pipeline.h"
#include "support/convert_support.h"
#include "verify/verify.h"

using namespace ofg;
using ofg::test::expect_refused;

namespace {

// The model converted to `to` (a copy), checked against the original by execution.
std::unique_ptr<Model> convert_checked(Model& m, int64_t to, convert::OpsetReport* report = nullptr) {
  std::unique_ptr<Model> c = copy_model(m);
  convert::OpsetReport r = convert::convert_opset(*c, to);
  EXPECT_EQ(c->opset_version(""), to);
  EXPECT_EQ(check_consistency(*c), "");
  verify::Options o;
  verify::Report v = verify::verify_models(m, *c, o);
  EXPECT_TRUE(v.passed) << v.to_json();
  if (report) *report = r;
  return c;
}

std::vector<Node*> nodes_of(Model& m, const std::string& op) {
  std::vector<Node*> out;
  for_each_graph(m.graph, [&](Graph* g) {
    for (Node* n = g->first; n; n = n->next)
      if (m.str(n->op_type) == op) out.push_back(n);
  });
  return out;
}

Node* only(Model& m, const std::string& op) {
  std::vector<Node*> v = nodes_of(m, op);
  EXPECT_EQ(v.size(), 1u) << op;
  return v.empty() ? nullptr : v[0];
}

bool has_attr(Model& m, Node* n, const char* name) { return attr(m, n, name) != nullptr; }

std::vector<int64_t> ints_of(Model& m, Node* n, const char* name) {
  std::vector<int64_t> v;
  attr_ints(m, n, name, v);
  return v;
}

// x [2,3,4] float through `op` with attributes, at `opset`.
std::unique_ptr<Model> unary_model(int64_t opset, const std::string& op, std::vector<Attribute> (*attrs)(GraphBuilder&),
                                   std::vector<DimSpec> shape = {2, 3, 4}) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, shape);
  b.output(b.op(op, {x}, attrs ? attrs(b) : std::vector<Attribute>{}));
  return m;
}

}  // namespace

TEST(ConvertOpset, SqueezeUnsqueezeAxesUpAndDown) {
  auto m = new_model(11);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 1, 4});
  Value* s = b.op("Squeeze", {x}, {b.ints("axes", {1})});
  b.output(b.op("Unsqueeze", {s}, {b.ints("axes", {0})}));
  auto up = convert_checked(*m, 13);
  Node* sq = only(*up, "Squeeze");
  EXPECT_FALSE(has_attr(*up, sq, "axes"));
  ASSERT_EQ(sq->inputs.size, 2u);
  EXPECT_TRUE(sq->inputs[1]->initializer);
  auto down = convert_checked(*up, 11);
  Node* un = only(*down, "Unsqueeze");
  EXPECT_EQ(un->inputs.size, 1u);
  EXPECT_EQ(ints_of(*down, un, "axes"), std::vector<int64_t>({0}));
}

TEST(ConvertOpset, ReduceAxesAt13And18) {
  auto m = new_model(11);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3, 4});
  Value* s = b.op("ReduceSum", {x}, {b.ints("axes", {1})});
  b.output(b.op("ReduceMean", {s}, {b.ints("axes", {-1}), b.i("keepdims", 0)}));
  auto up = convert_checked(*m, 18);
  EXPECT_EQ(only(*up, "ReduceSum")->inputs.size, 2u);
  EXPECT_EQ(only(*up, "ReduceMean")->inputs.size, 2u);
  auto mid = convert_checked(*m, 13);
  EXPECT_EQ(only(*mid, "ReduceSum")->inputs.size, 2u);  // ReduceSum changed at 13
  EXPECT_EQ(only(*mid, "ReduceMean")->inputs.size, 1u);  // the others at 18
  auto down = convert_checked(*up, 11);
  EXPECT_EQ(ints_of(*down, only(*down, "ReduceMean"), "axes"), std::vector<int64_t>({-1}));
  EXPECT_EQ(ints_of(*down, only(*down, "ReduceSum"), "axes"), std::vector<int64_t>({1}));
}

TEST(ConvertOpset, SplitSizesAndNumOutputs) {
  auto m = new_model(11);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 6});
  Node* sp = b.node("Split", {x}, 2, {b.i("axis", 1), b.ints("split", {2, 4})});
  b.output(sp->outputs[0]);
  b.output(sp->outputs[1]);
  Node* eq = b.node("Split", {x}, 3, {b.i("axis", 1)});
  for (int i = 0; i < 3; ++i) b.output(eq->outputs[i]);
  auto up = convert_checked(*m, 18);
  std::vector<Node*> splits = nodes_of(*up, "Split");
  ASSERT_EQ(splits.size(), 2u);
  EXPECT_EQ(splits[0]->inputs.size, 2u);            // sizes as input 1
  EXPECT_FALSE(has_attr(*up, splits[0], "num_outputs"));
  EXPECT_EQ(attr_int(*up, splits[1], "num_outputs", 0), 3);
  auto down = convert_checked(*up, 11);
  splits = nodes_of(*down, "Split");
  EXPECT_EQ(ints_of(*down, splits[0], "split"), std::vector<int64_t>({2, 4}));
  EXPECT_FALSE(has_attr(*down, splits[1], "num_outputs"));

  // num_outputs with an uneven last part becomes explicit sizes below 18.
  auto u = new_model(18);
  GraphBuilder ub(*u);
  Value* y = ub.input("y", kFloat, {2, 7});
  Node* s3 = ub.node("Split", {y}, 3, {ub.i("axis", 1), ub.i("num_outputs", 3)});
  for (int i = 0; i < 3; ++i) ub.output(s3->outputs[i]);
  auto low = convert_checked(*u, 11);
  EXPECT_EQ(ints_of(*low, only(*low, "Split"), "split"), std::vector<int64_t>({3, 3, 1}));
}

TEST(ConvertOpset, PadAndClipAttributesBecomeInputs) {
  auto m = new_model(10);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* p = b.op("Pad", {x}, {b.ints("pads", {0, 1, 0, 2}), b.f("value", 1.5f)});
  b.output(b.op("Clip", {p}, {b.f("min", -0.5f), b.f("max", 0.5f)}));
  auto up = convert_checked(*m, 11);
  Node* pad = only(*up, "Pad");
  EXPECT_EQ(pad->inputs.size, 3u);
  EXPECT_FALSE(has_attr(*up, pad, "pads"));
  Node* clip = only(*up, "Clip");
  EXPECT_EQ(clip->inputs.size, 3u);
  EXPECT_FALSE(has_attr(*up, clip, "min"));
  auto down = convert_checked(*up, 10);
  EXPECT_EQ(ints_of(*down, only(*down, "Pad"), "pads"), std::vector<int64_t>({0, 1, 0, 2}));
  EXPECT_FLOAT_EQ(attr_float(*down, only(*down, "Pad"), "value", 0), 1.5f);
  EXPECT_FLOAT_EQ(attr_float(*down, only(*down, "Clip"), "max", 0), 0.5f);
  EXPECT_EQ(only(*down, "Clip")->inputs.size, 1u);
}

TEST(ConvertOpset, SliceAndTopK) {
  auto m = new_model(9);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4, 6});
  Value* s = b.op("Slice", {x}, {b.ints("starts", {1}), b.ints("ends", {5}), b.ints("axes", {1})});
  Node* tk = b.node("TopK", {s}, 2, {b.i("k", 2)});
  b.output(tk->outputs[0]);
  auto up = convert_checked(*m, 13);
  EXPECT_EQ(only(*up, "Slice")->inputs.size, 4u);
  EXPECT_EQ(only(*up, "TopK")->inputs.size, 2u);
  auto down = convert_checked(*up, 9);
  EXPECT_EQ(ints_of(*down, only(*down, "Slice"), "starts"), std::vector<int64_t>({1}));
  EXPECT_EQ(attr_int(*down, only(*down, "TopK"), "k", 0), 2);

  // Steps other than 1 have no form before opset 10: the conversion names the node.
  auto st = new_model(13);
  GraphBuilder sb(*st);
  Value* y = sb.input("y", kFloat, {8});
  Node* sl = sb.node("Slice", {y, sb.initializer_i64("st", {1}, {0}), sb.initializer_i64("en", {1}, {8}),
                               sb.initializer_i64("ax", {1}, {0}), sb.initializer_i64("sp", {1}, {2})}, 1);
  sl->name = st->intern("strided");
  sb.output(sl->outputs[0]);
  expect_refused(*st, 9, {"'strided' (Slice, opset 10 -> 9)"});
}

TEST(ConvertOpset, UpsampleBecomesResizeAndBack) {
  auto m = new_model(7);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 3, 3});
  b.output(b.op("Upsample", {x}, {b.floats("scales", {1, 1, 2, 2}), b.s("mode", "nearest")}));
  auto up = convert_checked(*m, 13);
  Node* r = only(*up, "Resize");
  ASSERT_EQ(r->inputs.size, 3u);
  EXPECT_EQ(attr_string(*up, r, "coordinate_transformation_mode", ""), "asymmetric");
  EXPECT_EQ(attr_string(*up, r, "nearest_mode", ""), "floor");
  EXPECT_TRUE(nodes_of(*up, "Upsample").empty());
  auto down = convert_checked(*up, 7);
  Node* u = only(*down, "Upsample");
  std::vector<float> scales;
  EXPECT_TRUE(attr_floats(*down, u, "scales", scales));
  EXPECT_EQ(scales, std::vector<float>({1, 1, 2, 2}));
  EXPECT_EQ(u->inputs.size, 1u);
  auto r10 = convert_checked(*m, 10);
  EXPECT_EQ(only(*r10, "Resize")->inputs.size, 2u);

  // half_pixel (Resize 11's default) has no older form.
  auto h = new_model(13);
  GraphBuilder hb(*h);
  Value* y = hb.input("y", kFloat, {1, 1, 2, 2});
  hb.output(hb.op("Resize", {y, nullptr, hb.initializer("sc", {4}, {1, 1, 2, 2})}, {hb.s("mode", "linear")}));
  EXPECT_THROW(convert::convert_opset(*h, 10), Error);
}

TEST(ConvertOpset, SoftmaxAxisMeaning) {
  // Opset 11, axis 1 of a rank-3 input: normalised over dims 1 and 2 together.
  auto m = unary_model(11, "Softmax", [](GraphBuilder& b) { return std::vector<Attribute>{b.i("axis", 1)}; });
  auto up = convert_checked(*m, 13);
  EXPECT_EQ(nodes_of(*up, "Flatten").size(), 1u);
  EXPECT_EQ(nodes_of(*up, "Reshape").size(), 1u);
  EXPECT_EQ(attr_int(*up, only(*up, "Softmax"), "axis", 0), -1);
  // The last axis needs no reshaping, and comes back as it was.
  auto last = unary_model(13, "LogSoftmax", nullptr);
  auto down = convert_checked(*last, 11);
  EXPECT_EQ(attr_int(*down, only(*down, "LogSoftmax"), "axis", 0), -1);
  auto down9 = convert_checked(*last, 9);
  EXPECT_EQ(attr_int(*down9, only(*down9, "LogSoftmax"), "axis", 0), 2);
  auto mid = unary_model(13, "Softmax", [](GraphBuilder& b) { return std::vector<Attribute>{b.i("axis", 1)}; });
  EXPECT_THROW(convert::convert_opset(*copy_model(*mid), 11), Error);
}

TEST(ConvertOpset, LayerNormLoweredThenFusedAgain) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3, 8});
  Value* g = b.initializer("g", {8}, {1, 2, 3, 4, 5, 6, 7, 8});
  Value* be = b.initializer("be", {8}, {0, 1, 0, 1, 0, 1, 0, 1});
  b.output(b.op("LayerNormalization", {x, g, be}, {b.i("axis", -1), b.f("epsilon", 1e-5f)}));
  auto down = convert_checked(*m, 13);
  EXPECT_TRUE(nodes_of(*down, "LayerNormalization").empty());
  EXPECT_EQ(nodes_of(*down, "ReduceMean").size(), 2u);
  EXPECT_EQ(nodes_of(*down, "Sqrt").size(), 1u);
  // Raised again, the default pipeline fuses it back into LayerNormalization.
  auto up = convert_checked(*down, 17);
  passes::PipelineOptions po;
  passes::optimize(up, po);
  EXPECT_EQ(nodes_of(*up, "LayerNormalization").size(), 1u);
  EXPECT_TRUE(nodes_of(*up, "Sqrt").empty());
  verify::Options o;
  EXPECT_TRUE(verify::verify_models(*m, *up, o).passed);
}

TEST(ConvertOpset, NewActivationsLowered) {
  struct Case {
    const char* op;
    int64_t opset;
    const char* marker;  // an op of the decomposition
  };
  for (const Case& c : {Case{"Gelu", 20, "Erf"}, Case{"Mish", 18, "Softplus"}, Case{"HardSwish", 14, "HardSigmoid"},
                        Case{"Swish", 24, "Sigmoid"}}) {
    SCOPED_TRACE(c.op);
    auto m = unary_model(c.opset, c.op, nullptr);
    auto down = convert_checked(*m, 13);
    EXPECT_TRUE(nodes_of(*down, c.op).empty());
    EXPECT_EQ(nodes_of(*down, c.marker).size(), 1u);
  }
  auto tanh = unary_model(20, "Gelu", [](GraphBuilder& b) { return std::vector<Attribute>{b.s("approximate", "tanh")}; });
  auto down = convert_checked(*tanh, 11);
  EXPECT_EQ(nodes_of(*down, "Tanh").size(), 1u);
}

TEST(ConvertOpset, NotConvertibleNamesEveryNodeAndVersions) {
  auto m = new_model(20);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 1, 4, 4});
  Value* grid = b.input("grid", kFloat, {1, 2, 2, 2});
  Node* gs = b.node("GridSample", {x, grid}, 1);
  gs->name = m->intern("sampler");
  Node* cc = b.node("CenterCropPad", {gs->outputs[0], b.initializer_i64("shape", {4}, {1, 1, 2, 2})}, 1);
  cc->name = m->intern("crop");
  b.output(cc->outputs[0]);
  expect_refused(*m, 13, {"2 node(s)", "'sampler' (GridSample, opset 20 -> 13): introduced in opset 16", "'crop' (CenterCropPad"});
}

TEST(ConvertOpset, SubgraphsAreConverted) {
  auto m = new_model(11);
  GraphBuilder b(*m);
  Value* c = b.input("c", kBool, {});
  Value* x = b.input("x", kFloat, {1, 3});
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(*m, then_g);
  tb.output(tb.op("Squeeze", {x}, {tb.ints("axes", {0})}));
  Graph* else_g = b.subgraph("else");
  GraphBuilder eb(*m, else_g);
  eb.output(eb.op("ReduceSum", {x}, {eb.ints("axes", {0}), eb.i("keepdims", 0)}));
  b.output(b.op("If", {c}, {b.g("then_branch", then_g), b.g("else_branch", else_g)}));
  recompute_captures(m->graph);
  auto up = convert_checked(*m, 13);
  EXPECT_EQ(only(*up, "Squeeze")->inputs.size, 2u);
  EXPECT_EQ(only(*up, "ReduceSum")->inputs.size, 2u);
  auto down = convert_checked(*up, 11);
  EXPECT_EQ(ints_of(*down, only(*down, "Squeeze"), "axes"), std::vector<int64_t>({0}));
}

TEST(ConvertOpset, DropoutAndBatchNorm) {
  auto m = new_model(8);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 3, 3});
  Value* s = b.initializer("s", {2}, {1, 2});
  Value* bb = b.initializer("bb", {2}, {0, 1});
  Value* mu = b.initializer("mu", {2}, {0.5f, -0.5f});
  Value* var = b.initializer("var", {2}, {1, 4});
  Value* y = b.op("BatchNormalization", {x, s, bb, mu, var}, {b.i("spatial", 1)});
  b.output(b.op("Dropout", {y}, {b.f("ratio", 0.25f)}));
  auto up = convert_checked(*m, 15);
  EXPECT_FALSE(has_attr(*up, only(*up, "BatchNormalization"), "spatial"));
  EXPECT_EQ(only(*up, "Dropout")->inputs.size, 2u);
  auto down = convert_checked(*up, 8);
  EXPECT_FLOAT_EQ(attr_float(*down, only(*down, "Dropout"), "ratio", 0), 0.25f);
  EXPECT_EQ(only(*down, "Dropout")->inputs.size, 1u);
}

TEST(ConvertOpset, TargetOutsideTheKnownRange) {
  auto m = new_model(13);
  EXPECT_THROW(convert::convert_opset(*m, 6), Error);
  EXPECT_THROW(convert::convert_opset(*m, convert::newest_opset() + 1), Error);
  EXPECT_EQ(convert::convert_opset(*m, 13).adapted.size(), 0u);
}

TEST(ConvertOpset, AddedAttributesAndOrEqualLowered) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 6});
  Value* r = b.op("Reshape", {x, b.initializer_i64("shape", {2}, {3, 4})}, {b.i("allowzero", 1)});
  Value* ge = b.op("GreaterOrEqual", {r, b.initializer("half", {}, {0.5f})});
  Value* le = b.op("LessOrEqual", {r, b.initializer("zero", {}, {0.0f})});
  b.output(ge);
  b.output(le);
  auto down = convert_checked(*m, 11);
  EXPECT_FALSE(has_attr(*down, only(*down, "Reshape"), "allowzero"));
  EXPECT_TRUE(nodes_of(*down, "GreaterOrEqual").empty());
  EXPECT_EQ(nodes_of(*down, "Or").size(), 2u);
  EXPECT_EQ(nodes_of(*down, "Equal").size(), 2u);
  // A computed shape with allowzero=1 may hold a 0: no older form.
  auto z = new_model(14);
  GraphBuilder zb(*z);
  Value* y = zb.input("y", kFloat, {2, 3});
  Value* s = zb.input("s", kInt64, {2});
  zb.output(zb.op("Reshape", {y, s}, {zb.i("allowzero", 1)}));
  EXPECT_THROW(convert::convert_opset(*z, 13), Error);
}

TEST(ConvertOpset, EqualOnFloatsNeedsOpset11) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4});
  Value* i = b.input("i", kInt64, {4});
  b.output(b.op("Equal", {i, b.initializer_i64("two", {}, {2})}));
  auto ok = convert_checked(*m, 9);  // int64 Equal exists at 9
  EXPECT_EQ(nodes_of(*ok, "Equal").size(), 1u);
  b.output(b.op("Equal", {x, b.initializer("half", {}, {0.5f})}));
  expect_refused(*m, 10, {"Equal on inputs other than bool/int32/int64 has no form before opset 11"});
}

TEST(ConvertOpset, ShapeStartEndAndCastLikeLowered) {
  auto m = new_model(15);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3, 4, 5});
  Value* i = b.input("i", kInt64, {3});
  b.output(b.op("Shape", {x}, {b.i("start", 1), b.i("end", -1)}));
  b.output(b.op("CastLike", {i, x}));
  for (int64_t to : {13, 9}) {
    SCOPED_TRACE(to);
    auto down = convert_checked(*m, to);
    Node* sh = only(*down, "Shape");
    EXPECT_FALSE(has_attr(*down, sh, "start"));
    EXPECT_EQ(nodes_of(*down, "Slice").size(), 1u);
    EXPECT_TRUE(nodes_of(*down, "CastLike").empty());
    EXPECT_EQ(attr_int(*down, only(*down, "Cast"), "to", 0), kFloat);
  }
}

TEST(ConvertOpset, LayerNormStatisticsOutputsKept) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 6});
  Value* g = b.initializer("g", {6}, {1, 1, 2, 2, 3, 3});
  Node* ln = b.node("LayerNormalization", {x, g}, 3, {b.i("axis", -1)});
  for (int i = 0; i < 3; ++i) b.output(ln->outputs[i]);
  auto down = convert_checked(*m, 13);  // checks all three outputs against the original
  EXPECT_TRUE(nodes_of(*down, "LayerNormalization").empty());
  EXPECT_EQ(nodes_of(*down, "Reciprocal").size(), 1u);
}

TEST(ConvertOpset, DftAxisBecomesInput) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 8, 1});
  b.output(b.op("DFT", {x}, {b.i("axis", 1)}));
  auto up = convert_checked(*m, 20);
  Node* d = only(*up, "DFT");
  EXPECT_FALSE(has_attr(*up, d, "axis"));
  ASSERT_EQ(d->inputs.size, 3u);
  auto down = convert_checked(*up, 17);
  EXPECT_EQ(attr_int(*down, only(*down, "DFT"), "axis", 0), 1);
  EXPECT_EQ(only(*down, "DFT")->inputs.size, 1u);
}

TEST(ConvertOpset, OtherDomainsOnlyIsNothingToConvert) {
  auto m = new_model(13);
  m->opsets[0].domain = m->intern("ai.onnx.ml");
  convert::OpsetReport r = convert::convert_opset(*m, 17);
  EXPECT_EQ(r.from, 0);
  ASSERT_EQ(r.other_domains.size(), 1u);
  EXPECT_EQ(r.other_domains[0], "ai.onnx.ml 13");
  EXPECT_EQ(m->opset_version("ai.onnx.ml"), 13);
}

// GroupNormalization at 21 (scale and bias per channel) and at 18 (per group) lowered below 18:
// the op is gone, the grouped Reshape is there, the values match the interpreter's own op.
TEST(ConvertOpset, GroupNormLoweredPerChannelAndPerGroup) {
  for (int64_t opset : {int64_t{21}, int64_t{18}}) {
    SCOPED_TRACE(opset);
    bool per_channel = opset >= 21;
    auto m = new_model(opset);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2, 6, 3, 2});
    Value* s = per_channel ? b.initializer("s", {6}, {1, 2, 3, 4, 5, 6}) : b.initializer("s", {2}, {2, -1});
    Value* be = per_channel ? b.initializer("be", {6}, {0, 1, 0, -1, 2, 0}) : b.initializer("be", {2}, {1, -2});
    b.output(b.op("GroupNormalization", {x, s, be}, {b.i("num_groups", 2), b.f("epsilon", 1e-5f)}));
    for (int64_t to : {int64_t{17}, int64_t{13}, int64_t{11}}) {
      SCOPED_TRACE(to);
      auto down = convert_checked(*m, to);
      EXPECT_TRUE(nodes_of(*down, "GroupNormalization").empty());
      EXPECT_EQ(nodes_of(*down, "ReduceMean").size(), 2u);
      EXPECT_EQ(nodes_of(*down, "Sqrt").size(), 1u);
      EXPECT_EQ(nodes_of(*down, "Reshape").size(), 4u);  // grouped, scale, bias, back
    }
  }
  // Between 18 and 20 the per-channel form is lowered as well (18's op reads scale per group).
  auto m = new_model(21);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 4, 5});
  Value* s = b.initializer("s", {4}, {1, 2, 3, 4});
  Value* be = b.initializer("be", {4}, {0, 1, 2, 3});
  b.output(b.op("GroupNormalization", {x, s, be}, {b.i("num_groups", 2)}));
  auto down = convert_checked(*m, 18);
  EXPECT_TRUE(nodes_of(*down, "GroupNormalization").empty());
}

// Raising a per-group GroupNormalization across 21 repeats its scale and bias per channel.
TEST(ConvertOpset, GroupNormPerGroupRaisedPerChannel) {
  auto m = new_model(18);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 6, 5});
  b.output(b.op("GroupNormalization", {x, b.initializer("s", {3}, {1, 2, -3}), b.initializer("be", {3}, {0, 1, 2})},
                {b.i("num_groups", 3)}));
  auto up = convert_checked(*m, 21);
  Node* gn = only(*up, "GroupNormalization");
  ASSERT_NE(gn, nullptr);
  EXPECT_EQ(nodes_of(*up, "Expand").size(), 2u);
  auto back = convert_checked(*up, 17);  // the per-channel form lowered
  EXPECT_TRUE(nodes_of(*back, "GroupNormalization").empty());
}

// RMSNormalization (23) lowered: axis -1 and an explicit axis over the last two dimensions, to
// 18 (ReduceMean axes as input), 13 (axes as attribute) and 10 (no negative axes before 11).
TEST(ConvertOpset, RmsNormLowered) {
  for (int64_t axis : {int64_t{-1}, int64_t{1}}) {
    SCOPED_TRACE(axis);
    auto m = new_model(23);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2, 3, 4});
    Value* s = axis == -1 ? b.initializer("s", {4}, {1, 2, 3, 4}) : b.initializer("s", {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    b.output(b.op("RMSNormalization", {x, s}, {b.i("axis", axis), b.f("epsilon", 1e-5f)}));
    for (int64_t to : {int64_t{18}, int64_t{13}, int64_t{10}}) {
      SCOPED_TRACE(to);
      auto down = convert_checked(*m, to);
      EXPECT_TRUE(nodes_of(*down, "RMSNormalization").empty());
      Node* rm = only(*down, "ReduceMean");
      ASSERT_NE(rm, nullptr);
      if (to >= 18) {
        EXPECT_EQ(rm->inputs.size, 2u);
      } else {
        std::vector<int64_t> last = to >= 11 ? std::vector<int64_t>{-1} : std::vector<int64_t>{2};
        std::vector<int64_t> want = axis == -1 ? last : std::vector<int64_t>{1, 2};
        EXPECT_EQ(ints_of(*down, rm, "axes"), want);
      }
      EXPECT_EQ(nodes_of(*down, "Sqrt").size(), 1u);
    }
  }
}

// A float16 input with the default stash_type (float32): the lowered form normalises in float32
// between two Casts and applies the scale in float16, as the op's two stages do.
TEST(ConvertOpset, RmsNormStashTypeCastsHalfInput) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat16, {2, 8});
  Value* s = b.initializer("s", {8}, {1, 2, 3, 4, 5, 6, 7, 8});
  Value* s16 = b.op("Cast", {s}, {b.i("to", kFloat16)});
  b.output(b.op("Cast", {b.op("RMSNormalization", {x, s16}, {})}, {b.i("to", kFloat)}));
  auto down = convert_checked(*m, 18);
  EXPECT_TRUE(nodes_of(*down, "RMSNormalization").empty());
  // the graph's own two Casts (scale, output) and the stash pair
  EXPECT_EQ(nodes_of(*down, "Cast").size(), 4u);
}
