// fuse_attention and the Attention lowering: the grouped-query decoder form with a KV cache and
// the -FLT_MAX clamp (must fire, same outputs, present outputs keep their names), what stops it
// (opset, Softmax axis, a non-constant scale, scores read elsewhere), and Attention at 23 lowered
// to 17 computing the same.
#include <cmath>
#include <functional>
#include <limits>

#include "convert/opset_convert.h"
#include "ir/error.h"
#include "ir/snapshot.h"
#include "onnx/serialize.h"
#include "passes/pipeline.h"
#include "support/test_support.h"
#include "support/convert_support.h"
#include "verify/given_inputs.h"
#include "passes_test_util.h"
#include "passes_verify_util.h"
#include "verify/verify.h"

namespace ofg::test {
namespace {

// Q, K and V as graph inputs of the given shapes.
struct Qkv {
  Value *q, *k, *v;
};
Qkv qkv_inputs(GraphBuilder& b, std::vector<DimSpec> q, std::vector<DimSpec> k, std::vector<DimSpec> v) {
  return {b.input("q", kFloat, std::move(q)), b.input("k", kFloat, std::move(k)), b.input("v", kFloat, std::move(v))};
}

// K^T of a [B, H, S, D] key.
Value* keys_transposed(GraphBuilder& b, Value* k) { return b.op("Transpose", {k}, {b.ints("perm", {0, 1, 3, 2})}); }

// Softmax over the last axis of the scores, times V.
Value* weighted_values(GraphBuilder& b, Value* scores, Value* v) {
  return b.op("MatMul", {b.op("Softmax", {scores}, {b.i("axis", -1)}), v});
}

// The only Attention node of the main graph (null when there is none).
Node* attention_node(Model& m) {
  Node* att = nullptr;
  for (Node* n = m.graph->first; n; n = n->next)
    if (m.str(n->op_type) == "Attention") att = n;
  return att;
}

// Builds the model twice, fuses one copy (one rewrite, one Attention, no Softmax) and compares
// its outputs with the other's; returns the fused model for further checks.
std::unique_ptr<Model> expect_fuses_once(const std::function<std::unique_ptr<Model>()>& build, std::map<std::string, int64_t> dims = {}) {
  auto m = build();
  auto ref = build();
  EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 1);
  EXPECT_EQ(count_op(m->graph, "Attention"), 1);
  EXPECT_EQ(count_op(m->graph, "Softmax"), 0);
  expect_same_outputs(*ref, *m, dims);
  return m;
}

struct Form {
  int64_t opset = 23;
  int64_t softmax_axis = -1;
  bool scale_input = false;    // the scale is a graph input, not a constant
  bool scores_output = false;  // the masked scores are also a graph output
};

// B=2, Hq=4 query heads over Hk=2 kv heads, S=3 new and P=2 cached positions (T=5), D=4; the
// cache is Concat(past, new) and repeat_kv is Unsqueeze(2)/Expand/Reshape. The mask has a row
// of -inf (causal + padding added) for every key of query 0: the Max clamp makes that row
// uniform, which the fused form must keep.
std::unique_ptr<Model> gqa(const Form& f) {
  auto m = new_model(f.opset);
  GraphBuilder b(*m);
  auto [q, k, v] = qkv_inputs(b, {2, 4, 3, 4}, {2, 2, 3, 4}, {2, 2, 3, 4});
  Value* pk = b.input("past_key", kFloat, {2, 2, 2, 4});
  Value* pv = b.input("past_value", kFloat, {2, 2, 2, 4});
  Value* present_k = b.op("Concat", {pk, k}, {b.i("axis", 2)}, "present_key");
  Value* present_v = b.op("Concat", {pv, v}, {b.i("axis", 2)}, "present_value");
  Value* axes = b.initializer_i64("axis2", {1}, {2});
  Value* to = b.initializer_i64("to", {5}, {2, 2, 2, 5, 4});
  Value* heads = b.initializer_i64("heads", {4}, {0, 4, -1, 4});
  auto repeat = [&](Value* x) { return b.op("Reshape", {b.op("Expand", {b.op("Unsqueeze", {x, axes}), to}), heads}); };
  Value* kt = b.op("Transpose", {repeat(present_k)}, {b.ints("perm", {0, 1, 3, 2})});
  Value* s = b.op("MatMul", {q, kt});
  Value* scale = f.scale_input ? b.input("scale", kFloat, {}) : b.initializer("sqrt_d", {}, {2.0f});
  s = b.op("Div", {s, scale});
  const float lo = -std::numeric_limits<float>::max();
  std::vector<float> mask(2 * 3 * 5, 0.0f);
  for (int bb = 0; bb < 2; ++bb)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        float& e = mask[static_cast<size_t>((bb * 3 + i) * 5 + j)];
        if (i == 0) e = -std::numeric_limits<float>::infinity();
        else if (j > i + 2) e = lo;
      }
  Value* masked = b.op("Add", {s, b.initializer("mask", {2, 1, 3, 5}, mask)});
  Value* clamped = b.op("Max", {masked, b.initializer("lowest", {}, {lo})});
  Value* p = b.op("Softmax", {clamped}, {b.i("axis", f.softmax_axis)});
  b.output(b.op("MatMul", {p, repeat(present_v)}, {}, "y"));
  b.output(present_k);
  b.output(present_v);
  if (f.scores_output) b.output(masked);
  return m;
}

