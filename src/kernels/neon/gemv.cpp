// NEON SGEMV: four rows of A at a time against the same 4-float slices of x (each load of x feeds
// four FMAs); the row sums are reduced once at the end. ARMv7 NEON has no vector FMA in every
// profile nor a horizontal add, so it uses multiply-accumulate and pairwise adds.
#if defined(__ARM_NEON)
#include "kernels/internal.h"

#include <arm_neon.h>

namespace ofg::kernels::neon {
namespace {

inline float32x4_t mla(float32x4_t acc, float32x4_t a, float32x4_t b) {
#if defined(__aarch64__)
  return vfmaq_f32(acc, a, b);
#else
  return vmlaq_f32(acc, a, b);
#endif
}

inline float hsum(float32x4_t v) {
#if defined(__aarch64__)
  return vaddvq_f32(v);
#else
  float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpadd_f32(s, s), 0);
#endif
}

inline void store(float* y, float sum, float alpha, float beta) {
  *y = alpha * sum + (beta == 0.f ? 0.f : beta * *y);
}

}  // namespace

void sgemv(size_t M, size_t K, float alpha, const float* A, size_t lda, const float* x, float beta, float* y) {
  const size_t K4 = K / 4 * 4;
  size_t i = 0;
  for (; i + 4 <= M; i += 4) {
    const float* a0 = A + i * lda;
    const float* a1 = a0 + lda;
    const float* a2 = a1 + lda;
    const float* a3 = a2 + lda;
    float32x4_t s0 = vdupq_n_f32(0.f), s1 = s0, s2 = s0, s3 = s0;
    for (size_t p = 0; p < K4; p += 4) {
      const float32x4_t v = vld1q_f32(x + p);
      s0 = mla(s0, vld1q_f32(a0 + p), v);
      s1 = mla(s1, vld1q_f32(a1 + p), v);
      s2 = mla(s2, vld1q_f32(a2 + p), v);
      s3 = mla(s3, vld1q_f32(a3 + p), v);
    }
    float t0 = hsum(s0), t1 = hsum(s1), t2 = hsum(s2), t3 = hsum(s3);
    for (size_t p = K4; p < K; ++p) {
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
    float32x4_t s = vdupq_n_f32(0.f);
    for (size_t p = 0; p < K4; p += 4) s = mla(s, vld1q_f32(a + p), vld1q_f32(x + p));
    float t = hsum(s);
    for (size_t p = K4; p < K; ++p) t += a[p] * x[p];
    store(y + i, t, alpha, beta);
  }
}

}  // namespace ofg::kernels::neon
#endif
