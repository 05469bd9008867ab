// Per-op inference rules: element type, shape and (for shape arithmetic) integer contents.
// Any rule that cannot prove a dim leaves it unknown; it never guesses a size.
#include <algorithm>
#include <cstring>

#include "exec/infer_rules.h"
#include "ir/int128.h"

namespace ofg::exec {

// ------------------------------------------------------------------ context helpers
const Attribute* InferCtx::attr(const char* name) const {
  for (const Attribute& a : node.attributes)
    if (m.str(a.name) == name) return &a;
  return nullptr;
}
int64_t InferCtx::attr_i(const char* name, int64_t dflt) const {
  const Attribute* a = attr(name);
  return a ? a->i : dflt;
}
bool InferCtx::attr_ints(const char* name, std::vector<int64_t>& out) const {
  const Attribute* a = attr(name);
  if (!a) return false;
  out.assign(a->ints.begin(), a->ints.end());
  return true;
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

namespace {
IDim st(int64_t v) { return IDim{v, kNoStr}; }
SymVal cval(int64_t v) {
  SymVal s;
  s.kind = SymVal::kConst;
  s.value = v;
  return s;
}

// Arithmetic on dims and values taken from the model: a result that does not fit in int64 is
// left unknown (signed overflow is undefined behaviour; a rule never guesses).
IDim st_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? IDim{} : st(r);
}
IDim st_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? IDim{} : st(r);
}
// A 128-bit intermediate as a dim: unknown when negative or beyond int64.
IDim st_wide(int128 v) { return v >= 0 && v <= INT64_MAX ? st(static_cast<int64_t>(v)) : IDim{}; }

// A tensor of `rank` unknown dims, the rank taken from a shape input's static length: a length
// no real tensor has (the data may say anything) leaves the rank unknown instead of allocating it.
constexpr int64_t kMaxInferredRank = 1024;
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

int32_t elem0(const InferCtx& c, size_t i = 0) { return c.t(i) ? c.t(i)->elem : 0; }

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
    else if (op == "Equal" && d && k && k->value < 0) out[i] = cval(0);
    else if (d && k && ((op == "Mul" && k->value == 1) || (op == "Add" && k->value == 0) ||
                        (op == "Sub" && k == &y && k->value == 0) || (op == "Div" && k == &y && k->value == 1)))
      out[i] = *d;
  }
  c.out_contents[0] = std::move(out);
  return true;
}

// --------------------------------------------------------------- spatial ops
// Output spatial dims of Conv / pooling (static input dims only).
void spatial(InferCtx& c, const IType& x, const std::vector<int64_t>& kernel, bool ceil_mode, std::vector<IDim>& out) {
  size_t ns = kernel.size();
  std::vector<int64_t> strides(ns, 1), dil(ns, 1), pads(2 * ns, 0);
  c.attr_ints("strides", strides);
  c.attr_ints("dilations", dil);
  c.attr_ints("pads", pads);
  if (strides.size() != ns) strides.assign(ns, 1);
  if (dil.size() != ns) dil.assign(ns, 1);
  if (pads.size() != 2 * ns) pads.assign(2 * ns, 0);
  std::string ap;
  if (const Attribute* a = c.attr("auto_pad")) ap = std::string(a->s.view());
  for (size_t i = 0; i < ns; ++i) {
    const IDim& d = x.dims[2 + i];
    if (!d.is_static()) { out.push_back(IDim{}); continue; }
    // In 128 bits: dims and attributes come from the model and may be anything.
    int128 in = d.value, s = strides[i], ek = static_cast<int128>(dil[i]) * (kernel[i] - 1) + 1;
    if (s <= 0) { out.push_back(IDim{}); continue; }
    int128 o;
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER") o = (in + s - 1) / s;
    else if (ap == "VALID") o = (in - ek) / s + 1;
    else {
      int128 span = in + pads[i] + pads[i + ns] - ek;
      o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // ceil mode: the last window must start inside the input or left padding
      if (ceil_mode && (o - 1) * s >= in + pads[i]) --o;
    }
    out.push_back(st_wide(o));
  }
}

