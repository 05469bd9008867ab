// Data movement and shape arithmetic: Reshape, Transpose, Concat, Split, Slice, Gather, Expand,
// Shape, Cast, Constant, Range, Tile, Pad, ...
#include <numeric>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"
#include "ir/int128.h"

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

RTensor transpose(const RTensor& x, const std::vector<size_t>& perm) {
  Shape s(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s[i] = x.shape[perm[i]];
  // The kernel writes every element: no zero fill (folding transposes whole weight matrices).
  RTensor y = RTensor::alloc_uninit(x.dtype, s);
  if (x.numel()) kernels::transpose(x.ptr, y.ptr, x.elem_size(), x.shape.data(), perm.data(), perm.size());
  return y;
}

void op_transpose(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> p = c.attr_ints("perm");
  std::vector<size_t> perm(x.rank());
  if (p.empty()) {
    for (int i = 0; i < x.rank(); ++i) perm[i] = x.rank() - 1 - i;
  } else {
    if (static_cast<int>(p.size()) != x.rank()) c.error("perm has the wrong length");
    std::vector<bool> seen(x.rank(), false);
    for (int i = 0; i < x.rank(); ++i) {
      perm[i] = static_cast<size_t>(norm_axis(c, p[i], x.rank()));
      if (seen[perm[i]]) c.error("perm repeats axis " + std::to_string(p[i]));
      seen[perm[i]] = true;
    }
  }
  c.set(0, transpose(x, perm));
}

void op_concat(OpCtx& c) {
  std::vector<const RTensor*> xs;
  for (size_t i = 0; i < c.n_in(); ++i)
    if (c.has(i)) xs.push_back(&c.t(i));
  if (xs.empty()) c.error("no inputs");
  const RTensor& x0 = *xs[0];
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x0.rank());
  if (x0.rank() == 0) c.error("inputs must have rank >= 1");
  Shape s = x0.shape;
  s[axis] = 0;
  for (auto* x : xs) {
    if (x->rank() != x0.rank() || x->dtype != x0.dtype) c.error("inputs differ in rank or type");
    for (int i = 0; i < x0.rank(); ++i)
      if (i != axis && x->shape[i] != x0.shape[i])
        c.error("inputs differ in a dim other than the axis: " + shape_str(x0.shape) + " and " + shape_str(x->shape));
    s[axis] = checked_add(s[axis], x->shape[axis]);
  }
  RTensor y = RTensor::alloc(x0.dtype, s);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= s[i];
  size_t es = x0.elem_size();
  size_t out_row = static_cast<size_t>(y.numel() / std::max<int64_t>(outer, 1)) * es;
  size_t off = 0;
  for (auto* x : xs) {
    size_t row = outer ? static_cast<size_t>(x->numel() / outer) * es : 0;
    for (int64_t o = 0; o < outer; ++o) std::memcpy(y.ptr + o * out_row + off, x->ptr + o * row, row);
    off += row;
  }
  c.set(0, y);
}

// Copies the slab [start, start+len) along axis.
RTensor take_range(const RTensor& x, int64_t axis, int64_t start, int64_t len) {
  Shape s = x.shape;
  s[axis] = len;
  RTensor y = RTensor::alloc(x.dtype, s);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  size_t es = x.elem_size();
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(y.ptr + (o * len) * inner * es, x.ptr + (o * x.shape[axis] + start) * inner * es, len * inner * es);
  return y;
}

void op_split(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x.rank());
  std::vector<int64_t> sizes;
  if (c.opset >= 13 && c.has(1)) sizes = to_i64_vec(c.t(1));
  else if (c.opset < 13) sizes = c.attr_ints("split");
  size_t n = c.n_out();
  int64_t dim = x.shape[axis];
  if (sizes.empty()) {
    int64_t num = c.has_attr("num_outputs") ? c.attr_i("num_outputs", 1) : static_cast<int64_t>(n);
    if (num < 1 || num > (1 << 20)) c.error("num_outputs must be positive, got " + std::to_string(num));
    int64_t chunk = (dim + num - 1) / num;
    for (int64_t i = 0; i < num; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  int64_t total = 0;
  for (int64_t v : sizes) total = checked_add(total, c.size_value(v, "a split size"));
  if (total != dim) c.error("split sizes add up to " + std::to_string(total) + ", the axis has " + std::to_string(dim));
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size() && i < n; ++i) {
    c.set(i, take_range(x, axis, start, sizes[i]));
    start += sizes[i];
  }
}

