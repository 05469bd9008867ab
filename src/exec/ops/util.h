// Helpers shared by the op families.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "kernels/kernels.h"

namespace ofg::exec {

// The broadcast of the shapes (references: an elementwise op runs this on every call, and a
// vector of copies cost three allocations).
inline Shape broadcast_shapes(const OpCtx& c, std::initializer_list<std::reference_wrapper<const Shape>> shapes) {
  size_t r = 0;
  for (const Shape& s : shapes) r = std::max(r, s.size());
  Shape out(r, 1);
  for (const Shape& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[r - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o == 1) { o = d; continue; }
      std::string msg = "shapes cannot be broadcast:";
      for (const Shape& q : shapes) msg += " " + shape_str(q);
      c.error(msg);
    }
  }
  return out;
}

// Calls f(out_index, offsets) for every element of `out`, offsets[k] being the element of input
// k that broadcasts to it.
template <class F>
void broadcast_each(const Shape& out, const std::vector<Shape>& ins, F&& f) {
  size_t r = out.size(), k = ins.size();
  int64_t total = shape_numel(out);
  if (total == 0) return;
  std::vector<std::vector<int64_t>> strides(k, std::vector<int64_t>(r, 0));
  for (size_t j = 0; j < k; ++j) {
    const Shape& s = ins[j];
    int64_t st = 1;
    for (size_t i = s.size(); i-- > 0;) {
      size_t oi = r - s.size() + i;
      strides[j][oi] = s[i] == 1 ? 0 : st;
      st *= s[i];
    }
  }
  std::vector<int64_t> idx(r, 0), off(k, 0);
  for (int64_t n = 0; n < total; ++n) {
    f(n, off.data());
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < out[d]) {
        for (size_t j = 0; j < k; ++j) off[j] += strides[j][d];
        break;
      }
      for (size_t j = 0; j < k; ++j) off[j] -= strides[j][d] * (out[d] - 1);
      idx[d] = 0;
    }
  }
}

// As broadcast_each, one run of the innermost output dim at a time: f(n, offsets, len, steps)
// for output elements [n, n + len); input j's element t of the run is at offsets[j] + t * steps[j]
// (steps 0 where that input repeats along the dim, else 1). Lets a kernel loop over a run
// without the per-element bookkeeping.
template <class F>
void broadcast_runs(const Shape& out, const std::vector<Shape>& ins, F&& f) {
  const size_t r = out.size(), k = ins.size();
  if (shape_numel(out) == 0) return;
  std::vector<std::vector<int64_t>> strides(k, std::vector<int64_t>(r, 0));
  for (size_t j = 0; j < k; ++j) {
    const Shape& s = ins[j];
    int64_t st = 1;
    for (size_t i = s.size(); i-- > 0;) {
      strides[j][r - s.size() + i] = s[i] == 1 ? 0 : st;
      st *= s[i];
    }
  }
  std::vector<int64_t> off(k, 0), steps(k, 0);
  if (r == 0) {
    f(int64_t{0}, off.data(), int64_t{1}, steps.data());
    return;
  }
  for (size_t j = 0; j < k; ++j) steps[j] = strides[j][r - 1];
  const int64_t len = out[r - 1], rows = shape_numel(out) / len;
  std::vector<int64_t> idx(r - 1, 0);
  for (int64_t row = 0; row < rows; ++row) {
    f(row * len, off.data(), len, steps.data());
    for (size_t d = r - 1; d-- > 0;) {
      if (++idx[d] < out[d]) {
        for (size_t j = 0; j < k; ++j) off[j] += strides[j][d];
        break;
      }
      for (size_t j = 0; j < k; ++j) off[j] -= strides[j][d] * (out[d] - 1);
      idx[d] = 0;
    }
  }
}

// Element count of a scratch buffer (std::vector) whose size comes from data: refused like a
// tensor of that size when over the budget (run.max_tensor_bytes).
inline size_t scratch_elems(int64_t n, size_t elem_size = sizeof(double)) {
  size_t bytes = 0;
  if (!tensor_bytes_within_limit(n, elem_size, bytes))
    check_tensor_bytes(n, elem_size, "a scratch buffer of " + std::to_string(n) + " elements");
  return static_cast<size_t>(n);
}

