// fuse_rotary_embedding (RotaryEmbedding, opset 23) and its lowering below 23: where the rule
// fires (and the result still computes the same), where it must not, and the decomposition the
// opset converter writes (equal outputs, and fused back when raised again).
#include <cmath>
#include <limits>

#include "convert/opset_convert.h"
#include "ir/snapshot.h"
#include "passes/pipeline.h"
#include "support/convert_support.h"
#include "passes_test_util.h"
#include "passes_verify_util.h"

namespace ofg::test {
namespace {

constexpr int64_t kP = 16;  // table rows (max positions)
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// A 1-D int64 constant [v] with a name unique in the model.
Value* ci(GraphBuilder& b, int64_t v) {
  static int counter = 0;
  return b.initializer_i64("c" + std::to_string(counter++), {1}, {v});
}

// What the toy exports vary.
struct Rope {
  int64_t opset = 23;
  int64_t d = 8;            // head size
  int64_t rot = 0;          // rotated channels (0: all; < d: partial rotary)
  bool interleaved = false; // rotate_every_two with pair-repeated tables
  bool table_chain = true;  // Slice/Squeeze/Squeeze of a [1, 1, P, R] constant (else a [P, R] one)
  bool table_slice_2d = false;  // with table_chain off: a Slice of rows from 0 of the [P, R] constant
  bool swapped = false;     // operands of the Muls and the Add in the other order
  bool halves_differ = false;   // one table value differs from its partner
  bool neg_wrong_half = false;  // Concat(Neg(x[:h]), x[h:])
  bool cos_input = false;       // cos is a graph input, not gathered from a constant
  bool sin_other_ids = false;   // sin gathered by other position ids
  bool batch_one_ids = false;   // position ids [1, S] (the same for every batch row)
  bool extra_reader = false;    // rot(x) is also a graph output
  bool two = false;             // a second rotary (k) sharing cos/sin
  bool split = false;           // partial rotary by Split(x, [R, D - R]) instead of two Slices
  bool seq_first = false;       // x [B, S, H, D], cos/sin [B, S, 1, D] (before the heads are transposed)
  // interleaved: the stack is flattened by Reshape(stack, [x.size(0), (1), (2), -1]) as the
  // exporter writes view(b, s, h, -1) (1), or with sizes 1 and 2 swapped (2, a neighbour whose
  // leading dims are not x's); 0: Reshape(stack, Shape(x))
  int flat_minus_one = 0;
};

// Table value for (position p, column j) of an R-wide table: each frequency twice.
double table_value(bool sine, bool interleaved, int64_t r, int64_t p, int64_t j) {
  int64_t k = interleaved ? j / 2 : j % (r / 2);
  double freq = std::pow(10000.0, -2.0 * static_cast<double>(k) / static_cast<double>(r));
  return sine ? std::sin(static_cast<double>(p) * freq) : std::cos(static_cast<double>(p) * freq);
}

Value* table(GraphBuilder& b, const Rope& o, bool sine, Value* ids) {
  int64_t r = o.rot ? o.rot : o.d;
  std::vector<float> v(static_cast<size_t>(kP * r));
  for (int64_t p = 0; p < kP; ++p)
    for (int64_t j = 0; j < r; ++j) v[static_cast<size_t>(p * r + j)] = static_cast<float>(table_value(sine, o.interleaved, r, p, j));
  if (o.halves_differ) v[static_cast<size_t>(3 * r + r - 1)] += 0.25f;
  Value* t = nullptr;
  const char* name = sine ? "sin_table" : "cos_table";
  if (o.table_chain) {
    t = b.initializer(name, {1, 1, kP, r}, v);
    t = b.op("Slice", {t, ci(b, 0), ci(b, kP), ci(b, 2),
                       ci(b, 1)});
    t = b.op("Squeeze", {b.op("Squeeze", {t, ci(b, 1)}), ci(b, 0)});
  } else {
    t = b.initializer(name, {kP, r}, v);
    if (o.table_slice_2d) t = b.op("Slice", {t, ci(b, 0), ci(b, kP - 2), ci(b, 0)});
  }
  return b.op("Unsqueeze", {b.op("Gather", {t, ids}), ci(b, o.seq_first ? 2 : 1)});
}

Value* last_slice(GraphBuilder& b, Value* x, int64_t start, int64_t end, int64_t step = 1) {
  std::vector<Value*> in = {x, ci(b, start), ci(b, end),
                            ci(b, -1)};
  if (step != 1) in.push_back(ci(b, step));
  return b.op("Slice", in);
}

Value* mul(GraphBuilder& b, Value* a, Value* c, bool swapped) { return swapped ? b.op("Mul", {c, a}) : b.op("Mul", {a, c}); }

// y = x * cos + rot(x) * sin on x [B, H, S, R]; returns rot(x) through `rot_out`.
Value* rope(GraphBuilder& b, const Rope& o, Value* x, Value* cos, Value* sin, Value** rot_out) {
  int64_t r = o.rot ? o.rot : o.d, h = r / 2;
  Value* rot = nullptr;
  if (!o.interleaved) {
    Value* first = last_slice(b, x, 0, h);
    Value* second = last_slice(b, x, h, kMax);
    rot = o.neg_wrong_half ? b.op("Concat", {b.op("Neg", {first}), second}, {b.i("axis", -1)})
                           : b.op("Concat", {b.op("Neg", {second}), first}, {b.i("axis", -1)});
  } else {
    Value* even = last_slice(b, x, 0, kMax, 2);
    Value* odd = last_slice(b, x, 1, kMax, 2);
    Value* last = ci(b, -1);
    Value* stack = b.op("Concat", {b.op("Unsqueeze", {b.op("Neg", {odd}), last}), b.op("Unsqueeze", {even, last})}, {b.i("axis", -1)});
    if (!o.flat_minus_one) {
      rot = b.op("Reshape", {stack, b.op("Shape", {x})});
    } else {
      // (sizes read from x: the exporter reads them from the stack, a reader the shape passes
      // replace by x's dims before the fusion runs)
      Value* shape = b.op("Shape", {x});
      std::vector<int64_t> order = o.flat_minus_one == 1 ? std::vector<int64_t>{0, 1, 2} : std::vector<int64_t>{0, 2, 1};
      std::vector<Value*> parts;
      for (int64_t i : order) {
        static int n = 0;
        Value* idx = b.initializer_i64("dim_index" + std::to_string(n++), {}, {i});
        parts.push_back(b.op("Unsqueeze", {b.op("Gather", {shape, idx}, {b.i("axis", 0)}), ci(b, 0)}));
      }
      parts.push_back(ci(b, -1));
      rot = b.op("Reshape", {stack, b.op("Concat", parts, {b.i("axis", 0)})});
    }
  }
  *rot_out = rot;
  Value* a = mul(b, x, cos, o.swapped);
  Value* c = mul(b, rot, sin, o.swapped);
  return o.swapped ? b.op("Add", {c, a}) : b.op("Add", {a, c});
}

std::unique_ptr<Model> rope_model(const Rope& o) {
  auto m = new_model(o.opset);
  GraphBuilder b(*m);
  Value* x = o.seq_first ? b.input("x", kFloat, {"batch", "seq", 2, o.d}) : b.input("x", kFloat, {"batch", 2, "seq", o.d});
  Value* ids = b.input("position_ids", kInt64, {o.batch_one_ids ? DimSpec(1) : DimSpec("batch"), "seq"});
  Value* cos = o.cos_input ? b.input("cos", kFloat, {"batch", 1, "seq", o.rot ? o.rot : o.d}) : table(b, o, false, ids);
  Value* sin = table(b, o, true, o.sin_other_ids ? b.input("other_ids", kInt64, {"batch", "seq"}) : ids);
  Value* xr = x;
  Value* pass = nullptr;
  if (o.rot && o.split) {
    Node* sp = b.node("Split", {x, b.initializer_i64("split_sizes", {2}, {o.rot, o.d - o.rot})}, 2, {b.i("axis", -1)});
    xr = sp->outputs[0];
    pass = sp->outputs[1];
  } else if (o.rot) {
    xr = last_slice(b, x, 0, o.rot);
    pass = last_slice(b, x, o.rot, kMax);
  }
  Value* rot = nullptr;
  Value* y = rope(b, o, xr, cos, sin, &rot);
  if (o.rot) y = b.op("Concat", {y, pass}, {b.i("axis", -1)});
  b.output(y);
  if (o.extra_reader) b.output(rot);
  if (o.two) {
    Value* k = b.input("k", kFloat, {"batch", 2, "seq", o.d});
    Value* unused = nullptr;
    b.output(rope(b, o, k, cos, sin, &unused));
  }
  return m;
}

const std::map<std::string, int64_t> kDims = {{"batch", 2}, {"seq", 3}};

std::vector<Node*> ops_of(Model& m, const char* op) {
  std::vector<Node*> out;
  for (Node* n = m.graph->first; n; n = n->next)
    if (m.str(n->op_type) == op) out.push_back(n);
  return out;
}

// The rope model o fused by the rule and swept of dead nodes, beside an unfused copy; `rotary` is
// its one RotaryEmbedding (null, with a failure recorded, when the rule did not make exactly one).
struct FusedRope {
  std::unique_ptr<Model> m, ref;
  Node* rotary = nullptr;
};
FusedRope fuse_rope(const Rope& o) {
  FusedRope f{rope_model(o), rope_model(o)};
  EXPECT_EQ(run_checked(*f.m, "fuse_rotary_embedding").changes, 1);
  run_checked(*f.m, "eliminate_dead_nodes");
  std::vector<Node*> re = ops_of(*f.m, "RotaryEmbedding");
  EXPECT_EQ(re.size(), 1u);
  if (re.size() == 1) f.rotary = re[0];
  return f;
}

// Fuses, checks one RotaryEmbedding reading x and the position ids with caches [P, R/2] equal to
// the table's first values of each pair, and equal outputs.
void expect_fused(const Rope& o) {
  auto [m, ref, n] = fuse_rope(o);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->inputs[0], m->graph->inputs[0].value);
  EXPECT_EQ(n->inputs[3], m->graph->inputs[1].value);
  EXPECT_EQ(attr_int(*m, n, "interleaved", -1), o.interleaved ? 1 : 0);
  EXPECT_EQ(attr_int(*m, n, "rotary_embedding_dim", 0), o.rot);
  int64_t r = o.rot ? o.rot : o.d, h = r / 2;
  for (int i = 1; i <= 2; ++i) {
    const Tensor* t = passes::const_tensor(*m, n->inputs[i]);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->dims.size, 2u);
    EXPECT_EQ(t->dims[0], kP);
    EXPECT_EQ(t->dims[1], h);
    std::vector<float> v = floats_of(t);
    for (int64_t p : {int64_t{0}, int64_t{5}, kP - 1})
      for (int64_t k = 0; k < h; ++k)
        EXPECT_FLOAT_EQ(v[static_cast<size_t>(p * h + k)],
                        static_cast<float>(table_value(i == 2, o.interleaved, r, p, o.interleaved ? 2 * k : k)));
  }
  EXPECT_EQ(ops_of(*m, "Neg").size(), 0u);
  EXPECT_EQ(ops_of(*m, "Mul").size(), 0u);
  expect_same_outputs(*ref, *m, kDims);
}

