// The utilities of the type/shape rules; each rule lives with its op's kernel in exec/ops/ and
// is registered with it. Any rule that cannot prove a dim leaves it unknown; it never guesses a size.
#include <algorithm>
#include <cstring>

#include "exec/infer_rules.h"
#include "ir/attributes.h"

namespace ofg::exec {

// ------------------------------------------------------------------ context helpers
// Attribute reads forward to the IR's one attribute API (ir/attributes.h).
const Attribute* InferCtx::attr(const char* name) const { return ofg::attr(m, &node, name); }
int64_t InferCtx::attr_i(const char* name, int64_t dflt) const { return attr_int(m, &node, name, dflt); }
bool InferCtx::attr_ints(const char* name, std::vector<int64_t>& out) const {
  return ofg::attr_ints(m, &node, name, out);
}
int64_t InferCtx::opset() const { return m.opset_version(""); }
bool InferCtx::const_ints(size_t i, std::vector<int64_t>& out) const {
  const std::vector<SymVal>* d = data(i);
  if (!d) return false;
  out.clear();
  for (const SymVal& s : *d) {
    if (s.kind != SymVal::kConst) return false;
    out.push_back(s.value);
  }
  return true;
}

IDim broadcast_dim(const IDim& a, const IDim& b) {
  if (a.is_static() && a.value == 1) return b;
  if (b.is_static() && b.value == 1) return a;
  // A valid broadcast with a static size > 1 on one side has that size.
  if (a.is_static()) return a;
  if (b.is_static()) return b;
  if (a.is_symbolic() && b.is_symbolic() && a.sym == b.sym) return a;
  return IDim{};  // either could be 1: unknown
}

namespace rules {
IDim st(int64_t v) { return IDim{v, kNoStr}; }
SymVal cval(int64_t v) {
  SymVal s;
  s.kind = SymVal::kConst;
  s.value = v;
  return s;
}

IDim st_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? IDim{} : st(r);
}
IDim st_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? IDim{} : st(r);
}
IDim st_wide(int128 v) { return v >= 0 && v <= INT64_MAX ? st(static_cast<int64_t>(v)) : IDim{}; }

IType unknown_dims(int32_t elem, int64_t rank) {
  if (rank < 0 || rank > kMaxInferredRank) return IType{elem, false, {}};
  return IType{elem, true, std::vector<IDim>(static_cast<size_t>(rank), IDim{})};
}

IType ranked(int32_t elem, std::vector<IDim> dims) { return IType{elem, true, std::move(dims)}; }

bool broadcast(const std::vector<const IType*>& ts, std::vector<IDim>& out) {
  size_t r = 0;
  for (const IType* t : ts) {
    if (!t || !t->ranked) return false;
    r = std::max(r, t->dims.size());
  }
  out.assign(r, st(1));
  for (const IType* t : ts)
    for (size_t i = 0; i < t->dims.size(); ++i) {
      IDim& o = out[r - t->dims.size() + i];
      o = broadcast_dim(o, t->dims[i]);
    }
  return true;
}

int64_t norm(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

bool mark_axes(const std::vector<int64_t>& axes, int64_t rank, std::vector<bool>& mask) {
  for (int64_t a : axes) {
    a = norm(a, rank);
    // A repeated axis is invalid (ONNX wants them unique), and Unsqueeze would read past its input's dims.
    if (a < 0 || a >= rank || mask[static_cast<size_t>(a)]) return false;
    mask[static_cast<size_t>(a)] = true;
  }
  return true;
}

bool unknown_output(InferCtx& c) {
  c.out[0] = IType{elem0(c), false, {}};
  return true;
}

IType shape_from_untracked(const InferCtx& c, size_t i, int32_t elem) {
  const IType* t = c.t(i);
  if (t && t->ranked && t->dims.size() == 1 && t->dims[0].is_static()) return unknown_dims(elem, t->dims[0].value);
  return IType{elem, false, {}};
}

int32_t elem0(const InferCtx& c, size_t i) { return c.t(i) ? c.t(i)->elem : 0; }

// -------------------------------------------------------------- contents arithmetic
bool binary_contents(InferCtx& c, std::string_view op) {
  const std::vector<SymVal>* a = c.data(0);
  const std::vector<SymVal>* b = c.data(1);
  if (!a || !b) return false;
  size_t n = std::max(a->size(), b->size());
  if ((a->size() != n && a->size() != 1) || (b->size() != n && b->size() != 1)) return false;
  std::vector<SymVal> out(n);
  for (size_t i = 0; i < n; ++i) {
    const SymVal& x = (*a)[a->size() == 1 ? 0 : i];
    const SymVal& y = (*b)[b->size() == 1 ? 0 : i];
    if (x.kind == SymVal::kConst && y.kind == SymVal::kConst) {
      int64_t u = x.value, v = y.value, r = 0;
      if (op == "Add") { if (!__builtin_add_overflow(u, v, &r)) out[i] = cval(r); }
      else if (op == "Sub") { if (!__builtin_sub_overflow(u, v, &r)) out[i] = cval(r); }
      else if (op == "Mul") { if (!__builtin_mul_overflow(u, v, &r)) out[i] = cval(r); }
      else if (op == "Div" && v != 0 && !(u == INT64_MIN && v == -1)) out[i] = cval(u / v);
      else if (op == "Equal") out[i] = cval(u == v);
      continue;
    }
    // Identities keep a dim reference; dims are never negative, so dim == negative is false.
    const SymVal* d = x.kind == SymVal::kDim ? &x : (y.kind == SymVal::kDim ? &y : nullptr);
    const SymVal* k = x.kind == SymVal::kConst ? &x : (y.kind == SymVal::kConst ? &y : nullptr);
    if (op == "Equal" && x.same_dim(y)) out[i] = cval(1);
    else if (op == "Equal" && ((x.never_negative() && y.kind == SymVal::kConst && y.value < 0) ||
                               (y.never_negative() && x.kind == SymVal::kConst && x.value < 0)))
      out[i] = cval(0);
    else if (d && k && ((op == "Mul" && k->value == 1) || (op == "Add" && k->value == 0) ||
                        (op == "Sub" && k == &y && k->value == 0) || (op == "Div" && k == &y && k->value == 1)))
      out[i] = *d;
    // Sums and products of dims (seq + past_len) stay unknown but never negative.
    else if ((op == "Add" || op == "Mul") && x.never_negative() && y.never_negative())
      out[i].nonneg = true;
  }
  c.out_contents[0] = std::move(out);
  return true;
}

}  // namespace rules

}  // namespace ofg::exec
