// The AVX2+FMA vector operations and 6x16 register tile that the shared templates of
// kernels/simd/ (GEMM, convolution, Winograd, pooling, vector math, elementwise, reductions) are
// instantiated with: 8 float lanes, masks as all-ones float lanes. Included only by files
// compiled with AVX2/FMA flags.
#pragma once

#include <immintrin.h>

#include <cstddef>

namespace ofg::kernels::avx2 {

struct Isa {
  using V = __m256;
  static constexpr size_t W = 8;
  static constexpr size_t MR = 6, NR = 16;
  // kc 256 / mc 120 / nc 1536 (B block 1.5 MiB, A block 120 KiB) measured at ~93% of the
  // single-core FMA peak for 512 and 1024 in bench_kernels; not tuned further.
  static constexpr size_t KC = 256, MC = 120, NC = 1536;

  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float v) { return _mm256_set1_ps(v); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  // maxps/minps return the second operand when either is NaN.
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V nan_mask(V v) { return _mm256_cmp_ps(v, v, _CMP_UNORD_Q); }
  static V or_mask(V a, V b) { return _mm256_or_ps(a, b); }
  static V select(V mask, V yes, V no) { return _mm256_blendv_ps(no, yes, mask); }

  // Elementwise arithmetic, comparisons and the integer lanes of the vector math.
  using I = __m256i;
  static constexpr bool kExactDiv = true, kExactSqrt = true;
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V fnma(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b
  static V sqrt(V x) { return _mm256_sqrt_ps(x); }
  static V abs(V x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.f), x); }
  static V neg(V x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.f)); }
  static V sign_bit(V x) { return _mm256_and_ps(x, _mm256_set1_ps(-0.f)); }
  static V round_even(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V floor(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  static V ceil(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
  static float hsum(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static V lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static V gt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static V eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static V unord(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
  static bool any(V mask) { return _mm256_movemask_ps(mask) != 0; }
  static I as_int(V x) { return _mm256_castps_si256(x); }
  static V as_float(I x) { return _mm256_castsi256_ps(x); }
  static I iset1(int v) { return _mm256_set1_epi32(v); }
  static I iand(I a, I b) { return _mm256_and_si256(a, b); }
  static I ior(I a, I b) { return _mm256_or_si256(a, b); }
  static I isub(I a, I b) { return _mm256_sub_epi32(a, b); }
  static V int_eq(I a, I b) { return _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)); }
  static V int_lt(I a, I b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, a)); }
  static I to_int(V x) { return _mm256_cvtps_epi32(x); }  // x integral
  static V int_to_float(I x) { return _mm256_cvtepi32_ps(x); }
  static I half_int(I n) { return _mm256_srai_epi32(n, 1); }  // floor(n / 2)
  static V pow2(I n) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23)); }
  static I exponent_field(I bits) { return _mm256_srli_epi32(bits, 23); }  // sign bit clear

  // d[t] = v[from + t] for t < n: lanes moved down by `from`, then a masked store.
  static void store_lanes(float* d, V v, size_t from, size_t n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    if (from) v = _mm256_permutevar8x32_ps(v, _mm256_add_epi32(idx, _mm256_set1_epi32(static_cast<int>(from))));
    _mm256_maskstore_ps(d, _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), idx), v);
  }
  static void deinterleave(const float* p, V& even, V& odd) {
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    // shuffle_ps works within 128-bit lanes: [a0 a2 b0 b2 | a4 a6 b4 b6]; the 64-bit permute
    // puts the a pairs before the b pairs.
    even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
    odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
  }
  static void store_interleaved(float* o, V a, V b) {
    // unpack works within 128-bit lanes, permute2f128 restores the order.
    const __m256 lo4 = _mm256_unpacklo_ps(a, b), hi4 = _mm256_unpackhi_ps(a, b);
    _mm256_storeu_ps(o, _mm256_permute2f128_ps(lo4, hi4, 0x20));
    _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(lo4, hi4, 0x31));
  }

  // acc[2 i + h] = sum over p < kc of a[p * 6 + i] * b[p * 16 + 8 h .. + 8]: 12 accumulators,
  // two B loads and six broadcasts per step, which keeps both FMA ports busy.
  static void gemm_acc(size_t kc, const float* a, const float* b, V (&acc)[MR * NR / W]) {
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    for (size_t p = 0; p < kc; ++p) {
      const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
      __m256 av;
      av = _mm256_broadcast_ss(a + 0); c00 = _mm256_fmadd_ps(av, b0, c00); c01 = _mm256_fmadd_ps(av, b1, c01);
      av = _mm256_broadcast_ss(a + 1); c10 = _mm256_fmadd_ps(av, b0, c10); c11 = _mm256_fmadd_ps(av, b1, c11);
      av = _mm256_broadcast_ss(a + 2); c20 = _mm256_fmadd_ps(av, b0, c20); c21 = _mm256_fmadd_ps(av, b1, c21);
      av = _mm256_broadcast_ss(a + 3); c30 = _mm256_fmadd_ps(av, b0, c30); c31 = _mm256_fmadd_ps(av, b1, c31);
      av = _mm256_broadcast_ss(a + 4); c40 = _mm256_fmadd_ps(av, b0, c40); c41 = _mm256_fmadd_ps(av, b1, c41);
      av = _mm256_broadcast_ss(a + 5); c50 = _mm256_fmadd_ps(av, b0, c50); c51 = _mm256_fmadd_ps(av, b1, c51);
      a += MR;
      b += NR;
    }
    acc[0] = c00; acc[1] = c01; acc[2] = c10; acc[3] = c11; acc[4] = c20; acc[5] = c21;
    acc[6] = c30; acc[7] = c31; acc[8] = c40; acc[9] = c41; acc[10] = c50; acc[11] = c51;
  }
};

// 4 double lanes, for diff_f32 (kernels/simd/diff.h).
struct IsaF64 {
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
