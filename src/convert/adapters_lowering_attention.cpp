// Attention (opset 23) written as the ops exports used before it, for targets below 23:
//   K = Concat(past_key, K, axis=2) (present_key), likewise V;
//   grouped-query: K = Reshape(Expand(Unsqueeze(K, 2), [1,1,H/Hk,1,1]), [0,H,-1,D]) (repeat_kv);
//   Y = MatMul(Softmax(MatMul(Q, Transpose(K, [0,1,3,2])) * scale + mask, -1), V)
// which is also the form passes/fuse_attention.cpp recognises, so a model raised again gets
// Attention back. A boolean mask becomes the additive Where(mask, 0, -inf).
// Covered: 4-D Q/K/V with optional mask and past, 3-D ones (split into heads) without past, and
// is_causal (from opset 11: key j is masked for query i when j > i + past length, Range-built);
// not lowered (the step says so and nothing changes): softcap, nonpad_kv_seqlen and the
// qk_matmul output. One difference stays:
// a query row whose every key is masked gets zeros from Attention (our interpreter) and the
// softmax of equal values (uniform, or NaN for -inf) from the decomposition.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::convert {
namespace {

bool used(const Value* v) { return v && (v->use_count() || v->is_graph_output()); }

// The static size of dim `i` of v as inference found it before the conversion, -1 when open.
int64_t static_dim(AdaptCtx& c, const Value* v, size_t i) {
  const exec::IType* t = c.types ? c.types->type_of(v) : nullptr;
  if (!t || !t->ranked || i >= t->dims.size() || !t->dims[i].is_static()) return -1;
  return t->dims[i].value;
}

Node* unsqueeze(AdaptCtx& c, Value* x, int64_t axis, const char* base) {
  if (c.target >= 13) return insert_op(c.m, c.n, "Unsqueeze", {x, int_const(c.m, c.n, "attn_axis", {axis})}, base);
  Node* u = insert_op(c.m, c.n, "Unsqueeze", {x}, base);
  set_attr_ints(c.m, u, "axes", {axis});
  return u;
}

const char* attention_down(AdaptCtx& c) {
  Node* n = c.n;
  // 3-D inputs ([B,S,heads*D], with q_num_heads/kv_num_heads) are split into heads first and Y
  // merged back (Reshape + Transpose each way), without a cache.
  const int rank = has_input(n, 0) ? c.rank(n->inputs[0]) : -1;
  for (uint32_t i = 0; i < 3; ++i)
    if (!has_input(n, i) || (rank != 3 && rank != 4) || c.rank(n->inputs[i]) != rank)
      return "only Attention with Q, K and V all 4-D or all 3-D is lowered (unknown ranks are not)";
  const bool three = rank == 3;
  const int64_t qh_attr = attr_int(c.m, n, "q_num_heads", 0), kvh_attr = attr_int(c.m, n, "kv_num_heads", 0);
  if (three && (qh_attr < 1 || kvh_attr < 1)) return "3-D Attention needs q_num_heads and kv_num_heads";
  if (three && (has_input(n, 4) || (n->outputs.size > 1 && used(n->outputs[1])))) return "3-D Attention with a KV cache is not lowered";
  const bool causal = attr_int(c.m, n, "is_causal", 0) != 0;
  if (causal && c.target < 11) return "is_causal is lowered with Range, which needs opset 11";
  if (attr_float(c.m, n, "softcap", 0.f) != 0.f) return "softcap is not lowered";
  if (has_input(n, 6)) return "nonpad_kv_seqlen is not lowered";
  if (n->outputs.size > 3 && used(n->outputs[3])) return "the qk_matmul_output output is not lowered";
  if (has_input(n, 4) != has_input(n, 5)) return "past_key and past_value must be given together";
  Value* q = n->inputs[0];
  Value* k = n->inputs[1];
  Value* v = n->inputs[2];
  int64_t hq = static_dim(c, q, 1), hk = static_dim(c, k, 1), d = static_dim(c, q, 3), dv = static_dim(c, v, 3);
  if (three) {
    auto per_head = [&](const Value* x, int64_t h) { int64_t e = static_dim(c, x, 2); return e > 0 && e % h == 0 ? e / h : -1; };
    hq = qh_attr;
    hk = kvh_attr;
    d = per_head(q, hq);
    dv = per_head(v, hk);
  }
  // repeat_kv is written when both head counts are known and differ (kv heads > 1). With a count
  // left open, the plain MatMuls compute the same when the counts are equal or K/V have one head
  // (broadcast) and fail loudly otherwise, as Attention fails on counts that do not divide.
  bool grouped = hq > 0 && hk > 1 && hq != hk;
  if (grouped && (hq % hk != 0 || d < 1 || dv < 1 || (!three && static_dim(c, v, 1) != hk)))
    return "grouped-query Attention needs q heads a multiple of kv heads and static head sizes";
  bool has_scale = attr(c.m, n, "scale") != nullptr;
  if (!has_scale && d < 1) return "the default scale 1/sqrt(head size) needs a static head size";
  double scale = has_scale ? attr_float(c.m, n, "scale", 1.f) : 1.0 / std::sqrt(static_cast<double>(d));
  int32_t ft = c.elem(q) ? c.elem(q) : kFloat;

  if (three) {
    auto split = [&](Value* x, int64_t h, const char* base) {
      Value* r = insert_op(c.m, n, "Reshape", {x, int_const(c.m, n, "attn_split_shape", {0, 0, h, -1})}, base)->outputs[0];
      Node* t = insert_op(c.m, n, "Transpose", {r}, base);
      set_attr_ints(c.m, t, "perm", {0, 2, 1, 3});
      return t->outputs[0];
    };
    q = split(q, hq, "attn_q_heads");
    k = split(k, hk, "attn_k_heads");
    v = split(v, hk, "attn_v_heads");
  }
  // KV cache
  Value* kv[2] = {k, v};
  for (uint32_t i = 0; i < 2; ++i) {
    Value* present = n->outputs.size > i + 1 ? n->outputs[i + 1] : nullptr;
    if (has_input(n, 4 + i)) {
      Node* cat = insert_op(c.m, n, "Concat", {n->inputs[4 + i], kv[i]}, i ? "attn_present_value" : "attn_present_key");
      set_attr_int(c.m, cat, "axis", 2);
      kv[i] = cat->outputs[0];
    }
    if (used(present)) {
      // present_* keeps its value (and name): the Concat (or an Identity of K/V) writes it.
      Node* w = has_input(n, 4 + i) ? kv[i]->producer : insert_op(c.m, n, "Identity", {kv[i]}, "attn_present");
      Value* fresh = w->outputs[0];
      set_output(n, i + 1, nullptr);
      replace_all_uses(fresh, present);
      set_output(w, 0, present);
      kv[i] = present;
    }
  }
  // repeat_kv
  if (grouped) {
    int64_t rep = hq / hk;
    for (uint32_t i = 0; i < 2; ++i) {
      Value* u = unsqueeze(c, kv[i], 2, "attn_kv_unsqueezed")->outputs[0];
      Value* e = insert_op(c.m, n, "Expand", {u, int_const(c.m, n, "attn_repeat", {1, 1, rep, 1, 1})}, "attn_kv_repeated")->outputs[0];
      Value* shape = int_const(c.m, n, "attn_heads_shape", {0, hq, -1, i ? dv : d});
      kv[i] = insert_op(c.m, n, "Reshape", {e, shape}, "attn_kv_heads")->outputs[0];
    }
  }
  Node* kt = insert_op(c.m, n, "Transpose", {kv[0]}, "attn_key_t");
  set_attr_ints(c.m, kt, "perm", {0, 1, 3, 2});
  Value* s = insert_op(c.m, n, "MatMul", {q, kt->outputs[0]}, "attn_scores")->outputs[0];
  s = insert_op(c.m, n, "Mul", {s, float_const(c.m, n, "attn_scale", ft, {scale}, true)}, "attn_scaled")->outputs[0];
  if (has_input(n, 3)) {
    Value* mask = n->inputs[3];
    if (c.elem(mask) == kBool) {
      Value* zero = float_const(c.m, n, "attn_mask_zero", ft, {0.0}, true);
      Value* ninf = float_const(c.m, n, "attn_mask_ninf", ft, {-std::numeric_limits<double>::infinity()}, true);
      mask = insert_op(c.m, n, "Where", {mask, zero, ninf}, "attn_mask_additive")->outputs[0];
    }
    s = insert_op(c.m, n, "Add", {s, mask}, "attn_masked")->outputs[0];
  }
  if (causal) {
    // Scores [B,H,S,T]: query i (0..S-1) sits at position i + the past length (past_key's dim 2,
    // else 0: the upper-left alignment) and sees keys j <= that position, as Attention does.
    auto dim = [&](Value* x, int64_t i) {
      Value* dims = insert_op(c.m, n, "Shape", {x}, "attn_shape")->outputs[0];
      Node* g = insert_op(c.m, n, "Gather", {dims, int_const(c.m, n, "attn_dim", {i}, true)}, "attn_len");
      set_attr_int(c.m, g, "axis", 0);
      return g->outputs[0];
    };
    Value* sq = dim(s, 2);
    Value* t = dim(s, 3);
    Value* zero = int_const(c.m, n, "attn_zero", {0}, true);
    Value* one = int_const(c.m, n, "attn_one", {1}, true);
    Value* rows = insert_op(c.m, n, "Range", {zero, sq, one}, "attn_query_pos")->outputs[0];
    if (has_input(n, 4)) rows = insert_op(c.m, n, "Add", {rows, dim(n->inputs[4], 2)}, "attn_query_pos")->outputs[0];
    Value* cols = insert_op(c.m, n, "Range", {zero, t, one}, "attn_key_pos")->outputs[0];
    Value* later = insert_op(c.m, n, "Greater", {unsqueeze(c, cols, 0, "attn_key_row")->outputs[0],
                                                 unsqueeze(c, rows, 1, "attn_query_col")->outputs[0]}, "attn_future")->outputs[0];
    Value* ninf = float_const(c.m, n, "attn_mask_ninf", ft, {-std::numeric_limits<double>::infinity()}, true);
    Value* zf = float_const(c.m, n, "attn_mask_zero", ft, {0.0}, true);
    Value* bias = insert_op(c.m, n, "Where", {later, ninf, zf}, "attn_causal")->outputs[0];
    s = insert_op(c.m, n, "Add", {s, bias}, "attn_causal_masked")->outputs[0];
  }
  Node* p = insert_op(c.m, n, "Softmax", {s}, "attn_probs");
  set_attr_int(c.m, p, "axis", -1);
  Node* y = insert_op(c.m, n, "MatMul", {p->outputs[0], kv[1]}, "attn_out");
  if (three) {
    Node* t = insert_op(c.m, n, "Transpose", {y->outputs[0]}, "attn_out_merge");
    set_attr_ints(c.m, t, "perm", {0, 2, 1, 3});
    y = insert_op(c.m, n, "Reshape", {t->outputs[0], int_const(c.m, n, "attn_merge_shape", {0, 0, -1})}, "attn_out_merged");
  }
  for (uint32_t i = 1; i < n->outputs.size; ++i) set_output(n, i, nullptr);
  return replace_by(c, y, "Attention -> [Concat]/[repeat_kv]/Transpose/MatMul/Mul/[Add]/Softmax/MatMul");
}

}  // namespace

void add_attention_lowering_adapters(std::vector<Adapter>& out) {
  out.push_back({"Attention", 23, nullptr, attention_down, "introduced; lowered to its decomposition"});
}

}  // namespace ofg::convert