TEST(PassRotary, HalfFormFusesAtOpset23) {
  expect_fused(Rope{});
}

TEST(PassRotary, OperandOrdersAndAFoldedTable) {
  Rope o;
  o.swapped = true;
  expect_fused(o);
  o.swapped = false;
  o.table_chain = false;  // the shape-chain passes may leave a Gather straight from a [P, R] constant
  expect_fused(o);
  o.table_slice_2d = true;  // or a Slice of its first rows
  expect_fused(o);
}

TEST(PassRotary, InterleavedFormFusesWithInterleaved1) {
  Rope o;
  o.interleaved = true;
  expect_fused(o);
  o.swapped = true;
  o.table_chain = false;
  expect_fused(o);
}

TEST(PassRotary, PartialRotaryBecomesRotaryEmbeddingDim) {
  Rope o;
  o.d = 12;
  o.rot = 8;
  expect_fused(o);
  o.interleaved = true;
  expect_fused(o);
  o.split = true;  // torch.split on the channels
  expect_fused(o);
  o.interleaved = false;
  expect_fused(o);
}

// x [B, S, H, D] (GPT-J applies the rotary before transposing the heads): RotaryEmbedding on
// [B, S, H*D] with num_heads, between two Reshapes.
TEST(PassRotary, SequenceBeforeHeadsBecomesThe3dFormWithNumHeads) {
  for (bool inter : {false, true}) {
    SCOPED_TRACE(inter);
    Rope o;
    o.seq_first = true;
    o.interleaved = inter;
    auto [m, ref, re] = fuse_rope(o);
    ASSERT_NE(re, nullptr);
    EXPECT_EQ(attr_int(*m, re, "num_heads", 0), 2);
    EXPECT_EQ(attr_int(*m, re, "interleaved", -1), inter ? 1 : 0);
    EXPECT_EQ(ops_of(*m, "Reshape").size(), 2u);
    EXPECT_EQ(m->graph->node_count, 3u);
    expect_same_outputs(*ref, *m, kDims);
  }
}