TEST(PassFuseAttention, GroupedQueryWithCacheAndClampFuses) {
  auto m = expect_fuses_once([] { return gqa({}); });
  EXPECT_EQ(count_op(m->graph, "Concat"), 0);  // the cache is Attention's past/present now
  Node* att = attention_node(*m);
  ASSERT_NE(att, nullptr);
  ASSERT_EQ(att->outputs.size, 3u);
  EXPECT_EQ(m->str(att->outputs[0]->name), "y");
  EXPECT_EQ(m->str(att->outputs[1]->name), "present_key");
  EXPECT_EQ(m->str(att->outputs[2]->name), "present_value");
  EXPECT_EQ(m->str(att->inputs[1]->name), "k");  // read before repeat_kv and before the Concat
  EXPECT_EQ(m->str(att->inputs[4]->name), "past_key");
  EXPECT_FLOAT_EQ(attr_float(*m, att, "scale", 0), 0.5f);
  EXPECT_EQ(count_op(m->graph, "Max"), 1);  // the clamp moved onto the mask
}

TEST(PassFuseAttention, NotWhereTheFormDiffers) {
  Form below;
  below.opset = 17;  // no Attention before 23 (the user raises it with --target-opset)
  Form axis;
  axis.softmax_axis = 2;
  Form scale;
  scale.scale_input = true;
  Form read;
  read.scores_output = true;
  for (const Form& f : {below, axis, scale, read}) {
    auto m = gqa(f);
    EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 0);
    EXPECT_EQ(count_op(m->graph, "Attention"), 0);
    EXPECT_EQ(count_op(m->graph, "Softmax"), 1);
  }
}

// repeat_kv alone (kv [2,2,3,4] -> [2,4,3,4]) at opset 17; `reshape_to` says how the Reshape
// merges the copies, `expand_read` makes the Expand's output a graph output too.
std::unique_ptr<Model> repeat_kv(std::vector<int64_t> reshape_to, bool expand_read) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* kv = b.input("kv", kFloat, {2, 2, 3, 4});
  Value* ex = b.op("Expand", {b.op("Unsqueeze", {kv, b.initializer_i64("axes", {1}, {2})}),
                              b.initializer_i64("to", {5}, {2, 2, 2, 3, 4})});
  b.output(b.op("Reshape", {ex, b.initializer_i64("merged", {4}, reshape_to)}, {}, "y"));
  if (expand_read) b.output(ex);
  return m;
}