bool rule_conv(InferCtx& c, bool transpose) {
  const IType* x = c.t(0);
  const IType* w = c.t(1);
  if (!x || !x->ranked || x->dims.size() < 3) return false;
  std::vector<IDim> dims{x->dims[0]};
  if (w && w->ranked && w->dims.size() == x->dims.size()) {
    IDim oc = w->dims[transpose ? 1 : 0];
    if (transpose && oc.is_static()) oc = st_mul(oc.value, c.attr_i("group", 1));
    dims.push_back(oc);
  } else {
    dims.push_back(IDim{});
  }
  std::vector<int64_t> kernel;
  if (!c.attr_ints("kernel_shape", kernel) && w && w->ranked && w->dims.size() == x->dims.size()) {
    for (size_t i = 2; i < w->dims.size(); ++i) kernel.push_back(w->dims[i].value);
  }
  bool ok = kernel.size() == x->dims.size() - 2;
  for (int64_t k : kernel) ok = ok && k > 0;
  if (transpose || !ok) dims.resize(x->dims.size(), IDim{});
  else spatial(c, *x, kernel, false, dims);
  c.out[0] = ranked(x->elem, dims);
  return true;
}

bool rule_pool(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x || !x->ranked || x->dims.size() < 3) return false;
  std::vector<int64_t> kernel;
  std::vector<IDim> dims{x->dims[0], x->dims[1]};
  if (!c.attr_ints("kernel_shape", kernel) || kernel.size() != x->dims.size() - 2) dims.resize(x->dims.size(), IDim{});
  else spatial(c, *x, kernel, c.attr_i("ceil_mode", 0) != 0, dims);
  c.out[0] = ranked(x->elem, dims);
  if (c.out.size() > 1) c.out[1] = ranked(kInt64, dims);
  return true;
}

// ------------------------------------------------------------------ shape ops
bool rule_reshape(InferCtx& c) {
  const IType* x = c.t(0);
  const std::vector<SymVal>* s = c.data(1);
  int32_t elem = elem0(c);
  if (c.op() == "Reshape" && c.opset() < 5) return false;
  if (!s) {
    const IType* st1 = c.t(1);
    if (st1 && st1->ranked && st1->dims.size() == 1 && st1->dims[0].is_static())
      c.out[0] = unknown_dims(elem, st1->dims[0].value);
    else c.out[0] = IType{elem, false, {}};
    return true;
  }
  bool allowzero = c.attr_i("allowzero", 0) != 0;
  std::vector<IDim> dims;
  int minus = -1;
  for (size_t i = 0; i < s->size(); ++i) {
    const SymVal& v = (*s)[i];
    if (v.kind == SymVal::kConst && v.value == 0 && !allowzero) {
      dims.push_back(x && x->ranked && i < x->dims.size() ? x->dims[i] : IDim{});
    } else if (v.kind == SymVal::kConst && v.value == -1) {
      minus = static_cast<int>(i);
      dims.push_back(IDim{});
    } else if (v.kind == SymVal::kConst && v.value >= 0) {
      dims.push_back(st(v.value));
    } else if (v.kind == SymVal::kDim) {
      dims.push_back(v.sym != kNoStr ? IDim{-1, v.sym} : IDim{});
    } else {
      dims.push_back(IDim{});
    }
  }
  // -1: numel(x) / product of the others, when everything involved is static.
  if (minus >= 0 && x && x->ranked) {
    int64_t total = 1, rest = 1;
    bool ok = true;
    for (const IDim& d : x->dims)
      ok = ok && d.is_static() && !__builtin_mul_overflow(total, std::max<int64_t>(d.value, 1), &total);
    for (size_t i = 0; i < dims.size(); ++i)
      if (static_cast<int>(i) != minus)
        ok = ok && dims[i].is_static() && !__builtin_mul_overflow(rest, std::max<int64_t>(dims[i].value, 1), &rest);
    if (ok && rest > 0 && total % rest == 0) dims[minus] = st(total / rest);
  }
  c.out[0] = ranked(elem, dims);
  // reshaping a tracked vector keeps its contents
  if (const std::vector<SymVal>* xd = c.data(0))
    if (dims.size() <= 1) c.out_contents[0] = *xd;
  return true;
}

bool rule_shape(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x || !x->ranked) {
    c.out[0] = ranked(kInt64, {IDim{}});
    return true;
  }
  int64_t r = static_cast<int64_t>(x->dims.size());
  int64_t start = c.attr_i("start", 0), end = c.attr_i("end", r);
  start = std::clamp<int64_t>(norm(start, r), 0, r);
  end = std::clamp<int64_t>(norm(end, r), 0, r);
  std::vector<SymVal> vals;
  for (int64_t i = start; i < end; ++i) {
    SymVal s;
    if (x->dims[i].is_static()) s = cval(x->dims[i].value);
    else {
      s.kind = SymVal::kDim;
      s.src = c.in_values[0];
      s.index = static_cast<int>(i);
      s.sym = x->dims[i].sym;
    }
    vals.push_back(s);
  }
  c.out[0] = ranked(kInt64, {st(static_cast<int64_t>(vals.size()))});
  c.out_contents[0] = std::move(vals);
  return true;
}