// The exporter's view(b, s, h, -1) leaves the flattened stack's last dim unknown to inference
// (symbolic b and s): it still holds x's element count, so the rule fires (the decoder
// mha_interleaved writes it so).
TEST(PassRotary, InterleavedStackFlattenedWithMinusOneFuses) {
  for (bool seq_first : {false, true}) {
    SCOPED_TRACE(seq_first);
    Rope o;
    o.interleaved = true;
    o.seq_first = seq_first;
    o.flat_minus_one = 1;
    auto [m, ref, re] = fuse_rope(o);
    ASSERT_NE(re, nullptr);
    EXPECT_EQ(attr_int(*m, re, "interleaved", -1), 1);
    EXPECT_EQ(ops_of(*m, "Neg").size(), 0u);
    expect_same_outputs(*ref, *m, kDims);
  }
}

void expect_not_fused(const Rope& o);

// Neighbour: flattened with its sequence and head sizes swapped ([B, H, S, -1] of an [B, S, H, D]
// x): the leading dims are not x's, no fusion.
TEST(PassRotary, NotWhenTheMinusOneFlattenSwapsLeadingDims) {
  Rope o;
  o.interleaved = true;
  o.seq_first = true;
  o.flat_minus_one = 2;
  expect_not_fused(o);
}

