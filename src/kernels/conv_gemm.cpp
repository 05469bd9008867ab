// Conv2D through GEMM: the ISA only matters inside table.sgemm and the bias/activation loops,
// so this driver is shared by every SIMD table.
#include "kernels/internal.h"

#include <algorithm>
#include <cstring>

namespace ofg::kernels {

void conv2d_fill_output_size(Conv2DParams& p) {
  p.H_out = conv_out_dim(p.H, p.kH, p.stride_h, p.pad_top, p.pad_bottom, p.dil_h);
  p.W_out = conv_out_dim(p.W, p.kW, p.stride_w, p.pad_left, p.pad_right, p.dil_w);
}

void apply_bias_activation(const KernelTable& t, float* y, size_t N, size_t C, size_t HW,
                           const float* bias, Activation act, float alpha, float beta,
                           const ConvPost* post, size_t c0) {
  bool has_act = true;
  UnaryOp op = UnaryOp::Relu;
  switch (act) {
    case Activation::None: has_act = false; break;
    case Activation::Relu: op = UnaryOp::Relu; break;
    case Activation::LeakyRelu: op = UnaryOp::LeakyRelu; break;
    case Activation::Clip: op = UnaryOp::Clip; break;
    case Activation::Sigmoid: op = UnaryOp::Sigmoid; break;
    case Activation::Silu: op = UnaryOp::Silu; break;
    case Activation::HardSwish: op = UnaryOp::HardSwish; break;
  }
  if (!bias && !has_act && !post) return;
  if (HW == 1) {
    // One value per channel (a conv of single pixels): each step runs over an image's C channels
    // at once, the per-channel constants read as vectors; the same elementwise arithmetic.
    for (size_t n = 0; n < N; ++n) {
      float* v = y + n * C;
      if (bias) t.binary_vv(BinaryOp::Add, v, bias, v, C);
      if (has_act) t.unary(op, v, v, C, alpha, beta);
      if (post) apply_conv_post_channels(post->table ? *post->table : t, *post, c0, v, C);
    }
    return;
  }
  // Plane by plane so the activation reads what the bias just wrote while it is in cache; the
  // planes are split between threads.
  parallel_ranges(N * C, 1, plane_grain(HW), [&](size_t lo, size_t hi) {
    for (size_t nc = lo; nc < hi; ++nc) {
      const size_t c = nc % C;
      float* plane = y + nc * HW;
      if (bias) t.binary_vs(BinaryOp::Add, plane, bias[c], plane, HW);
      if (has_act) t.unary(op, plane, plane, HW, alpha, beta);
      if (post) apply_conv_post(post->table ? *post->table : t, *post, c0 + c, plane, plane, HW);
    }
  });
}

namespace {
// 512 floats: a stretch, the gate's activation values and the result all stay in L1.
constexpr size_t kStretch = 512;

// post's activation (and gate) on m <= kStretch values from src to dst (src == dst allowed).
void post_activation(const KernelTable& t, const ConvPost& post, const float* src, float* dst, size_t m) {
  float act[kStretch];
  if (!post.act) {
    if (src != dst) std::memcpy(dst, src, m * sizeof(float));
  } else if (post.gate == ConvPost::Gate::None) {
    t.unary(post.op, src, dst, m, post.alpha, post.beta);
  } else {
    t.unary(post.op, src, act, m, post.alpha, post.beta);
    if (post.gate == ConvPost::Gate::XTimesAct) t.binary_vv(BinaryOp::Mul, src, act, dst, m);
    else t.binary_vv(BinaryOp::Mul, act, src, dst, m);
  }
}
}  // namespace

void apply_conv_post(const KernelTable& t, const ConvPost& post, size_t c, const float* x, float* y,
                     size_t n) {
  for (size_t i = 0; i < n; i += kStretch) {
    const size_t m = std::min(kStretch, n - i);
    const float* src = x + i;
    float* dst = y + i;
    if (post.scale) {
      t.affine_vs(src, post.scale[c], post.shift[c], dst, m);
      src = dst;
    }
    post_activation(t, post, src, dst, m);
  }
}

void apply_conv_post_channels(const KernelTable& t, const ConvPost& post, size_t c0, float* y, size_t n) {
  for (size_t i = 0; i < n; i += kStretch) {
    const size_t m = std::min(kStretch, n - i);
    float* v = y + i;
    // affine_vs's two roundings, with the constants of channels c0 + i, ... as vectors.
    if (post.scale) {
      t.binary_vv(BinaryOp::Mul, v, post.scale + c0 + i, v, m);
      t.binary_vv(BinaryOp::Add, v, post.shift + c0 + i, v, m);
    }
    post_activation(t, post, v, v, m);
  }
}

namespace {
// col is [Cg * kH * kW, H_out * W_out]; taps that fall in the padding are zero.
void im2col(const Conv2DParams& p, const float* x, size_t Cg, float* col) {
  const size_t HWo = p.H_out * p.W_out;
  for (size_t c = 0; c < Cg; ++c) {
    const float* plane = x + c * p.H * p.W;
    for (size_t kh = 0; kh < p.kH; ++kh) {
      for (size_t kw = 0; kw < p.kW; ++kw) {
        float* row = col + ((c * p.kH + kh) * p.kW + kw) * HWo;
        // Output columns whose input column is inside [0, W): ow in [lo, hi).
        const ptrdiff_t off_w = static_cast<ptrdiff_t>(kw * p.dil_w) - static_cast<ptrdiff_t>(p.pad_left);
        const ptrdiff_t sw = static_cast<ptrdiff_t>(p.stride_w);
        ptrdiff_t lo = off_w >= 0 ? 0 : (-off_w + sw - 1) / sw;
        ptrdiff_t hi = static_cast<ptrdiff_t>(p.W) - off_w <= 0
                           ? 0
                           : (static_cast<ptrdiff_t>(p.W) - off_w + sw - 1) / sw;
        lo = std::min<ptrdiff_t>(lo, static_cast<ptrdiff_t>(p.W_out));
        hi = std::max<ptrdiff_t>(lo, std::min<ptrdiff_t>(hi, static_cast<ptrdiff_t>(p.W_out)));
        for (size_t oh = 0; oh < p.H_out; ++oh) {
          float* out = row + oh * p.W_out;
          const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dil_h) -
                               static_cast<ptrdiff_t>(p.pad_top);
          if (ih < 0 || ih >= static_cast<ptrdiff_t>(p.H)) {
            std::fill(out, out + p.W_out, 0.f);
            continue;
          }
          const float* in = plane + static_cast<size_t>(ih) * p.W;
          std::fill(out, out + lo, 0.f);
          if (sw == 1) {
            std::memcpy(out + lo, in + lo + off_w, static_cast<size_t>(hi - lo) * sizeof(float));
          } else {
            for (ptrdiff_t ow = lo; ow < hi; ++ow) out[ow] = in[ow * sw + off_w];
          }
          std::fill(out + hi, out + p.W_out, 0.f);
        }
      }
    }
  }
}
}  // namespace