TEST(PassFuseAttention, RepeatKvBecomesOneGather) {
  auto m = repeat_kv({0, 4, -1, 4}, false);
  auto ref = repeat_kv({0, 4, -1, 4}, false);
  EXPECT_EQ(run_checked(*m, "cleanup_attention").changes, 1);
  run_checked(*m, "eliminate_unused_initializers");
  ASSERT_EQ(m->graph->node_count, 1u);
  Node* g = m->graph->first;
  EXPECT_EQ(m->str(g->op_type), "Gather");
  EXPECT_EQ(attr_int(*m, g, "axis", 0), 1);
  std::vector<int64_t> idx;
  ASSERT_TRUE(passes::read_ints(passes::const_tensor(*m, g->inputs[1]), idx));
  EXPECT_EQ(idx, (std::vector<int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(m->str(g->outputs[0]->name), "y");
  expect_same_outputs(*ref, *m);
}

TEST(PassFuseAttention, RepeatKvStaysWhenReadElsewhereOrMergedOtherwise) {
  auto read = repeat_kv({0, 4, -1, 4}, true);
  EXPECT_EQ(run_checked(*read, "cleanup_attention").changes, 0);
  auto seq = repeat_kv({0, 2, -1, 4}, false);  // the copies merged into the sequence axis
  EXPECT_EQ(run_checked(*seq, "cleanup_attention").changes, 0);
  EXPECT_EQ(count_op(seq->graph, "Expand"), 1);
}

// The Gather form of repeat_kv is read through like the Expand form: one Attention on the kv
// heads, same outputs.
TEST(PassFuseAttention, GroupedQueryFusesThroughTheGatherForm) {
  auto m = gqa({});
  auto ref = gqa({});
  EXPECT_EQ(run_checked(*m, "cleanup_attention").changes, 2);
  EXPECT_EQ(count_op(m->graph, "Gather"), 2);
  EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 1);
  Node* att = attention_node(*m);
  ASSERT_NE(att, nullptr);
  EXPECT_EQ(m->str(att->inputs[1]->name), "k");
  expect_same_outputs(*ref, *m);
}

// Multi-query by MatMul broadcasting is not matched as GQA (K has 1 head, no repeat_kv) but the
// plain form with K from a [B,S,H,D] tensor (BERT/GPT's Transpose(0,2,3,1)) and a Where mask is.
TEST(PassFuseAttention, WhereMaskAndKeyTransposeFromSequenceLayout) {
  auto build = [] {
    auto m = new_model(23);
    GraphBuilder b(*m);
    auto [q, kr, v] = qkv_inputs(b, {2, 2, 3, 4}, {2, 3, 2, 4}, {2, 2, 3, 4});
    Value* kt = b.op("Transpose", {kr}, {b.ints("perm", {0, 2, 3, 1})});
    Value* s = b.op("Mul", {b.op("MatMul", {q, kt}), b.initializer("c", {}, {0.5f})});
    uint8_t causal[9] = {0, 0, 0, 1, 1, 0, 1, 1, 1};  // query 0 sees nothing: a uniform row in both
    Value* cond = b.initializer("causal", kBool, {1, 1, 3, 3}, causal, 9);
    Value* w = b.op("Where", {cond, s, b.initializer("neg", {}, {-std::numeric_limits<float>::max()})});
    b.output(weighted_values(b, w, v));
    return m;
  };
  expect_fuses_once(build);
}

// GPT-J style: Q pre-scaled, a KV cache, Where(causal, S, lowest) plus a padding mask
// (1 - m) * lowest. Batch row 1 pads keys 0..2, so query 0 (which keeps keys 0..2) has all its
// kept keys padded: the original spreads that row over its kept keys (S + lowest = lowest) and its
// causally masked unpadded keys (lowest + 0), -inf elsewhere; the fused mask must give the same.
std::unique_ptr<Model> causal_and_padding(float neg) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  auto [q, k, v] = qkv_inputs(b, {2, 2, 3, 4}, {2, 2, 3, 4}, {2, 2, 3, 4});
  Value* pk = b.input("past_key", kFloat, {2, 2, 2, 4});
  Value* pv = b.input("past_value", kFloat, {2, 2, 2, 4});
  Value* present_k = b.op("Concat", {pk, k}, {b.i("axis", 2)}, "present_key");
  Value* present_v = b.op("Concat", {pv, v}, {b.i("axis", 2)}, "present_value");
  Value* kt = keys_transposed(b, present_k);
  Value* s = b.op("MatMul", {b.op("Mul", {q, b.initializer("c", {}, {0.5f})}), kt});
  uint8_t causal[15];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) causal[i * 5 + j] = j <= i + 2 ? 1 : 0;
  Value* cond = b.initializer("causal", kBool, {1, 1, 3, 5}, causal, 15);
  const float lo = -std::numeric_limits<float>::max();
  std::vector<float> pad(10, 0.0f);
  for (int j = 0; j < 3; ++j) pad[static_cast<size_t>(5 + j)] = lo;
  Value* w = b.op("Where", {cond, s, b.initializer("neg", {}, {neg})});
  Value* sc = b.op("Add", {w, b.initializer("pad", {2, 1, 1, 5}, pad)});
  b.output(b.op("MatMul", {b.op("Softmax", {sc}, {b.i("axis", -1)}), present_v}, {}, "y"));
  b.output(present_k);
  b.output(present_v);
  return m;
}