bool rule_transpose(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x || !x->ranked) { c.out[0] = IType{elem0(c), false, {}}; return true; }
  std::vector<int64_t> perm;
  size_t r = x->dims.size();
  if (!c.attr_ints("perm", perm)) for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  if (perm.size() != r) return false;
  std::vector<IDim> dims;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r)) return false;
    dims.push_back(x->dims[p]);
  }
  c.out[0] = ranked(x->elem, dims);
  return true;
}

bool rule_gather(InferCtx& c) {
  const IType* x = c.t(0);
  const IType* idx = c.t(1);
  if (!x || !x->ranked || !idx || !idx->ranked) { c.out[0] = IType{elem0(c), false, {}}; return true; }
  int64_t r = static_cast<int64_t>(x->dims.size());
  int64_t axis = norm(c.attr_i("axis", 0), r);
  if (axis < 0 || axis >= r) return false;
  std::vector<IDim> dims(x->dims.begin(), x->dims.begin() + axis);
  dims.insert(dims.end(), idx->dims.begin(), idx->dims.end());
  dims.insert(dims.end(), x->dims.begin() + axis + 1, x->dims.end());
  c.out[0] = ranked(x->elem, dims);
  std::vector<int64_t> ind;
  const std::vector<SymVal>* d = c.data(0);
  if (d && r == 1 && idx->dims.size() <= 1 && c.const_ints(1, ind)) {
    std::vector<SymVal> vals;
    int64_t n = static_cast<int64_t>(d->size());
    for (int64_t i : ind) {
      if (i < -n || i >= n) return true;
      vals.push_back((*d)[norm(i, n)]);
    }
    c.out_contents[0] = std::move(vals);
  }
  return true;
}

// Start/end/axes/steps of Slice (inputs from opset 10, attributes before).
bool slice_params(InferCtx& c, std::vector<int64_t>& starts, std::vector<int64_t>& ends, std::vector<int64_t>& axes,
                  std::vector<int64_t>& steps) {
  if (c.opset() < 10) {
    if (!c.attr_ints("starts", starts) || !c.attr_ints("ends", ends)) return false;
    c.attr_ints("axes", axes);
  } else {
    if (!c.const_ints(1, starts) || !c.const_ints(2, ends)) return false;
    if (c.in.size() > 3 && c.in_values[3] && !c.const_ints(3, axes)) return false;
    if (c.in.size() > 4 && c.in_values[4] && !c.const_ints(4, steps)) return false;
  }
  if (axes.empty()) for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  return starts.size() == ends.size() && axes.size() == starts.size() && steps.size() == starts.size();
}

// Elements [lo, hi) with `step` of a dim of size n, as the Slice op clamps them.
void slice_range(int64_t n, int64_t start, int64_t end, int64_t step, int64_t& first, int64_t& count) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    count = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, -1, n - 1);
    end = std::clamp<int64_t>(end, -1, n - 1);
    count = start > end ? (start - end + (-step) - 1) / (-step) : 0;
  }
  first = start;
}

bool rule_slice(InferCtx& c) {
  const IType* x = c.t(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (!x || !x->ranked) { c.out[0] = IType{elem0(c), false, {}}; return true; }
  int64_t r = static_cast<int64_t>(x->dims.size());
  std::vector<IDim> dims = x->dims;
  if (!slice_params(c, starts, ends, axes, steps)) {
    // unknown bounds: the sliced axes (every axis when they are unknown too) may change
    std::vector<int64_t> ax;
    bool axes_known = c.opset() >= 10 && c.in.size() > 3 && c.in_values[3] && c.const_ints(3, ax);
    if (!axes_known) for (IDim& d : dims) d = IDim{};
    for (int64_t a : ax)
      if (norm(a, r) >= 0 && norm(a, r) < r) dims[norm(a, r)] = IDim{};
    c.out[0] = ranked(x->elem, dims);
    return true;
  }
  const std::vector<SymVal>* d = c.data(0);
  std::vector<SymVal> vals;
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = norm(axes[k], r);
    if (a < 0 || a >= r || steps[k] == 0) return false;
    IDim& dim = dims[a];
    if (dim.is_static()) {
      int64_t first, count;
      slice_range(dim.value, starts[k], ends[k], steps[k], first, count);
      dim = st(count);
      if (d && r == 1 && static_cast<int64_t>(d->size()) == x->dims[0].value)
        for (int64_t i = 0; i < count; ++i) vals.push_back((*d)[first + i * steps[k]]);
    } else if (!(starts[k] == 0 && steps[k] == 1 && ends[k] >= (int64_t{1} << 31) - 1)) {
      dim = IDim{};  // a symbolic dim keeps its name only under a full slice
    }
  }
  c.out[0] = ranked(x->elem, dims);
  if (!vals.empty() || (dims.size() == 1 && dims[0].is_static() && dims[0].value == 0 && d))
    c.out_contents[0] = std::move(vals);
  return true;
}

