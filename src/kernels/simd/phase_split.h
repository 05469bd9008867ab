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

// Both phases of stride 2 in one pass: d0 = phase 0, d1 = phase 1 (len columns each), as two
// copy_phase calls would fill them. Where a pair of source values lies inside the row, W pairs
// at a time are split by the ISA's deinterleave (strided single loads would go one by one).
template <class Isa>
void copy_phases2(const float* src, ptrdiff_t n, ptrdiff_t pad, float* d0, float* d1, ptrdiff_t len, float fill) {
  constexpr ptrdiff_t W = static_cast<ptrdiff_t>(Isa::W);
  auto at = [&](ptrdiff_t i) { return i >= 0 && i < n ? src[i] : fill; };
  // Column q reads src[2q - pad] and src[2q + 1 - pad]: both inside for q in [lo, hi).
  const ptrdiff_t lo = std::min(len, (pad + 1) / 2), hi = std::max(lo, std::min(len, (n + pad) / 2));
  ptrdiff_t q = 0;
  for (; q < lo; ++q) {
    d0[q] = at(2 * q - pad);
    d1[q] = at(2 * q + 1 - pad);
  }
  auto split = [&](ptrdiff_t at) {
    typename Isa::V even, odd;
    Isa::deinterleave(src + 2 * at - pad, even, odd);
    Isa::store(d0 + at, even);
    Isa::store(d1 + at, odd);
  };
  for (; q + W <= hi; q += W) split(q);
  // The rest of [lo, hi) as one vector ending at hi, over columns already written (same values).
  if (q < hi && hi - lo >= W) {
    split(hi - W);
    q = hi;
  }
  for (; q < hi; ++q) {  // rows narrower than a vector of pairs
    d0[q] = src[2 * q - pad];
    d1[q] = src[2 * q + 1 - pad];
  }
  for (; q < len; ++q) {
    d0[q] = at(2 * q - pad);
    d1[q] = at(2 * q + 1 - pad);
  }
}

}  // namespace ofg::kernels::simd