void conv2d_gemm(const KernelTable& t, const Conv2DParams& p, const float* x, const float* w,
                 float* y) {
  const size_t Cg_in = p.C_in / p.group, Cg_out = p.C_out / p.group;
  const size_t K = Cg_in * p.kH * p.kW;
  const size_t HW = p.H * p.W, HWo = p.H_out * p.W_out;
  const bool direct = p.kH == 1 && p.kW == 1 && p.stride_h == 1 && p.stride_w == 1 &&
                      p.pad_top == 0 && p.pad_left == 0 && p.pad_bottom == 0 &&
                      p.pad_right == 0;
  float* col = direct ? nullptr : detail::scratch(1, K * HWo);
  for (size_t n = 0; n < p.N; ++n) {
    for (size_t g = 0; g < p.group; ++g) {
      const float* xg = x + (n * p.C_in + g * Cg_in) * HW;
      const float* wg = w + g * Cg_out * K;
      float* yg = y + (n * p.C_out + g * Cg_out) * HWo;
      if (HWo == 0 || Cg_out == 0) continue;
      if (direct) {
        t.sgemm(false, false, Cg_out, HWo, Cg_in, 1.f, wg, Cg_in, xg, HW, 0.f, yg, HWo);
      } else {
        im2col(p, xg, Cg_in, col);
        t.sgemm(false, false, Cg_out, HWo, K, 1.f, wg, K, col, HWo, 0.f, yg, HWo);
      }
    }
  }
  apply_bias_activation(t, y, p.N, p.C_out, HWo, p.bias, p.act, p.act_alpha, p.act_beta, p.post);
}

