// Resize (opset 10-19) and Upsample: nearest / linear / cubic on any number of axes, all the
// coordinate transforms, antialiased downscaling and keep_aspect_ratio_policy. Interpolation is
// separable, so it is applied one axis at a time with per-output-index tap lists.
#include <cmath>
#include <cstring>
#include <limits>

#include "exec/infer_rules.h"
#include "exec/infer_types.h"
#include "exec/ops/resize_axis.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

struct Taps {
  std::vector<int64_t> first;     // per output index: offset into idx / w
  std::vector<int64_t> idx;       // input indices
  std::vector<double> w;          // weights
  std::vector<uint8_t> outside;   // tf_crop_and_resize: coordinate outside the input
};

struct ResizeCfg {
  std::string mode = "nearest", ctm = "half_pixel", nearest = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false, antialias = false;
};

double nearest_index(const std::string& m, double x) {
  if (m == "floor") return std::floor(x);
  if (m == "ceil") return std::ceil(x);
  double f = std::floor(x);
  if (x - f == 0.5) return m == "round_prefer_ceil" ? f + 1 : f;
  return std::round(x);
}

double cubic_kernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

Taps axis_taps(const OpCtx& c, const ResizeCfg& cfg, int64_t in, int64_t out, double scale, double roi_lo, double roi_hi) {
  if (in == 0 && out > 0) c.error("cannot resize an empty axis to " + std::to_string(out));
  if (out > 0 && (!(scale > 0) || std::isinf(scale)))
    c.error("scale " + std::to_string(scale) + " must be positive and finite");
  Taps t;
  t.first.reserve(static_cast<size_t>(out) + 1);
  t.outside.assign(static_cast<size_t>(out), 0);
  for (int64_t o = 0; o < out; ++o) {
    t.first.push_back(static_cast<int64_t>(t.idx.size()));
    // The transforms use the unrounded resized length in * scale (equal to `out` when sizes were given).
    double xo = static_cast<double>(o), x = 0, lr = scale * static_cast<double>(in);
    const std::string& m = cfg.ctm;
    if (m == "half_pixel") {
      x = (xo + 0.5) / scale - 0.5;
    } else if (m == "half_pixel_symmetric") {
      double adj = static_cast<double>(out) / (scale * static_cast<double>(in));
      double center = static_cast<double>(in) / 2;
      x = center * (1 - adj) + (xo + 0.5) / scale - 0.5;
    } else if (m == "pytorch_half_pixel") {
      x = lr > 1 ? (xo + 0.5) / scale - 0.5 : 0;
    } else if (m == "align_corners") {
      x = lr == 1 ? 0 : xo * static_cast<double>(in - 1) / (lr - 1);
    } else if (m == "asymmetric") {
      x = xo / scale;
    } else if (m == "tf_crop_and_resize") {
      x = lr > 1 ? roi_lo * (in - 1) + xo * (roi_hi - roi_lo) * (in - 1) / (lr - 1)
                  : 0.5 * (roi_lo + roi_hi) * (in - 1);
      if (x < 0 || x > static_cast<double>(in - 1)) t.outside[static_cast<size_t>(o)] = 1;
    } else {
      c.error("unknown coordinate_transformation_mode '" + m + "'");
    }
    if (cfg.mode == "nearest") {
      int64_t i = saturate_cast<int64_t>(nearest_index(cfg.nearest, x));
      t.idx.push_back(std::min(std::max<int64_t>(i, 0), in - 1));
      t.w.push_back(1.0);
      continue;
    }
    bool cubic = cfg.mode == "cubic";
    if (!cubic && cfg.mode != "linear") c.error("unknown mode '" + cfg.mode + "'");
    // The kernel is widened by 1/scale when antialiasing a downscale.
    double s = cfg.antialias ? std::min(scale, 1.0) : 1.0;
    double support = cubic ? 2.0 : 1.0;
    int64_t start = saturate_cast<int64_t>(std::floor(-support / s)) + 1;
    // Taps per output are bounded (a huge antialiased downscale would need billions).
    if (start < -(1 << 20)) c.error("the antialiasing kernel of scale " + std::to_string(scale) + " is too wide");
    scratch_elems(checked_mul(out, 2 - 2 * start));
    // Positions far outside only clamp to the edge: bounded so that x0 + k cannot overflow.
    if (!(x > -1e15)) x = -1e15;
    if (x > 1e15) x = 1e15;
    double x0 = std::floor(x), r = x - x0;
    size_t base = t.w.size();
    double sum = 0;
    for (int64_t k = start; k < 2 - start; ++k) {
      double arg = (static_cast<double>(k) - r) * s;
      double w = cubic ? cubic_kernel(arg, cfg.cubic_a) : std::max(0.0, 1 - std::fabs(arg));
      int64_t i = static_cast<int64_t>(x0) + k;
      if (i < 0 || i >= in) {
        if (cfg.exclude_outside) w = 0;
        i = std::min(std::max<int64_t>(i, 0), in - 1);
      }
      t.idx.push_back(i);
      t.w.push_back(w);
      sum += w;
    }
    if ((cfg.antialias || cfg.exclude_outside) && sum != 0)
      for (size_t k = base; k < t.w.size(); ++k) t.w[k] /= sum;
  }
  t.first.push_back(static_cast<int64_t>(t.idx.size()));
  return t;
}

