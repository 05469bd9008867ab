// AVX2 Conv2D: depthwise (one filter per channel) runs a direct kernel, 8 output columns per
// vector on the interior of stride-1 rows; the borders and other strides use the per-pixel
// loop. Everything else goes to im2col + AVX2 sgemm (conv2d_gemm).
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/vmath.h"

#include <algorithm>

namespace ofg::kernels::avx2 {

namespace {
void depthwise(const Conv2DParams& p, const float* x, const float* w, float* y) {
  const ptrdiff_t H = static_cast<ptrdiff_t>(p.H), W = static_cast<ptrdiff_t>(p.W);
  const ptrdiff_t pl = static_cast<ptrdiff_t>(p.pad_left), pt = static_cast<ptrdiff_t>(p.pad_top);
  const ptrdiff_t span_w = static_cast<ptrdiff_t>((p.kW - 1) * p.dil_w);
  // Columns whose whole window is inside the row (stride 1 only).
  ptrdiff_t lo = 0, hi = 0;
  if (p.stride_w == 1) {
    lo = std::min<ptrdiff_t>(pl, static_cast<ptrdiff_t>(p.W_out));
    hi = std::max<ptrdiff_t>(lo, std::min<ptrdiff_t>(W - span_w + pl, static_cast<ptrdiff_t>(p.W_out)));
  }
  for (size_t nc = 0; nc < p.N * p.C_in; ++nc) {
    const size_t c = nc % p.C_in;
    const float* plane = x + nc * p.H * p.W;
    const float* wc = w + c * p.kH * p.kW;
    float* out = y + nc * p.H_out * p.W_out;
    for (size_t oh = 0; oh < p.H_out; ++oh) {
      float* orow = out + oh * p.W_out;
      auto pixel = [&](ptrdiff_t ow) {
        float acc = 0.f;
        for (size_t kh = 0; kh < p.kH; ++kh) {
          const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dil_h) - pt;
          if (ih < 0 || ih >= H) continue;
          for (size_t kw = 0; kw < p.kW; ++kw) {
            const ptrdiff_t iw = ow * static_cast<ptrdiff_t>(p.stride_w) + static_cast<ptrdiff_t>(kw * p.dil_w) - pl;
            if (iw < 0 || iw >= W) continue;
            acc += plane[ih * W + iw] * wc[kh * p.kW + kw];
          }
        }
        orow[ow] = acc;
      };
      ptrdiff_t ow = 0;
      for (; ow < lo; ++ow) pixel(ow);
      for (; ow + 8 <= hi; ow += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (size_t kh = 0; kh < p.kH; ++kh) {
          const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dil_h) - pt;
          if (ih < 0 || ih >= H) continue;
          const float* irow = plane + ih * W + ow - pl;
          for (size_t kw = 0; kw < p.kW; ++kw)
            acc = _mm256_fmadd_ps(_mm256_loadu_ps(irow + kw * p.dil_w), _mm256_set1_ps(wc[kh * p.kW + kw]), acc);
        }
        _mm256_storeu_ps(orow + ow, acc);
      }
      for (; ow < static_cast<ptrdiff_t>(p.W_out); ++ow) pixel(ow);
    }
  }
  apply_bias_activation(*simd_table(), y, p.N, p.C_out, p.H_out * p.W_out, p.bias, p.act,
                        p.act_alpha, p.act_beta);
}
}  // namespace

void conv2d(const Conv2DParams& p, const float* x, const float* w, float* y) {
  if (p.group == p.C_in && p.group == p.C_out && p.group > 1) depthwise(p, x, w, y);
  else conv2d_gemm(*simd_table(), p, x, w, y);
}

}  // namespace ofg::kernels::avx2