namespace {

// The N-D im2col: for input channel c and kernel tap (k0, k1, k2), row (c, taps) of col holds the
// input value each output position reads there (zero where it reads padding). Spatial axes are
// padded to three with leading size-1 axes, as the scalar conv_nd does.
struct Axes3 {
  size_t in[3], k[3], out[3], st[3], dl[3], pb[3];
};

Axes3 axes3(const ConvNdParams& p) {
  Axes3 a;
  const size_t lead = 3 - p.rank;
  for (size_t i = 0; i < 3; ++i) {
    const bool real = i >= lead;
    const size_t s = real ? i - lead : 0;
    a.in[i] = real ? p.in[s] : 1;
    a.k[i] = real ? p.kernel[s] : 1;
    a.out[i] = real ? p.out[s] : 1;
    a.st[i] = real ? p.stride[s] : 1;
    a.dl[i] = real ? p.dilation[s] : 1;
    a.pb[i] = real ? p.pad_begin[s] : 0;
  }
  return a;
}

// The im2col rows of output lines [l0, l1) (a line: the positions (o0, o1, *), l = o0 * out1 + o1),
// each row (l1 - l0) * out2 columns long.
void vol2col(const Axes3& a, const float* x, size_t Cg, size_t l0, size_t l1, float* col) {
  const size_t in_sz = a.in[0] * a.in[1] * a.in[2];
  const ptrdiff_t st = static_cast<ptrdiff_t>(a.st[2]), n_in = static_cast<ptrdiff_t>(a.in[2]);
  const ptrdiff_t n_out = static_cast<ptrdiff_t>(a.out[2]);
  float* o = col;
  for (size_t c = 0; c < Cg; ++c) {
    const float* xc = x + c * in_sz;
    for (size_t k0 = 0; k0 < a.k[0]; ++k0)
      for (size_t k1 = 0; k1 < a.k[1]; ++k1)
        for (size_t k2 = 0; k2 < a.k[2]; ++k2) {
          // Output positions [lo, hi) of a line read inside the input line; the others read padding.
          const ptrdiff_t off = static_cast<ptrdiff_t>(k2 * a.dl[2]) - static_cast<ptrdiff_t>(a.pb[2]);
          ptrdiff_t lo = off >= 0 ? 0 : (-off + st - 1) / st;
          ptrdiff_t hi = n_in - off <= 0 ? 0 : (n_in - off + st - 1) / st;
          lo = std::min(lo, n_out);
          hi = std::max(lo, std::min(hi, n_out));
          for (size_t l = l0; l < l1; ++l, o += a.out[2]) {
            const size_t o0 = l / a.out[1], o1 = l % a.out[1];
            const ptrdiff_t i0 = static_cast<ptrdiff_t>(o0 * a.st[0] + k0 * a.dl[0]) - static_cast<ptrdiff_t>(a.pb[0]);
            const ptrdiff_t i1 = static_cast<ptrdiff_t>(o1 * a.st[1] + k1 * a.dl[1]) - static_cast<ptrdiff_t>(a.pb[1]);
            if (i0 < 0 || i0 >= static_cast<ptrdiff_t>(a.in[0]) || i1 < 0 || i1 >= static_cast<ptrdiff_t>(a.in[1])) {
              std::fill(o, o + a.out[2], 0.f);
              continue;
            }
            const float* line = xc + (static_cast<size_t>(i0) * a.in[1] + static_cast<size_t>(i1)) * a.in[2];
            std::fill(o, o + lo, 0.f);
            if (st == 1) std::memcpy(o + lo, line + lo + off, static_cast<size_t>(hi - lo) * sizeof(float));
            else
              for (ptrdiff_t o2 = lo; o2 < hi; ++o2) o[o2] = line[o2 * st + off];
            std::fill(o + hi, o + n_out, 0.f);
          }
        }
  }
}

}  // namespace

// The output is cut into blocks of whole lines whose im2col rows fit in about 512 KiB (a core's
// L2 here): each block is im2col'd into the running thread's scratch and multiplied at once,
// while it is still in cache. (One im2col of the whole volume, 14 MB for a 16-channel 3x3x3 conv
// on 8x32x32, went through memory twice, and on two threads the GEMM's second thread read what
// the first had written: 1.8 ms on one thread, 2.9 ms on two.) The blocks depend on the shape
// only, so every thread count gives the same bits; blocks are what threads share.
void conv_nd_gemm(const KernelTable& t, const ConvNdParams& p, const float* x, const float* w, float* y) {
  const Axes3 a = axes3(p);
  const size_t Cg_in = p.C_in / p.group, Cg_out = p.C_out / p.group;
  const size_t taps = a.k[0] * a.k[1] * a.k[2], K = Cg_in * taps;
  const size_t in_sz = a.in[0] * a.in[1] * a.in[2], out_sz = a.out[0] * a.out[1] * a.out[2];
  if (out_sz == 0 || Cg_out == 0) return;
  const size_t lines = a.out[0] * a.out[1], line_len = a.out[2];
  constexpr size_t kBlockFloats = size_t{1} << 17;
  const size_t block_lines = std::max<size_t>(1, kBlockFloats / std::max<size_t>(1, K * line_len));
  const size_t blocks = (lines + block_lines - 1) / block_lines;
  const size_t units = p.N * p.group * blocks;
  auto run_block = [&](size_t u) {
    const size_t b = u % blocks, ng = u / blocks, g = ng % p.group, n = ng / p.group;
    const size_t l0 = b * block_lines, l1 = std::min(lines, l0 + block_lines), cols = (l1 - l0) * line_len;
    float* col = detail::scratch(1, K * cols);
    vol2col(a, x + (n * p.C_in + g * Cg_in) * in_sz, Cg_in, l0, l1, col);
    t.sgemm(false, false, Cg_out, cols, K, 1.f, w + g * Cg_out * K, K, col, cols, 0.f,
            y + (n * p.C_out + g * Cg_out) * out_sz + l0 * line_len, out_sz);
  };
  if (threads() > 1 && units > 1 && p.N * p.C_out * out_sz * K >= gemm_parallel_macs()) parallel_for(units, run_block);
  else
    for (size_t u = 0; u < units; ++u) run_block(u);
  apply_bias_activation(t, y, p.N, p.C_out, out_sz, p.bias, p.act, p.act_alpha, p.act_beta, nullptr, 0);
}

}  // namespace ofg::kernels