bool rule_concat(InferCtx& c) {
  std::vector<IDim> dims;
  int32_t elem = 0;
  bool ok = true;
  int64_t axis = c.attr_i("axis", 0);
  for (size_t i = 0; i < c.in.size(); ++i) {
    const IType* t = c.t(i);
    if (t && t->elem) elem = t->elem;
    if (!t || !t->ranked) { ok = false; continue; }
    int64_t r = static_cast<int64_t>(t->dims.size());
    int64_t a = norm(axis, r);
    if (a < 0 || a >= r) return false;
    if (dims.empty()) { dims = t->dims; continue; }
    if (dims.size() != t->dims.size()) return false;
    for (int64_t k = 0; k < r; ++k) {
      if (k == a) {
        dims[k] = dims[k].is_static() && t->dims[k].is_static() ? st(dims[k].value + t->dims[k].value) : IDim{};
      } else if (!dims[k].is_static() && !dims[k].is_symbolic()) {
        dims[k] = t->dims[k];
      }
    }
  }
  c.out[0] = ok ? ranked(elem, dims) : (dims.empty() ? IType{elem, false, {}} : ranked(elem, std::vector<IDim>(dims.size(), IDim{})));
  std::vector<SymVal> vals;
  for (size_t i = 0; i < c.in.size(); ++i) {
    if (!c.data(i)) return true;
    vals.insert(vals.end(), c.data(i)->begin(), c.data(i)->end());
  }
  if (static_cast<int64_t>(vals.size()) <= TypeInference::kMaxContents && ok && dims.size() == 1)
    c.out_contents[0] = std::move(vals);
  return true;
}

bool axes_of(InferCtx& c, std::vector<int64_t>& axes, bool& given) {
  given = true;
  if (c.attr_ints("axes", axes)) return true;
  if (c.in.size() > 1 && c.in_values[1]) return c.const_ints(1, axes);
  given = false;
  return true;
}

bool rule_unsqueeze(InferCtx& c) {
  const IType* x = c.t(0);
  std::vector<int64_t> axes;
  bool given;
  if (!x || !x->ranked || !axes_of(c, axes, given) || !given) { c.out[0] = IType{elem0(c), false, {}}; return true; }
  int64_t r = static_cast<int64_t>(x->dims.size() + axes.size());
  std::vector<bool> ins(r, false);
  for (int64_t a : axes) {
    a = norm(a, r);
    if (a < 0 || a >= r) return false;
    ins[a] = true;
  }
  std::vector<IDim> dims;
  size_t j = 0;
  for (int64_t i = 0; i < r; ++i) dims.push_back(ins[i] ? st(1) : x->dims[j++]);
  c.out[0] = ranked(x->elem, dims);
  if (c.data(0) && dims.size() <= 1) c.out_contents[0] = *c.data(0);
  return true;
}

bool rule_squeeze(InferCtx& c) {
  const IType* x = c.t(0);
  std::vector<int64_t> axes;
  bool given;
  if (!x || !x->ranked || !axes_of(c, axes, given)) { c.out[0] = IType{elem0(c), false, {}}; return true; }
  int64_t r = static_cast<int64_t>(x->dims.size());
  std::vector<bool> drop(r, false);
  if (given) {
    for (int64_t a : axes) {
      a = norm(a, r);
      if (a < 0 || a >= r) return false;
      drop[a] = true;
    }
  } else {
    for (int64_t i = 0; i < r; ++i) {
      if (!x->dims[i].is_static()) { c.out[0] = IType{x->elem, false, {}}; return true; }
      drop[i] = x->dims[i].value == 1;
    }
  }
  std::vector<IDim> dims;
  for (int64_t i = 0; i < r; ++i)
    if (!drop[i]) dims.push_back(x->dims[i]);
  c.out[0] = ranked(x->elem, dims);
  if (c.data(0) && c.data(0)->size() == 1) c.out_contents[0] = *c.data(0);
  return true;
}