TEST(PassFuseAttention, CausalWhereAndPaddingAddTogether) {
  const float lo = -std::numeric_limits<float>::max();
  auto m = expect_fuses_once([lo] { return causal_and_padding(lo); });
  EXPECT_EQ(count_op(m->graph, "Concat"), 0);  // the cache is Attention's past/present now
  Node* att = attention_node(*m);
  ASSERT_NE(att, nullptr);
  ASSERT_EQ(att->inputs.size, 6u);
  EXPECT_FLOAT_EQ(attr_float(*m, att, "scale", 0), 0.5f);
}

// Neighbour: the Where's negative is -1e4, not the float lowest: S + (neg + pad) would not be
// neg + pad (S is not absorbed), so the combined form stays.
TEST(PassFuseAttention, NotCausalWhereAndPaddingWithASmallNegative) {
  auto m = causal_and_padding(-1e4f);
  EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Attention"), 0);
}

// Head counts inference cannot prove (symbolic) leave the pattern alone: Attention needs the q
// heads to be a multiple of the kv heads, which nothing here guarantees.
TEST(PassFuseAttention, NotWithUnknownHeadCounts) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  auto [q, k, v] = qkv_inputs(b, {2, "heads", 3, 4}, {2, "kv_heads", 3, 4}, {2, "kv_heads", 3, 4});
  Value* kt = keys_transposed(b, k);
  Value* s = b.op("Mul", {b.op("MatMul", {q, kt}), b.initializer("c", {}, {0.5f})});
  b.output(weighted_values(b, s, v));
  EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 0);
  EXPECT_EQ(count_op(m->graph, "Attention"), 0);
}

// nn.MultiheadAttention's batch-of-heads form (ViT): Q [B*H,S,D] scaled before the product, K^T
// = Transpose(K [S,B*H,D], [1,2,0]), no mask: one Attention over Unsqueeze(0) of Q/K/V, Squeeze(0)
// of Y; the same outputs, and lowered to 17 the same again.
TEST(PassFuseAttention, BatchOfHeadsRank3) {
  auto build = [] {
    auto m = new_model(23);
    GraphBuilder b(*m);
    auto [q, k, v] = qkv_inputs(b, {"bh", 3, 4}, {3, "bh", 4}, {"bh", 3, 4});
    Value* qs = b.op("Div", {q, b.initializer("c", {}, {2.0f})});
    Value* kt = b.op("Transpose", {k}, {b.ints("perm", {1, 2, 0})});
    b.output(weighted_values(b, b.op("MatMul", {qs, kt}), v));
    return m;
  };
  auto m = expect_fuses_once(build, {{"bh", 6}});
  auto ref = build();
  auto down = copy_model(*m);
  convert::convert_opset(*down, 17);
  EXPECT_EQ(count_op(down->graph, "Attention"), 0);
  expect_same_outputs(*ref, *down, {{"bh", 6}});
}

