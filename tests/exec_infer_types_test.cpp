// Type inference: per-op shapes, symbolic dims kept by name (never made static), and the
// tracked contents of shape arithmetic.
#include <gtest/gtest.h>

#include <utility>

#include "exec/infer_types.h"
#include "ir/builder.h"
#include "support/model_test.h"

using InferTypes = ofg::test::ModelTest;

namespace ofg {
namespace {

std::string dims_of(Model& m, const exec::IType* t) {
  if (!t || !t->ranked) return "?";
  std::string s;
  for (const exec::IDim& d : t->dims) {
    s += s.empty() ? "" : ",";
    s += d.is_static() ? std::to_string(d.value) : (d.is_symbolic() ? std::string(m.str(d.sym)) : "?");
  }
  return "[" + s + "]";
}

TEST_F(InferTypes, SymbolicDimsStaySymbolic) {
  Value* x = b.input("x", kFloat, {"batch", "seq", 8});
  Value* w = b.initializer("w", {8, 4}, std::vector<float>(32, 0.5f));
  Value* y = b.op("MatMul", {x, w});
  Value* t = b.op("Transpose", {y}, {b.ints("perm", {1, 0, 2})});
  Value* r = b.op("ReduceMean", {t}, {b.ints("axes", {-1})});
  Value* bias = b.initializer("bias", {1, 1, 1}, {1.0f});
  Value* s = b.op("Add", {r, bias});
  b.output(s);
  exec::TypeInference ti(*m);
  ti.run();
  EXPECT_EQ(dims_of(*m, ti.type_of(y)), "[batch,seq,4]");
  EXPECT_EQ(dims_of(*m, ti.type_of(t)), "[seq,batch,4]");
  EXPECT_EQ(dims_of(*m, ti.type_of(s)), "[seq,batch,1]");
  // written back as a new Type with the symbolic names
  ASSERT_NE(y->type, nullptr);
  EXPECT_TRUE(y->type->dims[0].is_symbolic());
  EXPECT_EQ(m->str(y->type->dims[0].param), "batch");
}

// Range(0, n, 1) over a named dim n read by Shape has n elements named as that dim (positions of a
// sequence line up with the sequence); another start or step, or an unnamed limit, stays open.
TEST_F(InferTypes, RangeOverANamedDimKeepsItsName) {
  Value* x = b.input("x", kFloat, {"batch", "seq", 8});
  Value* n = b.op("Gather", {b.op("Shape", {x}), b.initializer_i64("one", {}, {1})}, {b.i("axis", 0)});
  Value* zero = b.initializer_i64("zero", {}, {0});
  Value* step = b.initializer_i64("step", {}, {1});
  Value* pos = b.op("Range", {zero, n, step});
  Value* odd = b.op("Range", {b.initializer_i64("two", {}, {2}), n, step});
  Value* open = b.op("Range", {zero, b.input("limit", kInt64, {}), step});
  b.output(pos);
  b.output(odd);
  b.output(open);
  exec::TypeInference ti(*m);
  ti.run(false);
  EXPECT_EQ(dims_of(*m, ti.type_of(pos)), "[seq]");
  EXPECT_EQ(dims_of(*m, ti.type_of(odd)), "[?]");
  EXPECT_EQ(dims_of(*m, ti.type_of(open)), "[?]");
}

TEST_F(InferTypes, ConvPoolAndShapeContents) {
  Value* x = b.input("x", kFloat, {"n", 3, 32, 32});
  Value* w = b.initializer("w", {16, 3, 3, 3}, std::vector<float>(16 * 27, 0.1f));
  Value* c = b.op("Conv", {x, w}, {b.ints("pads", {1, 1, 1, 1}), b.ints("strides", {2, 2})});
  Value* p = b.op("MaxPool", {c}, {b.ints("kernel_shape", {2, 2}), b.ints("strides", {2, 2})});
  Value* sh = b.op("Shape", {p});
  Value* g = b.op("Gather", {sh, b.initializer_i64("i", {1}, {1})}, {b.i("axis", 0)});
  b.output(p);
  b.output(g);
  exec::TypeInference ti(*m);
  ti.run(false);
  EXPECT_EQ(dims_of(*m, ti.type_of(c)), "[n,16,16,16]");
  EXPECT_EQ(dims_of(*m, ti.type_of(p)), "[n,16,8,8]");
  const auto* sc = ti.contents(sh);
  ASSERT_NE(sc, nullptr);
  ASSERT_EQ(sc->size(), 4u);
  EXPECT_EQ((*sc)[0].kind, exec::SymVal::kDim);  // the batch stays a reference, not a number
  EXPECT_EQ((*sc)[1].kind, exec::SymVal::kConst);
  const auto* gc = ti.contents(g);
  ASSERT_NE(gc, nullptr);
  EXPECT_EQ((*gc)[0].value, 16);
}

TEST_F(InferTypes, SliceOfSymbolicDimIsUnknownNotStatic) {
  // A position-id buffer sliced to the sequence length: the result is NOT the buffer length.
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* ids = b.input("ids", kInt64, {"batch", "seq"});
  std::vector<int64_t> buf(128);
  Value* pos = b.initializer_i64("pos", {1, 128}, buf);
  Value* seq = b.op("Gather", {b.op("Shape", {ids}), b.initializer_i64("one", {}, {1})}, {b.i("axis", 0)});
  Value* end = b.op("Unsqueeze", {seq, b.initializer_i64("ax", {1}, {0})});
  Value* sl = b.op("Slice", {pos, b.initializer_i64("st", {1}, {0}), end, b.initializer_i64("axis", {1}, {1})});
  b.output(sl);
  exec::TypeInference ti(*m);
  ti.run(false);
  EXPECT_EQ(dims_of(*m, ti.type_of(sl)), "[1,?]");
}

// Resize/Upsample: constant sizes give the dims; constant scales give floor(dim * scale) on static
// dims (1 keeps a symbolic dim); axes or a non-constant sizes leave the dims unknown.
TEST(InferTypesResize, SizesScalesAndWhatStaysUnknown) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"n", 3, 5, 7});
  Value* roi = b.initializer("roi", {0}, {});
  Value* no_scales = b.initializer("no_scales", {0}, {});
  Value* sizes = b.initializer_i64("sizes", {4}, {2, 3, 10, 21});
  Value* by_sizes = b.op("Resize", {x, roi, no_scales, sizes});
  Value* scales = b.initializer("scales", {4}, {1.0f, 1.0f, 2.5f, 0.5f});
  Value* by_scales = b.op("Resize", {x, roi, scales});
  Value* dyn = b.input("dyn", kInt64, {4});
  Value* by_input = b.op("Resize", {x, roi, no_scales, dyn});
  for (Value* v : {by_sizes, by_scales, by_input}) b.output(v);
  exec::TypeInference ti(*m);
  ti.run();
  EXPECT_EQ(dims_of(*m, ti.type_of(by_sizes)), "[2,3,10,21]");
  EXPECT_EQ(dims_of(*m, ti.type_of(by_scales)), "[n,3,12,3]");
  EXPECT_EQ(dims_of(*m, ti.type_of(by_input)), "[?,?,?,?]");

  auto old = new_model(8);
  GraphBuilder ob(*old);
  Value* y = ob.input("y", kFloat, {1, 2, 3, 3});
  Value* up = ob.op("Upsample", {y}, {ob.floats("scales", {1.0f, 1.0f, 2.0f, 2.0f})});
  ob.output(up);
  exec::TypeInference oti(*old);
  oti.run();
  EXPECT_EQ(dims_of(*old, oti.type_of(up)), "[1,2,6,6]");
}

