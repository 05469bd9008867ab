// Neural-network ops on float32 through the kernels: Conv, ConvTranspose, Gemm, MatMul, pooling,
// normalizations, Softmax, Dropout (inference).
#include <array>
#include <cstring>

#include "exec/infer_rules.h"
#include "exec/ops/conv_transpose.h"
#include "exec/ops/fusable.h"
#include "exec/ops/util.h"
#include "ir/int128.h"

namespace ofg::exec {
namespace {

// Pads per spatial axis from pads / auto_pad; returns begin and end vectors.
void conv_pads(const OpCtx& c, const Shape& in, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
               const std::vector<int64_t>& d, std::vector<int64_t>& pb, std::vector<int64_t>& pe) {
  size_t r = k.size();
  pb.assign(r, 0);
  pe.assign(r, 0);
  std::string ap_name = c.attr_s("auto_pad", "NOTSET");
  kernels::AutoPad ap = kernels::parse_auto_pad(ap_name);
  std::vector<int64_t> pads = c.attr_ints("pads");
  if (ap == kernels::AutoPad::kNotSet) {
    if (!(pads.empty() || pads.size() == 2 * r))
      c.error("pads must have " + std::to_string(2 * r) + " values, got " + std::to_string(pads.size()));
    for (int64_t p : pads) c.size_value(p, "a pad", 1 << 30);
    if (!pads.empty())
      for (size_t i = 0; i < r; ++i) {
        pb[i] = pads[i];
        pe[i] = pads[i + r];
      }
    return;
  }
  if (ap == kernels::AutoPad::kValid) return;
  if (!(kernels::is_same(ap))) c.error("unknown auto_pad '" + ap_name + "'");
  for (size_t i = 0; i < r; ++i) kernels::same_pads(in[i], k[i], s[i], d[i], ap, pb[i], pe[i]);
}

// "pads" absent or 2 * r values in [0, 2^30].
bool pads_ok(const OpCtx& c, size_t r) {
  std::vector<int64_t> pads = c.attr_ints("pads");
  if (pads.empty()) return true;
  if (pads.size() != 2 * r) return false;
  for (int64_t p : pads)
    if (p < 0 || p > (1 << 30)) return false;
  return true;
}

// A per-spatial-axis attribute (strides, dilations, output_padding): r values in [lo, 2^30].
std::vector<int64_t> spatial_attr(const OpCtx& c, const char* name, size_t r, int64_t dflt, int64_t lo = 1) {
  std::vector<int64_t> v = c.attr_ints(name);
  if (v.empty()) v.assign(r, dflt);
  if (!(v.size() == r))
    c.error(std::string(name) + " must have " + std::to_string(r) + " values, got " + std::to_string(v.size()));
  for (int64_t x : v)
    if (x < lo || x > (1 << 30)) c.error(std::string(name) + " value " + std::to_string(x) + " is out of range");
  return v;
}

// The checks Conv and ConvTranspose share: X of rank 3..5, W of the same rank with kernel
// dims >= 1, a positive group, a bias of the output channel count.
void check_conv_inputs(const OpCtx& c, const RTensor& x, const RTensor& w, int64_t group) {
  if (!(x.rank() >= 3 && x.rank() <= 5)) c.error("X must have rank 3..5, got shape " + shape_str(x.shape));
  if (!(w.rank() == x.rank()))
    c.error("W must have the rank of X: X " + shape_str(x.shape) + ", W " + shape_str(w.shape));
  if (!(group >= 1 && group <= (1 << 24))) c.error("group must be positive, got " + std::to_string(group));
  for (int i = 2; i < w.rank(); ++i) if (!(w.shape[i] >= 1)) c.error("W has an empty kernel dim: " + shape_str(w.shape));
  std::vector<int64_t> ks = c.attr_ints("kernel_shape");
  if (!(ks.empty() || ks == std::vector<int64_t>(w.shape.begin() + 2, w.shape.end())))
    c.error("kernel_shape does not match W " + shape_str(w.shape));
}

// Conv weights that keep their bytes across runs (initializers, Constant nodes, kept outputs of
// constant nodes) are packed once per model (kept in the interpreter's cache) instead of on every
// call; anything else goes through the plain kernel.
void conv2d_maybe_prepacked(OpCtx& c, const kernels::Conv2DParams& p, const RTensor& x, const RTensor& w, RTensor& y) {
  const kernels::KernelTable& kt = kernels::active_table();
  const size_t packed_floats = kt.conv2d_packed_size(p);
  const void* key = c.constant_key(1);
  if (packed_floats == 0 || !key || c.t(1).dtype != kFloat) {
    kernels::conv2d(p, x.data<float>(), w.data<float>(), y.data<float>());
    return;
  }
  // The tag tells apart the same bytes used with another geometry (shared initializers); stride
  // and dilation are in it because they choose between packed forms (Winograd or GEMM panels).
  uint64_t tag = 1;
  for (uint64_t v : {p.C_out, p.C_in, p.kH, p.kW, p.group, p.stride_h, p.stride_w, p.dil_h, p.dil_w})
    tag = tag * 0x100000001B3ull ^ v;
  const uint8_t* packed = c.interp.cache()->get(key, tag, packed_floats * sizeof(float),
                                     [&](uint8_t* dst) { kt.conv2d_pack(p, w.data<float>(), reinterpret_cast<float*>(dst)); });
  kt.conv2d_prepacked(p, x.data<float>(), reinterpret_cast<const float*>(packed), y.data<float>());
}

bool gemm_shared_b(OpCtx& c, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B,
                   float beta_c, float* C);

// A convolution with a few output positions per image (the 1-D convs of streaming audio models
// on a chunk of 1 to 8 frames, an STFT of 3 frames) leaves most of each register tile's columns
// idle: the GEMM's columns are the output positions. The transposed product has the output
// channels as columns instead: Y^T (positions x C_out) = columns^T (positions x K) * W^T, with
// W packed once as the B of a Gemm (gemm_shared_b), then written back per channel with the bias,
// activation and post steps. False when this does not apply (grouped, non-constant or small
// weights, more positions): the caller takes the usual path.
bool conv_few_positions(OpCtx& c, const kernels::Conv2DParams& p, const RTensor& x, const RTensor& w, RTensor& y) {
  constexpr size_t kMaxPositions = 8, kMinChannels = 16;
  const size_t HWo = p.H_out * p.W_out, K = p.C_in * p.kH * p.kW, M = p.N * HWo;
  if (p.group != 1 || HWo > kMaxPositions || M < 2 || p.C_out < kMinChannels || K < kMinChannels ||
      c.t(1).dtype != kFloat || !c.constant_key(1))
    return false;
  // Row m = (image, position) of the column matrix, transposed: its K values in the weights'
  // (channel, kh, kw) order, zero where the window is in the padding.
  std::vector<float> cols(M * K), yt(M * p.C_out);
  const float* xd = x.data<float>();
  for (size_t n = 0; n < p.N; ++n)
    for (size_t oh = 0; oh < p.H_out; ++oh)
      for (size_t ow = 0; ow < p.W_out; ++ow) {
        float* row = cols.data() + ((n * p.H_out + oh) * p.W_out + ow) * K;
        for (size_t ch = 0; ch < p.C_in; ++ch)
          for (size_t kh = 0; kh < p.kH; ++kh) {
            const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dil_h) - static_cast<ptrdiff_t>(p.pad_top);
            for (size_t kw = 0; kw < p.kW; ++kw) {
              const ptrdiff_t iw = static_cast<ptrdiff_t>(ow * p.stride_w + kw * p.dil_w) - static_cast<ptrdiff_t>(p.pad_left);
              const bool inside = ih >= 0 && ih < static_cast<ptrdiff_t>(p.H) && iw >= 0 && iw < static_cast<ptrdiff_t>(p.W);
              *row++ = inside ? xd[((n * p.C_in + ch) * p.H + static_cast<size_t>(ih)) * p.W + static_cast<size_t>(iw)] : 0.f;
            }
          }
      }
  const int64_t rows = static_cast<int64_t>(M), outs = static_cast<int64_t>(p.C_out), depth = static_cast<int64_t>(K);
  if (!gemm_shared_b(c, true, rows, outs, depth, cols.data(), w.data<float>(), 0.f, yt.data())) return false;
  float* yd = y.data<float>();
  for (size_t n = 0; n < p.N; ++n)
    for (size_t co = 0; co < p.C_out; ++co)
      for (size_t q = 0; q < HWo; ++q) yd[(n * p.C_out + co) * HWo + q] = yt[(n * HWo + q) * p.C_out + co];
  kernels::apply_bias_activation(kernels::active_table(), yd, p.N, p.C_out, HWo, p.bias, p.act, p.act_alpha,
                                 p.act_beta, p.post);
  return true;
}

}  // namespace

