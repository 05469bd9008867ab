// Ranges along axes: Concat, Split, Slice, Tile and Pad (each copies slabs of its input into a new
// layout).
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

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
  // The output prepared while the inputs were made (exec/concat_place.cpp), some of them already
  // in their places, or a new one; the inputs' rows cover every byte.
  RTensor y;
  if (!c.interp.concat_output(&c.node, x0.dtype, s, y)) y = RTensor::alloc_uninit(x0.dtype, s);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= s[i];
  size_t es = x0.elem_size();
  size_t out_row = static_cast<size_t>(y.numel() / std::max<int64_t>(outer, 1)) * es;
  size_t off = 0;
  for (auto* x : xs) {
    size_t row = outer ? static_cast<size_t>(x->numel() / outer) * es : 0;
    const bool in_place = outer == 1 && x->ptr == y.ptr + off;
    for (int64_t o = 0; o < outer && !in_place; ++o) std::memcpy(y.ptr + o * out_row + off, x->ptr + o * row, row);
    off += row;
  }
  c.interp.remember_concat(&c.node, x0.dtype, axis, xs, s);
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

// `n` elements of `es` bytes from every `jump`-th element of src (jump may be negative) to dst.
template <typename T>
void copy_every(uint8_t* dst, const uint8_t* src, int64_t n, int64_t jump) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * sizeof(T), src + i * jump * static_cast<int64_t>(sizeof(T)), sizeof(T));
}
void copy_strided(uint8_t* dst, const uint8_t* src, int64_t n, int64_t jump, size_t es) {
  switch (es) {
    case 1: return copy_every<uint8_t>(dst, src, n, jump);
    case 2: return copy_every<uint16_t>(dst, src, n, jump);
    case 4: return copy_every<uint32_t>(dst, src, n, jump);
    case 8: return copy_every<uint64_t>(dst, src, n, jump);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * static_cast<int64_t>(es), src + i * jump * static_cast<int64_t>(es), es);
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
  if (r > 0 && step[r - 1] != 1) {
    // A strided last axis (YOLOv5's space-to-depth takes every other column): one strided row
    // copy per index of the other axes.
    const int64_t row = s[r - 1], jump = step[r - 1];
    const Shape rows(s.begin(), s.end() - 1);
    for_each_index(rows, [&](int64_t n, const std::vector<int64_t>& idx) {
      int64_t off = base;
      for (int i = 0; i + 1 < r; ++i) off += idx[i] * step[i] * xs[i];
      copy_strided(y.ptr + n * row * es, x.ptr + off * es, row, jump, es);
    });
    c.set(0, y);
    return;
  }
  // The trailing axes taken whole with step 1, and the step-1 axis before them, are contiguous in
  // both tensors: one memcpy per index of the axes left.
  int inner = r;
  int64_t run = 1;
  while (inner > 0 && step[inner - 1] == 1 && s[inner - 1] == x.shape[inner - 1]) run *= s[--inner];
  if (inner > 0 && step[inner - 1] == 1) run *= s[--inner];
  const Shape outer(s.begin(), s.begin() + inner);
  for_each_index(outer, [&](int64_t n, const std::vector<int64_t>& idx) {
    int64_t off = base;
    for (int i = 0; i < inner; ++i) off += idx[i] * step[i] * xs[i];
    std::memcpy(y.ptr + n * run * es, x.ptr + off * es, static_cast<size_t>(run) * es);
  });
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
  for_each_index(s, [&](int64_t n, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t i = 0; i < s.size(); ++i) off += (idx[i] % x.shape[i]) * xs[i];
    std::memcpy(y.ptr + n * es, x.ptr + off * es, es);
  });
  c.set(0, y);
}