void op_slice(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
    axes = c.attr_ints("axes");
  } else {
    starts = to_i64_vec(c.t(1));
    ends = to_i64_vec(c.t(2));
    if (c.has(3)) axes = to_i64_vec(c.t(3));
    if (c.has(4)) steps = to_i64_vec(c.t(4));
  }
  int r = x.rank();
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.error("starts, ends, axes and steps differ in length");
  std::vector<int64_t> st(r, 0), step(r, 1);
  Shape s = x.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = norm_axis(c, axes[i], r);
    int64_t d = x.shape[a], k = steps[i];
    if (k == 0) c.error("slice step 0");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += d;
    if (e < 0) e += d;
    // Counts are written as 1 + (span - 1) / |step| so that a huge step cannot overflow.
    if (k > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      s[a] = e > b ? 1 + (e - b - 1) / k : 0;
    } else {
      b = std::clamp<int64_t>(b, -1, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      s[a] = b > e ? 1 + (b - e - 1) / (k == INT64_MIN ? INT64_MAX : -k) : 0;
    }
    st[a] = b;
    step[a] = k;
  }
  RTensor y = RTensor::alloc(x.dtype, s);
  std::vector<int64_t> xs = strides_of(x.shape);
  size_t es = x.elem_size();
  int64_t base = 0;
  for (int i = 0; i < r; ++i) base += st[i] * xs[i];
  std::vector<int64_t> idx(r, 0);
  int64_t total = y.numel();
  for (int64_t n = 0; n < total; ++n) {
    int64_t off = base;
    for (int i = 0; i < r; ++i) off += idx[i] * step[i] * xs[i];
    std::memcpy(y.ptr + n * es, x.ptr + off * es, es);
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[i] < s[i]) break;
      idx[i] = 0;
    }
  }
  c.set(0, y);
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

void op_tile(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> rep = to_i64_vec(c.t(1));
  if (static_cast<int>(rep.size()) != x.rank())
    c.error("repeats must have " + std::to_string(x.rank()) + " values, got " + std::to_string(rep.size()));
  Shape s = x.shape;
  for (int i = 0; i < x.rank(); ++i) s[i] = checked_mul(s[i], c.size_value(rep[i], "a repeat"));
  RTensor y = RTensor::alloc(x.dtype, s);
  std::vector<int64_t> xs = strides_of(x.shape);
  size_t es = x.elem_size();
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t n = 0; n < y.numel(); ++n) {
    int64_t off = 0;
    for (size_t i = 0; i < s.size(); ++i) off += (idx[i] % x.shape[i]) * xs[i];
    std::memcpy(y.ptr + n * es, x.ptr + off * es, es);
    for (size_t i = s.size(); i-- > 0;) {
      if (++idx[i] < s[i]) break;
      idx[i] = 0;
    }
  }
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