// Resamples along one axis: data (outer, in, inner) -> (outer, out, inner).
std::vector<double> apply_axis(const std::vector<double>& x, int64_t outer, int64_t in, int64_t inner, const Taps& t) {
  int64_t out = static_cast<int64_t>(t.first.size()) - 1;
  std::vector<double> y(scratch_elems(shape_numel({outer, out, inner})), 0.0);
  if (y.empty()) return y;  // an empty dim elsewhere: nothing to resample (and no element to point at)
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t o = 0; o < out; ++o) {
      double* dst = y.data() + static_cast<size_t>((a * out + o) * inner);
      for (int64_t k = t.first[o]; k < t.first[o + 1]; ++k) {
        const double* src = x.data() + static_cast<size_t>((a * in + t.idx[k]) * inner);
        double w = t.w[k];
        if (w == 0) continue;
        for (int64_t e = 0; e < inner; ++e) dst[e] += w * src[e];
      }
    }
  return y;
}

// Nearest resampling picks one whole input element per output element, so it is a gather of
// bytes: exact for every fixed-size type (no round trip through double) and far cheaper than the
// separable weighted path. Returns false when that path is needed (other modes, crop-and-resize
// with its extrapolated border, strings and sub-byte types).
template <size_t kSize>
void gather_row(uint8_t* dst, const uint8_t* src, const std::vector<int64_t>& off) {
  for (size_t o = 0; o < off.size(); ++o) std::memcpy(dst + o * kSize, src + off[o], kSize);
}

bool resize_nearest_gather(OpCtx& c, const ResizeCfg& cfg, const RTensor& x, const std::vector<double>& scales,
                           const Shape& out_shape) {
  size_t es = x.elem_size();
  if (cfg.mode != "nearest" || cfg.ctm == "tf_crop_and_resize" || es == 0) return false;
  if (es != 1 && es != 2 && es != 4 && es != 8) return false;
  int r = x.rank();
  check_tensor_bytes(shape_numel(out_shape), es, "the resized tensor");
  auto ist = strides_of(x.shape);
  // Per axis, the byte offset of the input slice each output index reads.
  std::vector<std::vector<int64_t>> off(static_cast<size_t>(r));
  for (int a = 0; a < r; ++a) {
    auto& v = off[static_cast<size_t>(a)];
    int64_t step = ist[a] * static_cast<int64_t>(es);
    if (out_shape[a] == x.shape[a] && scales[a] == 1.0) {
      for (int64_t o = 0; o < out_shape[a]; ++o) v.push_back(o * step);
      continue;
    }
    Taps t = axis_taps(c, cfg, x.shape[a], out_shape[a], scales[a], 0, 1);
    for (int64_t i : t.idx) v.push_back(i * step);
  }
  RTensor y = RTensor::alloc(x.dtype, out_shape);
  int64_t n = y.numel();
  if (n > 0 && r == 0) std::memcpy(y.ptr, x.ptr, es);
  if (n > 0 && r > 0) {
    const auto& last = off[static_cast<size_t>(r - 1)];
    int64_t rows = n / out_shape[r - 1];
    std::vector<int64_t> pos(static_cast<size_t>(r - 1), 0);
    uint8_t* dst = y.ptr;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t base = 0;
      for (int a = 0; a < r - 1; ++a) base += off[static_cast<size_t>(a)][static_cast<size_t>(pos[a])];
      const uint8_t* src = x.ptr + base;
      switch (es) {
        case 1: gather_row<1>(dst, src, last); break;
        case 2: gather_row<2>(dst, src, last); break;
        case 4: gather_row<4>(dst, src, last); break;
        default: gather_row<8>(dst, src, last); break;
      }
      dst += last.size() * es;
      // Odometer over the outer output axes.
      for (int a = r - 2; a >= 0 && ++pos[a] == out_shape[a]; --a) pos[a] = 0;
    }
  }
  c.set(0, y);
  return true;
}