// A run of Pad's row: most are one element of padding beside a long copy, for which a call of
// memcpy costs more than the copy (zero padding by 1 of 256x56x56 floats: 0.32 -> 0.14 ms).
inline void copy_run(uint8_t* dst, const uint8_t* src, size_t bytes) {
  switch (bytes) {
    case 1: *dst = *src; return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    default: std::memcpy(dst, src, bytes);
  }
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
  RTensor y = RTensor::alloc_uninit(x.dtype, s);  // every element is written below
  if (y.numel() == 0) {
    c.set(0, y);
    return;
  }
  // Along each axis, the input index each output index reads (-1: the constant value).
  std::vector<std::vector<int64_t>> src(r);
  for (int i = 0; i < r; ++i) {
    const int64_t d = x.shape[i];
    src[i].resize(static_cast<size_t>(s[i]));
    for (int64_t o = 0; o < s[i]; ++o) {
      int64_t v = o - pb[i];
      if (v < 0 || v >= d) {
        if (mode == "constant" || d == 0) v = -1;
        else if (mode == "edge") v = v < 0 ? 0 : d - 1;
        else if (mode == "reflect") {
          int64_t period = 2 * (d - 1);
          if (period == 0) v = 0;
          else {
            v = ((v % period) + period) % period;
            if (v >= d) v = period - v;
          }
        } else v = ((v % d) + d) % d;  // wrap
      }
      src[i][static_cast<size_t>(o)] = v;
    }
  }
  // The last axis as runs: consecutive output elements that read consecutive input elements
  // are one memcpy, those of the constant one copy from a row of constants.
  struct Run {
    int64_t out, len, in;  // in: the first input index, or -1 for constants
  };
  const int64_t row = r > 0 ? s[r - 1] : 1;
  std::vector<Run> runs;
  if (r == 0) runs.push_back({0, 1, 0});
  for (int64_t o = 0; r > 0 && o < row; ++o) {
    const int64_t v = src[r - 1][static_cast<size_t>(o)];
    Run& last = runs.empty() ? runs.emplace_back(Run{o, 0, v}) : runs.back();
    const bool extends = last.len > 0 && (v < 0 ? last.in < 0 : last.in >= 0 && last.in + last.len == v);
    if (extends) ++last.len;
    else if (last.len == 0) last.len = 1;
    else runs.push_back({o, 1, v});
  }
  const size_t es = x.elem_size();
  RTensor constants = RTensor::alloc_uninit(x.dtype, {row});
  for (int64_t i = 0; i < row; ++i) set_f64(constants, i, cv);
  const std::vector<int64_t> xs = strides_of(x.shape);
  const Shape outer(s.begin(), s.begin() + std::max(r - 1, 0));
  for_each_index(outer, [&](int64_t n, const std::vector<int64_t>& idx) {
    uint8_t* dst = y.ptr + static_cast<size_t>(n * row) * es;
    int64_t off = 0;
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t v = src[i][static_cast<size_t>(idx[i])];
      if (v < 0) {  // the whole row is padding
        std::memcpy(dst, constants.ptr, static_cast<size_t>(row) * es);
        return;
      }
      off += v * xs[i];
    }
    for (const Run& run : runs) {
      const uint8_t* from = run.in < 0 ? constants.ptr : x.ptr + static_cast<size_t>(off + run.in) * es;
      copy_run(dst + static_cast<size_t>(run.out) * es, from, static_cast<size_t>(run.len) * es);
    }
  });
  c.set(0, y);
}

}  // namespace

namespace rules {

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
  if (!x || !x->ranked) return unknown_output(c);
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

// Tile and Pad: output dim i is dim(x_i, v_i) of the constant integers v (empty when unknown,
// then every dim is unknown); `per_axis` of them per axis.
template <class Dim>
bool resized_dims(InferCtx& c, const std::vector<int64_t>& v, size_t per_axis, Dim dim) {
  const IType* x = c.t(0);
  if (!x || !x->ranked) return unknown_output(c);
  std::vector<IDim> dims(x->dims.size(), IDim{});
  if (v.size() == per_axis * dims.size() && !dims.empty())
    for (size_t i = 0; i < dims.size(); ++i) dims[i] = dim(x->dims[i], i, dims.size());
  c.out[0] = ranked(x->elem, dims);
  return true;
}

bool rule_tile(InferCtx& c) {
  std::vector<int64_t> rep;
  if (!c.const_ints(1, rep)) rep.clear();
  return resized_dims(c, rep, 1, [&](const IDim& d, size_t i, size_t) {
    return rep[i] == 1 ? d : (d.is_static() ? st_mul(d.value, rep[i]) : IDim{});
  });
}

bool rule_pad(InferCtx& c) {
  std::vector<int64_t> pads;
  bool have = c.opset() < 11 ? c.attr_ints("pads", pads) : c.const_ints(1, pads);
  bool axes_given = c.in.size() > 3 && c.in_values[3];
  if (!have || axes_given) pads.clear();
  return resized_dims(c, pads, 2, [&](const IDim& d, size_t i, size_t r) {
    IDim p = st_add(pads[i], pads[i + r]);
    return p.is_static() && p.value == 0 ? d : (d.is_static() && p.is_static() ? st_add(d.value, p.value) : IDim{});
  });
}

}  // namespace rules

void register_slice_ops(Registry& r) {
  r.add("Concat", op_concat, 1, 1 << 30, false).infer(rules::rule_concat);
  r.add("Split", op_split, 1, 1 << 30, false).infer(rules::rule_split);
  r.add("Slice", op_slice, 1, 1 << 30, false).infer(rules::rule_slice);
  r.add("Tile", op_tile, 1, 1 << 30, false).infer(rules::rule_tile).traits(kMayGrow);
  r.add("Pad", op_pad).infer(rules::rule_pad).traits(kMayGrow);
}

}  // namespace ofg::exec