void op_gather_elements(OpCtx& c) {
  const RTensor &x = c.t(0), &ind = c.t(1);
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x.rank());
  check_index_shape(c, x, ind, axis);
  RTensor y = RTensor::alloc(x.dtype, ind.shape);
  std::vector<int64_t> xs = strides_of(x.shape);
  size_t es = x.elem_size();
  std::vector<int64_t> idx(ind.rank(), 0);
  for (int64_t n = 0; n < ind.numel(); ++n) {
    int64_t off = 0;
    for (int i = 0; i < ind.rank(); ++i) {
      int64_t v = idx[i];
      if (i == axis) v = c.index(get_i64(ind, n), x.shape[axis], "index");
      off += v * xs[i];
    }
    std::memcpy(y.ptr + n * es, x.ptr + off * es, es);
    for (int i = ind.rank() - 1; i >= 0; --i) {
      if (++idx[i] < ind.shape[i]) break;
      idx[i] = 0;
    }
  }
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
  std::vector<int64_t> xs = strides_of(x.shape);
  std::vector<int64_t> idx(ind.rank(), 0);
  for (int64_t n = 0; n < ind.numel(); ++n) {
    int64_t off = 0;
    for (int i = 0; i < ind.rank(); ++i) {
      int64_t v = idx[i];
      if (i == axis) v = c.index(get_i64(ind, n), x.shape[axis], "index");
      off += v * xs[i];
    }
    double u = get_f64(upd, n), o = get_f64(y, off);
    double r = red == "add" ? o + u : red == "mul" ? o * u : red == "max" ? std::max(o, u) : red == "min" ? std::min(o, u) : u;
    if (red == "none") std::memcpy(y.ptr + off * x.elem_size(), upd.ptr + n * x.elem_size(), x.elem_size());
    else set_f64(y, off, r);
    for (int i = ind.rank() - 1; i >= 0; --i) {
      if (++idx[i] < ind.shape[i]) break;
      idx[i] = 0;
    }
  }
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
    for (int64_t e = 0; e < slice; ++e) {
      double u = get_f64(upd, r * slice + e), o = get_f64(y, off + e);
      if (red == "none") {
        std::memcpy(y.ptr + (off + e) * x.elem_size(), upd.ptr + (r * slice + e) * x.elem_size(), x.elem_size());
        continue;
      }
      set_f64(y, off + e, red == "add" ? o + u : red == "mul" ? o * u : red == "max" ? std::max(o, u) : std::min(o, u));
    }
  }
  c.set(0, y);
}

void op_cast(OpCtx& c) {
  int32_t to = static_cast<int32_t>(c.attr_i("to", 0));
  if (!is_supported_type(to)) fail(Status::kUnsupported, c.where() + ": cast to " + dtype_name(to) + " is not supported");
  c.set(0, cast_tensor(c.t(0), to));
}
void op_cast_like(OpCtx& c) { c.set(0, cast_tensor(c.t(0), c.t(1).dtype)); }

void op_constant(OpCtx& c) {
  for (const Attribute& a : c.node.attributes) {
    std::string n(c.model.str(a.name));
    if (n == "value" && a.t) { c.set(0, from_ir(*a.t).clone()); return; }
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

void op_pad(OpCtx& c) {
  const RTensor& x = c.t(0);
  int r = x.rank();
  std::vector<int64_t> pads = c.opset < 11 ? c.attr_ints(c.opset < 2 ? "paddings" : "pads") : to_i64_vec(c.t(1));
  std::string mode = c.attr_s("mode", "constant");
  double cv = c.opset < 11 ? c.attr_f("value", 0.f) : (c.has(2) && c.t(2).numel() ? get_f64(c.t(2), 0) : 0.0);
  std::vector<int64_t> axes;
  if (c.opset >= 18 && c.has(3)) axes = to_i64_vec(c.t(3));
  std::vector<int64_t> pb(r, 0), pe(r, 0);
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap") c.error("unknown mode '" + mode + "'");
  size_t want = 2 * (axes.empty() ? static_cast<size_t>(r) : axes.size());
  if (pads.size() != want) c.error("pads must have " + std::to_string(want) + " values, got " + std::to_string(pads.size()));
  if (axes.empty()) {
    for (int i = 0; i < r; ++i) {
      pb[i] = pads[i];
      pe[i] = pads[i + r];
    }
  } else {
    size_t na = axes.size();
    for (size_t i = 0; i < na; ++i) {
      int64_t a = norm_axis(c, axes[i], r);
      pb[a] = pads[i];
      pe[a] = pads[i + na];
    }
  }
  Shape s(r);
  for (int i = 0; i < r; ++i) s[i] = checked_add(checked_add(x.shape[i], pb[i]), pe[i]);
  RTensor y = RTensor::alloc(x.dtype, s);
  std::vector<int64_t> xs = strides_of(x.shape);
  size_t es = x.elem_size();
  std::vector<int64_t> idx(r, 0);
  for (int64_t n = 0; n < y.numel(); ++n) {
    int64_t off = 0;
    bool inside = true;
    for (int i = 0; i < r; ++i) {
      int64_t v = idx[i] - pb[i], d = x.shape[i];
      if (v < 0 || v >= d) {
        if (mode == "constant" || d == 0) { inside = false; break; }
        if (mode == "edge") v = v < 0 ? 0 : d - 1;
        else if (mode == "reflect") {
          int64_t period = 2 * (d - 1);
          if (period == 0) v = 0;
          else {
            v = ((v % period) + period) % period;
            if (v >= d) v = period - v;
          }
        } else if (mode == "wrap") v = ((v % d) + d) % d;
      }
      off += v * xs[i];
    }
    if (inside) std::memcpy(y.ptr + n * es, x.ptr + off * es, es);
    else set_f64(y, n, cv);
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[i] < s[i]) break;
      idx[i] = 0;
    }
  }
  c.set(0, y);
}