void resize_core(OpCtx& c, const ResizeCfg& cfg, const RTensor& x, std::vector<double> scales, Shape out_shape,
                 const std::vector<double>& roi, double extrapolation) {
  int r = x.rank();
  for (int64_t d : out_shape)
    if (d < 0) c.error("negative output dim in " + shape_str(out_shape));
  check_tensor_bytes(shape_numel(out_shape), sizeof(double), "the resized tensor");
  if (!roi.empty() && roi.size() != 2 * static_cast<size_t>(r)) c.error("roi must have 2 * rank values");
  if (resize_nearest_gather(c, cfg, x, scales, out_shape)) return;
  if (x.dtype == kFloat && cfg.ctm != "tf_crop_and_resize") {
    // float32 (images, feature maps) axis by axis in float, the intermediate tensors from the
    // interpreter's buffers (fresh double vectors cost more than the arithmetic).
    RTensor cur = x;
    for (int a = 0; a < r; ++a) {
      if (out_shape[a] == cur.shape[a] && scales[a] == 1.0) continue;
      int64_t outer = 1, inner = 1;
      for (int i = 0; i < a; ++i) outer *= cur.shape[i];
      for (int i = a + 1; i < r; ++i) inner *= cur.shape[i];
      Taps t = axis_taps(c, cfg, cur.shape[a], out_shape[a], scales[a], 0, 1);
      Shape next = cur.shape;
      next[a] = out_shape[a];
      RTensor y = RTensor::alloc_uninit(kFloat, next);
      if (y.numel() > 0) resize_axis_f32(cur.data<float>(), y.data<float>(), outer, cur.shape[a], inner, t.first, t.idx, t.w);
      cur = y;
    }
    c.set(0, cur);
    return;
  }
  std::vector<double> data = f64_of(x);
  Shape cur = x.shape;
  std::vector<std::vector<uint8_t>> outside(r);
  for (int a = 0; a < r; ++a) {
    if (out_shape[a] == cur[a] && scales[a] == 1.0 && cfg.ctm != "tf_crop_and_resize") continue;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < a; ++i) outer *= cur[i];
    for (int i = a + 1; i < r; ++i) inner *= cur[i];
    double lo = roi.empty() ? 0 : roi[a], hi = roi.empty() ? 1 : roi[r + a];
    Taps t = axis_taps(c, cfg, cur[a], out_shape[a], scales[a], lo, hi);
    data = apply_axis(data, outer, cur[a], inner, t);
    outside[a] = t.outside;
    cur[a] = out_shape[a];
  }
  RTensor y = RTensor::alloc(x.dtype, out_shape);
  bool any_out = false;
  for (auto& o : outside)
    for (uint8_t b : o) any_out |= b != 0;
  if (any_out) {
    auto st = strides_of(out_shape);
    for (size_t i = 0; i < data.size(); ++i) {
      int64_t rem = static_cast<int64_t>(i);
      for (int a = 0; a < r; ++a) {
        int64_t k = rem / st[a];
        rem %= st[a];
        if (!outside[a].empty() && outside[a][static_cast<size_t>(k)]) {
          data[i] = extrapolation;
          break;
        }
      }
    }
  }
  bool integral = !is_float_type(x.dtype);
  for (size_t i = 0; i < data.size(); ++i) {
    double v = data[i];
    if (integral) v = std::nearbyint(v);
    set_f64(y, static_cast<int64_t>(i), v);
  }
  c.set(0, y);
}

