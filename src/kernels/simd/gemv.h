// SGEMV for every SIMD table: four rows of A at a time against the same W-float slices of x, so
// each load of x feeds four multiply-adds; each row's lanes are summed once at the end.
#pragma once

#include <cstddef>

namespace ofg::kernels::simd {

template <class S>
void sgemv(size_t M, size_t K, float alpha, const float* A, size_t lda, const float* x, float beta, float* y) {
  using V = typename S::V;
  const size_t KW = K / S::W * S::W;
  auto store = [&](size_t i, float sum) { y[i] = alpha * sum + (beta == 0.f ? 0.f : beta * y[i]); };
  size_t i = 0;
  for (; i + 4 <= M; i += 4) {
    const float* a[4] = {A + i * lda, A + (i + 1) * lda, A + (i + 2) * lda, A + (i + 3) * lda};
    V s[4] = {S::zero(), S::zero(), S::zero(), S::zero()};
    for (size_t p = 0; p < KW; p += S::W) {
      const V v = S::load(x + p);
      for (int r = 0; r < 4; ++r) s[r] = S::fma(S::load(a[r] + p), v, s[r]);
    }
    for (int r = 0; r < 4; ++r) {
      float t = S::hsum(s[r]);
      for (size_t p = KW; p < K; ++p) t += a[r][p] * x[p];
      store(i + r, t);
    }
  }
  for (; i < M; ++i) {
    const float* a = A + i * lda;
    V s = S::zero();
    for (size_t p = 0; p < KW; p += S::W) s = S::fma(S::load(a + p), S::load(x + p), s);
    float t = S::hsum(s);
    for (size_t p = KW; p < K; ++p) t += a[p] * x[p];
    store(i, t);
  }
}

}  // namespace ofg::kernels::simd