void run_conv(OpCtx& c, const std::function<const kernels::ConvPost*(int64_t)>& make_post) {
  RTensor x = as_float(c.t(0)), w = as_float(c.t(1));
  RTensor b;
  if (c.has(2)) b = as_float(c.t(2));
  int64_t group = c.attr_i("group", 1);
  check_conv_inputs(c, x, w, group);
  size_t r = x.rank() - 2;
  std::vector<int64_t> k(w.shape.begin() + 2, w.shape.end());
  auto s = spatial_attr(c, "strides", r, 1), d = spatial_attr(c, "dilations", r, 1);
  std::vector<int64_t> pb, pe;
  Shape in(x.shape.begin() + 2, x.shape.end());
  conv_pads(c, in, k, s, d, pb, pe);
  Shape out{x.shape[0], w.shape[0]};
  for (size_t i = 0; i < r; ++i) out.push_back(kernels::pool_out_dim(in[i], k[i], s[i], pb[i], pe[i], d[i], false));
  if (checked_mul(w.shape[1], group) != x.shape[1] || w.shape[0] % group != 0)
    c.error("W " + shape_str(w.shape) + " does not match X " + shape_str(x.shape) + " with group " + std::to_string(group));
  if (c.has(2)) if (!(b.numel() == w.shape[0]))
      c.error("B must have " + std::to_string(w.shape[0]) + " values, got shape " + shape_str(b.shape));
  RTensor y = c.output_tensor(0, kFloat, out);  // every element is written by the kernel
  const kernels::ConvPost* post = make_post ? make_post(w.shape[0]) : nullptr;
  if (y.numel() == 0) { c.set(0, y); return; }
  if (r == 1 || r == 2) {
    // A 1-D convolution is the 2-D one over a single row ([N, C, W] is [N, C, 1, W], its weights
    // [C_out, C_in/g, 1, K]): audio front ends (STFT as Conv1d) get the packed GEMM paths.
    const size_t h = r == 2 ? 1 : 0;  // index of the width axis in in/k/s/d/pb/pe
    kernels::Conv2DParams p;
    p.N = x.shape[0]; p.C_in = x.shape[1]; p.C_out = w.shape[0]; p.group = group;
    p.H = r == 2 ? in[0] : 1; p.kH = r == 2 ? k[0] : 1; p.stride_h = r == 2 ? s[0] : 1;
    p.dil_h = r == 2 ? d[0] : 1; p.pad_top = r == 2 ? pb[0] : 0; p.pad_bottom = r == 2 ? pe[0] : 0;
    p.H_out = r == 2 ? out[2] : 1;
    p.W = in[h]; p.kW = k[h]; p.stride_w = s[h]; p.dil_w = d[h]; p.pad_left = pb[h]; p.pad_right = pe[h];
    p.W_out = out[2 + h];
    p.bias = c.has(2) ? b.data<float>() : nullptr;
    p.post = post;
    if (!conv_few_positions(c, p, x, w, y)) conv2d_maybe_prepacked(c, p, x, w, y);
  } else {
    kernels::ConvNdParams p;
    p.rank = r; p.N = x.shape[0]; p.C_in = x.shape[1]; p.C_out = w.shape[0]; p.group = group;
    for (size_t i = 0; i < r; ++i) {
      p.in[i] = in[i]; p.kernel[i] = k[i]; p.out[i] = out[2 + i]; p.stride[i] = s[i]; p.dilation[i] = d[i];
      p.pad_begin[i] = pb[i];
    }
    p.bias = c.has(2) ? b.data<float>() : nullptr;
    kernels::conv_nd(p, x.data<float>(), w.data<float>(), y.data<float>());
    // The N-D kernel has no post step: one pass over its output instead.
    if (post)
      kernels::apply_bias_activation(kernels::active_table(), y.data<float>(), out[0], out[1], y.numel() / (out[0] * out[1]),
                                     nullptr, kernels::Activation::None, 0.f, 0.f, post);
  }
  c.set(0, y);
}