// The rules of the opset-23 ops the transformer fusions emit: without them every Shape read after
// a fused node stays dynamic.
TEST(InferTypesTransformerOps, AttentionRmsNormAndRotary) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  Value* q = b.input("q", kFloat, {"batch", 8, "seq", 32});
  Value* k = b.input("k", kFloat, {"batch", 2, "seq", 32});
  Value* v = b.input("v", kFloat, {"batch", 2, "seq", 16});
  Value* past_k = b.input("past_k", kFloat, {"batch", 2, 5, 32});
  Value* past_v = b.input("past_v", kFloat, {"batch", 2, 5, 16});
  Value* mask = b.input("mask", kFloat, {"batch", 1, "seq", "total"});
  Node* att = b.node("Attention", {q, k, v, mask, past_k, past_v}, 3);
  for (uint32_t i = 0; i < 3; ++i) b.output(att->outputs[i]);
  Value* q3 = b.input("q3", kFloat, {1, 7, 64});
  Value* kv3 = b.input("kv3", kFloat, {1, 4, 32});
  Node* att3 = b.node("Attention", {q3, kv3, kv3}, 3, {b.i("q_num_heads", 4), b.i("kv_num_heads", 2)});
  for (uint32_t i = 0; i < 3; ++i) b.output(att3->outputs[i]);
  Value* h = b.input("h", kFloat, {"batch", "seq", 12});
  Value* rms = b.op("RMSNormalization", {h, b.initializer("w", {12}, std::vector<float>(12, 1.0f))});
  Value* rot = b.op("RotaryEmbedding", {q, b.input("cos", kFloat, {64, 16}), b.input("sin", kFloat, {64, 16}),
                                        b.input("pos", kInt64, {"batch", "seq"})});
  b.output(rms);
  b.output(rot);
  exec::TypeInference ti(*m);
  ti.run();
  EXPECT_EQ(dims_of(*m, ti.type_of(att->outputs[0])), "[batch,8,seq,16]");
  // The past's 5 plus a symbolic sequence: not a dim inference may name.
  EXPECT_EQ(dims_of(*m, ti.type_of(att->outputs[1])), "[batch,2,?,32]");
  EXPECT_EQ(dims_of(*m, ti.type_of(att->outputs[2])), "[batch,2,?,16]");
  EXPECT_EQ(dims_of(*m, ti.type_of(att3->outputs[0])), "[1,7,64]");
  EXPECT_EQ(dims_of(*m, ti.type_of(att3->outputs[1])), "[1,2,4,16]");
  EXPECT_EQ(dims_of(*m, ti.type_of(rms)), "[batch,seq,12]");
  EXPECT_EQ(dims_of(*m, ti.type_of(rot)), "[batch,8,seq,32]");
}

}  // namespace
}  // namespace ofg