void op_trilu(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t k = c.has(1) ? get_i64(c.t_numel(1, 1), 0) : 0;
  bool upper = c.attr_i("upper", 1) != 0;
  if (x.rank() < 2) c.error("input must have rank >= 2, got shape " + shape_str(x.shape));
  RTensor y = x.clone();
  int64_t R = x.shape[x.rank() - 2], C = x.shape[x.rank() - 1];
  int64_t mats = (R != 0 && C != 0) ? x.numel() / (R * C) : 0;
  size_t es = x.elem_size();
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) {
        bool keep = upper ? (j - i >= k) : (j - i <= k);
        if (!keep) std::memset(y.ptr + ((m * R + i) * C + j) * es, 0, es);
      }
  c.set(0, y);
}

void op_depth_space(OpCtx& c, bool to_space) {
  const RTensor& x = c.t(0);
  int64_t b = c.attr_i("blocksize", 1);
  if (x.rank() != 4) c.error("input must have rank 4, got shape " + shape_str(x.shape));
  if (b < 1 || b > (1 << 20)) c.error("blocksize must be positive, got " + std::to_string(b));
  int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (to_space ? C % (b * b) != 0 : (H % b != 0 || W % b != 0))
    c.error("blocksize " + std::to_string(b) + " does not divide the dims of " + shape_str(x.shape));
  RTensor y;
  if (to_space) {
    bool crd = c.attr_s("mode", "DCR") == "CRD";
    int64_t Co = C / (b * b);
    RTensor v = crd ? x.reshaped({N, Co, b, b, H, W}) : x.reshaped({N, b, b, Co, H, W});
    std::vector<size_t> perm = crd ? std::vector<size_t>{0, 1, 4, 2, 5, 3} : std::vector<size_t>{0, 3, 4, 1, 5, 2};
    Shape s(6);
    for (int i = 0; i < 6; ++i) s[i] = v.shape[perm[i]];
    y = RTensor::alloc(x.dtype, s);
    kernels::transpose(v.ptr, y.ptr, x.elem_size(), v.shape.data(), perm.data(), 6);
    c.set(0, y.reshaped({N, Co, H * b, W * b}));
  } else {
    RTensor v = x.reshaped({N, C, H / b, b, W / b, b});
    std::vector<size_t> perm{0, 3, 5, 1, 2, 4};
    Shape s(6);
    for (int i = 0; i < 6; ++i) s[i] = v.shape[perm[i]];
    y = RTensor::alloc(x.dtype, s);
    kernels::transpose(v.ptr, y.ptr, x.elem_size(), v.shape.data(), perm.data(), 6);
    c.set(0, y.reshaped({N, C * b * b, H / b, W / b}));
  }
}
void op_d2s(OpCtx& c) { op_depth_space(c, true); }
void op_s2d(OpCtx& c) { op_depth_space(c, false); }

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

void op_cumsum(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t axis = norm_axis(c, get_i64(c.t_numel(1, 1), 0), x.rank());
  bool excl = c.attr_i("exclusive", 0) != 0, rev = c.attr_i("reverse", 0) != 0;
  RTensor y = RTensor::alloc(x.dtype, x.shape);
  int64_t outer = 1, inner = 1, len = x.shape[axis];
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      double acc = 0;
      for (int64_t t = 0; t < len; ++t) {
        int64_t k = rev ? len - 1 - t : t;
        int64_t off = (o * len + k) * inner + in;
        double v = get_f64(x, off);
        if (excl) { set_f64(y, off, acc); acc += v; }
        else { acc += v; set_f64(y, off, acc); }
      }
    }
  c.set(0, y);
}

}  // namespace