namespace {

void op_conv(OpCtx& c) { run_conv(c, nullptr); }

// Transposed convolution, every spatial rank: the geometry from the attributes, then
// conv_transpose_gemm (ranks 1 to 3) or the scatter reference (conv_transpose.h).
void op_conv_transpose(OpCtx& c) {
  RTensor x = as_float(c.t(0)), w = as_float(c.t(1));
  int64_t group = c.attr_i("group", 1);
  check_conv_inputs(c, x, w, group);
  size_t r = x.rank() - 2;
  if (w.shape[0] != x.shape[1] || x.shape[1] % group != 0)
    c.error("W " + shape_str(w.shape) + " does not match X " + shape_str(x.shape) + " with group " + std::to_string(group));
  std::vector<int64_t> k(w.shape.begin() + 2, w.shape.end());
  auto s = spatial_attr(c, "strides", r, 1), d = spatial_attr(c, "dilations", r, 1);
  auto op = spatial_attr(c, "output_padding", r, 0, 0);
  std::vector<int64_t> os = c.attr_ints("output_shape");
  if (!(os.empty() || os.size() >= r)) c.error("output_shape has fewer than " + std::to_string(r) + " values");
  if (!(pads_ok(c, r))) c.error("pads must have " + std::to_string(2 * r) + " values in [0, 2^30]");
  Shape in(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> pb(r, 0), pe(r, 0), pads = c.attr_ints("pads");
  kernels::AutoPad ap = kernels::parse_auto_pad(c.attr_s("auto_pad", "NOTSET"));
  std::vector<int64_t> outsz(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t full = s[i] * (in[i] - 1) + op[i] + (k[i] - 1) * d[i] + 1;
    // With output_shape or SAME_*, the padding is what takes the full result to the target size
    // (split as the spec's floor division does; a negative total pads after it).
    if (!os.empty() || kernels::is_same(ap)) {
      int64_t target = !os.empty() ? os[os.size() - r + i] : in[i] * s[i];
      kernels::split_pad(full - target, ap == kernels::AutoPad::kSameUpper, pb[i], pe[i]);
      outsz[i] = target;
    } else {
      if (!pads.empty()) { pb[i] = pads[i]; pe[i] = pads[i + r]; }
      outsz[i] = full - pb[i] - pe[i];
    }
    c.size_value(outsz[i], "an output spatial dim", 1 << 30);
  }
  int64_t N = x.shape[0], Ci = x.shape[1], Cog = w.shape[1], Co = Cog * group;
  Shape out{N, Co};
  for (auto v : outsz) out.push_back(v);
  if (c.has(2)) if (!(c.t(2).numel() == Co))
      c.error("B must have " + std::to_string(Co) + " values, got shape " + shape_str(c.t(2).shape));
  ConvTransposeGeometry geo;
  geo.N = N;
  geo.C_in = Ci;
  geo.C_out = Co;
  geo.group = group;
  geo.in.assign(in.begin(), in.end());
  geo.kernel = k;
  geo.stride = s;
  geo.dilation = d;
  geo.pad_begin = pb;
  geo.out = outsz;
  RTensor bias;
  if (c.has(2)) bias = as_float(c.t(2));
  RTensor y = RTensor::alloc_uninit(kFloat, out);  // both forms write every element (bias first)
  const float* pb_data = c.has(2) ? bias.data<float>() : nullptr;
  if (!conv_transpose_gemm(geo, x.data<float>(), w.data<float>(), pb_data, y.data<float>()))
    conv_transpose_reference(geo, x.data<float>(), w.data<float>(), pb_data, y.data<float>());
  c.set(0, y);
}

void pool(OpCtx& c, bool is_max) {
  // Computed in float32 (exact for the 8-bit integer types MaxPool takes); the result goes back
  // to the input's element type.
  const int32_t in_dtype = c.t(0).dtype;
  auto finish = [&](RTensor y) { return in_dtype == kFloat ? y : cast_tensor(y, in_dtype); };
  RTensor x = as_float(c.t(0));
  if (!(x.rank() >= 3)) c.error("X must have rank >= 3, got shape " + shape_str(x.shape));
  size_t r = x.rank() - 2;
  std::vector<int64_t> k = c.attr_ints("kernel_shape");
  if (!(k.size() == r))
    c.error("kernel_shape must have " + std::to_string(r) + " values, got " + std::to_string(k.size()));
  for (int64_t v : k) if (!(v >= 1 && v <= (1 << 30))) c.error("kernel_shape value " + std::to_string(v) + " is out of range");
  auto s = spatial_attr(c, "strides", r, 1), d = spatial_attr(c, "dilations", r, 1);
  bool ceil_mode = c.attr_i("ceil_mode", 0) != 0;
  bool include_pad = c.attr_i("count_include_pad", 0) != 0;
  Shape in(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> pb, pe;
  conv_pads(c, in, k, s, d, pb, pe);
  bool same = kernels::is_same(kernels::parse_auto_pad(c.attr_s("auto_pad", "NOTSET")));
  Shape out{x.shape[0], x.shape[1]};
  for (size_t i = 0; i < r; ++i)
    out.push_back(same ? kernels::same_out_dim(in[i], s[i]) : kernels::pool_out_dim(in[i], k[i], s[i], pb[i], pe[i], d[i], ceil_mode));
  RTensor y = RTensor::alloc_uninit(kFloat, out);  // every element is written by both paths
  bool want_idx = c.n_out() > 1 && c.wants(1);
  bool dil = false;
  for (auto v : d) dil |= v != 1;
  if ((r == 1 || r == 2) && !want_idx && (is_max || !dil)) {
    // A 1-D pool is the 2-D one over a single row ([N, C, W] is [N, C, 1, W]).
    auto hw = [&](const auto& v, int64_t unit) { return r == 2 ? std::array<int64_t, 2>{v[0], v[1]} : std::array<int64_t, 2>{unit, v[0]}; };
    const auto in2 = hw(in, 1), k2 = hw(k, 1), s2 = hw(s, 1), d2 = hw(d, 1), pb2 = hw(pb, 0), pe2 = hw(pe, 0);
    const auto out2 = r == 2 ? std::array<int64_t, 2>{out[2], out[3]} : std::array<int64_t, 2>{1, out[2]};
    kernels::Pool2DParams p;
    p.N = x.shape[0]; p.C = x.shape[1]; p.H = in2[0]; p.W = in2[1]; p.kH = k2[0]; p.kW = k2[1];
    p.stride_h = s2[0]; p.stride_w = s2[1]; p.pad_top = pb2[0]; p.pad_left = pb2[1];
    // Ceil mode may need windows past the declared end padding; the kernel clips to the input.
    p.pad_bottom = std::max<int64_t>(pe2[0], (out2[0] - 1) * s2[0] + (k2[0] - 1) * d2[0] + 1 - in2[0] - pb2[0]);
    p.pad_right = std::max<int64_t>(pe2[1], (out2[1] - 1) * s2[1] + (k2[1] - 1) * d2[1] + 1 - in2[1] - pb2[1]);
    if (!is_max) { p.pad_bottom = pe2[0]; p.pad_right = pe2[1]; }
    p.dil_h = d2[0]; p.dil_w = d2[1]; p.H_out = out2[0]; p.W_out = out2[1]; p.count_include_pad = include_pad;
    if (is_max) kernels::max_pool2d(p, x.data<float>(), y.data<float>());
    else kernels::avg_pool2d(p, x.data<float>(), y.data<float>());
    c.set(0, finish(y));
    return;
  }
  // Generic N-D path (1-D, 3-D, indices output, dilated average).
  Shape osp(out.begin() + 2, out.end());
  int64_t NC = x.shape[0] * x.shape[1], in_sp = shape_numel(in), out_sp = shape_numel(osp);
  std::vector<int64_t> ist = strides_of(in);
  // storage_order 1 numbers the indices column-major (first spatial axis fastest).
  std::vector<int64_t> idx_st = ist;
  if (c.attr_i("storage_order", 0) == 1)
    for (size_t i = 0, acc = 1; i < r; ++i) { idx_st[i] = static_cast<int64_t>(acc); acc *= static_cast<size_t>(in[i]); }
  RTensor idx = RTensor::alloc(kInt64, out);
  // Per output position, the window's taps inside the input form a box: along axis i the kernel
  // indices [lo_i, hi_i). The loops visit that box only, in the kernel's row-major order (the
  // order of the whole window with the outside taps skipped), so the sums and the first maximum
  // are the same as checking every tap; the taps inside the padded extent (the divisor with
  // count_include_pad) are a box too and only counted. The output position is a counter over the
  // axes. (Checking each tap cost a padded 3-D pool of half a million outputs most of its time.)
  // The first kernel index at or after which base + kv * dil reaches `bound`, in [0, k].
  auto first_at = [](int64_t bound, int64_t base, int64_t dil, int64_t kdim) {
    const int64_t need = bound - base;
    return need <= 0 ? int64_t{0} : std::min(kdim, (need + dil - 1) / dil);
  };
  std::vector<int64_t> o(r), base(r), lo(r), hi(r), kv(r);
  const float* xd = x.data<float>();
  for (int64_t nc = 0; nc < NC; ++nc) {
    std::fill(o.begin(), o.end(), 0);
    for (int64_t op = 0; op < out_sp; ++op) {
      int64_t cnt_pad = 1, inside_taps = 1;
      for (size_t i = 0; i < r; ++i) {
        base[i] = o[i] * s[i] - pb[i];
        lo[i] = first_at(0, base[i], d[i], k[i]);
        hi[i] = first_at(in[i], base[i], d[i], k[i]);
        cnt_pad *= first_at(in[i] + pe[i], base[i], d[i], k[i]) - first_at(-pb[i], base[i], d[i], k[i]);
        inside_taps *= std::max<int64_t>(0, hi[i] - lo[i]);
      }
      double best = -std::numeric_limits<double>::infinity(), sum = 0;
      int64_t best_i = 0, cnt = 0;
      if (inside_taps > 0) {
        kv = lo;
        for (;;) {
          int64_t off = 0, idx_off = 0;
          for (size_t i = 0; i < r; ++i) {
            const int64_t iv = base[i] + kv[i] * d[i];
            off += iv * ist[i];
            idx_off += iv * idx_st[i];
          }
          const float v = xd[nc * in_sp + off];
          ++cnt;
          sum += v;
          if (v > best) { best = v; best_i = idx_off; }
          size_t i = r;
          while (i-- > 0) {
            if (++kv[i] < hi[i]) break;
            kv[i] = lo[i];
          }
          if (i == static_cast<size_t>(-1)) break;  // every axis wrapped: the box is done
        }
      }
      float res = is_max ? static_cast<float>(best) : static_cast<float>(sum / std::max<int64_t>(1, include_pad ? cnt_pad : cnt));
      y.data<float>()[nc * out_sp + op] = res;
      // Indices are flattened over N, C and spatial axes (row-major), as ONNX defines them.
      idx.data<int64_t>()[nc * out_sp + op] = nc * in_sp + best_i;
      for (size_t i = r; i-- > 0;) {
        if (++o[i] < osp[i]) break;
        o[i] = 0;
      }
    }
  }
  c.set(0, finish(y));
  if (want_idx) c.set(1, idx);
}
void op_maxpool(OpCtx& c) { pool(c, true); }
void op_avgpool(OpCtx& c) { pool(c, false); }

void global_pool(OpCtx& c, bool is_max) {
  RTensor x = as_float(c.t(0));
  if (!(x.rank() >= 2)) c.error("X must have rank >= 2, got shape " + shape_str(x.shape));
  Shape out{x.shape[0], x.shape[1]};
  for (int i = 2; i < x.rank(); ++i) out.push_back(1);
  RTensor y = RTensor::alloc(kFloat, out);
  int64_t NC = x.shape[0] * x.shape[1], HW = NC ? x.numel() / NC : 0;
  if (is_max) kernels::global_max_pool(x.data<float>(), y.data<float>(), NC, HW);
  else kernels::global_avg_pool(x.data<float>(), y.data<float>(), NC, HW);
  c.set(0, y);
}
void op_gap(OpCtx& c) { global_pool(c, false); }
void op_gmp(OpCtx& c) { global_pool(c, true); }

void gemm2d(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B, float beta, float* C) {
  kernels::sgemm(ta, tb, M, N, K, alpha, A, ta ? M : K, B, tb ? K : N, beta, C, N);
}

// C = A * op(B) + beta_c * C for a B that is the same on every run (Gemm's weights), alpha 1 and A
// not transposed, with more than one row (one row takes sgemm's matrix-vector paths): B is packed
// once (transposed first when it is stored N x K) and kept in the run's cache, as MatMul's is; the
// result is sgemm's bit for bit. False when this does not apply.
bool gemm_shared_b(OpCtx& c, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B,
                   float beta_c, float* C) {
  const kernels::KernelTable& kt = kernels::active_table();
  const size_t packed_floats = M > 1 ? kt.sgemm_packed_b_size(K, N) : 0;
  uint64_t tag = ((0x47454D4D42ull * 0x100000001B3ull ^ static_cast<uint64_t>(K)) * 0x100000001B3ull ^
                  static_cast<uint64_t>(N)) * 0x100000001B3ull ^ (tb ? 1u : 0u);  // "GEMMB", K, N, transB
  const void* key = packed_floats ? c.constant_key(1) : nullptr;
  if (!key) return false;
  const uint8_t* packed = c.interp.cache()->get(key, tag, packed_floats * sizeof(float), [&](uint8_t* dst) {
    if (!tb) return kt.sgemm_pack_b(K, N, B, N, reinterpret_cast<float*>(dst));
    std::vector<float> bt(static_cast<size_t>(K) * N);
    kt.transpose2d(sizeof(float), B, K, bt.data(), N, N, K);
    kt.sgemm_pack_b(K, N, bt.data(), N, reinterpret_cast<float*>(dst));
  });
  kt.sgemm_prepacked_b(M, N, K, A, K, reinterpret_cast<const float*>(packed), beta_c, C, N);
  return true;
}

void op_gemm(OpCtx& c) {
  RTensor a = as_float(c.t_rank(0, 2)), b = as_float(c.t_rank(1, 2));
  bool ta = c.attr_i("transA", 0) != 0, tb = c.attr_i("transB", 0) != 0;
  float alpha = c.attr_f("alpha", 1.f), beta = c.attr_f("beta", 1.f);
  int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  int64_t N = tb ? b.shape[0] : b.shape[1];
  if ((tb ? b.shape[1] : b.shape[0]) != K)
    c.error("inner dimensions differ: A " + shape_str(a.shape) + ", B " + shape_str(b.shape));
  const Shape mn{M, N};
  if (c.has(2) && broadcast_shapes(c, {c.t(2).shape, mn}) != mn)
    c.error("C " + shape_str(c.t(2).shape) + " does not broadcast to " + shape_str({M, N}));
  RTensor y = RTensor::alloc_uninit(kFloat, {M, N});  // every element is written below (C, then sgemm)
  float bet = 0.f;
  if (c.has(2) && beta != 0.f) {
    RTensor cc = as_float(c.t(2));
    const float* pc = cc.data<float>();
    float* py = y.data<float>();
    // C is usually a bias row (runs of stride 1) or one value per row (stride 0): those loops
    // vectorise; a strided gather took 30% of a 64 x 256 x 512 Gemm (LSTM projection).
    const float scale = beta;  // a local: the loops below then need not reload it after each store
    broadcast_runs(y.shape, {cc.shape}, [py, pc, scale](int64_t n, const int64_t* o, int64_t len, const int64_t* st) {
      const float* src = pc + o[0];
      float* dst = py + n;
      if (st[0] == 1 && scale == 1.f) {
        std::memcpy(dst, src, static_cast<size_t>(len) * sizeof(float));
      } else if (st[0] == 1) {
        for (int64_t t = 0; t < len; ++t) dst[t] = scale * src[t];
      } else if (st[0] == 0) {
        std::fill(dst, dst + len, scale * src[0]);
      } else {
        for (int64_t t = 0; t < len; ++t) dst[t] = scale * src[t * st[0]];
      }
    });
    bet = 1.f;
  }
  const bool packed = M && N && !ta && alpha == 1.f &&
                      gemm_shared_b(c, tb, M, N, K, a.data<float>(), b.data<float>(), bet, y.data<float>());
  if (M && N && !packed) gemm2d(ta, tb, M, N, K, alpha, a.data<float>(), b.data<float>(), bet, y.data<float>());
  c.set(0, y);
}

// C = A * B for a 2-D B. A B that keeps its bytes across runs (an initializer, or an entry of the
// interpreter's cache such as a transposed initializer) is packed once per model and kept in the
// cache, as convolution weights are; the result is bit for bit the one of sgemm.
void matmul_shared_b(OpCtx& c, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C) {
  const kernels::KernelTable& kt = kernels::active_table();
  const size_t packed_floats = kt.sgemm_packed_b_size(K, N);
  const void* key = packed_floats ? c.constant_key(1) : nullptr;
  if (!key) {
    gemm2d(false, false, M, N, K, 1.f, A, B, 0.f, C);
    return;
  }
  const uint64_t tag = (0x4D41544D554Cull * 0x100000001B3ull ^ static_cast<uint64_t>(K)) * 0x100000001B3ull ^
                       static_cast<uint64_t>(N);  // "MATMUL", K, N
  const uint8_t* packed = c.interp.cache()->get(key, tag, packed_floats * sizeof(float), [&](uint8_t* dst) {
    kt.sgemm_pack_b(K, N, B, N, reinterpret_cast<float*>(dst));
  });
  kt.sgemm_prepacked_b(M, N, K, A, K, reinterpret_cast<const float*>(packed), 0.f, C, N);
}

void op_matmul(OpCtx& c) {
  const RTensor &a0 = c.t_rank(0, 1, 64), &b0 = c.t_rank(1, 1, 64);
  c.require(a0.dtype == b0.dtype, "A and B differ in element type");
  Shape as = a0.shape, bs = b0.shape;
  bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) c.error("inner dimensions differ: " + shape_str(a0.shape) + " x " + shape_str(b0.shape));
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  Shape batch = broadcast_shapes(c, {ab, bb});
  Shape out = batch;
  if (!a1) out.push_back(M);
  if (!b1) out.push_back(N);
  // The float paths write every element (K = 0: zeros); the others start from zeros.
  RTensor y = a0.dtype == kFloat ? RTensor::alloc_uninit(kFloat, out) : RTensor::alloc(a0.dtype, out);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  broadcast_each(batch, {ab, bb}, [&](int64_t, const int64_t* o) { pairs.emplace_back(o[0], o[1]); });
  if (batch.empty()) pairs = {{0, 0}};
  if (a0.dtype == kFloat && bs.size() == 2 && M && N) {
    // One B for every batch: A's batches are one tall matrix (the same products, in one call).
    matmul_shared_b(c, pairs.size() * M, N, K, a0.data<float>(), b0.data<float>(), y.data<float>());
  } else if (a0.dtype == kFloat) {
    auto one = [&](size_t i) {
      if (M && N)
        gemm2d(false, false, M, N, K, 1.f, a0.data<float>() + pairs[i].first * M * K, b0.data<float>() + pairs[i].second * K * N,
               0.f, y.data<float>() + i * M * N);
    };
    // Enough batches for every thread: one whole product per task (each then runs on one
    // thread); fewer: one after the other, each split inside sgemm.
    const size_t macs = pairs.size() * static_cast<size_t>(M * N * K);
    if (pairs.size() >= kernels::threads() && macs >= kernels::parallel_work()) kernels::parallel_for(pairs.size(), one);
    else
      for (size_t i = 0; i < pairs.size(); ++i) one(i);
  } else {
    visit_numeric(a0.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        for (size_t i = 0; i < pairs.size(); ++i) {
          const T* A = a0.data<T>() + pairs[i].first * M * K;
          const T* B = b0.data<T>() + pairs[i].second * K * N;
          T* C = y.data<T>() + i * M * N;
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              T acc = 0;
              for (int64_t k = 0; k < K; ++k) acc = static_cast<T>(acc + A[m * K + k] * B[k * N + n]);
              C[m * N + n] = acc;
            }
        }
      }
    });
  }
  c.set(0, y);
}