void op_resize(OpCtx& c) {
  const RTensor& x = c.t(0);
  int r = x.rank();
  ResizeCfg cfg;
  cfg.mode = c.attr_s("mode", "nearest");
  cfg.cubic_a = c.attr_f("cubic_coeff_a", -0.75f);
  cfg.exclude_outside = c.attr_i("exclude_outside", 0) != 0;
  cfg.antialias = c.attr_i("antialias", 0) != 0;
  double extrapolation = c.attr_f("extrapolation_value", 0.f);
  std::vector<double> roi, scales_in;
  std::vector<int64_t> sizes_in;
  if (c.opset < 11) {
    // Resize-10 behaves like Upsample: asymmetric coordinates, nearest rounds down.
    cfg.ctm = "asymmetric";
    cfg.nearest = "floor";
    const RTensor& s = c.t(1);
    for (int64_t i = 0; i < s.numel(); ++i) scales_in.push_back(get_f64(s, i));
  } else {
    cfg.ctm = c.attr_s("coordinate_transformation_mode", "half_pixel");
    cfg.nearest = c.attr_s("nearest_mode", "round_prefer_floor");
    if (c.has(1) && c.t(1).numel() > 0)
      for (int64_t i = 0; i < c.t(1).numel(); ++i) roi.push_back(get_f64(c.t(1), i));
    if (c.has(2) && c.t(2).numel() > 0)
      for (int64_t i = 0; i < c.t(2).numel(); ++i) scales_in.push_back(get_f64(c.t(2), i));
    if (c.has(3) && c.t(3).numel() > 0) sizes_in = to_i64_vec(c.t(3));
  }
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (axes.empty())
    for (int i = 0; i < r; ++i) axes.push_back(i);
  for (auto& a : axes) a = norm_axis(c, a, r);
  // roi is given per listed axis; expand to all axes (identity crop elsewhere).
  if (!roi.empty() && roi.size() == 2 * axes.size() && static_cast<int>(axes.size()) != r) {
    std::vector<double> full(2 * r);
    for (int i = 0; i < r; ++i) { full[i] = 0; full[r + i] = 1; }
    for (size_t k = 0; k < axes.size(); ++k) {
      full[axes[k]] = roi[k];
      full[r + axes[k]] = roi[axes.size() + k];
    }
    roi = full;
  }
  std::vector<double> scales(r, 1.0);
  Shape out = x.shape;
  if (!sizes_in.empty()) {
    if (sizes_in.size() != axes.size()) c.error("sizes must have one entry per axis");
    std::string policy = c.attr_s("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch") {
      for (size_t k = 0; k < axes.size(); ++k) {
        out[axes[k]] = sizes_in[k];
        scales[axes[k]] = static_cast<double>(sizes_in[k]) / static_cast<double>(x.shape[axes[k]]);
      }
    } else {
      bool larger = policy == "not_smaller";
      if (!larger && policy != "not_larger") c.error("unknown keep_aspect_ratio_policy '" + policy + "'");
      double s = larger ? 0 : std::numeric_limits<double>::infinity();
      for (size_t k = 0; k < axes.size(); ++k) {
        double q = static_cast<double>(sizes_in[k]) / static_cast<double>(x.shape[axes[k]]);
        s = larger ? std::max(s, q) : std::min(s, q);
      }
      for (size_t k = 0; k < axes.size(); ++k) {
        scales[axes[k]] = s;
        out[axes[k]] = saturate_cast<int64_t>(std::floor(s * static_cast<double>(x.shape[axes[k]]) + 0.5));
      }
    }
  } else {
    if (scales_in.size() != axes.size()) c.error("scales must have one entry per axis");
    for (size_t k = 0; k < axes.size(); ++k) {
      scales[axes[k]] = scales_in[k];
      out[axes[k]] = saturate_cast<int64_t>(std::floor(static_cast<double>(x.shape[axes[k]]) * scales_in[k]));
    }
  }
  resize_core(c, cfg, x, scales, out, roi, extrapolation);
}