bool rule_expand(InferCtx& c) {
  const IType* x = c.t(0);
  const std::vector<SymVal>* s = c.data(1);
  if (!x || !x->ranked || !s) {
    const IType* st1 = c.t(1);
    if (x && x->ranked && st1 && st1->ranked && st1->dims.size() == 1 && st1->dims[0].is_static())
      c.out[0] = unknown_dims(x->elem, std::max<int64_t>(st1->dims[0].value, x->dims.size()));
    else c.out[0] = IType{elem0(c), false, {}};
    return true;
  }
  IType shape;
  shape.ranked = true;
  for (const SymVal& v : *s) {
    if (v.kind == SymVal::kConst) shape.dims.push_back(st(v.value));
    else if (v.kind == SymVal::kDim && v.sym != kNoStr) shape.dims.push_back(IDim{-1, v.sym});
    else shape.dims.push_back(IDim{});
  }
  std::vector<IDim> dims;
  broadcast({x, &shape}, dims);
  c.out[0] = ranked(x->elem, dims);
  return true;
}

bool rule_flatten(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x || !x->ranked) { c.out[0] = ranked(elem0(c), {IDim{}, IDim{}}); return true; }
  int64_t r = static_cast<int64_t>(x->dims.size());
  int64_t axis = norm(c.attr_i("axis", 1), r);
  if (axis < 0 || axis > r) return false;
  auto prod = [&](int64_t lo, int64_t hi) {
    int64_t p = 1;
    for (int64_t i = lo; i < hi; ++i) {
      if (!x->dims[i].is_static()) return (hi - lo == 1) ? IDim{x->dims[i]} : IDim{};
      if (__builtin_mul_overflow(p, x->dims[i].value, &p)) return IDim{};
    }
    return st(p);
  };
  c.out[0] = ranked(x->elem, {prod(0, axis), prod(axis, r)});
  return true;
}

bool rule_reduce(InferCtx& c) {
  const IType* x = c.t(0);
  std::string_view op = c.op();
  int32_t elem = op == "ArgMax" || op == "ArgMin" ? kInt64 : elem0(c);
  if (!x || !x->ranked) { c.out[0] = IType{elem, false, {}}; return true; }
  int64_t r = static_cast<int64_t>(x->dims.size());
  bool keep = c.attr_i("keepdims", 1) != 0;
  std::vector<int64_t> axes;
  bool all = false;
  if (op == "ArgMax" || op == "ArgMin") {
    axes.push_back(c.attr_i("axis", 0));
  } else if (!c.attr_ints("axes", axes)) {
    if (c.in.size() > 1 && c.in_values[1]) {
      if (!c.const_ints(1, axes)) {
        c.out[0] = keep ? ranked(elem, std::vector<IDim>(r, IDim{})) : IType{elem, false, {}};
        return true;
      }
    }
    if (axes.empty()) {
      if (c.attr_i("noop_with_empty_axes", 0)) { c.out[0] = *x; c.out[0].elem = elem; return true; }
      all = true;
    }
  }
  std::vector<bool> red(r, all);
  for (int64_t a : axes) {
    a = norm(a, r);
    if (a < 0 || a >= r) return false;
    red[a] = true;
  }
  std::vector<IDim> dims;
  for (int64_t i = 0; i < r; ++i) {
    if (!red[i]) dims.push_back(x->dims[i]);
    else if (keep) dims.push_back(st(1));
  }
  c.out[0] = ranked(elem, dims);
  return true;
}

bool rule_matmul(InferCtx& c) {
  const IType* a = c.t(0);
  const IType* b = c.t(1);
  int32_t elem = elem0(c) ? elem0(c) : elem0(c, 1);
  if (!a || !b || !a->ranked || !b->ranked || a->dims.empty() || b->dims.empty()) {
    c.out[0] = IType{elem, false, {}};
    return true;
  }
  IType x = *a, y = *b;
  bool a1 = x.dims.size() == 1, b1 = y.dims.size() == 1;
  if (a1) x.dims.insert(x.dims.begin(), st(1));
  if (b1) y.dims.push_back(st(1));
  IType xb{0, true, std::vector<IDim>(x.dims.begin(), x.dims.end() - 2)};
  IType yb{0, true, std::vector<IDim>(y.dims.begin(), y.dims.end() - 2)};
  std::vector<IDim> dims;
  broadcast({&xb, &yb}, dims);
  if (!a1) dims.push_back(x.dims[x.dims.size() - 2]);
  if (!b1) dims.push_back(y.dims.back());
  c.out[0] = ranked(elem, dims);
  return true;
}