void op_batchnorm(OpCtx& c) {
  if (c.attr_i("training_mode", 0) != 0)
    fail(Status::kUnsupported, c.where() + ": BatchNormalization in training mode is not supported");
  RTensor x = as_float(c.t(0));
  c.require(x.rank() >= 1, "X must have rank >= 1");
  int64_t N = x.shape[0], C = x.rank() > 1 ? x.shape[1] : 1;
  std::vector<float> a, b;
  batchnorm_factors(c, C, a, b);
  RTensor y = RTensor::alloc_uninit(kFloat, x.shape);  // every element is written below
  int64_t HW = (N != 0 && C != 0) ? x.numel() / (N * C) : 0;
  // y = x * a + b per channel, rounded after the product and after the sum (no fused
  // multiply-add), in one vector pass over each plane.
  const kernels::KernelTable& kt = kernels::active_table();
  const size_t plane = static_cast<size_t>(HW);
  // Planes are split between threads; each is computed as on one thread.
  if (plane > 0)
    kernels::parallel_ranges(static_cast<size_t>(N * C), 1, kernels::plane_grain(plane), [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) {
        const size_t ch = i % static_cast<size_t>(C);
        kt.affine_vs(x.data<float>() + i * plane, a[ch], b[ch], y.data<float>() + i * plane, plane);
      }
    });
  c.set(0, y);
}

