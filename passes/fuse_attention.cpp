// fuse_attention: scaled dot-product attention as exports write it,
//   S = MatMul(Q, KT) [* c | / c]; [S = S + mask | S = Where(cond, S, neg)]; [S = Max(S, lowest)];
//   P = Softmax(S, axis=-1); Y = MatMul(P, V)
// with Q [B,H,S,D], KT a Transpose of K ([B,Hk,T,D] after the Transpose's last two axes are
// swapped back) and V [B,Hk,T,Dv], becomes Attention(Q, K, V, mask, scale=...) (opset 23), whose
// output 0 is Y. Grouped-query forms read K and V through repeat_kv (passes/repeat_kv.h): the
// fused node reads the kv heads before the repetition (Attention shares kv head h / (H/Hk) among
// the query heads, the same order repeat_kv gives). A KV cache written as present = Concat(past, new, axis=2) for both K
// and V becomes Attention's past_key/past_value inputs, and its present_key/present_value outputs
// take over the Concat outputs (same values, same names: they are often graph outputs).
// An Attention without a cache whose mask is the causal one (key j seen by query i when j <= i:
// Where(LessOrEqual(Range(0, T) as a row, Range(0, S) as a column), 0, very negative), the same
// as a boolean mask, or a constant of those values) gets is_causal=1 and no mask; the mask's
// computation is left to eliminate_dead_nodes. Without past keys is_causal means exactly that
// (upper-left alignment), and a masked score of -1e9 or lower gives the 0 that -inf gives.
// Only at opset >= 23; a lower model gets it with --target-opset 23 and lowering undoes it.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "exec/infer_types.h"
#include "passes/repeat_kv.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

constexpr double kMaskFloor = -1e30;  // see the clamp in match_sdpa

bool scalar_const(const Model& m, const Value* v, double& out) {
  std::vector<double> d;
  if (!read_doubles(const_tensor(m, v), d) || d.size() != 1) return false;
  out = d[0];
  return true;
}

// The live producer of v in g when it is `op` and v has no reader but `user` (v not a graph
// output): the pattern's intermediate values must be private to it.
Node* private_producer(const Model& m, Graph* g, const Value* v, const char* op, const Node* user) {
  Node* p = producer_if(m, v, op, g);
  return p && only_user(v) == user ? p : nullptr;
}

// ViT-style exports scale Q before the product instead: Q / c or Q * c (c a finite nonzero
// constant) read by the product alone gives the scale and the unscaled Q; else Q as it is.
Value* unscaled_q(const Model& m, Graph* g, Value* q, const Node* product, double& scale, std::vector<Node*>& pattern) {
  Node* qs = private_producer(m, g, q, "Div", product);
  if (!qs) qs = private_producer(m, g, q, "Mul", product);
  double c = 0;
  if (!qs || !scalar_const(m, qs->inputs[1], c) || c == 0 || !std::isfinite(c)) return q;
  scale = is_op(m, qs, "Div") ? 1.0 / c : c;
  pattern.push_back(qs);
  return qs->inputs[0];
}

// The mask must not enlarge the scores (Add/Where would broadcast them; Attention's mask only
// broadcasts to them): every mask dim, aligned from the right, is 1 or the scores' dim. A dim that
// inference leaves open on either side is accepted: Attention rejects at run time a mask that does
// not broadcast to (B, H, Sq, T), so a wrong guess fails loudly (and verification reports it)
// instead of computing something else.
bool mask_fits(const exec::IType* mt, const exec::IType* st) {
  if (!mt || !mt->ranked || mt->dims.size() > 4) return false;
  if (!st || !st->ranked || st->dims.size() != 4) return true;
  size_t off = 4 - mt->dims.size();
  for (size_t i = 0; i < mt->dims.size(); ++i) {
    const exec::IDim& a = mt->dims[i];
    const exec::IDim& b = st->dims[off + i];
    if (a.is_static() && a.value == 1) continue;
    if (same_dim(a, b)) continue;
    if (a.is_static() && b.is_static()) return false;  // two different sizes, the mask's not 1
    if (b.is_static() && b.value == 1) return false;   // the scores would be broadcast
  }
  return true;
}

const exec::IType* rank4(const RuleCtx& rc, const Value* v) {
  const exec::IType* t = rc.types().type_of(v);
  return t && t->ranked && t->dims.size() == 4 && is_float_type(t->elem) ? t : nullptr;
}


// K in [B,Hk,T,D] from KT = Transpose(X, p): the permutation with its last two entries swapped
// (identity: K is X itself).
bool key_perm(const Model& m, const Node* tr, std::vector<int64_t>& kp) {
  std::vector<int64_t> p;
  if (!attr_ints(m, tr, "perm", p) || !valid_perm(p, 4)) return false;
  kp = {p[0], p[1], p[3], p[2]};
  return true;
}

