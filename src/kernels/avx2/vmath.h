// The AVX2+FMA vector type of the shared SIMD kernels (kernels/simd/): 8 float lanes, masks as
// all-ones float lanes. Only the lane operations are here; the algorithms are in kernels/simd/.
// Compiled only into the files of this folder, which run after the cpuid check.
#pragma once

#include <immintrin.h>

#include <cstddef>

namespace ofg::kernels::avx2 {

struct Vec {
  using F = __m256;
  using I = __m256i;
  using M = __m256;
  static constexpr size_t kLanes = 8;
  static constexpr bool kExactDiv = true, kExactSqrt = true;

  static F load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, F v) { _mm256_storeu_ps(p, v); }
  static F set1(float v) { return _mm256_set1_ps(v); }
  static F zero() { return _mm256_setzero_ps(); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }    // a * b + c
  static F fnma(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b
  // vmaxps / vminps: the second operand when either is NaN.
  static F max(F a, F b) { return _mm256_max_ps(a, b); }
  static F min(F a, F b) { return _mm256_min_ps(a, b); }
  static F sqrt(F x) { return _mm256_sqrt_ps(x); }
  static F abs(F x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.f), x); }
  static F neg(F x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.f)); }
  static F sign_bit(F x) { return _mm256_and_ps(x, _mm256_set1_ps(-0.f)); }
  static F bit_or(F a, F b) { return _mm256_or_ps(a, b); }
  static F round_even(F x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static F floor(F x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  static F ceil(F x) { return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
  static float hsum(F v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }

  static M lt(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static M gt(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static M eq(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static M unord(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
  static M mask_or(M a, M b) { return _mm256_or_ps(a, b); }
  static bool any(M m) { return _mm256_movemask_ps(m) != 0; }
  static F select(M m, F a, F b) { return _mm256_blendv_ps(b, a, m); }  // m ? a : b

  static I as_int(F x) { return _mm256_castps_si256(x); }
  static F as_float(I x) { return _mm256_castsi256_ps(x); }
  static I iset1(int v) { return _mm256_set1_epi32(v); }
  static I iand(I a, I b) { return _mm256_and_si256(a, b); }
  static I ior(I a, I b) { return _mm256_or_si256(a, b); }
  static I isub(I a, I b) { return _mm256_sub_epi32(a, b); }
  static M int_eq(I a, I b) { return _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)); }
  static M int_lt(I a, I b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, a)); }
  static I to_int(F x) { return _mm256_cvtps_epi32(x); }  // x integral
  static F int_to_float(I x) { return _mm256_cvtepi32_ps(x); }
  static I half_int(I n) { return _mm256_srai_epi32(n, 1); }  // floor(n / 2)
  static F pow2(I n) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23)); }
  static I exponent_field(I bits) { return _mm256_srli_epi32(bits, 23); }  // sign bit clear
};

// 4 double lanes, for diff_f32 (kernels/simd/diff.h).
struct VecD {
  using D = __m256d;
  using M = __m256d;
  static constexpr size_t kLanes = 4;
  static D load_f32(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
  static void store(double* p, D v) { _mm256_storeu_pd(p, v); }
  static D set1(double v) { return _mm256_set1_pd(v); }
  static D iota() { return _mm256_setr_pd(0, 1, 2, 3); }
  static D add(D a, D b) { return _mm256_add_pd(a, b); }
  static D sub(D a, D b) { return _mm256_sub_pd(a, b); }
  static D mul(D a, D b) { return _mm256_mul_pd(a, b); }
  static D div(D a, D b) { return _mm256_div_pd(a, b); }
  static D max(D a, D b) { return _mm256_max_pd(a, b); }
  static D abs(D x) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x); }
  static M eq(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
  static M gt(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
  static M unord(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_UNORD_Q); }
  static M mask_or(M a, M b) { return _mm256_or_pd(a, b); }
  static M mask_and(M a, M b) { return _mm256_and_pd(a, b); }
  static D select(M m, D a, D b) { return _mm256_blendv_pd(b, a, m); }  // m ? a : b
  static size_t count(M m) { return static_cast<size_t>(__builtin_popcount(static_cast<unsigned>(_mm256_movemask_pd(m)))); }
};

}  // namespace ofg::kernels::avx2
