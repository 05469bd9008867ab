// AVX2+FMA vector math shared by the files of this folder. Everything is static: these
// functions contain AVX instructions and must never be emitted as shared (COMDAT) symbols that a
// baseline translation unit could pick up.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace ofg::kernels::avx2 {

static inline __m256 v_abs(__m256 x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.f), x); }
static inline __m256 v_isnan(__m256 x) { return _mm256_cmp_ps(x, x, _CMP_UNORD_Q); }

// exp(x). Cody-Waite reduction x = n ln2 + r (|r| <= ln2/2), Taylor polynomial of degree 7
// (truncation < 6e-9), 2^n applied in two steps so subnormal results are produced correctly.
// Measured against libm in double (tests/kernels_math_test.cpp): relative error < 3e-7 for
// x in [-87.33, 88.72]; absolute error < 2e-38 below (subnormal results); x > 88.7228 -> +inf,
// -inf -> 0, NaN -> NaN.
static inline __m256 v_exp(__m256 x) {
  const __m256 xc = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(88.7228394f)), _mm256_set1_ps(-104.f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), xc);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606820309417232e-6f), r);
  __m256 p = _mm256_set1_ps(1.f / 5040.f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 720.f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 120.f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 24.f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 6.f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, _mm256_set1_epi32(127)), 23));
  __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  y = _mm256_blendv_ps(y, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(x, _mm256_set1_ps(88.7228394f), _CMP_GT_OQ));
  y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, _mm256_set1_ps(-104.f), _CMP_LT_OQ));
  return _mm256_blendv_ps(y, x, v_isnan(x));
}

// tanh(x): odd Taylor series to x^15 for |x| < 0.5 (truncation < 1e-8 relative), else
// 1 - 2/(exp(2|x|)+1) with |x| clamped at 10 (tanh rounds to 1 from 9.02 on). Measured: absolute error
// < 3e-7 and relative error < 5e-7 on [-12, 12]; keeps -0; +-inf -> +-1; NaN -> NaN.
static inline __m256 v_tanh(__m256 x) {
  const __m256 ax = v_abs(x), sign = _mm256_and_ps(x, _mm256_set1_ps(-0.f));
  const __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(-929569.f / 638512875.f);
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(21844.f / 6081075.f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-1382.f / 155925.f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(62.f / 2835.f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-17.f / 315.f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(2.f / 15.f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-1.f / 3.f));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, x2), x, x);
  const __m256 e = v_exp(_mm256_add_ps(_mm256_min_ps(ax, _mm256_set1_ps(10.f)), _mm256_min_ps(ax, _mm256_set1_ps(10.f))));
  const __m256 large = _mm256_sub_ps(_mm256_set1_ps(1.f),
                                     _mm256_div_ps(_mm256_set1_ps(2.f), _mm256_add_ps(e, _mm256_set1_ps(1.f))));
  // OR-ing the sign also fixes -0, which the polynomial turns into +0.
  __m256 y = _mm256_or_ps(_mm256_blendv_ps(large, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.5f), _CMP_LT_OQ)), sign);
  return _mm256_blendv_ps(y, x, v_isnan(x));
}

// 1 / (1 + exp(-x)): relative error < 5e-7 for x >= -87 (exp bound + one division), absolute
// error < 2e-38 below; +-inf -> 1 / 0; NaN -> NaN.
static inline __m256 v_sigmoid(__m256 x) {
  const __m256 e = v_exp(_mm256_sub_ps(_mm256_setzero_ps(), x));
  return _mm256_div_ps(_mm256_set1_ps(1.f), _mm256_add_ps(_mm256_set1_ps(1.f), e));
}

// log(x): x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1),
// |s| < 0.1716, series to s^11 (truncation < 4e-9). Subnormal inputs are scaled by 2^23 first.
// Measured: |error| < 3e-7 * max(1, |log x|) over [1e-44, 3e38]; 0 -> -inf, x < 0 -> NaN,
// +inf -> +inf, NaN -> NaN.
static inline __m256 v_log(__m256 x) {
  const __m256 sub = _mm256_cmp_ps(x, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
  const __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(8388608.f)), sub);
  const __m256i bits = _mm256_castps_si256(xs);
  __m256i ei = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127));
  __m256 m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFF)),
                                                 _mm256_set1_epi32(0x3F800000)));
  const __m256 big = _mm256_cmp_ps(m, _mm256_set1_ps(1.41421356f), _CMP_GT_OQ);
  m = _mm256_blendv_ps(m, _mm256_mul_ps(m, _mm256_set1_ps(0.5f)), big);
  ei = _mm256_sub_epi32(ei, _mm256_castps_si256(big));  // mask is -1 where m was halved
  __m256 e = _mm256_cvtepi32_ps(ei);
  e = _mm256_blendv_ps(e, _mm256_sub_ps(e, _mm256_set1_ps(23.f)), sub);
  const __m256 f = _mm256_sub_ps(m, _mm256_set1_ps(1.f));
  const __m256 s = _mm256_div_ps(f, _mm256_add_ps(m, _mm256_set1_ps(1.f)));
  const __m256 s2 = _mm256_mul_ps(s, s);
  __m256 p = _mm256_set1_ps(2.f / 11.f);
  p = _mm256_fmadd_ps(p, s2, _mm256_set1_ps(2.f / 9.f));
  p = _mm256_fmadd_ps(p, s2, _mm256_set1_ps(2.f / 7.f));
  p = _mm256_fmadd_ps(p, s2, _mm256_set1_ps(2.f / 5.f));
  p = _mm256_fmadd_ps(p, s2, _mm256_set1_ps(2.f / 3.f));
  const __m256 lm = _mm256_fmadd_ps(_mm256_mul_ps(p, s2), s, _mm256_add_ps(s, s));
  __m256 y = _mm256_fmadd_ps(e, _mm256_set1_ps(0.693145751953125f),
                             _mm256_fmadd_ps(e, _mm256_set1_ps(1.428606820309417232e-6f), lm));
  y = _mm256_blendv_ps(y, _mm256_set1_ps(-__builtin_inff()), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
  y = _mm256_blendv_ps(y, _mm256_set1_ps(__builtin_nanf("")), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
  y = _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, _mm256_set1_ps(__builtin_inff()), _CMP_EQ_OQ));
  return _mm256_blendv_ps(y, x, v_isnan(x));
}

// Masks for the last n < 8 lanes of a loop.
static inline __m256i v_tail_mask(size_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), idx);
}

}  // namespace ofg::kernels::avx2
