// repeat_kv's two forms (see repeat_kv.h).
#include "passes/repeat_kv.h"

#include <vector>

#include "ir/attributes.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

const exec::IType* rank4(const RuleCtx& rc, const Value* v) {
  const exec::IType* t = rc.types().type_of(v);
  return t && t->ranked && t->dims.size() == 4 && is_float_type(t->elem) ? t : nullptr;
}

}  // namespace

bool same_dim(const exec::IDim& a, const exec::IDim& b) {
  return (a.is_static() && b.is_static() && a.value == b.value) ||
         (a.is_symbolic() && b.is_symbolic() && a.sym == b.sym);
}

// The Expand must only broadcast the new axis ([B,Hk,1,T,D] -> [B,Hk,r,T,D]) and the Reshape
// merge Hk and r ([B,Hk*r,T,D]).
Value* expanded_repeat_source(const RuleCtx& rc, Graph* g, Value* rep, int64_t& r) {
  const Model& m = rc.m;
  // Each step is checked for its data input first: a malformed node may have none.
  Node* reshape = producer_if(m, rep, "Reshape", g);
  Node* expand = reshape && reshape->inputs.size >= 2 ? producer_if(m, reshape->inputs[0], "Expand", g) : nullptr;
  Node* unsq = expand && expand->inputs.size >= 2 ? producer_if(m, expand->inputs[0], "Unsqueeze", g) : nullptr;
  if (!unsq || unsq->inputs.size < 1 || !unsq->inputs[0]) return nullptr;
  std::vector<int64_t> axes;
  if (!attr_ints(m, unsq, "axes", axes) && !(unsq->inputs.size > 1 && read_ints(const_tensor(m, unsq->inputs[1]), axes)))
    return nullptr;
  if (axes.size() != 1 || (axes[0] != 2 && axes[0] != -3)) return nullptr;
  Value* kv = unsq->inputs[0];
  const exec::IType* src = rank4(rc, kv);
  const exec::IType* ex = rc.types().type_of(expand->outputs[0]);
  const exec::IType* out = rank4(rc, rep);
  if (!src || !ex || !out || !ex->ranked || ex->dims.size() != 5) return nullptr;
  const auto& s = src->dims;
  const auto& e = ex->dims;
  const auto& o = out->dims;
  // Each Expand dim but the new one keeps kv's: inference says so, or the shape input's tracked
  // contents hold 1 or kv's own dim there (Shape(kv)[j], the usual exported form, whose sum
  // past + new inference cannot name).
  const std::vector<exec::SymVal>* sh = expand->inputs.size > 1 && expand->inputs[1] ? rc.types().contents(expand->inputs[1]) : nullptr;
  const size_t from[4] = {0, 1, 3, 4};
  for (size_t j = 0; j < 4; ++j) {
    size_t i = from[j];
    if (same_dim(e[i], s[j])) continue;
    if (!sh || sh->size() != 5) return nullptr;
    const exec::SymVal& d = (*sh)[i];
    bool keeps = (d.kind == exec::SymVal::kConst && d.value == 1) ||
                 (d.kind == exec::SymVal::kDim && ((d.src == kv && d.index == static_cast<int>(j)) ||
                                                   (d.sym != kNoStr && s[j].is_symbolic() && d.sym == s[j].sym)));
    if (!keeps) return nullptr;
  }
  if (!e[2].is_static() || !s[1].is_static() || e[2].value < 1) return nullptr;
  // The Reshape merges the kv heads with their copies: its output keeps batch and head size and
  // has Hk * r heads, so (the element count being the same) its sequence dim is kv's.
  if (!same_dim(o[0], s[0]) || !same_dim(o[3], s[3])) return nullptr;
  if (!o[2].is_static() && !o[2].is_symbolic()) {
    // unknown: follows from the element count
  } else if (!same_dim(o[2], s[2])) {
    return nullptr;
  }
  if (!o[1].is_static() || o[1].value != s[1].value * e[2].value) return nullptr;
  r = e[2].value;
  return kv;
}

// Gather(kv, idx, axis=1) with kv [B,Hk,T,D], Hk static, and idx the constant [0]*r + [1]*r + ...
static Value* gathered_repeat_source(const RuleCtx& rc, Graph* g, Value* rep, int64_t& r) {
  const Model& m = rc.m;
  Node* gather = producer_if(m, rep, "Gather", g);
  if (!gather || gather->inputs.size < 2 || !gather->inputs[0]) return nullptr;
  int64_t axis = attr_int(m, gather, "axis", 0);
  if (axis != 1 && axis != -3) return nullptr;
  Value* kv = gather->inputs[0];
  const exec::IType* src = rank4(rc, kv);
  std::vector<int64_t> idx;
  const Tensor* t = const_tensor(m, gather->inputs[1]);
  if (!src || !src->dims[1].is_static() || !t || t->dims.size != 1 || !read_ints(t, idx)) return nullptr;
  int64_t hk = src->dims[1].value;
  if (hk < 1 || idx.empty() || static_cast<int64_t>(idx.size()) % hk != 0) return nullptr;
  int64_t copies = static_cast<int64_t>(idx.size()) / hk;
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] != static_cast<int64_t>(i) / copies) return nullptr;
  r = copies;
  return kv;
}

Value* repeat_kv_source(const RuleCtx& rc, Graph* g, Value* rep, int64_t& r) {
  Value* kv = expanded_repeat_source(rc, g, rep, r);
  return kv ? kv : gathered_repeat_source(rc, g, rep, r);
}

}  // namespace ofg::passes