void expect_not_fused(const Rope& o) {
  auto m = rope_model(o);
  EXPECT_EQ(run_checked(*m, "fuse_rotary_embedding").changes, 0);
  EXPECT_TRUE(ops_of(*m, "RotaryEmbedding").empty());
}

TEST(PassRotary, NotWhenTheTableHalvesDiffer) {
  Rope o;
  o.halves_differ = true;
  expect_not_fused(o);
  o.interleaved = true;  // pairs differ
  expect_not_fused(o);
}

TEST(PassRotary, NotWhenCosIsNotGatheredFromAConstantByPositionIds) {
  Rope o;
  o.cos_input = true;
  expect_not_fused(o);
  Rope s;
  s.sin_other_ids = true;
  expect_not_fused(s);
}

TEST(PassRotary, NotWithNegOnTheWrongHalf) {
  Rope o;
  o.neg_wrong_half = true;
  expect_not_fused(o);
}

// Below opset 23 there is no RotaryEmbedding: rot(x) * sin becomes Gather(x, perm, axis 3) *
// (sin * sign), one Gather per rotary, and with q and k reading one sin the signed sin is one
// node once duplicates are merged.
void expect_gather_form(Rope o) {
  o.two = true;
  auto ref = rope_model(o);
  auto m = rope_model(o);
  EXPECT_EQ(run_checked(*m, "fuse_rotary_embedding").changes, 2);
  for (const char* pass : {"eliminate_dead_nodes", "eliminate_duplicate_constants", "eliminate_common_subexpressions"})
    run_checked(*m, pass);
  EXPECT_TRUE(ops_of(*m, "RotaryEmbedding").empty());
  EXPECT_TRUE(ops_of(*m, "Neg").empty());
  EXPECT_TRUE(ops_of(*m, "Concat").empty());
  std::vector<int64_t> want(static_cast<size_t>(o.d));
  for (int64_t i = 0; i < o.d; ++i)
    want[static_cast<size_t>(i)] = o.interleaved ? (i % 2 ? i - 1 : i + 1) : (i + o.d / 2) % o.d;
  int on_x = 0, signed_sin = 0;
  for (Node* g : ops_of(*m, "Gather")) {
    if (g->inputs[0] != m->graph->inputs[0].value && m->str(g->inputs[0]->name) != "k") continue;
    ++on_x;
    EXPECT_EQ(attr_int(*m, g, "axis", 0), 3);
    std::vector<int64_t> perm;
    ASSERT_TRUE(passes::read_ints(passes::const_tensor(*m, g->inputs[1]), perm));
    EXPECT_EQ(perm, want);
  }
  for (Node* n : ops_of(*m, "Mul"))
    for (Value* v : {n->inputs[0], n->inputs[1]})
      if (const Tensor* t = passes::const_tensor(*m, v)) {
        std::vector<float> sign = floats_of(t);
        ASSERT_EQ(sign.size(), static_cast<size_t>(o.d));
        EXPECT_EQ(sign[0], -1.0f);
        EXPECT_EQ(sign[1], o.interleaved ? 1.0f : -1.0f);
        EXPECT_EQ(sign[static_cast<size_t>(o.d - 1)], 1.0f);
        ++signed_sin;
      }
  EXPECT_EQ(on_x, 2);
  EXPECT_EQ(signed_sin, 1);
  expect_same_outputs(*ref, *m, kDims);
}