RTensor transpose_tensor(const RTensor& x, const std::vector<size_t>& perm) { return transpose(x, perm); }

// ------------------------------------------------------------------ type/shape rules (exec/infer_rules.h)
namespace rules {

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

bool identity(InferCtx& c) {
  same_type(c);
  if (c.data(0)) c.out_contents[0] = *c.data(0);
  return true;
}

bool cast_to(InferCtx& c, int32_t to) {
  same_type(c);
  c.out[0].elem = to;
  if (c.data(0) && (to == kInt64 || to == kInt32)) c.out_contents[0] = *c.data(0);
  return true;
}

bool cast(InferCtx& c) { return cast_to(c, static_cast<int32_t>(c.attr_i("to", 0))); }
bool cast_like(InferCtx& c) { return cast_to(c, elem0(c, 1)); }

bool size(InferCtx& c) {
  c.out[0] = ranked(kInt64, {});
  return true;
}

}  // namespace rules


void register_shape_ops(Registry& r) {
  r.add("Identity", op_identity, 1, 1 << 30, false).infer(rules::identity);
  r.add("Reshape", op_reshape).infer(rules::rule_reshape);
  r.add("Flatten", op_flatten).infer(rules::rule_flatten);
  r.add("Squeeze", op_squeeze).infer(rules::rule_squeeze);
  r.add("Unsqueeze", op_unsqueeze).infer(rules::rule_unsqueeze);
  r.add("Transpose", op_transpose, 1, 1 << 30, false).infer(rules::rule_transpose);
  r.add("Concat", op_concat, 1, 1 << 30, false).infer(rules::rule_concat);
  r.add("Split", op_split, 1, 1 << 30, false).infer(rules::rule_split);
  r.add("Slice", op_slice, 1, 1 << 30, false).infer(rules::rule_slice);
  r.add("Expand", op_expand, 1, 1 << 30, false).infer(rules::rule_expand).traits(kMayGrow);
  r.add("Tile", op_tile, 1, 1 << 30, false).infer(rules::rule_tile).traits(kMayGrow);
  r.add("Shape", op_shape, 1, 1 << 30, false).infer(rules::rule_shape);
  r.add("Size", op_size, 1, 1 << 30, false).infer(rules::size);
  r.add("Gather", op_gather, 1, 1 << 30, false).infer(rules::rule_gather);
  r.add("GatherElements", op_gather_elements, 1, 1 << 30, false);
  r.add("GatherND", op_gather_nd, 1, 1 << 30, false);
  r.add("ScatterElements", op_scatter_elements);
  r.add("Scatter", op_scatter_elements, 9, 10);
  r.add("ScatterND", op_scatter_nd);
  r.add("Cast", op_cast, 1, 1 << 30, false).infer(rules::cast);
  r.add("CastLike", op_cast_like, 1, 1 << 30, false).infer(rules::cast_like);
  r.add("Constant", op_constant, 1, 1 << 30, false).infer(rules::rule_constant);
  r.add("ConstantOfShape", op_constant_of_shape, 1, 1 << 30, false).infer(rules::rule_constant_of_shape).traits(kMayGrow);
  r.add("Range", op_range).infer(rules::rule_range).traits(kMayGrow);
  r.add("Pad", op_pad).infer(rules::rule_pad).traits(kMayGrow);
  r.add("Trilu", op_trilu, 1, 1 << 30, false).infer(rules::same_type);
  r.add("DepthToSpace", op_d2s, 1, 1 << 30, false);
  r.add("SpaceToDepth", op_s2d, 1, 1 << 30, false);
  r.add("OneHot", op_onehot).traits(kMayGrow);
  r.add("NonZero", op_nonzero);
  r.add("EyeLike", op_eyelike, 1, 1 << 30, false).traits(kMayGrow);
  r.add("CumSum", op_cumsum).infer(rules::same_type);
}

}  // namespace ofg::exec