bool rule_gemm(InferCtx& c) {
  const IType* a = c.t(0);
  const IType* b = c.t(1);
  IDim m_dim, n_dim;
  if (a && a->ranked && a->dims.size() == 2) m_dim = a->dims[c.attr_i("transA", 0) ? 1 : 0];
  if (b && b->ranked && b->dims.size() == 2) n_dim = b->dims[c.attr_i("transB", 0) ? 0 : 1];
  c.out[0] = ranked(elem0(c), {m_dim, n_dim});
  return true;
}

bool rule_split(InferCtx& c) {
  const IType* x = c.t(0);
  size_t n = c.out.size();
  for (size_t i = 0; i < n; ++i) c.out[i] = IType{elem0(c), false, {}};
  if (!x || !x->ranked) return true;
  int64_t r = static_cast<int64_t>(x->dims.size());
  int64_t axis = norm(c.attr_i("axis", 0), r);
  if (axis < 0 || axis >= r) return false;
  std::vector<int64_t> split;
  bool have = c.attr_ints("split", split) || (c.in.size() > 1 && c.in_values[1] && c.const_ints(1, split));
  if (!have && x->dims[axis].is_static() && n > 0) {
    int64_t d = x->dims[axis].value, chunk = (d + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
    for (size_t i = 0; i < n; ++i) split.push_back(std::max<int64_t>(0, std::min(chunk, d - chunk * static_cast<int64_t>(i))));
    have = true;
  }
  for (size_t i = 0; i < n; ++i) {
    std::vector<IDim> dims = x->dims;
    dims[axis] = have && split.size() == n ? st(split[i]) : IDim{};
    c.out[i] = ranked(x->elem, dims);
  }
  return true;
}

bool rule_where(InferCtx& c) {
  std::vector<IDim> dims;
  int32_t elem = elem0(c, 1) ? elem0(c, 1) : elem0(c, 2);
  if (broadcast({c.t(0), c.t(1), c.t(2)}, dims)) c.out[0] = ranked(elem, dims);
  else c.out[0] = IType{elem, false, {}};
  const std::vector<SymVal>* k = c.data(0);
  const std::vector<SymVal>* x = c.data(1);
  const std::vector<SymVal>* y = c.data(2);
  if (k && x && y && dims.size() <= 1) {
    size_t n = std::max({k->size(), x->size(), y->size()});
    std::vector<SymVal> vals(n);
    for (size_t i = 0; i < n; ++i) {
      const SymVal& ki = (*k)[k->size() == 1 ? 0 : i];
      if (ki.kind != SymVal::kConst || (x->size() != 1 && x->size() != n) || (y->size() != 1 && y->size() != n)) return true;
      vals[i] = ki.value ? (*x)[x->size() == 1 ? 0 : i] : (*y)[y->size() == 1 ? 0 : i];
    }
    c.out_contents[0] = std::move(vals);
  }
  return true;
}

bool rule_constant(InferCtx& c) {
  for (const Attribute& a : c.node.attributes) {
    std::string_view name = c.m.str(a.name);
    if (name == "value" && a.t) {
      IType t{a.t->data_type, true, {}};
      for (int64_t d : a.t->dims) t.dims.push_back(st(d));
      c.out[0] = t;
      if (a.t->dims.size <= 1 && (a.t->data_type == kInt64 || a.t->data_type == kInt32) &&
          a.t->storage != Tensor::kExternal && a.t->numel() <= TypeInference::kMaxContents &&
          a.t->data.size == static_cast<size_t>(a.t->numel()) * dtype_size(a.t->data_type)) {
        std::vector<SymVal> vals;
        const uint8_t* p = a.t->bytes().data;
        for (int64_t i = 0; i < a.t->numel(); ++i) {
          int64_t v = 0;
          if (a.t->data_type == kInt64) std::memcpy(&v, p + 8 * i, 8);
          else { int32_t w; std::memcpy(&w, p + 4 * i, 4); v = w; }
          vals.push_back(cval(v));
        }
        c.out_contents[0] = std::move(vals);
      }
      return true;
    }
    if (name == "value_int") { c.out[0] = ranked(kInt64, {}); c.out_contents[0] = {cval(a.i)}; return true; }
    if (name == "value_ints") {
      c.out[0] = ranked(kInt64, {st(a.ints.size)});
      std::vector<SymVal> vals;
      for (int64_t v : a.ints) vals.push_back(cval(v));
      if (static_cast<int64_t>(vals.size()) <= TypeInference::kMaxContents) c.out_contents[0] = std::move(vals);
      return true;
    }
    if (name == "value_float") { c.out[0] = ranked(kFloat, {}); return true; }
    if (name == "value_floats") { c.out[0] = ranked(kFloat, {st(a.floats.size)}); return true; }
  }
  return false;
}

bool rule_constant_of_shape(InferCtx& c) {
  const Attribute* v = c.attr("value");
  int32_t elem = v && v->t ? v->t->data_type : kFloat;
  const std::vector<SymVal>* s = c.data(0);
  if (!s) {
    const IType* t = c.t(0);
    if (t && t->ranked && t->dims.size() == 1 && t->dims[0].is_static())
      c.out[0] = unknown_dims(elem, t->dims[0].value);
    else c.out[0] = IType{elem, false, {}};
    return true;
  }
  std::vector<IDim> dims;
  for (const SymVal& x : *s)
    dims.push_back(x.kind == SymVal::kConst ? st(x.value) : (x.kind == SymVal::kDim && x.sym ? IDim{-1, x.sym} : IDim{}));
  c.out[0] = ranked(elem, dims);
  // an integer fill of a short vector is tracked (shape arithmetic uses such vectors)
  if (dims.size() == 1 && dims[0].is_static() && dims[0].value >= 0 && dims[0].value <= TypeInference::kMaxContents &&
      (elem == kInt64 || elem == kInt32) && v && v->t && v->t->data.size == dtype_size(elem)) {
    int64_t fill = 0;
    if (elem == kInt64) std::memcpy(&fill, v->t->bytes().data, 8);
    else { int32_t w; std::memcpy(&w, v->t->bytes().data, 4); fill = w; }
    c.out_contents[0].assign(dims[0].value, cval(fill));
  }
  return true;
}

bool rule_range(InferCtx& c) {
  std::vector<int64_t> s, l, d;
  int32_t elem = elem0(c);
  c.out[0] = ranked(elem, {IDim{}});
  if (c.const_ints(0, s) && c.const_ints(1, l) && c.const_ints(2, d) && s.size() == 1 && l.size() == 1 && d.size() == 1 && d[0]) {
    int128 count = (static_cast<int128>(l[0]) - s[0] + d[0] - (d[0] > 0 ? 1 : -1)) / d[0];
    int64_t n = count <= 0 ? 0 : count > INT64_MAX ? INT64_MAX : static_cast<int64_t>(count);
    c.out[0] = ranked(elem, {st(n)});
    if (n <= TypeInference::kMaxContents)
      for (int64_t i = 0; i < n; ++i) c.out_contents[0].push_back(cval(static_cast<int64_t>(s[0] + static_cast<int128>(i) * d[0])));
  }
  return true;
}

bool rule_tile(InferCtx& c) {
  const IType* x = c.t(0);
  std::vector<int64_t> rep;
  if (!x || !x->ranked) { c.out[0] = IType{elem0(c), false, {}}; return true; }
  std::vector<IDim> dims(x->dims.size(), IDim{});
  if (c.const_ints(1, rep) && rep.size() == dims.size())
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i] = rep[i] == 1 ? x->dims[i] : (x->dims[i].is_static() ? st_mul(x->dims[i].value, rep[i]) : IDim{});
  c.out[0] = ranked(x->elem, dims);
  return true;
}