// The mask computed by a Mul read only by the mask Add, and written first (Add(mask, scores)):
// the scores are still told apart (the Div of the MatMul).
TEST(PassFuseAttention, MaskFromItsOwnMulWrittenFirst) {
  auto build = [] {
    auto m = new_model(23);
    GraphBuilder b(*m);
    auto [q, k, v] = qkv_inputs(b, {2, 2, 3, 4}, {2, 2, 3, 4}, {2, 2, 3, 4});
    Value* keep = b.input("keep", kFloat, {2, 1, 3, 3});
    Value* kt = keys_transposed(b, k);
    Value* s = b.op("Div", {b.op("MatMul", {q, kt}), b.initializer("c", {}, {2.0f})});
    Value* mask = b.op("Mul", {keep, b.initializer("big", {}, {-10000.0f})});
    b.output(weighted_values(b, b.op("Add", {mask, s}), v));
    return m;
  };
  auto m = expect_fuses_once(build);
  EXPECT_EQ(count_op(m->graph, "Mul"), 1);  // the mask's own Mul stays
}

// BERT/GPT-2 layout: Q, K, V split into heads from [B,S,E] (Reshape [0,0,H,D] + Transpose) and Y
// merged back (Transpose + Reshape [0,0,E]), with a [B,1,1,T] padding mask: fused, then the
// 3-D form (q_num_heads/kv_num_heads) takes the splits and the merge; same outputs, and lowered
// to 17 the same again.
TEST(PassFuseAttention, HeadSplitsBecomeThe3DForm) {
  auto build = [] {
    auto m = new_model(23);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2, 3, 8});
    Value* split = b.initializer_i64("split", {4}, {0, 0, 2, 4});
    auto heads = [&](const char* w, std::vector<int64_t> perm) {
      Value* p = b.op("MatMul", {x, b.initializer(w, {8, 8}, std::vector<float>(64, 0.1f))});
      return b.op("Transpose", {b.op("Reshape", {p, split})}, {b.ints("perm", perm)});
    };
    Value* q = heads("wq", {0, 2, 1, 3});
    Value* kt = heads("wk", {0, 2, 3, 1});
    Value* v = heads("wv", {0, 2, 1, 3});
    Value* s = b.op("Div", {b.op("MatMul", {q, kt}), b.initializer("c", {}, {2.0f})});
    Value* mask = b.initializer("pad", {2, 1, 1, 3}, {0, 0, 0, 0, 0, -10000.0f});
    Value* y = weighted_values(b, b.op("Add", {s, mask}), v);
    Value* t = b.op("Transpose", {y}, {b.ints("perm", {0, 2, 1, 3})});
    b.output(b.op("Reshape", {t, b.initializer_i64("merge", {3}, {0, 0, 8})}));
    return m;
  };
  auto m = build();
  auto ref = build();
  EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 1);
  EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 1);  // the new Attention node, 4-D -> 3-D
  run_checked(*m, "eliminate_dead_nodes");
  ASSERT_EQ(count_op(m->graph, "Attention"), 1);
  EXPECT_EQ(count_op(m->graph, "Transpose"), 0);
  EXPECT_EQ(count_op(m->graph, "Reshape"), 0);
  for (Node* n = m->graph->first; n; n = n->next)
    if (m->str(n->op_type) == "Attention") {
      EXPECT_EQ(attr_int(*m, n, "q_num_heads", 0), 2);
      EXPECT_EQ(attr_int(*m, n, "kv_num_heads", 0), 2);
    }
  expect_same_outputs(*ref, *m);
  auto down = copy_model(*m);
  convert::convert_opset(*down, 17);
  EXPECT_EQ(count_op(down->graph, "Attention"), 0);
  expect_same_outputs(*ref, *down);
}

// A padding mask [B,1,1,T] (BERT) broadcasts along the query axis: the fused form expands it to
// Q's length ([B,1,S,T]), which ONNX Runtime requires of Attention's mask.
TEST(PassFuseAttention, PaddingMaskExpandedAlongQueries) {
  auto build = [] {
    auto m = new_model(23);
    GraphBuilder b(*m);
    auto [q, k, v] = qkv_inputs(b, {2, 2, 3, 4}, {2, 2, 3, 4}, {2, 2, 3, 4});
    Value* kt = keys_transposed(b, k);
    Value* s = b.op("Div", {b.op("MatMul", {q, kt}), b.initializer("c", {}, {2.0f})});
    Value* mask = b.initializer("pad", {2, 1, 1, 3}, {0, 0, 0, 0, 0, -10000.0f});
    b.output(weighted_values(b, b.op("Add", {s, mask}), v));
    return m;
  };
  auto m = expect_fuses_once(build);
  EXPECT_EQ(count_op(m->graph, "Expand"), 1);
}

