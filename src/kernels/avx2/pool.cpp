// AVX2 max pooling. A window's maximum is separable: first the maximum over the window's rows,
// taken for every input column at once (8 columns per vector), then the maximum over the window's
// columns of that row, per output. That turns kH*kW bounds-checked compares per output into kH
// vector compares per 8 input columns plus kW scalar ones, whatever the stride.
// NaN: any NaN in a window makes the output NaN, as in the scalar reference.
#include "kernels/avx2/avx2.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ofg::kernels::avx2 {

void max_pool2d(const Pool2DParams& p, const float* x, float* y) {
  // The row pointers of a window live on the stack; taller windows are left to the reference.
  constexpr size_t kMaxRows = 64;
  if (p.kH > kMaxRows) {
    scalar::max_pool2d(p, x, y);
    return;
  }
  const ptrdiff_t H = static_cast<ptrdiff_t>(p.H), W = static_cast<ptrdiff_t>(p.W);
  const float ninf = -std::numeric_limits<float>::infinity();
  // One row of column maxima; slot 0 is free here (pooling calls no other kernel).
  float* colmax = detail::scratch(0, p.W + 8);
  for (size_t nc = 0; nc < p.N * p.C; ++nc) {
    const float* plane = x + nc * p.H * p.W;
    float* out = y + nc * p.H_out * p.W_out;
    for (size_t oh = 0; oh < p.H_out; ++oh) {
      // Rows of this window that are inside the input.
      const float* rows[kMaxRows];
      size_t nrows = 0;
      for (size_t kh = 0; kh < p.kH; ++kh) {
        const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dil_h) - static_cast<ptrdiff_t>(p.pad_top);
        if (ih >= 0 && ih < H) rows[nrows++] = plane + ih * W;
      }
      float* orow = out + oh * p.W_out;
      if (nrows == 0) {
        std::fill(orow, orow + p.W_out, ninf);
        continue;
      }
      ptrdiff_t iw = 0;
      for (; iw + 8 <= W; iw += 8) {
        __m256 m = _mm256_loadu_ps(rows[0] + iw);
        __m256 nan = _mm256_cmp_ps(m, m, _CMP_UNORD_Q);
        for (size_t r = 1; r < nrows; ++r) {
          const __m256 v = _mm256_loadu_ps(rows[r] + iw);
          m = _mm256_max_ps(v, m);
          nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        _mm256_storeu_ps(colmax + iw, _mm256_blendv_ps(m, _mm256_set1_ps(std::numeric_limits<float>::quiet_NaN()), nan));
      }
      for (; iw < W; ++iw) {
        float m = rows[0][iw];
        for (size_t r = 1; r < nrows && !std::isnan(m); ++r) {
          const float v = rows[r][iw];
          if (v > m || std::isnan(v)) m = v;
        }
        colmax[iw] = m;
      }
      for (size_t ow = 0; ow < p.W_out; ++ow) {
        float m = ninf;
        for (size_t kw = 0; kw < p.kW; ++kw) {
          const ptrdiff_t c = static_cast<ptrdiff_t>(ow * p.stride_w + kw * p.dil_w) - static_cast<ptrdiff_t>(p.pad_left);
          if (c < 0 || c >= W) continue;
          const float v = colmax[c];
          if (v > m || std::isnan(v)) m = v;
          if (std::isnan(m)) break;
        }
        orow[ow] = m;
      }
    }
  }
}

}  // namespace ofg::kernels::avx2