TEST(PassRotary, BelowOpset23RotateHalfBecomesOneGather) {
  Rope o;
  o.opset = 17;
  expect_gather_form(o);
  o.opset = 22;
  o.swapped = true;
  expect_gather_form(o);
}

TEST(PassRotary, BelowOpset23RotateEveryTwoBecomesOneGather) {
  Rope o;
  o.opset = 17;
  o.interleaved = true;
  expect_gather_form(o);
}

// Must not fire below 23 either: Neg on the wrong half is no rotation, and a rot(x) read
// elsewhere stays as it is.
TEST(PassRotary, BelowOpset23NotWhenNotARotationOrReadElsewhere) {
  Rope o;
  o.opset = 17;
  o.neg_wrong_half = true;
  expect_not_fused(o);
  Rope r;
  r.opset = 17;
  r.extra_reader = true;
  expect_not_fused(r);
}

TEST(PassRotary, NotWhenAnIntermediateHasAnotherReader) {
  Rope r;
  r.extra_reader = true;
  expect_not_fused(r);
}

// Ids [1, S] shared by every batch row (an export that makes them with Range): RotaryEmbedding
// takes [B, S] only, so they are expanded to x's batch.
TEST(PassRotary, IdsOfOneRowAreExpandedToTheBatch) {
  Rope o;
  o.batch_one_ids = true;
  auto [m, ref, re] = fuse_rope(o);
  ASSERT_NE(re, nullptr);
  Node* ex = re->inputs[3]->producer;
  ASSERT_NE(ex, nullptr);
  EXPECT_EQ(m->str(ex->op_type), "Expand");
  EXPECT_EQ(ex->inputs[0], m->graph->inputs[1].value);
  expect_same_outputs(*ref, *m, kDims);
}

// q and k share cos/sin: both fuse, and the whole pipeline leaves one cos and one sin cache.
TEST(PassRotary, QAndKShareTheCaches) {
  Rope o;
  o.two = true;
  auto m = rope_model(o);
  auto ref = rope_model(o);
  passes::PipelineOptions po;
  passes::optimize(m, po);
  std::vector<Node*> re = ops_of(*m, "RotaryEmbedding");
  ASSERT_EQ(re.size(), 2u);
  EXPECT_EQ(re[0]->inputs[1], re[1]->inputs[1]);
  EXPECT_EQ(re[0]->inputs[2], re[1]->inputs[2]);
  EXPECT_EQ(m->graph->node_count, 2u);
  expect_same_outputs(*ref, *m, kDims);
}

// ---- lowering (src/convert/adapters_lowering_rotary.cpp)

std::unique_ptr<Model> lowered(Model& m, int64_t to) {
  std::unique_ptr<Model> c = copy_model(m);
  convert::convert_opset(*c, to);
  EXPECT_EQ(c->opset_version(""), to);
  EXPECT_EQ(check_consistency(*c), "");
  EXPECT_TRUE(ops_of(*c, "RotaryEmbedding").empty());
  return c;
}

// RotaryEmbedding as written at opset 23: x [B, 2, S, d] (or [B, S, 2*d] with num_heads),
// caches [P, R/2] constants (or inputs), position ids (or caches [B, S, R/2] without them).
struct Op {
  bool interleaved = false;
  int64_t d = 8, rot = 0;
  bool three_d = false, cache_inputs = false, no_ids = false;
  bool heads_attr = true;  // num_heads given (with three_d)
};