void softmax_impl(OpCtx& c, bool log) {
  RTensor x = as_float(c.t_rank(0, 1, 64));
  int64_t r = x.rank();
  int64_t axis = norm_axis(c, c.attr_i("axis", c.opset < 13 ? 1 : -1), r);
  int64_t outer = 1, len = 1, inner = 1;
  if (c.opset < 13) {  // coerced to 2-D at axis
    for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
    for (int64_t i = axis; i < r; ++i) len *= x.shape[i];
  } else {
    for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
    len = x.shape[axis];
    for (int64_t i = axis + 1; i < r; ++i) inner *= x.shape[i];
  }
  RTensor y = RTensor::alloc(kFloat, x.shape);
  if (x.numel()) {
    if (log) kernels::log_softmax(x.data<float>(), y.data<float>(), outer, len, inner);
    else kernels::softmax(x.data<float>(), y.data<float>(), outer, len, inner);
  }
  c.set(0, like_input(y, c.t(0).dtype));
}
void op_softmax(OpCtx& c) { softmax_impl(c, false); }
void op_log_softmax(OpCtx& c) { softmax_impl(c, true); }

void op_hardmax(OpCtx& c) {
  RTensor x = as_float(c.t_rank(0, 1, 64));
  int64_t r = x.rank();
  int64_t axis = norm_axis(c, c.attr_i("axis", c.opset < 13 ? 1 : -1), r);
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  if (c.opset < 13) for (int64_t i = axis; i < r; ++i) len *= x.shape[i];
  else { len = x.shape[axis]; for (int64_t i = axis + 1; i < r; ++i) inner *= x.shape[i]; }
  RTensor y = RTensor::alloc(kFloat, x.shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t best = 0;
      for (int64_t k = 1; k < len; ++k)
        if (x.data<float>()[(o * len + k) * inner + in] > x.data<float>()[(o * len + best) * inner + in]) best = k;
      if (len) y.data<float>()[(o * len + best) * inner + in] = 1.f;
    }
  c.set(0, like_input(y, c.t(0).dtype));
}