void op_upsample(OpCtx& c) {
  const RTensor& x = c.t(0);
  ResizeCfg cfg;
  cfg.mode = c.attr_s("mode", "nearest");
  cfg.ctm = "asymmetric";
  cfg.nearest = "floor";
  std::vector<double> scales;
  if (c.opset >= 9) {
    for (int64_t i = 0; i < c.t(1).numel(); ++i) scales.push_back(get_f64(c.t(1), i));
  } else {
    for (float f : c.attr_floats("scales")) scales.push_back(f);
  }
  if (static_cast<int>(scales.size()) != x.rank()) c.error("scales must have one entry per axis");
  Shape out = x.shape;
  for (int i = 0; i < x.rank(); ++i) out[i] = saturate_cast<int64_t>(std::floor(static_cast<double>(x.shape[i]) * scales[i]));
  resize_core(c, cfg, x, scales, out, {}, 0);
}

// Constant float32 contents of a value (an initializer that is no graph input).
bool const_floats(const Value* v, std::vector<double>& out) {
  if (!v || !v->initializer || v->is_graph_input) return false;
  const Tensor* t = v->initializer;
  if (t->data_type != kFloat || t->numel() < 0 || t->numel() > TypeInference::kMaxContents) return false;
  std::vector<float> f(static_cast<size_t>(t->numel()));
  if (t->bytes().size != f.size() * sizeof(float)) return false;
  if (!f.empty()) std::memcpy(f.data(), t->bytes().data, t->bytes().size);  // an empty tensor has no bytes (null)
  out.assign(f.begin(), f.end());
  return true;
}

}  // namespace

namespace rules {

// Input 0's type and rank; the dims are the constant `sizes` (Resize 11+, one per axis, no `axes`
// and the default keep_aspect_ratio_policy), else floor(dim * scale) for constant `scales` (Resize
// 10 and 11+, Upsample 9; the attribute before 9) on static dims, where a scale of 1 keeps any dim.
// Once an export's `sizes` becomes constant, the dims after the Resize are known and the Shape
// arithmetic that reads them folds in the same optimize run.
bool rule_resize(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x || !x->ranked) return unknown_output(c);
  const size_t r = x->dims.size();
  std::vector<IDim> dims(r);
  std::vector<int64_t> sizes;
  std::vector<double> scales;
  const bool resize = c.op() == "Resize";
  const bool plain = c.attr("axes") == nullptr && c.attr("keep_aspect_ratio_policy") == nullptr;
  if (resize && c.opset() >= 11 && plain && c.in.size() > 3 && c.in_values[3] && c.const_ints(3, sizes) &&
      sizes.size() == r) {
    for (size_t i = 0; i < r; ++i)
      if (sizes[i] >= 0) dims[i] = st(sizes[i]);
  } else {
    bool have = false;
    if (!resize && c.opset() < 9) {
      if (const Attribute* a = c.attr("scales")) {
        scales.assign(a->floats.begin(), a->floats.end());
        have = true;
      }
    } else {
      size_t k = resize && c.opset() >= 11 ? 2 : 1;  // Resize 10 and Upsample 9: input 1
      have = plain && k < c.in_values.size() && const_floats(c.in_values[k], scales);
    }
    if (have && scales.size() == r) {
      for (size_t i = 0; i < r; ++i) {
        const IDim& d = x->dims[i];
        if (scales[i] == 1.0) dims[i] = d;
        else if (d.is_static() && scales[i] > 0 && std::isfinite(scales[i]) &&
                 static_cast<double>(d.value) * scales[i] < 9.0e18)
          dims[i] = st(static_cast<int64_t>(std::floor(static_cast<double>(d.value) * scales[i])));
      }
    }
  }
  c.out[0] = ranked(x->elem, dims);
  return true;
}

}  // namespace rules

void register_resize_ops(Registry& r) {
  r.add("Resize", op_resize, 10).infer(rules::rule_resize).traits(kMayGrow);
  r.add("Upsample", op_upsample, 7, 9).infer(rules::rule_resize).traits(kMayGrow);
}

}  // namespace ofg::exec