namespace ofg {
namespace {

// Shape(x)[0:1] and Shape(x)[1:2]: the first two dims of x as 1-element shape tensors.
std::pair<Value*, Value*> first_two_dims(GraphBuilder& b, Value* x) {
  Value* sh = b.op("Shape", {x});
  Value* d0 = b.op("Slice", {sh, b.initializer_i64("s0", {1}, {0}), b.initializer_i64("e0", {1}, {1})});
  Value* d1 = b.op("Slice", {sh, b.initializer_i64("s1", {1}, {1}), b.initializer_i64("e1", {1}, {2})});
  return {d0, d1};
}

// Where(shape == -1, 1, shape) over [Shape(x)[0], 1, a + b] (PyTorch's expand argument with one
// summed dim): the dims are never -1, so elements 0 and 1 are known; element 2's condition is
// not (a sum is unknown to inference), and that must not hide the other two.
TEST_F(InferTypes, WhereKeepsTheElementsWhoseConditionIsKnown) {
  Value* x = b.input("x", kFloat, {"batch", "seq"});
  auto [d0, d1] = first_two_dims(b, x);
  Value* sum = b.op("Add", {d1, d1});
  Value* shape = b.op("Concat", {d0, b.initializer_i64("one", {1}, {1}), sum}, {b.i("axis", 0)});
  Value* eq = b.op("Equal", {shape, b.initializer_i64("m1", {3}, {-1, -1, -1})});
  Value* w = b.op("Where", {eq, b.initializer_i64("ones", {3}, {1, 1, 1}), shape});
  b.output(w);
  exec::TypeInference ti(*m);
  ti.run(false);
  const auto* c = ti.contents(w);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->size(), 3u);
  EXPECT_EQ((*c)[0].kind, exec::SymVal::kDim);
  EXPECT_EQ(m->str((*c)[0].sym), "batch");
  EXPECT_EQ((*c)[1].kind, exec::SymVal::kConst);
  EXPECT_EQ((*c)[1].value, 1);
  EXPECT_EQ((*c)[2].kind, exec::SymVal::kUnknown);
}

}  // namespace
}  // namespace ofg

namespace ofg {
namespace {

// seq + past (two dims) is unknown but never negative: Equal with -1 is known false; Equal with
// 3 stays unknown, and a difference of dims (which may be negative) stays unknown too.
TEST_F(InferTypes, SumsOfDimsAreNeverNegative) {
  Value* x = b.input("x", kFloat, {"seq", "past"});
  auto [d0, d1] = first_two_dims(b, x);
  Value* sum = b.op("Add", {d0, d1});
  Value* diff = b.op("Sub", {d0, d1});
  Value* m1 = b.initializer_i64("m1", {1}, {-1});
  Value* e_sum = b.op("Equal", {sum, m1});
  Value* e_three = b.op("Equal", {sum, b.initializer_i64("three", {1}, {3})});
  Value* e_diff = b.op("Equal", {diff, m1});
  b.output(e_sum);
  b.output(e_three);
  b.output(e_diff);
  exec::TypeInference ti(*m);
  ti.run(false);
  ASSERT_NE(ti.contents(e_sum), nullptr);
  EXPECT_EQ((*ti.contents(e_sum))[0].kind, exec::SymVal::kConst);
  EXPECT_EQ((*ti.contents(e_sum))[0].value, 0);
  ASSERT_NE(ti.contents(e_three), nullptr);
  EXPECT_EQ((*ti.contents(e_three))[0].kind, exec::SymVal::kUnknown);
  ASSERT_NE(ti.contents(e_diff), nullptr);
  EXPECT_EQ((*ti.contents(e_diff))[0].kind, exec::SymVal::kUnknown);
}

}  // namespace
}  // namespace ofg