bool rule_pad(InferCtx& c) {
  const IType* x = c.t(0);
  std::vector<int64_t> pads;
  if (!x || !x->ranked) { c.out[0] = IType{elem0(c), false, {}}; return true; }
  std::vector<IDim> dims(x->dims.size(), IDim{});
  bool have = c.opset() < 11 ? c.attr_ints("pads", pads) : c.const_ints(1, pads);
  bool axes_given = c.in.size() > 3 && c.in_values[3];
  if (have && !axes_given && pads.size() == 2 * dims.size())
    for (size_t i = 0; i < dims.size(); ++i) {
      IDim p = st_add(pads[i], pads[i + dims.size()]);
      dims[i] = p.is_static() && p.value == 0 ? x->dims[i]
                : (x->dims[i].is_static() && p.is_static() ? st_add(x->dims[i].value, p.value) : IDim{});
    }
  c.out[0] = ranked(x->elem, dims);
  return true;
}

// Names as string_views: their lengths are known at compile time, so most comparisons stop at
// the length check instead of a strlen and memcmp per candidate.
bool is_one_of(std::string_view op, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (op == n) return true;
  return false;
}
}  // namespace

bool apply_rule(InferCtx& c) {
  std::string_view op = c.op();
  if (c.out.empty()) return false;
  if (is_one_of(op, {"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log", "Neg", "Abs", "Clip", "LeakyRelu",
                     "HardSigmoid", "HardSwish", "Softmax", "LogSoftmax", "Identity", "Elu", "Selu", "Gelu",
                     "Reciprocal", "Floor", "Ceil", "Round", "Sin", "Cos", "Sign", "Softplus", "Softsign",
                     "Not", "InstanceNormalization", "LRN", "Mish", "Celu", "ThresholdedRelu", "Hardmax",
                     "LpNormalization", "MeanVarianceNormalization", "CumSum", "Trilu"})) {
    if (c.t(0)) c.out[0] = *c.t(0);
    if (op == "Identity" && c.data(0)) c.out_contents[0] = *c.data(0);
    if (op == "Neg" && c.data(0)) {
      for (const SymVal& s : *c.data(0)) c.out_contents[0].push_back(s.kind == SymVal::kConst ? cval(-s.value) : SymVal{});
    }
    return true;
  }
  if (op == "Dropout" || op == "BatchNormalization" || op == "LayerNormalization") {
    if (c.t(0)) c.out[0] = *c.t(0);
    if (op == "Dropout" && c.out.size() > 1 && c.t(0)) c.out[1] = IType{kBool, c.t(0)->ranked, c.t(0)->dims};
    return true;
  }
  if (op == "Cast" || op == "CastLike") {
    if (c.t(0)) c.out[0] = *c.t(0);
    int32_t to = op == "Cast" ? static_cast<int32_t>(c.attr_i("to", 0)) : elem0(c, 1);
    c.out[0].elem = to;
    if (c.data(0) && (to == kInt64 || to == kInt32)) c.out_contents[0] = *c.data(0);
    return true;
  }
  bool cmp = is_one_of(op, {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"});
  if (cmp || is_one_of(op, {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "PRelu",
                            "BitShift", "BitwiseAnd", "BitwiseOr"})) {
    std::vector<IDim> dims;
    int32_t elem = cmp ? kBool : elem0(c);
    if (broadcast(c.in, dims)) c.out[0] = ranked(elem, dims);
    else c.out[0] = IType{elem, false, {}};
    if (c.in.size() == 2 && is_one_of(op, {"Add", "Sub", "Mul", "Div", "Equal"})) binary_contents(c, op);
    return true;
  }
  if (op == "Where") return rule_where(c);
  if (op == "Conv") return rule_conv(c, false);
  if (op == "ConvTranspose") return rule_conv(c, true);
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") return rule_pool(c);
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    const IType* x = c.t(0);
    if (!x || !x->ranked || x->dims.size() < 2) return false;
    std::vector<IDim> dims{x->dims[0], x->dims[1]};
    dims.resize(x->dims.size(), st(1));
    c.out[0] = ranked(x->elem, dims);
    return true;
  }
  if (op == "MatMul") return rule_matmul(c);
  if (op == "Gemm") return rule_gemm(c);
  if (op == "Reshape") return rule_reshape(c);
  if (op == "Shape") return rule_shape(c);
  if (op == "Size") { c.out[0] = ranked(kInt64, {}); return true; }
  if (op == "Transpose") return rule_transpose(c);
  if (op == "Gather") return rule_gather(c);
  if (op == "Slice") return rule_slice(c);
  if (op == "Concat") return rule_concat(c);
  if (op == "Unsqueeze") return rule_unsqueeze(c);
  if (op == "Squeeze") return rule_squeeze(c);
  if (op == "Expand") return rule_expand(c);
  if (op == "Flatten") return rule_flatten(c);
  if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin") return rule_reduce(c);
  if (op == "Split") return rule_split(c);
  if (op == "Constant") return rule_constant(c);
  if (op == "ConstantOfShape") return rule_constant_of_shape(c);
  if (op == "Range") return rule_range(c);
  if (op == "Tile") return rule_tile(c);
  if (op == "Pad") return rule_pad(c);
  return false;
}

bool apply_custom_rule(InferCtx& c) {
  if (c.m.str(c.node.domain) == "ai.onnxforge" && c.op() == "FusedConv") return rule_conv(c, false);
  return false;
}

}  // namespace ofg::exec
