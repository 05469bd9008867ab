// DeformConv (opset 19 and 22): a convolution whose kernel taps are moved, per output position,
// by learned fractional offsets (and optionally scaled by a mask). Each tap reads the input by
// multilinear interpolation; taps outside the input read zero. Any number of spatial axes up
// to kMaxAxes (interpolation visits 2^axes corners). Computed in double in two steps: the
// displaced taps are gathered into columns (like im2col), then each group is a small matrix
// product with the weights.
#include <cmath>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

constexpr int kMaxAxes = 6;

struct DeformGeom {
  int n = 0;  // spatial axes
  int64_t N = 0, C = 0, OC = 0, group = 1, og = 1, K = 1, O = 1;
  Shape in, kernel, out;  // spatial dims
  std::vector<int64_t> stride, dil, pad;
};

DeformGeom deform_geometry(const OpCtx& c) {
  DeformGeom g;
  const RTensor& x = c.t_rank(0, 3, kMaxAxes + 2);
  g.n = x.rank() - 2;
  g.N = x.shape[0];
  g.C = x.shape[1];
  g.in.assign(x.shape.begin() + 2, x.shape.end());
  const RTensor& w = c.t_rank(1, x.rank());
  g.OC = w.shape[0];
  g.group = c.attr_i("group", 1);
  c.require(g.group >= 1 && g.OC % g.group == 0 && checked_mul(w.shape[1], g.group) == g.C,
            "group " + std::to_string(g.group) + " does not match X " + shape_str(x.shape) + " and W " +
                shape_str(w.shape));
  g.kernel.assign(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> ks = c.attr_ints("kernel_shape");
  c.require(ks.empty() || ks == g.kernel, "kernel_shape does not match the weight " + shape_str(w.shape));
  g.og = c.attr_i("offset_group", 1);
  c.require(g.og >= 1 && g.C % g.og == 0,
            "offset_group " + std::to_string(g.og) + " must divide the " + std::to_string(g.C) + " input channels");
  g.stride = axis_attr(c, "strides", g.n, 1, 1, INT32_MAX);
  g.dil = axis_attr(c, "dilations", g.n, 1, 1, INT32_MAX);
  g.pad = axis_attr(c, "pads", 2 * g.n, 0, 0, INT32_MAX);
  for (int a = 0; a < g.n; ++a) {
    c.require(g.kernel[a] >= 1, "the kernel has an empty axis: W " + shape_str(w.shape));
    // An empty weight or input may declare any dims: the sums are checked.
    int64_t span = checked_add(checked_mul(g.kernel[a] - 1, g.dil[a]), 1);
    int64_t room = checked_add(checked_add(g.in[a], g.pad[a]), g.pad[a + g.n]);
    c.require(room >= span, "the kernel (span " + std::to_string(span) + ") does not fit axis " + std::to_string(a) +
                                " of the padded input (" + std::to_string(room) + ")");
    g.out.push_back((room - span) / g.stride[a] + 1);
    g.K = checked_mul(g.K, g.kernel[a]);
    g.O = checked_mul(g.O, g.out.back());
  }
  Shape off{g.N, checked_mul(checked_mul(g.og, g.K), g.n)};
  off.insert(off.end(), g.out.begin(), g.out.end());
  c.t_dims(2, off);
  if (c.has(3)) c.t_dims(3, {g.OC});
  if (c.has(4)) {
    Shape m{g.N, checked_mul(g.og, g.K)};
    m.insert(m.end(), g.out.begin(), g.out.end());
    c.t_dims(4, m);
  }
  return g;
}

// Multilinear interpolation of one channel (dims `in`, row-major) at fractional `pos`; corners
// outside the channel read zero.
double sample(const double* ch, const Shape& in, const std::vector<int64_t>& in_stride, const double* pos, int n) {
  int64_t base[kMaxAxes];
  double frac[kMaxAxes];
  for (int a = 0; a < n; ++a) {
    // Beyond one cell outside, every corner is outside (NaN fails the test too).
    if (!(pos[a] > -1.0 && pos[a] < static_cast<double>(in[a]))) return 0.0;
    double f = std::floor(pos[a]);
    base[a] = static_cast<int64_t>(f);
    frac[a] = pos[a] - f;
  }
  double sum = 0;
  for (int corner = 0; corner < (1 << n); ++corner) {
    double wgt = 1;
    int64_t off = 0;
    bool inside = true;
    for (int a = 0; a < n && inside; ++a) {
      int bit = (corner >> a) & 1;
      int64_t i = base[a] + bit;
      inside = i >= 0 && i < in[a];
      wgt *= bit ? frac[a] : 1.0 - frac[a];
      off += i * in_stride[static_cast<size_t>(a)];
    }
    if (inside && wgt != 0) sum += wgt * ch[off];
  }
  return sum;
}

void op_deform_conv(OpCtx& c) {
  c.require_inputs(3);
  DeformGeom g = deform_geometry(c);
  int n = g.n;
  std::vector<double> x = f64_of(c.t(0)), w = f64_of(c.t(1)), off = f64_of(c.t(2));
  std::vector<double> bias = c.has(3) ? f64_of(c.t(3)) : std::vector<double>(static_cast<size_t>(g.OC), 0.0);
  std::vector<double> mask = c.has(4) ? f64_of(c.t(4)) : std::vector<double>{};
  int64_t in_size = shape_numel(g.in);
  std::vector<int64_t> in_stride = strides_of(g.in), out_stride = strides_of(g.out), k_stride = strides_of(g.kernel);
  int64_t cg = g.C / g.group, ocg = g.OC / g.group, c_per_og = g.C / g.og;

  Shape y_shape{g.N, g.OC};
  y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
  std::vector<double> y(scratch_elems(shape_numel(y_shape)), 0.0);
  // cols[ic][k][o]: input channel ic read by kernel tap k for output position o.
  std::vector<double> cols(scratch_elems(checked_mul(checked_mul(g.C, g.K), g.O)));
  double pos[kMaxAxes];
  for (int64_t b = 0; b < g.N; ++b) {
    for (int64_t ic = 0; ic < g.C; ++ic) {
      int64_t og = ic / c_per_og;
      const double* ch = x.data() + (b * g.C + ic) * in_size;
      for (int64_t k = 0; k < g.K; ++k)
        for (int64_t o = 0; o < g.O; ++o) {
          for (int a = 0; a < n; ++a) {
            int64_t ka = k / k_stride[static_cast<size_t>(a)] % g.kernel[a];
            int64_t oa = o / out_stride[static_cast<size_t>(a)] % g.out[a];
            // offset channel ((og * K + k) * n + a) of batch b
            double d = off[static_cast<size_t>(((b * g.og + og) * g.K + k) * n + a) * g.O + o];
            pos[a] = static_cast<double>(oa * g.stride[a] - g.pad[a] + ka * g.dil[a]) + d;
          }
          double v = sample(ch, g.in, in_stride, pos, n);
          if (!mask.empty()) v *= mask[static_cast<size_t>(((b * g.og + og) * g.K + k) * g.O + o)];
          cols[static_cast<size_t>((ic * g.K + k) * g.O + o)] = v;
        }
    }
    for (int64_t oc = 0; oc < g.OC; ++oc) {
      int64_t grp = oc / ocg;
      double* yo = y.data() + (b * g.OC + oc) * g.O;
      std::fill(yo, yo + g.O, bias[static_cast<size_t>(oc)]);
      for (int64_t icl = 0; icl < cg; ++icl)
        for (int64_t k = 0; k < g.K; ++k) {
          double wv = w[static_cast<size_t>((oc * cg + icl) * g.K + k)];
          if (wv == 0) continue;
          const double* col = cols.data() + ((grp * cg + icl) * g.K + k) * g.O;
          for (int64_t o = 0; o < g.O; ++o) yo[o] += wv * col[o];
        }
    }
  }
  c.set(0, tensor_of(y, c.t(0).dtype, y_shape));
}

}  // namespace

void register_deform_conv_ops(Registry& r) {
  // Same attributes and output geometry as Conv (without auto_pad): the Conv rule applies.
  r.add("DeformConv", op_deform_conv, 19, 1 << 30, false).infer(rules::rule_conv);
}

}  // namespace ofg::exec