bool identity_perm(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// present = Concat(past, cur, axis=2) of two rank-4 tensors: returns the Concat, else null.
Node* cache_concat(const RuleCtx& rc, Graph* g, Value* v) {
  Node* c = producer_if(rc.m, v, "Concat", g);
  if (!c || c->inputs.size != 2 || !c->inputs[0] || !c->inputs[1]) return nullptr;
  int64_t axis = attr_int(rc.m, c, "axis", 0);
  if (axis != 2 && axis != -2) return nullptr;
  if (!rank4(rc, c->inputs[0]) || !rank4(rc, c->inputs[1])) return nullptr;
  return c;
}

// x [B,S,E] split into heads by Reshape(x, [0, 0 or -1, H, D]) with E = H * D: returns x, sets H.
Value* heads_of(const RuleCtx& rc, Graph* g, Value* split, int64_t& h) {
  const Model& m = rc.m;
  Node* r = producer_if(m, split, "Reshape", g);
  if (!r || r->inputs.size < 2 || !r->inputs[0] || attr_int(m, r, "allowzero", 0) != 0) return nullptr;
  std::vector<int64_t> c;
  if (!read_ints(const_tensor(m, r->inputs[1]), c) || c.size() != 4) return nullptr;
  if (c[0] != 0 || (c[1] != 0 && c[1] != -1) || c[2] < 1 || c[3] < 1) return nullptr;
  const exec::IType* xt = rc.types().type_of(r->inputs[0]);
  if (!xt || !xt->ranked || xt->dims.size() != 3 || !xt->dims[2].is_static() || xt->dims[2].value != c[2] * c[3]) return nullptr;
  h = c[2];
  return r->inputs[0];
}

bool perm_is(const Model& m, const Node* t, std::initializer_list<int64_t> want) {
  std::vector<int64_t> p;
  return attr_ints(m, t, "perm", p) && p == std::vector<int64_t>(want);
}

// Transpose(Reshape(x, [0, 0|-1, H, D]), [0,2,1,3]): the head layout [B,H,S,D] of x [B,S,H*D].
Value* heads_bhsd(const RuleCtx& rc, Graph* g, Value* v, int64_t& h) {
  Node* t = producer_if(rc.m, v, "Transpose", g);
  if (!t || !t->inputs[0] || !perm_is(rc.m, t, {0, 2, 1, 3})) return nullptr;
  return heads_of(rc, g, t->inputs[0], h);
}

Node* add_node(PassContext& ctx, Node* before, const char* op, std::vector<Value*> inputs, const std::string& base) {
  ++ctx.added;
  return insert_op(ctx.m, before, op, inputs, base);
}

// The batch-of-heads form of nn.MultiheadAttention exports (ViT): Q [B*H,S,D] (optionally scaled
// by a constant before the product), KT = Transpose(K') of rank 3, V [B*H,T,Dv], no mask:
// Attention runs it as one batch of B*H heads (Unsqueeze(0) of Q, K, V; Squeeze(0) of Y). With a
// head count inference leaves open on either side, Attention computes what MatMul's broadcasting
// does (K and V with 1 head shared by every query head) or fails loudly (more kv heads than query
// heads), never something else.
RuleMatch match_sdpa3(const RuleCtx& rc, Graph* g, Node* softmax, Node* mm2) {
  const Model& m = rc.m;
  std::vector<Node*> pattern{softmax, mm2};
  double scale = 1.0;
  bool scaled = false;
  Value* scores = softmax->inputs[0];
  Node* user = softmax;
  Node* sc = private_producer(m, g, scores, "Div", user);
  if (!sc) sc = private_producer(m, g, scores, "Mul", user);
  if (sc) {
    double c = 0;
    if (!scalar_const(m, sc->inputs[1], c) || c == 0 || !std::isfinite(c)) return RuleMatch::decline("the scores are scaled by a non-constant");
    scale = is_op(m, sc, "Div") ? 1.0 / c : c;
    scaled = true;
    pattern.push_back(sc);
    user = sc;
    scores = sc->inputs[0];
  }
  Node* mm1 = private_producer(m, g, scores, "MatMul", user);
  if (!mm1 || !mm1->inputs[0] || !mm1->inputs[1]) return RuleMatch::decline("the scores are not Q K^T (or are masked: not taken in rank 3)");
  pattern.push_back(mm1);
  Value* q = mm1->inputs[0];
  if (!scaled) q = unscaled_q(m, g, q, mm1, scale, pattern);
  Node* kt = producer_if(m, mm1->inputs[1], "Transpose", g);
  std::vector<int64_t> p;
  if (!kt || !kt->inputs[0] || !attr_ints(m, kt, "perm", p) || !valid_perm(p, 3)) return RuleMatch::decline("K^T is not a rank-3 Transpose");
  std::vector<int64_t> kp{p[0], p[2], p[1]};
  Value* k = kt->inputs[0];
  Value* v = mm2->inputs[1];
  auto rank3 = [&](const Value* x) {
    const exec::IType* t = rc.types().type_of(x);
    return t && t->ranked && t->dims.size() == 3 && is_float_type(t->elem) ? t : nullptr;
  };
  const exec::IType* qt = rank3(q);
  const exec::IType* kt3 = rank3(k);
  const exec::IType* vt = rank3(v);
  if (!qt || !kt3 || !vt || kt3->elem != qt->elem || vt->elem != qt->elem) return RuleMatch::decline("Q, K or V is not a rank-3 float tensor of one type");
  return RuleMatch::rewrite("batch-of-heads attention -> Attention", [=](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    Value* axis0 = add_initializer(g, "attn_axis0", tensor_from_ints(m, {1}, {0}));
    Value* key = k;
    if (!identity_perm(kp)) {
      Node* t = add_node(ctx, mm2, "Transpose", {k}, "attn_key");
      set_attr_ints(m, t, "perm", kp);
      key = t->outputs[0];
    }
    Value* q4 = add_node(ctx, mm2, "Unsqueeze", {q, axis0}, "attn_q4")->outputs[0];
    Value* k4 = add_node(ctx, mm2, "Unsqueeze", {key, axis0}, "attn_k4")->outputs[0];
    Value* v4 = add_node(ctx, mm2, "Unsqueeze", {v, axis0}, "attn_v4")->outputs[0];
    Node* att = add_node(ctx, mm2, "Attention", {q4, k4, v4}, "attn_y4");
    att->name = node_name(m, softmax, "/Attention");
    set_attr_float(m, att, "scale", static_cast<float>(scale));
    Node* sq = new_node(g, m.intern("Squeeze"), kNoStr, 2, 1);
    sq->name = node_name(m, softmax, "/AttentionSqueeze");
    set_input(sq, 0, att->outputs[0]);
    set_input(sq, 1, axis0);
    replace_pattern(ctx, pattern, mm2, sq);
    return 1;
  });
}

RuleMatch match_sdpa(const RuleCtx& rc, Graph* g, Node* softmax) {
  const Model& m = rc.m;
  if (softmax->inputs.size != 1 || !softmax->inputs[0] || !softmax->outputs[0]) return RuleMatch::decline("Softmax without its input or output");
  Value* s = softmax->inputs[0];
  const exec::IType* st = rank4(rc, s);
  const exec::IType* st3 = rc.types().type_of(s);
  bool three = !st && st3 && st3->ranked && st3->dims.size() == 3 && is_float_type(st3->elem);
  if (!st && !three) return RuleMatch::decline("the scores are not a rank-4 (or rank-3) float tensor");
  int64_t axis = attr_int(m, softmax, "axis", -1);
  if (axis != -1 && axis != (three ? 2 : 3)) return RuleMatch::decline("Softmax is not over the last axis");
  Node* mm2 = only_user(softmax->outputs[0]);
  if (!is_op(m, mm2, "MatMul") || mm2->inputs[0] != softmax->outputs[0] || !mm2->inputs[1])
    return RuleMatch::decline("the probabilities do not multiply V");
  if (three) return match_sdpa3(rc, g, softmax, mm2);
  std::vector<Node*> pattern{softmax, mm2};
  // Backwards from the Softmax: optional clamp, mask, scale, then Q K^T.
  Node* user = softmax;
  Node* clamp = private_producer(m, g, s, "Max", user);
  double lowest = 0;
  if (clamp) {
    if (clamp->inputs.size != 2 || !scalar_const(m, clamp->inputs[1], lowest) ||
        lowest != -static_cast<double>(std::numeric_limits<float>::max()) || st->elem != kFloat)
      return RuleMatch::decline("a Max before the Softmax that is not the float32 lowest-value clamp");
    pattern.push_back(clamp);
    user = clamp;
    s = clamp->inputs[0];
  }
  Value* mask = nullptr;      // additive mask
  Value* cond = nullptr;      // Where(cond, scores, neg): cond true keeps the score
  double neg = 0;
  Node* add = private_producer(m, g, s, "Add", user);
  Node* where = add ? nullptr : private_producer(m, g, s, "Where", user);
  Value* scores = s;
  if (add) {
    // The scores are the operand that comes from Q K^T (through the optional scale).
    Value* a = add->inputs[0];
    Value* b = add->inputs[1];
    // (MatMul, or a Div/Mul of one: a mask computed by a Mul of its own is not mistaken for it)
    auto from_qk = [&](Value* v, const Node* reader) {
      Node* p = v && v->producer && v->producer->alive ? v->producer : nullptr;
      if (!p || only_user(v) != reader) return false;
      if (is_op(m, p, "MatMul")) return true;
      if (!is_op(m, p, "Div") && !is_op(m, p, "Mul")) return false;
      for (uint32_t i = 0; i < p->inputs.size; ++i)
        if (p->inputs[i] && producer_if(m, p->inputs[i], "MatMul", g)) return true;
      return false;
    };
    // Or Add(Where(cond, Q K^T, lowest), mask): a boolean (causal) mask and an additive
    // (padding) one together (GPT-J-style exports), float32 with neg the float lowest only (it
    // absorbs the scores exactly, see the rewrite).
    auto masked_qk = [&](Value* v) -> Node* {
      Node* w = private_producer(m, g, v, "Where", add);
      double c = 0;
      if (!w || w->inputs.size != 3 || !w->inputs[0] || !scalar_const(m, w->inputs[2], c) || st->elem != kFloat ||
          c != -static_cast<double>(std::numeric_limits<float>::max()) || !from_qk(w->inputs[1], w))
        return nullptr;
      neg = c;
      return w;
    };
    if (from_qk(a, add)) { scores = a; mask = b; } else if (from_qk(b, add)) { scores = b; mask = a; }
    else if (Node* w = masked_qk(a)) { where = w; mask = b; }
    else if (Node* w = masked_qk(b)) { where = w; mask = a; }
    else return RuleMatch::decline("no Q K^T operand in the mask Add");
    pattern.push_back(add);
    user = add;
    if (where) {
      cond = where->inputs[0];
      scores = where->inputs[1];
      pattern.push_back(where);
      user = where;
    }
    if (mask == scores) return RuleMatch::decline("the scores added to themselves");
  } else if (where) {
    if (where->inputs.size != 3 || !where->inputs[0] || !scalar_const(m, where->inputs[2], neg) || neg > -1e4)
      return RuleMatch::decline("a Where before the Softmax that does not mask with a large negative constant");
    cond = where->inputs[0];
    scores = where->inputs[1];
    if (only_user(scores) != where) return RuleMatch::decline("the scores have other readers");
    pattern.push_back(where);
    user = where;
  }
  if (clamp && !mask && !cond) return RuleMatch::decline("a clamp without a mask");
  for (Value* mk : {mask, cond}) {
    if (!mk) continue;
    const exec::IType* mt = rc.types().type_of(mk);
    if (!mt || !mt->ranked || mt->dims.size() > 4) return RuleMatch::decline("the mask's rank is unknown or above 4");
    if (mk == mask && mt->elem != st->elem) return RuleMatch::decline("the additive mask has another element type");
    if (mk == cond && mt->elem != kBool) return RuleMatch::decline("the Where condition is not boolean");
  }
  // scale after Q K^T
  double scale = 1.0;
  bool scaled = false;
  Node* sc = private_producer(m, g, scores, "Div", user);
  if (!sc) sc = private_producer(m, g, scores, "Mul", user);
  if (sc) {
    double c = 0;
    bool div = is_op(m, sc, "Div");
    Value* x = nullptr;
    if (scalar_const(m, sc->inputs[1], c)) x = sc->inputs[0];
    else if (!div && scalar_const(m, sc->inputs[0], c)) x = sc->inputs[1];
    if (!x || c == 0 || !std::isfinite(c)) return RuleMatch::decline("the scores are scaled by a non-constant");
    scale = div ? 1.0 / c : c;
    scaled = true;
    pattern.push_back(sc);
    user = sc;
    scores = x;
  }
  Node* mm1 = private_producer(m, g, scores, "MatMul", user);
  if (!mm1 || !mm1->inputs[0] || !mm1->inputs[1]) return RuleMatch::decline("the scores are not Q K^T");
  pattern.push_back(mm1);
  Value* q = mm1->inputs[0];
  if (!scaled) q = unscaled_q(m, g, q, mm1, scale, pattern);
  Node* kt = producer_if(m, mm1->inputs[1], "Transpose", g);
  std::vector<int64_t> kp;
  if (!kt || !kt->inputs[0] || !key_perm(m, kt, kp)) return RuleMatch::decline("K^T is not a rank-4 Transpose");
  bool k_as_is = identity_perm(kp);
  Value* k = kt->inputs[0];
  Value* v = mm2->inputs[1];
  const exec::IType* qt = rank4(rc, q);
  const exec::IType* vt = rank4(rc, v);
  if (!qt || !vt || !rank4(rc, k)) return RuleMatch::decline("Q, K or V is not a rank-4 float tensor");
  for (Value* mk : {mask, cond})
    if (mk && !mask_fits(rc.types().type_of(mk), rc.types().type_of(mm1->outputs[0])))
      return RuleMatch::decline("the mask would broadcast the scores to a larger shape");
  // ONNX Runtime (1.30) requires the mask's query axis to be Q's sequence length, not a broadcast
  // 1 (the spec allows broadcasting): such a mask is expanded along that axis unless Q's length
  // is 1 for sure.
  // (With both masks, their sum has a query axis of 1 only when both do.)
  bool expand_rows = false;
  if (mask || cond) {
    bool row_one = true;
    for (Value* mk : {mask, cond}) {
      if (!mk) continue;
      const exec::IType* mt = rc.types().type_of(mk);
      row_one = row_one && (mt->dims.size() < 2 || (mt->dims[mt->dims.size() - 2].is_static() && mt->dims[mt->dims.size() - 2].value == 1));
    }
    const exec::IDim& qs = qt->dims[2];
    expand_rows = row_one && !(qs.is_static() && qs.value == 1);
  }
  // Grouped-query: read K and V before repeat_kv when both are repeated the same way.
  int64_t rk = 0, rv = 0;
  Value* k0 = k_as_is ? repeat_kv_source(rc, g, k, rk) : nullptr;
  Value* v0 = repeat_kv_source(rc, g, v, rv);
  if (k0 && v0 && rk == rv) {
    k = k0;
    v = v0;
  }
  const exec::IType* kvt = rank4(rc, v);
  int64_t hq = qt->dims[1].value, hk = kvt->dims[1].value;
  if (!qt->dims[1].is_static() || !kvt->dims[1].is_static() || hk < 1 || hq % hk != 0)
    return RuleMatch::decline("the kv heads are unknown or do not divide the query heads");
  if (qt->elem != kvt->elem || rank4(rc, k)->elem != qt->elem) return RuleMatch::decline("Q, K and V differ in element type");
  const exec::IDim& kh = rank4(rc, k)->dims[static_cast<size_t>(kp[1])];  // K's heads after the swap back
  if (!kh.is_static() || kh.value != hk) return RuleMatch::decline("K and V have different head counts");
  // KV cache: both K and V written as Concat(past, new) along the sequence.
  Node* ck = k_as_is ? cache_concat(rc, g, k) : nullptr;
  Node* cv = cache_concat(rc, g, v);
  if (!ck || !cv) ck = cv = nullptr;
  if (!is_float_type(qt->elem)) return RuleMatch::decline("Q is not a float tensor");

  // The clamp Max(S + mask, lowest) is not a no-op: HF exports add a causal and a padding mask
  // that both hold lowest, giving -inf where both mask, and the clamp turns that back into lowest,
  // so a query row whose every key is masked (a left-padded position) gets a uniform softmax
  // instead of NaN. Attention has no clamp; the fused form moves it onto the mask as
  // Max(mask, kMaskFloor) with kMaskFloor = -1e30, for two reasons:
  // - in float32, S + m rounds to m for |S| < ~1e22 when m <= -1e30, so every masked entry of a
  //   row is exactly kMaskFloor (uniform over a fully masked row, as the clamp gives) and weighs
  //   exp(-1e30 - max) = 0 next to any unmasked entry (as lowest does);
  // - runtimes treat a mask value of lowest (or -inf) as "masked" and give a fully masked row
  //   zeros (ONNX Runtime 1.30 does), which is not what the exported model computes.
  // Outputs are the same whenever the mask's entries are >= -1e29 or <= lowest (causal, padding
  // and -inf masks); only a mask holding other values below -1e30 would be changed.
  // The Max sits on the mask (shared by the layers: CSE merges the copies).
  int32_t elem = qt->elem;
  return RuleMatch::rewrite("scaled dot-product attention -> Attention", [=](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    Value* attn_mask = mask;
    if (cond && mask) {
      // Add(Where(cond, S, neg), mask) (float32, neg the float lowest) as the additive mask
      // Add(Where(cond, 0, kMaskFloor), Max(mask, kMaskFloor)). The original gives S + mask where
      // cond holds; lowest where exactly one of the two masks applies (S + lowest rounds to lowest
      // for |S| below ~1e31, lowest + 0 is lowest); -inf where both do. A row whose kept keys are
      // all padded is therefore uniform over the entries one mask hides and zero on those both
      // hide. Fused, those entries are exactly kMaskFloor (S + -1e30 rounds to -1e30 for |S| below
      // ~1e22) and -2e30 (exp(-1e30) = 0 next to them): the same row. lowest itself is avoided
      // because runtimes read it as "masked" and zero a row holding nothing else (ONNX Runtime
      // 1.30 does). As for the clamp below, a padding mask holding values between lowest and
      // -1e30 other than lowest would be changed.
      Value* zero = add_initializer(g, "attn_mask_zero", tensor_from_doubles(m, elem, {}, {0.0}));
      Value* nv = add_initializer(g, "attn_mask_neg", tensor_from_doubles(m, elem, {}, {kMaskFloor}));
      Value* w = add_node(ctx, mm2, "Where", {cond, zero, nv}, "attn_mask_causal")->outputs[0];
      Value* floor = add_initializer(g, "attn_mask_floor", tensor_from_doubles(m, elem, {}, {kMaskFloor}));
      Value* pad = add_node(ctx, mm2, "Max", {mask, floor}, "attn_mask_padding")->outputs[0];
      attn_mask = add_node(ctx, mm2, "Add", {w, pad}, "attn_mask_additive")->outputs[0];
    } else if (cond) {
      // Where(cond, S, neg) as the additive mask Where(cond, 0, kMaskFloor): S + 0 keeps S
      // exactly; a masked entry weighs exp(neg - max) = 0 in the original (neg <= -1e4 below
      // unmasked scores above neg + 104) and exp(-1e30 - max) = 0 fused; a fully masked row is
      // uniform in both (every entry exactly neg, resp. S + -1e30 rounding to -1e30), where a
      // runtime's lowest-as-masked rule would give zeros (see the clamp below).
      Value* zero = add_initializer(g, "attn_mask_zero", tensor_from_doubles(m, elem, {}, {0.0}));
      Value* nv = add_initializer(g, "attn_mask_neg", tensor_from_doubles(m, elem, {}, {elem == kFloat ? kMaskFloor : neg}));
      attn_mask = add_node(ctx, mm2, "Where", {cond, zero, nv}, "attn_mask_additive")->outputs[0];
    }
    if (clamp) {
      Value* floor = add_initializer(g, "attn_mask_floor", tensor_from_doubles(m, elem, {}, {kMaskFloor}));
      attn_mask = add_node(ctx, mm2, "Max", {attn_mask, floor}, "attn_mask_clamped")->outputs[0];
    }
    if (attn_mask && expand_rows) {
      // The mask's query axis as Q's sequence length: [Sq, 1] broadcast onto the mask.
      Node* sq = add_node(ctx, mm2, "Shape", {q}, "attn_q_seq");
      set_attr_int(m, sq, "start", 2);
      set_attr_int(m, sq, "end", 3);
      Node* rows = add_node(ctx, mm2, "Concat", {sq->outputs[0], add_initializer(g, "attn_one", tensor_from_ints(m, {1}, {1}))}, "attn_mask_rows");
      set_attr_int(m, rows, "axis", 0);
      attn_mask = add_node(ctx, mm2, "Expand", {attn_mask, rows->outputs[0]}, "attn_mask_per_query")->outputs[0];
    }
    Value* key = k;
    Value* val = v;
    Value *past_k = nullptr, *past_v = nullptr;
    if (ck) {
      past_k = ck->inputs[0];
      key = ck->inputs[1];
      past_v = cv->inputs[0];
      val = cv->inputs[1];
    }
    if (!k_as_is) {
      Node* t = add_node(ctx, mm2, "Transpose", {k}, "attn_key");
      set_attr_ints(m, t, "perm", kp);
      key = t->outputs[0];
    }
    Value* ins[6] = {q, key, val, attn_mask, past_k, past_v};
    uint32_t n_in = 6;
    while (n_in > 3 && !ins[n_in - 1]) --n_in;
    uint32_t n_out = ck ? 3 : 1;
    Node* att = new_node(g, m.intern("Attention"), kNoStr, n_in, n_out);
    att->name = node_name(m, softmax, "/Attention");
    for (uint32_t i = 0; i < n_in; ++i) set_input(att, i, ins[i]);
    set_attr_float(m, att, "scale", static_cast<float>(scale));
    replace_pattern(ctx, pattern, mm2, att);
    if (ck) {
      // present_key/present_value take over the Concat outputs.
      Node* cats[2] = {ck, cv};
      for (uint32_t i = 0; i < 2; ++i) {
        Value* present = cats[i]->outputs[0];
        cats[i]->outputs[0] = nullptr;
        drop(ctx, cats[i]);
        set_output(att, i + 1, present);
      }
    }
    // The Concat outputs may be read by nodes placed before the fused node (shape arithmetic):
    // restore the order.
    topological_sort(g);
    return 1;
  });
}

// A 4-D Attention (no cache) whose Q, K and V are head splits Transpose(Reshape(x [B,S,H*D],
// [0, 0|-1, H, D]), [0,2,1,3]) and whose Y is merged back by Transpose(0,2,1,3) + Reshape([0,
// 0|-1, H*Dv]) (BERT, GPT-2 after the fusion above, once shape chains made those shapes constant)
// reads the [B,S,E] tensors itself (q_num_heads/kv_num_heads) and writes the merged [B,S,H*Dv]:
// the Reshape/Transpose pairs around it go. The mask's query length read by Shape(Q)[2] (the
// expansion above) is read as Shape(x)[1], the same number.
RuleMatch match_attention_3d(const RuleCtx& rc, Graph* g, Node* att) {
  const Model& m = rc.m;
  if (att->inputs.size < 3 || att->inputs.size > 4 || att->outputs.size != 1 || !att->outputs[0] ||
      attr(m, att, "q_num_heads") || attr(m, att, "softcap"))
    return RuleMatch::decline("not a plain 4-D Attention without cache");
  int64_t hq = 0, hk = 0, hv = 0;
  Value* q3 = heads_bhsd(rc, g, att->inputs[0], hq);
  Value* k3 = att->inputs[1] ? heads_bhsd(rc, g, att->inputs[1], hk) : nullptr;
  Value* v3 = att->inputs[2] ? heads_bhsd(rc, g, att->inputs[2], hv) : nullptr;
  if (!q3 || !k3 || !v3 || hk != hv || hq % hk != 0) return RuleMatch::decline("Q, K or V is not a head split of a [B,S,E] tensor");
  const exec::IType* vt = rc.types().type_of(v3);
  int64_t dv = vt->dims[2].value / hv;
  Node* ty = only_user(att->outputs[0]);
  if (!is_op(m, ty, "Transpose") || !perm_is(m, ty, {0, 2, 1, 3})) return RuleMatch::decline("Y is not transposed back to [B,S,H,Dv]");
  Node* ry = only_user(ty->outputs[0]);
  std::vector<int64_t> c;
  if (!is_op(m, ry, "Reshape") || ry->inputs.size < 2 || attr_int(m, ry, "allowzero", 0) != 0 ||
      !read_ints(const_tensor(m, ry->inputs[1]), c) || c.size() != 3 || c[0] != 0 || (c[1] != 0 && c[1] != -1) || c[2] != hq * dv)
    return RuleMatch::decline("Y is not merged back to [B,S,H*Dv]");
  Value* q4 = att->inputs[0];
  return RuleMatch::rewrite("4-D Attention between head splits -> 3-D Attention", [=](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    // Shape(Q4)[2:3] readers (the mask expansion) read Shape(x)[1:2].
    std::vector<Node*> shapes;
    for (const Use& u : q4->uses)
      if (is_op(m, u.node, "Shape") && attr_int(m, u.node, "start", 0) == 2 && attr_int(m, u.node, "end", 4) == 3) shapes.push_back(u.node);
    for (Node* sh : shapes) {
      set_input(sh, 0, q3);
      set_attr_int(m, sh, "start", 1);
      set_attr_int(m, sh, "end", 2);
    }
    set_input(att, 0, q3);
    set_input(att, 1, k3);
    set_input(att, 2, v3);
    set_attr_int(m, att, "q_num_heads", hq);
    set_attr_int(m, att, "kv_num_heads", hk);
    // Attention writes what the Reshape wrote; the Transpose and Reshape go.
    Value* y = ry->outputs[0];
    Value* old = att->outputs[0];
    drop(ctx, ry);
    drop(ctx, ty);
    ry->outputs[0] = nullptr;
    old->producer = nullptr;
    set_output(att, 0, y);
    topological_sort(g);
    return 1;
  });
}

// The sequence dim of an Attention input (Q, K: [B,S,E] or [B,H,S,D]), or null.
const exec::IDim* seq_dim(const RuleCtx& rc, const Value* v) {
  const exec::IType* t = v ? rc.types().type_of(v) : nullptr;
  if (!t || !t->ranked || (t->dims.size() != 3 && t->dims.size() != 4)) return nullptr;
  return &t->dims[t->dims.size() == 3 ? 1 : 2];
}

// v is Unsqueeze(Range(0, n, 1), axis): a column (axis 1) or row (axis 0) of positions 0..n-1.
bool positions(const Model& m, Graph* g, const Value* v, int64_t axis) {
  Node* u = producer_if(m, v, "Unsqueeze", g);
  if (!u || u->inputs.size < 1) return false;
  std::vector<int64_t> axes;
  if (u->inputs.size >= 2 ? !read_ints(const_tensor(m, u->inputs[1]), axes) : !attr_ints(m, u, "axes", axes)) return false;
  if (axes.size() != 1 || axes[0] != axis) return false;
  Node* r = producer_if(m, u->inputs[0], "Range", g);
  std::vector<int64_t> start, delta;
  return r && r->inputs.size == 3 && read_ints(const_tensor(m, r->inputs[0]), start) && start.size() == 1 && start[0] == 0 &&
         read_ints(const_tensor(m, r->inputs[2]), delta) && delta.size() == 1 && delta[0] == 1;
}

// v (a boolean of [.., S, T], through Reshape/Unsqueeze steps) is j <= i computed from positions.
bool causal_condition(const Model& m, Graph* g, const Value* v) {
  Node* p = v->producer;
  while (p && p->alive && p->graph == g && (is_op(m, p, "Reshape") || is_op(m, p, "Unsqueeze")) && p->inputs.size >= 1)
    p = p->inputs[0]->producer;
  if (!p || p->inputs.size != 2) return false;
  if (is_op(m, p, "LessOrEqual")) return positions(m, g, p->inputs[0], 0) && positions(m, g, p->inputs[1], 1);
  if (is_op(m, p, "GreaterOrEqual")) return positions(m, g, p->inputs[0], 1) && positions(m, g, p->inputs[1], 0);
  return false;
}

constexpr double kMaskedAtMost = -1e9;

// A constant mask of [1,..,S,T] that is 0 / true on and below the diagonal and masked above it.
bool causal_constant(const Tensor* t) {
  std::vector<double> v;
  if (!t || t->dims.size < 2) return false;
  if (t->data_type == kBool && dense(t, 1)) {
    Bytes b = t->bytes();
    v.assign(b.data, b.data + b.size);
  } else if (!read_doubles(t, v)) {
    return false;
  }
  int64_t s = t->dims[t->dims.size - 2], n = t->dims[t->dims.size - 1];
  for (uint32_t i = 0; i + 2 < t->dims.size; ++i)
    if (t->dims[i] != 1) return false;
  bool boolean = t->data_type == kBool;
  for (int64_t i = 0; i < s; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double x = v[static_cast<size_t>(i * n + j)];
      bool ok = boolean ? (x != 0) == (j <= i) : (j <= i ? x == 0 : x <= kMaskedAtMost);
      if (!ok) return false;
    }
  return true;
}

RuleMatch match_causal_mask(const RuleCtx& rc, Graph* g, Node* att) {
  const Model& m = rc.m;
  if (att->inputs.size < 4 || !att->inputs[3]) return RuleMatch::decline("no mask");
  for (uint32_t i = 4; i < att->inputs.size; ++i)
    if (att->inputs[i]) return RuleMatch::decline("with past keys or padded lengths is_causal would align differently");
  if (attr_int(m, att, "is_causal", 0) != 0) return RuleMatch::decline("already causal");
  // The masked scores output (qk_matmul_output) would show -inf where the mask put its own value.
  if (att->outputs.size > 3 && att->outputs[3] && (att->outputs[3]->use_count() || att->outputs[3]->is_graph_output()))
    return RuleMatch::decline("the scores output is read (it would show -inf for the mask's values)");
  Value* mask = att->inputs[3];
  const exec::IDim* sq = seq_dim(rc, att->inputs[0]);
  const exec::IDim* sk = seq_dim(rc, att->inputs[1]);
  const exec::IType* mt = rc.types().type_of(mask);
  if (!sq || !sk || !mt || !mt->ranked || mt->dims.size() < 2 || mt->dims.size() > 4)
    return RuleMatch::decline("the query and key lengths or the mask's shape are unknown");
  size_t r = mt->dims.size();
  for (size_t i = 0; i + 2 < r; ++i)
    if (!mt->dims[i].is_static() || mt->dims[i].value != 1) return RuleMatch::decline("the mask differs between batches or heads");
  if (!same_dim(mt->dims[r - 2], *sq) || !same_dim(mt->dims[r - 1], *sk))
    return RuleMatch::decline("inference does not prove the mask is [query length, key length]");
  bool causal = causal_constant(const_tensor(m, mask));
  if (!causal && mt->elem == kBool) causal = causal_condition(m, g, mask);
  if (!causal) {
    Node* w = producer_if(m, mask, "Where", g);
    double zero = 1, neg = 0;
    causal = w && w->inputs.size == 3 && scalar_const(m, w->inputs[1], zero) && zero == 0 &&
             scalar_const(m, w->inputs[2], neg) && neg <= kMaskedAtMost && causal_condition(m, g, w->inputs[0]);
  }
  if (!causal) return RuleMatch::decline("the mask is not the causal one (j <= i from positions, or such a constant)");
  return RuleMatch::rewrite("causal mask -> is_causal", [att](PassContext& ctx) -> int64_t {
    set_input(att, 3, nullptr);
    if (att->inputs.size == 4) resize_inputs(att, 3);  // no empty trailing input
    set_attr_int(ctx.m, att, "is_causal", 1);
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fuse_attention_rules, {"scaled_dot_product", {"Softmax"}, "", 23, kNoOpsetLimit, match_sdpa, "Attention"},
               {"attention_3d", {"Attention"}, "", 23, kNoOpsetLimit, match_attention_3d},
               {"causal_mask_as_is_causal", {"Attention"}, "", 23, kNoOpsetLimit, match_causal_mask});

}  // namespace ofg::passes