// Attention (23) with grouped-query heads, a KV cache and a boolean mask, lowered to 17: same
// outputs (verified by execution), no Attention left, present_* keep their names.
TEST(PassFuseAttention, LoweredTo17ComputesTheSame) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  auto [q, k, v] = qkv_inputs(b, {2, 4, 3, 4}, {2, 2, 3, 4}, {2, 2, 3, 4});
  Value* pk = b.input("past_key", kFloat, {2, 2, 2, 4});
  Value* pv = b.input("past_value", kFloat, {2, 2, 2, 4});
  uint8_t keep[15];
  for (int i = 0; i < 15; ++i) keep[i] = (i % 5) <= (i / 5) + 2;
  Value* mask = b.initializer("mask", kBool, {3, 5}, keep, 15);
  Node* att = b.node("Attention", {q, k, v, mask, pk, pv}, 3, {b.f("scale", 0.3f)}, {"y", "present_key", "present_value"});
  for (uint32_t i = 0; i < 3; ++i) b.output(att->outputs[i]);
  auto down = copy_model(*m);
  convert::convert_opset(*down, 17);
  EXPECT_EQ(down->opset_version(""), 17);
  EXPECT_EQ(check_consistency(*down), "");
  EXPECT_EQ(count_op(down->graph, "Attention"), 0);
  EXPECT_EQ(count_op(down->graph, "Softmax"), 1);
  EXPECT_EQ(count_op(down->graph, "Expand"), 2);  // repeat_kv for K and V
  verify::Options o;
  verify::Report r = verify::verify_models(*m, *down, o);
  EXPECT_TRUE(r.passed) << r.to_json();
  // and raised again, the fusion finds it
  auto up = copy_model(*down);
  convert::convert_opset(*up, 23);
  EXPECT_EQ(run_checked(*up, "eliminate_identity_ops").changes >= 0, true);
  EXPECT_EQ(run_checked(*up, "fuse_attention").changes, 1);
}

// is_causal lowered to 17 (Range-built mask, the past length added to the query positions)
// computes what Attention computes, with and without a cache; below 11 (no Range) it is refused
// with the reason, naming the node.
TEST(PassFuseAttention, IsCausalLoweredTo17ComputesTheSame) {
  for (bool past : {false, true}) {
    auto m = new_model(23);
    GraphBuilder b(*m);
    auto [q, k, v] = qkv_inputs(b, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4});
    std::vector<Value*> ins{q, k, v};
    if (past) {
      ins.push_back(nullptr);
      ins.push_back(b.input("past_key", kFloat, {1, 2, 2, 4}));
      ins.push_back(b.input("past_value", kFloat, {1, 2, 2, 4}));
    }
    Node* att = b.node("Attention", ins, past ? 3 : 1, {b.i("is_causal", 1)}, {"y", "present_key", "present_value"});
    for (uint32_t i = 0; i < att->outputs.size; ++i) b.output(att->outputs[i]);
    auto down = copy_model(*m);
    convert::convert_opset(*down, 17);
    EXPECT_EQ(check_consistency(*down), "");
    EXPECT_EQ(count_op(down->graph, "Attention"), 0);
    EXPECT_EQ(count_op(down->graph, "Range"), 2);
    verify::Options o;
    verify::Report r = verify::verify_models(*m, *down, o);
    EXPECT_TRUE(r.passed) << "past " << past << ": " << r.to_json();
  }
  auto m = new_model(23);
  GraphBuilder b(*m);
  auto [q, k, v] = qkv_inputs(b, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4});
  b.output(b.node("Attention", {q, k, v}, 1, {b.i("is_causal", 1)}, {"y"}, "")->outputs[0]);
  b.graph()->first->name = m->intern("att");
  expect_refused(*m, 10, {"is_causal is lowered with Range", "att"});
}

