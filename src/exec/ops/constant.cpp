// Tensors made from attributes and scalars: Constant, ConstantOfShape, Range, EyeLike.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"
#include "ir/int128.h"

namespace ofg::exec {
namespace {

void op_constant(OpCtx& c) {
  for (const Attribute& a : c.node.attributes) {
    std::string n(c.model.str(a.name));
    if (n == "value" && a.t) {
      // With the run's cache the value is a view of the model's bytes (or of one aligned copy),
      // as an initializer's is, instead of a copy per run.
      ExecCache* cache = c.interp.cache();
      c.set(0, cache ? cache->constant(*a.t) : from_ir(*a.t).clone());
      return;
    }
    if (n == "value_float") { RTensor t = RTensor::alloc(kFloat, {}); *t.data<float>() = a.f; c.set(0, t); return; }
    if (n == "value_int") { c.set(0, make_i64({a.i}, {})); return; }
    if (n == "value_floats") {
      RTensor t = RTensor::alloc(kFloat, {static_cast<int64_t>(a.floats.size)});
      std::copy(a.floats.begin(), a.floats.end(), t.data<float>());
      c.set(0, t);
      return;
    }
    if (n == "value_ints") { c.set(0, make_i64(std::vector<int64_t>(a.ints.begin(), a.ints.end()), {static_cast<int64_t>(a.ints.size)})); return; }
  }
  fail(Status::kUnsupported, c.where() + ": Constant without a supported value attribute");
}

void op_constant_of_shape(OpCtx& c) {
  Shape s = to_i64_vec(c.t_rank(0, 1));
  const Attribute* a = c.attr("value");
  RTensor v = a && a->t ? from_ir(*a->t) : RTensor();
  if (a && a->t && v.numel() != 1) c.error("value must hold one element, got shape " + shape_str(v.shape));
  int32_t dt = a && a->t ? v.dtype : kFloat;
  RTensor y = RTensor::alloc(dt, s);
  if (a && a->t) {
    size_t es = y.elem_size();
    for (int64_t i = 0; i < y.numel(); ++i) std::memcpy(y.ptr + i * es, v.ptr, es);
  }
  c.set(0, y);
}

void op_range(OpCtx& c) {
  const RTensor& st = c.t_numel(0, 1);
  double s = get_f64(st, 0), l = get_f64(c.t_numel(1, 1), 0), d = get_f64(c.t_numel(2, 1), 0);
  // NaN / inf counts (a zero or NaN delta) saturate; the allocation budget then refuses them.
  int64_t n = std::max<int64_t>(0, saturate_cast<int64_t>(std::ceil((l - s) / d)));
  if (!is_float_type(st.dtype)) {
    // In 128 bits: limit - start and the element values cannot overflow.
    int128 si = get_i64(st, 0), li = get_i64(c.t(1), 0), di = get_i64(c.t(2), 0);
    int128 count = di == 0 ? 0 : (li - si + di + (di > 0 ? -1 : 1)) / di;
    n = count <= 0 ? 0 : count > INT64_MAX ? INT64_MAX : static_cast<int64_t>(count);
    RTensor y = RTensor::alloc(st.dtype, {n});
    for (int64_t i = 0; i < n; ++i) set_f64(y, i, static_cast<double>(si + i * di));
    c.set(0, y);
    return;
  }
  RTensor y = RTensor::alloc(st.dtype, {n});
  if (st.dtype == kFloat) {
    // Accumulate in the element type, as the reference does.
    float v = static_cast<float>(s), df = static_cast<float>(d);
    for (int64_t i = 0; i < n; ++i) y.data<float>()[i] = static_cast<float>(s) + static_cast<float>(i) * df, (void)v;
  } else {
    for (int64_t i = 0; i < n; ++i) set_f64(y, i, s + i * d);
  }
  c.set(0, y);
}

void op_eyelike(OpCtx& c) {
  const RTensor& x = c.t(0);
  int32_t dt = static_cast<int32_t>(c.attr_i("dtype", x.dtype));
  int64_t k = c.attr_i("k", 0);
  if (x.rank() != 2) c.error("input must have rank 2, got shape " + shape_str(x.shape));
  RTensor y = RTensor::alloc(dt, x.shape);
  for (int64_t i = 0; i < x.shape[0]; ++i) {
    int64_t j;
    if (__builtin_add_overflow(i, k, &j)) continue;
    if (j >= 0 && j < x.shape[1]) set_f64(y, i * x.shape[1] + j, 1);
  }
  c.set(0, y);
}

}  // namespace

namespace rules {

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
    c.out[0] = shape_from_untracked(c, 0, elem);
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
  } else if (c.const_ints(0, s) && c.const_ints(2, d) && s.size() == 1 && d.size() == 1 && s[0] == 0 && d[0] == 1) {
    // Range(0, n, 1) with n a named dim read by Shape (positions 0..seq-1): n elements, and the
    // dim keeps its name, so position tables and masks built from it line up with the tensors.
    const std::vector<SymVal>* n = c.data(1);
    if (n && n->size() == 1 && (*n)[0].kind == SymVal::kDim && (*n)[0].sym != kNoStr) c.out[0] = ranked(elem, {IDim{-1, (*n)[0].sym}});
  }
  return true;
}

}  // namespace rules

void register_constant_ops(Registry& r) {
  r.add("Constant", op_constant, 1, 1 << 30, false).infer(rules::rule_constant);
  r.add("ConstantOfShape", op_constant_of_shape, 1, 1 << 30, false).infer(rules::rule_constant_of_shape).traits(kMayGrow);
  r.add("Range", op_range).infer(rules::rule_range).traits(kMayGrow);
  r.add("EyeLike", op_eyelike, 1, 1 << 30, false).traits(kMayGrow).no_rule();
}

}  // namespace ofg::exec
