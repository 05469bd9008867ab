// AVX2+FMA SGEMV: four rows of A at a time against the same 8-float slices of x, so each load of
// x feeds four FMAs; the row sums are reduced once at the end.
#include "kernels/avx2/avx2.h"

#include <immintrin.h>

namespace ofg::kernels::avx2 {
namespace {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline void store(float* y, float sum, float alpha, float beta) {
  *y = alpha * sum + (beta == 0.f ? 0.f : beta * *y);
}

}  // namespace

void sgemv(size_t M, size_t K, float alpha, const float* A, size_t lda, const float* x, float beta, float* y) {
  const size_t K8 = K / 8 * 8;
  size_t i = 0;
  for (; i + 4 <= M; i += 4) {
    const float* a0 = A + i * lda;
    const float* a1 = a0 + lda;
    const float* a2 = a1 + lda;
    const float* a3 = a2 + lda;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t p = 0; p < K8; p += 8) {
      const __m256 v = _mm256_loadu_ps(x + p);
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + p), v, s0);
      s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + p), v, s1);
      s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a2 + p), v, s2);
      s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a3 + p), v, s3);
    }
    float t0 = hsum(s0), t1 = hsum(s1), t2 = hsum(s2), t3 = hsum(s3);
    for (size_t p = K8; p < K; ++p) {
      t0 += a0[p] * x[p];
      t1 += a1[p] * x[p];
      t2 += a2[p] * x[p];
      t3 += a3[p] * x[p];
    }
    store(y + i, t0, alpha, beta);
    store(y + i + 1, t1, alpha, beta);
    store(y + i + 2, t2, alpha, beta);
    store(y + i + 3, t3, alpha, beta);
  }
  for (; i < M; ++i) {
    const float* a = A + i * lda;
    __m256 s = _mm256_setzero_ps();
    for (size_t p = 0; p < K8; p += 8) s = _mm256_fmadd_ps(_mm256_loadu_ps(a + p), _mm256_loadu_ps(x + p), s);
    float t = hsum(s);
    for (size_t p = K8; p < K; ++p) t += a[p] * x[p];
    store(y + i, t, alpha, beta);
  }
}

}  // namespace ofg::kernels::avx2
