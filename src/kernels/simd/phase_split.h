// Stride phases of a padded row, shared by the depthwise convolution and max pooling: with
// stride s, phase ph of a row padded by `pad` on the left holds padded columns ph, ph + s, ...,
// so the windows of W consecutive outputs read one contiguous run per tap and go W at a time.
#pragma once

#include <algorithm>
#include <cstddef>

namespace ofg::kernels::simd {

// Fills phase `ph` (q < len columns) of `src`, a row of n values padded by `pad` on the left:
// d[q] = src[q * s + ph - pad] where that is inside the row, `fill` elsewhere.
inline void copy_phase(const float* src, ptrdiff_t n, ptrdiff_t pad, ptrdiff_t s, ptrdiff_t ph, float* d, ptrdiff_t len,
                       float fill) {
  const ptrdiff_t shift = ph - pad;
  const ptrdiff_t q_lo = std::min(len, shift >= 0 ? 0 : (-shift + s - 1) / s);
  const ptrdiff_t q_hi = std::max(q_lo, std::min(len, n - shift <= 0 ? 0 : (n - shift + s - 1) / s));
  std::fill(d, d + q_lo, fill);
  if (s == 1) std::copy(src + q_lo + shift, src + q_hi + shift, d + q_lo);  // a plain padded copy
  else
    for (ptrdiff_t q = q_lo; q < q_hi; ++q) d[q] = src[q * s + shift];
  std::fill(d + q_hi, d + len, fill);
}

}  // namespace ofg::kernels::simd