// LayerNormalization and RMSNormalization: x in float as `rows` rows of the D elements from `axis`
// on; scale and bias are broadcast to one row (shape `dshape`).
struct NormRows {
  RTensor x;
  int64_t axis = 0, rows = 1, D = 1;
  float eps = 0;
  Shape dshape;

  explicit NormRows(OpCtx& c) : x(as_float(c.t(0))) {
    int64_t r = x.rank();
    axis = norm_axis(c, c.attr_i("axis", -1), r);
    eps = c.attr_f("epsilon", 1e-5f);
    for (int64_t i = 0; i < axis; ++i) rows *= x.shape[i];
    for (int64_t i = axis; i < r; ++i) D *= x.shape[i];
    dshape.assign(x.shape.begin() + axis, x.shape.end());
  }
  // t as one row of D floats (t itself when it already is one).
  RTensor row(const OpCtx& c, const RTensor& t, const char* what) const {
    if (broadcast_shapes(c, {t.shape, dshape}) != dshape)
      c.error(std::string(what) + " " + shape_str(t.shape) + " does not broadcast to " + shape_str(dshape));
    if (t.numel() == D) return t;
    RTensor e = RTensor::alloc(kFloat, dshape);
    broadcast_each(dshape, {t.shape}, [&](int64_t i, const int64_t* o) { e.data<float>()[i] = t.data<float>()[o[0]]; });
    return e;
  }
};

void op_layernorm(OpCtx& c) {
  NormRows n(c);
  RTensor sc = as_float(c.t(1));
  RTensor y = RTensor::alloc(kFloat, n.x.shape);
  Shape ms = n.x.shape;
  for (size_t i = static_cast<size_t>(n.axis); i < ms.size(); ++i) ms[i] = 1;
  RTensor mean = RTensor::alloc(kFloat, ms), inv = RTensor::alloc(kFloat, ms);
  RTensor scale_full = n.row(c, sc, "scale / bias"), bias_full;
  if (c.has(2)) bias_full = n.row(c, as_float(c.t(2)), "scale / bias");
  if (n.rows && n.D)
    kernels::layer_norm(n.x.data<float>(), scale_full.data<float>(), c.has(2) ? bias_full.data<float>() : nullptr,
                        y.data<float>(), n.rows, n.D, n.eps, mean.data<float>(), inv.data<float>());
  c.set(0, y);
  if (c.n_out() > 1) c.set(1, mean);
  if (c.n_out() > 2) c.set(2, inv);
}

