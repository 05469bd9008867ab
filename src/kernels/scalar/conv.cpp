// Reference convolutions: the direct loop nests, written to be obviously right.
#include "kernels/internal.h"
#include "kernels/spatial3.h"

#include <algorithm>

namespace ofg::kernels::scalar {

namespace {
float activate(Activation act, float v, float alpha, float beta) {
  switch (act) {
    case Activation::None: return v;
    case Activation::Relu: return unary_one(UnaryOp::Relu, v, alpha, beta);
    case Activation::LeakyRelu: return unary_one(UnaryOp::LeakyRelu, v, alpha, beta);
    case Activation::Clip: return unary_one(UnaryOp::Clip, v, alpha, beta);
    case Activation::Sigmoid: return unary_one(UnaryOp::Sigmoid, v, alpha, beta);
    case Activation::Silu: return unary_one(UnaryOp::Silu, v, alpha, beta);
    case Activation::HardSwish: return unary_one(UnaryOp::HardSwish, v, alpha, beta);
  }
  return v;
}

// ConvPost on one output value of channel c, with the one-element forms of the entries it names.
float post_one(const ConvPost* post, size_t c, float v) {
  if (!post) return v;
  if (post->scale) v = binary_one(BinaryOp::Add, rounded(binary_one(BinaryOp::Mul, v, post->scale[c])), post->shift[c]);
  if (!post->act) return v;
  const float a = unary_one(post->op, v, post->alpha, post->beta);
  if (post->gate == ConvPost::Gate::None) return a;
  // A NaN first operand is the product, quieted, as the multiply instructions give it (see
  // simd::gate_product).
  const float first = post->gate == ConvPost::Gate::XTimesAct ? v : a;
  const float second = post->gate == ConvPost::Gate::XTimesAct ? a : v;
  return std::isnan(first) ? first + first : binary_one(BinaryOp::Mul, first, second);
}
}  // namespace

void conv2d(const Conv2DParams& p, const float* x, const float* w, float* y) {
  const size_t Cg_in = p.C_in / p.group, Cg_out = p.C_out / p.group;
  for (size_t n = 0; n < p.N; ++n)
    for (size_t co = 0; co < p.C_out; ++co) {
      const size_t g = co / Cg_out;
      for (size_t oh = 0; oh < p.H_out; ++oh)
        for (size_t ow = 0; ow < p.W_out; ++ow) {
          float acc = p.bias ? p.bias[co] : 0.f;
          for (size_t ci = 0; ci < Cg_in; ++ci) {
            const float* xc = x + (n * p.C_in + g * Cg_in + ci) * p.H * p.W;
            const float* wc = w + (co * Cg_in + ci) * p.kH * p.kW;
            for_each_window_tap(p, oh, ow, p.H, p.W, [&](size_t kh, size_t kw, size_t ih, size_t iw) {
              acc += xc[ih * p.W + iw] * wc[kh * p.kW + kw];
            });
          }
          y[((n * p.C_out + co) * p.H_out + oh) * p.W_out + ow] =
              post_one(p.post, co, activate(p.act, acc, p.act_alpha, p.act_beta));
        }
    }
}

// The reference has no packed layout: its "packed" weights are the weights, so that a caller
// that asked for a size of 0 never calls these, and one that calls them anyway stays correct.
size_t conv2d_packed_size(const Conv2DParams&) { return 0; }
void conv2d_pack(const Conv2DParams& p, const float* w, float* packed) {
  std::copy(w, w + p.C_out * (p.C_in / p.group) * p.kH * p.kW, packed);
}
void conv2d_prepacked(const Conv2DParams& p, const float* x, const float* packed, float* y) {
  scalar::conv2d(p, x, packed, y);
}

void conv_nd(const ConvNdParams& p, const float* x, const float* w, float* y) {
  // Seen as 3-D so one loop nest serves spatial ranks 1..3.
  const auto [in, k, out, st, dl, pb] = spatial3<size_t>(p, p.rank);
  const size_t in_sz = in[0] * in[1] * in[2], out_sz = out[0] * out[1] * out[2];
  const size_t k_sz = k[0] * k[1] * k[2];
  const size_t Cg_in = p.C_in / p.group, Cg_out = p.C_out / p.group;
  for (size_t n = 0; n < p.N; ++n)
    for (size_t co = 0; co < p.C_out; ++co) {
      const size_t g = co / Cg_out;
      for (size_t o0 = 0; o0 < out[0]; ++o0)
        for (size_t o1 = 0; o1 < out[1]; ++o1)
          for (size_t o2 = 0; o2 < out[2]; ++o2) {
            float acc = p.bias ? p.bias[co] : 0.f;
            for (size_t ci = 0; ci < Cg_in; ++ci) {
              const float* xc = x + (n * p.C_in + g * Cg_in + ci) * in_sz;
              const float* wc = w + (co * Cg_in + ci) * k_sz;
              for (size_t k0 = 0; k0 < k[0]; ++k0) {
                const ptrdiff_t i0 = static_cast<ptrdiff_t>(o0 * st[0] + k0 * dl[0]) - static_cast<ptrdiff_t>(pb[0]);
                if (i0 < 0 || i0 >= static_cast<ptrdiff_t>(in[0])) continue;
                for (size_t k1 = 0; k1 < k[1]; ++k1) {
                  const ptrdiff_t i1 = static_cast<ptrdiff_t>(o1 * st[1] + k1 * dl[1]) - static_cast<ptrdiff_t>(pb[1]);
                  if (i1 < 0 || i1 >= static_cast<ptrdiff_t>(in[1])) continue;
                  for (size_t k2 = 0; k2 < k[2]; ++k2) {
                    const ptrdiff_t i2 = static_cast<ptrdiff_t>(o2 * st[2] + k2 * dl[2]) - static_cast<ptrdiff_t>(pb[2]);
                    if (i2 < 0 || i2 >= static_cast<ptrdiff_t>(in[2])) continue;
                    acc += xc[(static_cast<size_t>(i0) * in[1] + static_cast<size_t>(i1)) * in[2] + static_cast<size_t>(i2)] *
                           wc[(k0 * k[1] + k1) * k[2] + k2];
                  }
                }
              }
            }
            y[(n * p.C_out + co) * out_sz + (o0 * out[1] + o1) * out[2] + o2] =
                activate(p.act, acc, p.act_alpha, p.act_beta);
          }
    }
}

void conv_transpose2d(const ConvTranspose2DParams& p, const float* x, const float* w, float* y) {
  // Scatter form: every input pixel adds its weighted kernel into the output.
  const size_t Cg_in = p.C_in / p.group, Cg_out = p.C_out / p.group;
  const size_t HWo = p.H_out * p.W_out;
  for (size_t n = 0; n < p.N; ++n)
    for (size_t co = 0; co < p.C_out; ++co)
      std::fill(y + (n * p.C_out + co) * HWo, y + (n * p.C_out + co + 1) * HWo,
                p.bias ? p.bias[co] : 0.f);
  for (size_t n = 0; n < p.N; ++n)
    for (size_t ci = 0; ci < p.C_in; ++ci) {
      const size_t g = ci / Cg_in;
      for (size_t ih = 0; ih < p.H; ++ih)
        for (size_t iw = 0; iw < p.W; ++iw) {
          const float xv = x[((n * p.C_in + ci) * p.H + ih) * p.W + iw];
          for (size_t cl = 0; cl < Cg_out; ++cl) {
            const size_t co = g * Cg_out + cl;
            float* yc = y + (n * p.C_out + co) * HWo;
            const float* wc = w + (ci * Cg_out + cl) * p.kH * p.kW;
            // Read the other way round: input pixel (ih, iw)'s tap lands on output (oh, ow).
            for_each_window_tap(p, ih, iw, p.H_out, p.W_out, [&](size_t kh, size_t kw, size_t oh, size_t ow) {
              yc[oh * p.W_out + ow] += xv * wc[kh * p.kW + kw];
            });
          }
        }
    }
}

}  // namespace ofg::kernels::scalar
