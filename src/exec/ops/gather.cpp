// Indexed reads and writes: Gather, GatherElements, GatherND, ScatterElements (and Scatter),
// ScatterND, and the index producers OneHot and NonZero.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_gather(OpCtx& c) {
  const RTensor &x = c.t_rank(0, 1, 64), &ind = c.t(1);
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x.rank());
  Shape s;
  for (int64_t i = 0; i < axis; ++i) s.push_back(x.shape[i]);
  for (int64_t d : ind.shape) s.push_back(d);
  for (int64_t i = axis + 1; i < x.rank(); ++i) s.push_back(x.shape[i]);
  RTensor y = RTensor::alloc(x.dtype, s);
  int64_t outer = 1, inner = 1, dim = x.shape[axis];
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  size_t es = x.elem_size(), chunk = inner * es;
  int64_t ni = ind.numel();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < ni; ++j) {
      int64_t k = get_i64(ind, j);
      if (k < 0) k += dim;
      if (k < 0 || k >= dim) c.error("index " + std::to_string(get_i64(ind, j)) + " out of range [0," + std::to_string(dim) + ")");
      std::memcpy(y.ptr + (o * ni + j) * chunk, x.ptr + (o * dim + k) * chunk, chunk);
    }
  c.set(0, y);
}

// GatherElements / ScatterElements: indices of the rank of data, no dim larger than data's
// (the element offsets are computed with data's strides).
void check_index_shape(const OpCtx& c, const RTensor& x, const RTensor& ind, int64_t axis) {
  bool ok = ind.rank() == x.rank();
  for (int i = 0; ok && i < x.rank(); ++i) ok = i == axis || ind.shape[i] <= x.shape[i];
  if (!ok) c.error("indices " + shape_str(ind.shape) + " do not fit data " + shape_str(x.shape));
}

// GatherElements / ScatterElements: calls f(n, off) for every element n of the indices, off being
// the element of data it addresses (its own position on every axis but `axis`, its value there).
template <class F>
void each_indexed_element(const OpCtx& c, const RTensor& x, const RTensor& ind, int64_t axis, F&& f) {
  std::vector<int64_t> xs = strides_of(x.shape);
  for_each_index(ind.shape, [&](int64_t n, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (int i = 0; i < ind.rank(); ++i) {
      int64_t v = idx[i];
      if (i == axis) v = c.index(get_i64(ind, n), x.shape[axis], "index");
      off += v * xs[i];
    }
    f(n, off);
  });
}

void op_gather_elements(OpCtx& c) {
  const RTensor &x = c.t(0), &ind = c.t(1);
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x.rank());
  check_index_shape(c, x, ind, axis);
  RTensor y = RTensor::alloc(x.dtype, ind.shape);
  size_t es = x.elem_size();
  each_indexed_element(c, x, ind, axis, [&](int64_t n, int64_t off) { std::memcpy(y.ptr + n * es, x.ptr + off * es, es); });
  c.set(0, y);
}

void op_scatter_elements(OpCtx& c) {
  const RTensor &x = c.t(0), &ind = c.t(1), &upd = c.t(2);
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x.rank());
  std::string red = c.attr_s("reduction", "none");
  check_index_shape(c, x, ind, axis);
  if (upd.shape != ind.shape || upd.dtype != x.dtype)
    c.error("updates " + shape_str(upd.shape) + " must have the shape of indices " + shape_str(ind.shape) + " and the type of data");
  RTensor y = x.clone();
  each_indexed_element(c, x, ind, axis, [&](int64_t n, int64_t off) {
    double u = get_f64(upd, n), o = get_f64(y, off);
    double r = red == "add" ? o + u : red == "mul" ? o * u : red == "max" ? std::max(o, u) : red == "min" ? std::min(o, u) : u;
    if (red == "none") std::memcpy(y.ptr + off * x.elem_size(), upd.ptr + n * x.elem_size(), x.elem_size());
    else set_f64(y, off, r);
  });
  c.set(0, y);
}

void op_gather_nd(OpCtx& c) {
  const RTensor &x = c.t(0), &ind = c.t(1);
  int64_t b = c.attr_i("batch_dims", 0);
  if (ind.rank() < 1) c.error("indices must have rank >= 1");
  int64_t q = ind.rank(), k = ind.shape[q - 1];
  if (b < 0 || b >= q || b > x.rank() || k > x.rank() - b)
    c.error("batch_dims " + std::to_string(b) + " and indices " + shape_str(ind.shape) + " do not fit data " + shape_str(x.shape));
  for (int64_t i = 0; i < b; ++i)
    if (ind.shape[i] != x.shape[i]) c.error("batch dims differ: data " + shape_str(x.shape) + ", indices " + shape_str(ind.shape));
  Shape s(ind.shape.begin(), ind.shape.end() - 1);
  for (int64_t i = b + k; i < x.rank(); ++i) s.push_back(x.shape[i]);
  RTensor y = RTensor::alloc(x.dtype, s);
  int64_t slice = 1;
  for (int64_t i = b + k; i < x.rank(); ++i) slice *= x.shape[i];
  std::vector<int64_t> xs = strides_of(x.shape);
  int64_t batch = 1;
  for (int64_t i = 0; i < b; ++i) batch *= ind.shape[i];
  int64_t per_batch = shape_numel(Shape(ind.shape.begin() + b, ind.shape.end() - 1));
  size_t es = x.elem_size();
  int64_t xbatch = b ? xs[b - 1] : 0;
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t j = 0; j < per_batch; ++j) {
      int64_t row = bi * per_batch + j;
      int64_t off = bi * xbatch;
      for (int64_t t = 0; t < k; ++t) {
        off += c.index(get_i64(ind, row * k + t), x.shape[b + t], "index") * xs[b + t];
      }
      std::memcpy(y.ptr + row * slice * es, x.ptr + off * es, slice * es);
    }
  c.set(0, y);
}