// Attention(q, k, v, mask) with a causal mask in the forms exports write: positions from
// Range(0, seq) compared (j <= i, or i >= j) into a boolean or a Where(., 0, neg) additive mask,
// or the folded constant of either. `start` and `neg` vary what must not fire.
enum class MaskForm { kWhere, kBool, kGreaterEqual, kConstBool, kConstAdditive, kConstUpper };
std::unique_ptr<Model> causal_mask_model(MaskForm form, int64_t start = 0, float neg = -1e30f, bool with_past = false,
                                         bool scores_out = false) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  const bool fixed = form == MaskForm::kConstBool || form == MaskForm::kConstAdditive || form == MaskForm::kConstUpper;
  DimSpec s = fixed ? DimSpec(4) : DimSpec("s");
  auto [q, k, v] = qkv_inputs(b, {1, 2, s, 8}, {1, 2, s, 8}, {1, 2, s, 8});
  Value* mask = nullptr;
  if (!fixed) {
    Value* n = b.op("Gather", {b.op("Shape", {q}), b.initializer_i64("two", {}, {2})}, {b.i("axis", 0)});
    auto pos = [&](int64_t axis) {
      Value* r = b.op("Range", {b.initializer_i64("start" + std::to_string(axis), {}, {axis ? start : 0}), n, b.initializer_i64("step" + std::to_string(axis), {}, {1})});
      return b.op("Unsqueeze", {r, b.initializer_i64("ax" + std::to_string(axis), {1}, {axis})});
    };
    Value* cols = pos(0);  // j as a row [1, s]
    Value* rows = pos(1);  // i as a column [s, 1]
    Value* cond = form == MaskForm::kGreaterEqual ? b.op("GreaterOrEqual", {rows, cols}) : b.op("LessOrEqual", {cols, rows});
    cond = b.op("Unsqueeze", {cond, b.initializer_i64("lead", {2}, {0, 1})});
    mask = form == MaskForm::kBool ? cond
                                   : b.op("Where", {cond, b.initializer("zero", {}, {0.0f}), b.initializer("neg", {}, {neg})});
  } else {
    std::vector<float> add(16);
    uint8_t keep[16];
    for (int i = 0; i < 16; ++i) {
      bool seen = form == MaskForm::kConstUpper ? (i % 4) >= (i / 4) : (i % 4) <= (i / 4);
      keep[i] = seen;
      add[i] = seen ? 0.0f : neg;
    }
    mask = form == MaskForm::kConstBool ? b.initializer("mask", kBool, {1, 1, 4, 4}, keep, 16) : b.initializer("mask", {4, 4}, add);
  }
  std::vector<Value*> ins{q, k, v, mask};
  if (with_past) {
    ins.push_back(b.input("past_key", kFloat, {1, 2, 0, 8}));
    ins.push_back(b.input("past_value", kFloat, {1, 2, 0, 8}));
  }
  Node* att = scores_out ? b.node("Attention", ins, 4, {b.i("qk_matmul_output_mode", 2)}, {"y", "", "", "scores"})
                         : b.node("Attention", ins, with_past ? 3 : 1, {}, {"y", "present_key", "present_value"});
  for (uint32_t i = 0; i < att->outputs.size; ++i)
    if (!scores_out || i == 0 || i == 3) b.output(att->outputs[i]);
  return m;
}

TEST(PassFuseAttention, CausalMaskBecomesIsCausal) {
  for (MaskForm f : {MaskForm::kWhere, MaskForm::kBool, MaskForm::kGreaterEqual, MaskForm::kConstBool, MaskForm::kConstAdditive}) {
    auto m = causal_mask_model(f);
    auto ref = causal_mask_model(f);
    EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 1) << static_cast<int>(f);
    Node* att = attention_node(*m);
    ASSERT_NE(att, nullptr);
    EXPECT_EQ(attr_int(*m, att, "is_causal", 0), 1);
    EXPECT_EQ(att->inputs.size, 3u);  // no mask, no empty trailing input
    run_checked(*m, "eliminate_dead_nodes");
    EXPECT_EQ(count_op(m->graph, "Range"), 0);
    expect_same_outputs(*ref, *m, {{"s", 5}});
  }
}

