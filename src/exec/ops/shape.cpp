// Shapes without data movement: Identity, Reshape, Flatten, Squeeze, Unsqueeze, Expand, and the
// shape queries Shape and Size.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_identity(OpCtx& c) {
  // Any value passes through, an empty optional too; only a missing input is an error.
  if (c.n_in() < 1 || !c.in[0]) c.error("input 0 is missing");
  c.out[0] = *c.in[0];
}

void op_reshape(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> s = c.opset < 5 ? c.attr_ints("shape") : to_i64_vec(c.t(1));
  bool allowzero = c.attr_i("allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 0 && !allowzero) {
      if (i >= x.shape.size()) c.error("0 in shape refers past the input rank");
      s[i] = x.shape[i];
    }
    if (s[i] == -1) {
      if (infer >= 0) c.error("more than one -1 in shape");
      infer = static_cast<int64_t>(i);
    } else {
      if (s[i] < 0) c.error("negative dim in shape " + shape_str(s));
      known = checked_mul(known, s[i]);
    }
  }
  if (infer >= 0) s[infer] = known == 0 ? 0 : x.numel() / known;
  if (shape_numel(s) != x.numel()) c.error("cannot reshape " + shape_str(x.shape) + " to " + shape_str(s));
  c.set(0, x.reshaped(s));
}

void op_flatten(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t axis = c.attr_i("axis", 1);
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis > x.rank()) c.error("axis " + std::to_string(c.attr_i("axis", 1)) + " is out of range for rank " + std::to_string(x.rank()));
  int64_t a = 1;
  for (int64_t i = 0; i < axis; ++i) a *= x.shape[i];
  c.set(0, x.reshaped({a, a == 0 ? 0 : x.numel() / std::max<int64_t>(a, 1)}));
}

std::vector<int64_t> axes_input_or_attr(OpCtx& c, int64_t input_from_opset) {
  if (c.opset >= input_from_opset) return c.has(1) ? to_i64_vec(c.t(1)) : std::vector<int64_t>{};
  return c.attr_ints("axes");
}

void op_squeeze(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> axes = axes_input_or_attr(c, 13);
  std::vector<bool> drop(x.rank(), false);
  if (axes.empty()) {
    for (int i = 0; i < x.rank(); ++i) drop[i] = x.shape[i] == 1;
  } else {
    for (int64_t a : axes) drop[norm_axis(c, a, x.rank())] = true;
  }
  Shape s;
  for (int i = 0; i < x.rank(); ++i)
    if (!drop[i]) s.push_back(x.shape[i]);
  c.set(0, x.reshaped(s));
}

void op_unsqueeze(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> axes = axes_input_or_attr(c, 13);
  int64_t r = x.rank() + static_cast<int64_t>(axes.size());
  std::vector<bool> ins(r, false);
  for (int64_t a : axes) {
    int64_t k = norm_axis(c, a, r);
    if (ins[k]) c.error("axis " + std::to_string(a) + " is repeated");
    ins[k] = true;
  }
  Shape s;
  size_t k = 0;
  for (int64_t i = 0; i < r; ++i) s.push_back(ins[i] ? 1 : x.shape[k++]);
  c.set(0, x.reshaped(s));
}

void op_expand(OpCtx& c) {
  const RTensor& x = c.t(0);
  Shape target = to_i64_vec(c.t(1));
  Shape out = broadcast_shapes(c, {x.shape, target});
  RTensor y = RTensor::alloc(x.dtype, out);
  size_t es = x.elem_size();
  broadcast_each(out, {x.shape}, [&](int64_t i, const int64_t* o) { std::memcpy(y.ptr + i * es, x.ptr + o[0] * es, es); });
  c.set(0, y);
}

void op_shape(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t r = x.rank();
  int64_t start = c.attr_i("start", 0), end = c.attr_i("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> v;
  for (int64_t i = start; i < end; ++i) v.push_back(x.shape[i]);
  c.set(0, make_i64(v, {static_cast<int64_t>(v.size())}));
}

void op_size(OpCtx& c) { c.set(0, make_i64({c.t(0).numel()}, {})); }

}  // namespace

namespace rules {

bool rule_reshape(InferCtx& c) {
  const IType* x = c.t(0);
  const std::vector<SymVal>* s = c.data(1);
  int32_t elem = elem0(c);
  if (c.op() == "Reshape" && c.opset() < 5) return false;
  if (!s) {
    c.out[0] = shape_from_untracked(c, 1, elem);
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
  if (!x || !x->ranked || !axes_of(c, axes, given) || !given) return unknown_output(c);
  int64_t r = static_cast<int64_t>(x->dims.size() + axes.size());
  std::vector<bool> ins(r, false);
  if (!mark_axes(axes, r, ins)) return false;
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
  if (!x || !x->ranked || !axes_of(c, axes, given)) return unknown_output(c);
  int64_t r = static_cast<int64_t>(x->dims.size());
  std::vector<bool> drop(r, false);
  if (given) {
    if (!mark_axes(axes, r, drop)) return false;
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

bool rule_identity(InferCtx& c) {
  same_type(c);
  if (c.data(0)) c.out_contents[0] = *c.data(0);
  return true;
}

bool rule_size(InferCtx& c) {
  c.out[0] = ranked(kInt64, {});
  return true;
}

}  // namespace rules

void register_shape_ops(Registry& r) {
  r.add("Identity", op_identity, 1, 1 << 30, false).infer(rules::rule_identity).passes_input(0);
  r.add("Reshape", op_reshape).infer(rules::rule_reshape).passes_input(0);
  r.add("Flatten", op_flatten).infer(rules::rule_flatten).passes_input(0);
  r.add("Squeeze", op_squeeze).infer(rules::rule_squeeze).passes_input(0);
  r.add("Unsqueeze", op_unsqueeze).infer(rules::rule_unsqueeze).passes_input(0);
  r.add("Expand", op_expand, 1, 1 << 30, false).infer(rules::rule_expand).traits(kMayGrow);
  r.add("Shape", op_shape, 1, 1 << 30, false).infer(rules::rule_shape).shape_only();
  r.add("Size", op_size, 1, 1 << 30, false).infer(rules::rule_size).shape_only();
}

}  // namespace ofg::exec