// y = x / sqrt(mean(x^2) + eps) * scale per row, in three vector passes of the kernel table: the
// sum of squares (reduce), x * inv (binary_vs), then * scale (binary_vv): the products rounded in
// the order the scalar formula writes them.
void op_rmsnorm(OpCtx& c) {
  NormRows n(c);
  RTensor s = n.row(c, as_float(c.t(1)), "scale");
  RTensor y = RTensor::alloc_uninit(kFloat, n.x.shape);  // every row is written below
  const kernels::KernelTable& kt = kernels::active_table();
  const float* ps = s.data<float>();
  const size_t D = static_cast<size_t>(n.D);
  for (int64_t rr = 0; rr < n.rows && D > 0; ++rr) {
    const float* px = n.x.data<float>() + rr * n.D;
    float* py = y.data<float>() + rr * n.D;
    float ss = 0;
    kt.reduce(kernels::ReduceOp::SumSquare, px, &ss, 1, D, 1);
    const float inv = static_cast<float>(1.0 / std::sqrt(static_cast<double>(ss) / n.D + n.eps));
    kt.binary_vs(kernels::BinaryOp::Mul, px, inv, py, D);
    kt.binary_vv(kernels::BinaryOp::Mul, py, ps, py, D);
  }
  c.set(0, y);
}

// Each (n, c) plane normalised by the layer_norm kernel (one row of HW, unit scale), then
// y * scale[c] + bias[c] by affine_vs: the same roundings as the per-element formula.
void op_instancenorm(OpCtx& c) {
  RTensor x = as_float(c.t_rank(0, 2, 64)), sc = as_float(c.t(1)), bi = as_float(c.t(2));
  float eps = c.attr_f("epsilon", 1e-5f);
  int64_t N = x.shape[0], C = x.shape[1], HW = (N != 0 && C != 0) ? x.numel() / (N * C) : 0;
  if (!(sc.numel() == C && bi.numel() == C)) c.error("scale and B must have " + std::to_string(C) + " values");
  RTensor y = RTensor::alloc_uninit(kFloat, x.shape);  // every element is written below
  const kernels::KernelTable& kt = kernels::active_table();
  const size_t hw = static_cast<size_t>(HW), C_ = static_cast<size_t>(C);
  const std::vector<float> ones(hw, 1.f);  // the kernel takes a scale vector
  // Planes are independent: threads take whole ones.
  if (hw > 0)
    kernels::parallel_ranges(static_cast<size_t>(N) * C_, 1, kernels::plane_grain(2 * hw), [&](size_t p0, size_t p1) {
      for (size_t p = p0; p < p1; ++p) {
        const size_t ch = p % C_;
        float* py = y.data<float>() + p * hw;
        kt.layer_norm(x.data<float>() + p * hw, ones.data(), nullptr, py, 1, hw, eps, nullptr, nullptr);
        kt.affine_vs(py, sc.data<float>()[ch], bi.data<float>()[ch], py, hw);
      }
    });
  c.set(0, y);
}

void op_groupnorm(OpCtx& c) {
  RTensor x = as_float(c.t_rank(0, 2, 64)), sc = as_float(c.t(1)), bi = as_float(c.t(2));
  float eps = c.attr_f("epsilon", 1e-5f);
  int64_t G = c.attr_i("num_groups", 1);
  int64_t N = x.shape[0], C = x.shape[1];
  if (!(G >= 1 && C % G == 0))
    c.error("num_groups " + std::to_string(G) + " does not divide the " + std::to_string(C) + " channels");
  int64_t HW = (N != 0 && C != 0) ? x.numel() / (N * C) : 0, Cg = C / G;
  RTensor y = RTensor::alloc(kFloat, x.shape);
  bool per_channel = sc.numel() == C;
  if (!((per_channel || sc.numel() == G) && bi.numel() == sc.numel()))
    c.error("scale and bias must have " + std::to_string(C) + " or " + std::to_string(G) + " values");
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      size_t off = (n * C + g * Cg) * HW;
      std::vector<float> ones(Cg * HW, 1.f);
      kernels::layer_norm(x.data<float>() + off, ones.data(), nullptr, y.data<float>() + off, 1, Cg * HW, eps, nullptr, nullptr);
      for (int64_t cc = 0; cc < Cg; ++cc) {
        int64_t ch = per_channel ? g * Cg + cc : g;
        for (int64_t i = 0; i < HW; ++i) {
          float& v = y.data<float>()[off + cc * HW + i];
          v = v * sc.data<float>()[ch] + bi.data<float>()[ch];
        }
      }
    }
  c.set(0, y);
}

void op_lrn(OpCtx& c) {
  RTensor x = as_float(c.t(0));
  float alpha = c.attr_f("alpha", 1e-4f), beta = c.attr_f("beta", 0.75f), bias = c.attr_f("bias", 1.f);
  int64_t size = c.attr_i("size", 1);
  if (!(x.rank() >= 2)) c.error("X must have rank >= 2, got shape " + shape_str(x.shape));
  if (!(size >= 1 && size <= (1 << 30))) c.error("size must be positive, got " + std::to_string(size));
  int64_t N = x.shape[0], C = x.shape[1], HW = (N != 0 && C != 0) ? x.numel() / (N * C) : 0;
  RTensor y = RTensor::alloc(kFloat, x.shape);
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t i = 0; i < HW; ++i) {
        double ss = 0;
        for (int64_t k = std::max<int64_t>(0, ch - lo); k <= std::min<int64_t>(C - 1, ch + hi); ++k) {
          float v = x.data<float>()[(n * C + k) * HW + i];
          ss += v * v;
        }
        float v = x.data<float>()[(n * C + ch) * HW + i];
        y.data<float>()[(n * C + ch) * HW + i] = static_cast<float>(v / std::pow(bias + alpha / size * ss, beta));
      }
  c.set(0, y);
}

void op_lpnorm(OpCtx& c) {
  RTensor x = as_float(c.t(0));
  int64_t axis = norm_axis(c, c.attr_i("axis", -1), x.rank());
  int64_t p = c.attr_i("p", 2);
  int64_t outer = 1, len = x.shape[axis], inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  RTensor y = RTensor::alloc(kFloat, x.shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      double n = 0;
      for (int64_t k = 0; k < len; ++k) {
        float v = x.data<float>()[(o * len + k) * inner + in];
        n += p == 1 ? std::fabs(v) : v * v;
      }
      if (p == 2) n = std::sqrt(n);
      for (int64_t k = 0; k < len; ++k) {
        size_t i = (o * len + k) * inner + in;
        y.data<float>()[i] = n == 0 ? 0.f : static_cast<float>(x.data<float>()[i] / n);
      }
    }
  c.set(0, y);
}