TEST(PassFuseAttention, NotCausalWhenTheMaskOrAlignmentDiffers) {
  struct Case {
    MaskForm form;
    int64_t start;
    float neg;
    bool past;
    bool scores;
    const char* what;
  } cases[] = {{MaskForm::kConstUpper, 0, -1e30f, false, false, "j >= i"},
               {MaskForm::kWhere, 1, -1e30f, false, false, "query positions from 1"},
               {MaskForm::kWhere, 0, -10.0f, false, false, "a masked score of -10 is not -inf after softmax"},
               {MaskForm::kWhere, 0, -1e30f, true, false, "with a cache is_causal aligns to the past length"},
               {MaskForm::kWhere, 0, -1e30f, false, true, "the masked scores are an output"}};
  for (const Case& c : cases) {
    auto m = causal_mask_model(c.form, c.start, c.neg, c.past, c.scores);
    EXPECT_EQ(run_checked(*m, "fuse_attention").changes, 0) << c.what;
    EXPECT_EQ(attr_int(*m, attention_node(*m), "is_causal", 0), 0) << c.what;
  }
}

}  // namespace
}  // namespace ofg::test

namespace ofg::test {
namespace {

// The shared LLaMA-style decoder (opset 17, GQA 8 over 2 heads, KV cache, causal + padding mask
// with the -FLT_MAX clamp): raised to 23 and optimized it has 4 Attention and matches the
// original on both test sets (prefill with a left-padded row, decode); lowered back to 17 it
// still matches and has no Attention.
TEST(PassFuseAttention, LlamaTinyAt23AndBack) {
  const std::string dir = data_dir() + "/models/llama_tiny_dirty";
  if (!file_exists(dir + "/model.onnx")) GTEST_SKIP() << "no " << dir;
  auto ref = load_model_file(dir + "/model.onnx", {});
  auto m = load_model_file(dir + "/model.onnx", {});
  convert::convert_opset(*m, 23);
  passes::optimize(m, passes::PipelineOptions{});
  EXPECT_EQ(check_consistency(*m), "");
  EXPECT_EQ(count_op(m->graph, "Attention"), 4);
  EXPECT_EQ(count_op(m->graph, "Softmax"), 0);
  // grouped-query with the cache: K/V read before repeat_kv (2 heads), past in, present out
  // (repeat_kv's Expand is read through although its shape comes from Shape(present))
  for (Node* n = m->graph->first; n; n = n->next) {
    if (m->str(n->op_type) != "Attention") continue;
    ASSERT_EQ(n->inputs.size, 6u);
    EXPECT_EQ(std::string(m->str(n->inputs[4]->name)).rfind("past_key_values.", 0), 0u);
    ASSERT_EQ(n->outputs.size, 3u);
    EXPECT_EQ(std::string(m->str(n->outputs[1]->name)).rfind("present.", 0), 0u);
  }
  EXPECT_EQ(count_op(m->graph, "Expand"), 2);  // the two of the mask; the 8 of repeat_kv are gone
  verify::Options o;
  o.given = verify::read_given_inputs(*ref, dir, {}, "test");
  ASSERT_EQ(o.given.size(), 2u);
  verify::Report r = verify::verify_models(*ref, *m, o);
  EXPECT_TRUE(r.passed) << r.to_json();
  auto down = copy_model(*m);
  convert::convert_opset(*down, 17);
  EXPECT_EQ(check_consistency(*down), "");
  EXPECT_EQ(count_op(down->graph, "Attention"), 0);
  verify::Report rd = verify::verify_models(*ref, *down, o);
  EXPECT_TRUE(rd.passed) << rd.to_json();
  // the present outputs keep their names through both conversions
  int presents = 0;
  for (const ValueInfo& vi : down->graph->outputs) presents += std::string(down->str(vi.value->name)).rfind("present.", 0) == 0;
  EXPECT_EQ(presents, 8);
}

}  // namespace
}  // namespace ofg::test