std::unique_ptr<Model> op_model(const Op& o) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  int64_t r = o.rot ? o.rot : o.d, h = r / 2;
  Value* x = o.three_d ? b.input("x", kFloat, {"batch", "seq", 2 * o.d}) : b.input("x", kFloat, {"batch", 2, "seq", o.d});
  Value* caches[2];
  for (int i = 0; i < 2; ++i) {
    if (o.no_ids) {
      caches[i] = b.input(i ? "sin" : "cos", kFloat, {"batch", "seq", h});
    } else if (o.cache_inputs) {
      caches[i] = b.input(i ? "sin" : "cos", kFloat, {kP, h});
    } else {
      std::vector<float> v(static_cast<size_t>(kP * h));
      for (int64_t p = 0; p < kP; ++p)
        for (int64_t k = 0; k < h; ++k) v[static_cast<size_t>(p * h + k)] = static_cast<float>(table_value(i == 1, false, r, p, k));
      caches[i] = b.initializer(i ? "sin_cache" : "cos_cache", {kP, h}, v);
    }
  }
  std::vector<Value*> in = {x, caches[0], caches[1]};
  if (!o.no_ids) in.push_back(b.input("position_ids", kInt64, {"batch", "seq"}));
  std::vector<Attribute> attrs = {b.i("interleaved", o.interleaved ? 1 : 0)};
  if (o.rot) attrs.push_back(b.i("rotary_embedding_dim", o.rot));
  if (o.three_d && o.heads_attr) attrs.push_back(b.i("num_heads", 2));
  b.output(b.op("RotaryEmbedding", in, attrs));
  return m;
}

TEST(ConvertRotary, LoweredTo17ComputesTheSame) {
  std::vector<Op> forms(8);
  forms[1].interleaved = true;
  forms[2].d = 12, forms[2].rot = 8;
  forms[3].d = 12, forms[3].rot = 8, forms[3].interleaved = true;
  forms[4].three_d = true;
  forms[5].cache_inputs = true;
  forms[6].cache_inputs = true, forms[6].interleaved = true;
  forms[7].no_ids = true;
  for (size_t i = 0; i < forms.size(); ++i) {
    SCOPED_TRACE(i);
    auto m = op_model(forms[i]);
    for (int64_t to : {int64_t{17}, int64_t{11}}) {
      SCOPED_TRACE(to);
      auto low = lowered(*m, to);
      EXPECT_EQ(ops_of(*low, "Neg").size(), 1u);
      expect_same_outputs(*m, *low, kDims);
    }
  }
}

// The decomposition is the export form the rule recognises: raised again and optimized, the
// model has its RotaryEmbedding back (half and interleaved, constant caches).
TEST(ConvertRotary, LoweredFormFusesBackAt23) {
  for (bool inter : {false, true}) {
    SCOPED_TRACE(inter);
    Op o;
    o.interleaved = inter;
    auto m = op_model(o);
    auto low = lowered(*m, 17);
    convert::convert_opset(*low, 23);
    passes::PipelineOptions po;
    passes::optimize(low, po);
    std::vector<Node*> re = ops_of(*low, "RotaryEmbedding");
    ASSERT_EQ(re.size(), 1u);
    EXPECT_EQ(attr_int(*low, re[0], "interleaved", -1), inter ? 1 : 0);
    EXPECT_EQ(low->graph->node_count, 1u);
    expect_same_outputs(*m, *low, kDims);
  }
}

TEST(ConvertRotary, RefusedBelowOpset10) {
  auto m = op_model(Op{});
  expect_refused(*m, 9, {"RotaryEmbedding", "opset 10"});
  EXPECT_EQ(ops_of(*m, "RotaryEmbedding").size(), 1u);  // nothing changed
}

// A node the decomposition cannot express is refused with why, and nothing changes.
TEST(ConvertRotary, RefusedWithWhyForAnOddRotaryDimOrA3dInputWithoutHeads) {
  Op odd;
  odd.d = 12, odd.rot = 7;
  Op three;
  three.three_d = true;
  three.heads_attr = false;
  for (auto& [o, why] : {std::pair<Op, const char*>{odd, "must be even"}, {three, "needs num_heads"}}) {
    auto m = op_model(o);
    expect_refused(*m, 17, {why});
    EXPECT_EQ(ops_of(*m, "RotaryEmbedding").size(), 1u);
    EXPECT_EQ(m->opset_version(""), 23);
  }
}

}  // namespace
}  // namespace ofg::test