void op_dropout(OpCtx& c) {
  c.require_inputs(1);
  bool training = c.opset >= 12 && c.has(2) && get_f64(c.t_numel(2, 1), 0) != 0;
  double ratio = c.opset >= 12 ? (c.has(1) ? get_f64(c.t_numel(1, 1), 0) : 0.5) : c.attr_f("ratio", 0.5f);
  if (training && ratio != 0)
    fail(Status::kUnsupported, c.where() + ": Dropout in training mode draws random masks; not supported");
  c.out[0] = *c.in[0];
  if (c.n_out() > 1 && c.wants(1)) {
    RTensor m = RTensor::alloc(kBool, c.t(0).shape);
    std::memset(m.ptr, 1, m.nbytes());
    c.set(1, m);
  }
}

void op_mvn(OpCtx& c) {
  RTensor x = as_float(c.t(0));
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (axes.empty()) axes = {0, 2, 3};
  std::vector<bool> red(x.rank(), false);
  for (auto a : axes) red[norm_axis(c, a, x.rank())] = true;
  Shape rs = x.shape;
  for (int i = 0; i < x.rank(); ++i) if (red[i]) rs[i] = 1;
  std::vector<double> sum(shape_numel(rs), 0), sq(shape_numel(rs), 0);
  int64_t cnt = x.numel() / std::max<int64_t>(1, shape_numel(rs));
  broadcast_each(x.shape, {rs}, [&](int64_t i, const int64_t* o) { double v = x.data<float>()[i]; sum[o[0]] += v; sq[o[0]] += v * v; });
  RTensor y = RTensor::alloc(kFloat, x.shape);
  broadcast_each(x.shape, {rs}, [&](int64_t i, const int64_t* o) {
    double m = sum[o[0]] / cnt, var = sq[o[0]] / cnt - m * m;
    y.data<float>()[i] = static_cast<float>((x.data<float>()[i] - m) / (std::sqrt(var) + 1e-9));
  });
  c.set(0, y);
}

}  // namespace

void batchnorm_factors(const OpCtx& c, int64_t C, std::vector<float>& a, std::vector<float>& b) {
  RTensor sc = as_float(c.t(1)), bi = as_float(c.t(2)), mean = as_float(c.t(3)), var = as_float(c.t(4));
  float eps = c.attr_f("epsilon", 1e-5f);
  for (const RTensor* p : {&sc, &bi, &mean, &var})
    if (!(p->numel() == C))
      c.error("scale, B, mean and var must have " + std::to_string(C) + " values, got shape " + shape_str(p->shape));
  a.resize(static_cast<size_t>(C));
  b.resize(static_cast<size_t>(C));
  for (int64_t ch = 0; ch < C; ++ch) {
    a[ch] = sc.data<float>()[ch] / std::sqrt(var.data<float>()[ch] + eps);
    b[ch] = bi.data<float>()[ch] - mean.data<float>()[ch] * a[ch];
  }
}

// ------------------------------------------------------------------ type/shape rules (exec/infer_rules.h)
namespace rules {

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
  kernels::AutoPad ap = kernels::AutoPad::kNotSet;
  if (const Attribute* a = c.attr("auto_pad")) ap = kernels::parse_auto_pad(a->s.view());
  for (size_t i = 0; i < ns; ++i) {
    const IDim& d = x.dims[2 + i];
    if (!d.is_static()) { out.push_back(IDim{}); continue; }
    // In 128 bits: dims and attributes come from the model and may be anything.
    int128 in = d.value, s = strides[i], ek = static_cast<int128>(dil[i]) * (kernel[i] - 1) + 1;
    if (s <= 0) { out.push_back(IDim{}); continue; }
    int128 o;
    if (kernels::is_same(ap)) o = (in + s - 1) / s;  // same_out_dim, in 128 bits
    else if (ap == kernels::AutoPad::kValid) o = (in - ek) / s + 1;
    else {
      int128 span = in + pads[i] + pads[i + ns] - ek;
      o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // ceil mode: the last window must start inside the input or left padding
      if (ceil_mode && (o - 1) * s >= in + pads[i]) --o;
    }
    out.push_back(st_wide(o));
  }
}

bool conv_shapes(InferCtx& c, bool transpose) {
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

bool rule_dropout(InferCtx& c) {
  same_type(c);
  if (c.out.size() > 1 && c.t(0)) c.out[1] = IType{kBool, c.t(0)->ranked, c.t(0)->dims};
  return true;
}

// RMSNormalization (23): Y has X's shape and the scale's element type (T and V may differ).
bool rule_rms_norm(InferCtx& c) {
  same_type(c);
  int32_t scale_elem = elem0(c, 1);
  if (scale_elem) c.out[0].elem = scale_elem;
  return true;
}

bool rule_conv(InferCtx& c) { return conv_shapes(c, false); }
bool rule_conv_transpose(InferCtx& c) { return conv_shapes(c, true); }

bool rule_global_pool(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x || !x->ranked || x->dims.size() < 2) return false;
  std::vector<IDim> dims{x->dims[0], x->dims[1]};
  dims.resize(x->dims.size(), st(1));
  c.out[0] = ranked(x->elem, dims);
  return true;
}

}  // namespace rules


void register_nn_ops(Registry& r) {
  r.add("Conv", op_conv).infer(rules::rule_conv);
  r.add("ConvTranspose", op_conv_transpose).infer(rules::rule_conv_transpose).traits(kMayGrow);
  r.add("MaxPool", op_maxpool).infer(rules::rule_pool);
  r.add("AveragePool", op_avgpool).infer(rules::rule_pool);
  r.add("GlobalAveragePool", op_gap).infer(rules::rule_global_pool);
  r.add("GlobalMaxPool", op_gmp).infer(rules::rule_global_pool);
  r.add("Gemm", op_gemm).infer(rules::rule_gemm).traits(kMayGrow);
  r.add("MatMul", op_matmul).infer(rules::rule_matmul).traits(kMayGrow);
  r.add("BatchNormalization", op_batchnorm).infer(rules::same_type);
  r.add("Softmax", op_softmax).infer(rules::same_type);
  r.add("LogSoftmax", op_log_softmax).infer(rules::same_type);
  r.add("Hardmax", op_hardmax).infer(rules::same_type);
  r.add("LayerNormalization", op_layernorm).infer(rules::same_type);
  r.add("RMSNormalization", op_rmsnorm).infer(rules::rule_rms_norm);
  r.add("InstanceNormalization", op_instancenorm).infer(rules::same_type);
  r.add("GroupNormalization", op_groupnorm).infer(rules::same_type);
  r.add("LRN", op_lrn).infer(rules::same_type);
  r.add("LpNormalization", op_lpnorm).infer(rules::same_type);
  r.add("Dropout", op_dropout, 1, 1 << 30, false).infer(rules::rule_dropout).traits(kRandomInTraining);
  r.add("MeanVarianceNormalization", op_mvn).infer(rules::same_type);
}

}  // namespace ofg::exec
