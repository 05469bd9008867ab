// Data movement and shape arithmetic: Reshape, Transpose, Concat, Split, Slice, Gather, Expand,
// Shape, Cast, Constant, Range, Tile, Pad, ...
#include <numeric>

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

void register_shape_ops(Registry& r) {
  r.add("Identity", op_identity, 1, 1 << 30, false);
  r.add("Reshape", op_reshape);
  r.add("Flatten", op_flatten);
  r.add("Squeeze", op_squeeze);
  r.add("Unsqueeze", op_unsqueeze);
  r.add("Transpose", op_transpose, 1, 1 << 30, false);
  r.add("Concat", op_concat, 1, 1 << 30, false);
  r.add("Split", op_split, 1, 1 << 30, false);
  r.add("Slice", op_slice, 1, 1 << 30, false);
  r.add("Expand", op_expand, 1, 1 << 30, false);
  r.add("Tile", op_tile, 1, 1 << 30, false);
  r.add("Shape", op_shape, 1, 1 << 30, false);
  r.add("Size", op_size, 1, 1 << 30, false);
  r.add("Gather", op_gather, 1, 1 << 30, false);
  r.add("GatherElements", op_gather_elements, 1, 1 << 30, false);
  r.add("GatherND", op_gather_nd, 1, 1 << 30, false);
  r.add("ScatterElements", op_scatter_elements);
  r.add("Scatter", op_scatter_elements, 9, 10);
  r.add("ScatterND", op_scatter_nd);
  r.add("Cast", op_cast, 1, 1 << 30, false);
  r.add("CastLike", op_cast_like, 1, 1 << 30, false);
  r.add("Constant", op_constant, 1, 1 << 30, false);
  r.add("ConstantOfShape", op_constant_of_shape, 1, 1 << 30, false);
  r.add("Range", op_range);
  r.add("Pad", op_pad);
  r.add("Trilu", op_trilu, 1, 1 << 30, false);
  r.add("DepthToSpace", op_d2s, 1, 1 << 30, false);
  r.add("SpaceToDepth", op_s2d, 1, 1 << 30, false);
  r.add("OneHot", op_onehot);
  r.add("NonZero", op_nonzero);
  r.add("EyeLike", op_eyelike, 1, 1 << 30, false);
  r.add("CumSum", op_cumsum);
}

}  // namespace ofg::exec