void op_scatter_nd(OpCtx& c) {
  const RTensor &x = c.t(0), &ind = c.t(1), &upd = c.t(2);
  std::string red = c.attr_s("reduction", "none");
  if (ind.rank() < 1) c.error("indices must have rank >= 1");
  int64_t k = ind.shape.back();
  if (k > x.rank()) c.error("indices " + shape_str(ind.shape) + " index more axes than data " + shape_str(x.shape) + " has");
  Shape us(ind.shape.begin(), ind.shape.end() - 1);
  us.insert(us.end(), x.shape.begin() + k, x.shape.end());
  if (upd.shape != us || upd.dtype != x.dtype)
    c.error("updates must have shape " + shape_str(us) + " and the type of data, got " + shape_str(upd.shape));
  RTensor y = x.clone();
  int64_t rows = ind.numel() / std::max<int64_t>(k, 1);
  int64_t slice = 1;
  for (int64_t i = k; i < x.rank(); ++i) slice *= x.shape[i];
  std::vector<int64_t> xs = strides_of(x.shape);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (int64_t t = 0; t < k; ++t) {
      off += c.index(get_i64(ind, r * k + t), x.shape[t], "index") * xs[t];
    }
    if (red == "none") {  // the update's row replaces the slice: one copy
      const size_t es = x.elem_size();
      std::memcpy(y.ptr + off * es, upd.ptr + r * slice * es, static_cast<size_t>(slice) * es);
      continue;
    }
    for (int64_t e = 0; e < slice; ++e) {
      double u = get_f64(upd, r * slice + e), o = get_f64(y, off + e);
      set_f64(y, off + e, red == "add" ? o + u : red == "mul" ? o * u : red == "max" ? std::max(o, u) : std::min(o, u));
    }
  }
  c.set(0, y);
}

void op_onehot(OpCtx& c) {
  const RTensor &ind = c.t(0), &vals = c.t_numel(2, 2);
  int64_t depth = c.size_value(saturate_cast<int64_t>(get_f64(c.t_numel(1, 1), 0)), "depth");
  int64_t r = ind.rank() + 1;
  int64_t axis = norm_axis(c, c.attr_i("axis", -1), r);
  Shape s = ind.shape;
  s.insert(s.begin() + axis, depth);
  RTensor y = RTensor::alloc(vals.dtype, s);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= s[i];
  for (int64_t i = axis + 1; i < r; ++i) inner *= s[i];
  size_t es = vals.elem_size();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t d = 0; d < depth; ++d)
      for (int64_t in = 0; in < inner; ++in) {
        int64_t k = saturate_cast<int64_t>(get_f64(ind, o * inner + in));
        if (k < 0) k += depth;
        std::memcpy(y.ptr + ((o * depth + d) * inner + in) * es, vals.ptr + (k == d ? 1 : 0) * es, es);
      }
  c.set(0, y);
}

void op_nonzero(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (get_f64(x, i) != 0) hits.push_back(i);
  int64_t r = x.rank(), n = static_cast<int64_t>(hits.size());
  RTensor y = RTensor::alloc(kInt64, {r, n});
  std::vector<int64_t> st = strides_of(x.shape);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t d = 0; d < r; ++d) y.data<int64_t>()[d * n + j] = (hits[j] / st[d]) % x.shape[d];
  c.set(0, y);
}

}  // namespace

namespace rules {

bool rule_gather(InferCtx& c) {
  const IType* x = c.t(0);
  const IType* idx = c.t(1);
  if (!x || !x->ranked || !idx || !idx->ranked) return unknown_output(c);
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

}  // namespace rules

void register_gather_ops(Registry& r) {
  r.add("Gather", op_gather, 1, 1 << 30, false).infer(rules::rule_gather).passes_input(0);
  r.add("GatherElements", op_gather_elements, 1, 1 << 30, false).no_rule();
  r.add("GatherND", op_gather_nd, 1, 1 << 30, false).no_rule();
  r.add("ScatterElements", op_scatter_elements).no_rule();
  r.add("Scatter", op_scatter_elements, 9, 10).no_rule();
  r.add("ScatterND", op_scatter_nd).no_rule();
  r.add("OneHot", op_onehot).traits(kMayGrow).no_rule();
  r.add("NonZero", op_nonzero).no_rule();
}

}  // namespace ofg::exec