// A per-axis integer attribute of `n` values in [lo, hi]; `dflt` fills it when absent.
inline std::vector<int64_t> axis_attr(const OpCtx& c, const char* name, size_t n, int64_t dflt, int64_t lo, int64_t hi) {
  std::vector<int64_t> v = c.attr_ints(name);
  if (v.empty()) v.assign(n, dflt);
  if (v.size() != n) c.error(std::string(name) + " must have " + std::to_string(n) + " values, got " + std::to_string(v.size()));
  for (int64_t x : v)
    if (x < lo || x > hi)
      c.error(std::string(name) + " value " + std::to_string(x) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

inline int64_t norm_axis(const OpCtx& c, int64_t axis, int64_t rank) {
  // A scalar has no axis: callers index shape[axis] with the result.
  if (axis < -rank || axis >= rank)
    c.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

inline std::vector<int64_t> to_i64_vec(const RTensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = get_i64(t, static_cast<int64_t>(i));
  return v;
}

inline RTensor make_i64(const std::vector<int64_t>& v, Shape shape) {
  RTensor t = RTensor::alloc(kInt64, std::move(shape));
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

inline RTensor as_float(const RTensor& t) { return t.dtype == kFloat ? t : cast_tensor(t, kFloat); }
// Ops that compute in float32 must still return the element type they were given: a float64
// input gets a float64 output (float16/bfloat16 are converted back by the interpreter).
inline RTensor like_input(const RTensor& y, int32_t input_dtype) {
  return (input_dtype == kDouble && y.dtype == kFloat) ? cast_tensor(y, kDouble) : y;
}

// Strides of a dense row-major shape.
inline std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Calls f(n, idx) for every element n of a dense row-major `shape`, idx holding its index on each
// axis (an odometer: the last axis moves fastest).
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  int64_t total = shape_numel(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    f(n, static_cast<const std::vector<int64_t>&>(idx));
    for (size_t i = shape.size(); i-- > 0;) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
}

// Output extents of the spatial axes of a convolution or pooling with explicit `pads` (begins,
// then ends) under the node's auto_pad: SAME_* sets the pads, VALID clears them.
inline Shape spatial_out_dims(const OpCtx& c, const Shape& in, const std::vector<int64_t>& k,
                              const std::vector<int64_t>& s, const std::vector<int64_t>& d,
                              std::vector<int64_t>& pads, bool ceil_mode) {
  kernels::AutoPad ap = kernels::parse_auto_pad(c.attr_s("auto_pad", "NOTSET"));
  size_t r = in.size();
  Shape out(r);
  for (size_t a = 0; a < r; ++a) {
    if (kernels::is_same(ap)) {
      out[a] = kernels::same_pads(in[a], k[a], s[a], d[a], ap, pads[a], pads[a + r]);
    } else {
      if (ap == kernels::AutoPad::kValid) pads[a] = pads[a + r] = 0;
      out[a] = kernels::pool_out_dim(in[a], k[a], s[a], pads[a], pads[a + r], d[a], ceil_mode);
    }
  }
  return out;
}

// Where a sliding window (convolution, pooling, Col2Im) reads on the spatial axes: for output
// position o (row-major over `out`) and kernel position q (row-major over `k`), the element of a
// row-major input of dims `in`, with strides s, dilations d and begin pads.
class WindowReader {
 public:
  WindowReader(const Shape& in, const Shape& out, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
               const std::vector<int64_t>& d, const std::vector<int64_t>& pads)
      : in_(in), out_(out), k_(k), s_(s), d_(d), pads_(pads), ist_(strides_of(in)), ost_(strides_of(out)),
        kst_(strides_of(k)) {}
  // The input element's offset in `off`; false when it lies in the padding.
  bool at(int64_t o, int64_t q, int64_t& off) const {
    off = 0;
    for (size_t a = 0; a < in_.size(); ++a) {
      int64_t ia = ((o / ost_[a]) % out_[a]) * s_[a] - pads_[a] + ((q / kst_[a]) % k_[a]) * d_[a];
      if (ia < 0 || ia >= in_[a]) return false;
      off += ia * ist_[a];
    }
    return true;
  }

 private:
  const Shape &in_, &out_;
  const std::vector<int64_t>&k_, &s_, &d_, &pads_;
  std::vector<int64_t> ist_, ost_, kst_;
};

constexpr double kPi = 3.14159265358979323846;

// A tensor's elements as doubles, and back (the slow exact paths of rare ops compute in double).
inline std::vector<double> f64_of(const RTensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = get_f64(t, static_cast<int64_t>(i));
  return v;
}
// v, a dense row-major tensor of `dims`, with its axes permuted (output axis i is input axis
// perm[i]); the rare ops that compute in double reorder their results with it.
inline std::vector<double> permute_f64(const std::vector<double>& v, const Shape& dims, const std::vector<size_t>& perm) {
  std::vector<double> out(v.size());
  if (!v.empty()) kernels::transpose(v.data(), out.data(), sizeof(double), dims.data(), perm.data(), perm.size());
  return out;
}
inline RTensor tensor_of(const std::vector<double>& v, int32_t dt, Shape s) {
  RTensor t = RTensor::alloc(dt, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) set_f64(t, static_cast<int64_t>(i), v[i]);
  return t;
}

// Copies element `src_i` of a to element `dst_i` of b (same dtype, any type).
inline void copy_elem(const RTensor& a, int64_t src_i, RTensor& b, int64_t dst_i) {
  size_t es = a.elem_size();
  std::memcpy(b.ptr + static_cast<size_t>(dst_i) * es, a.ptr + static_cast<size_t>(src_i) * es, es);
}

}  // namespace ofg::exec
