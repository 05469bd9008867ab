// The AVX2+FMA vector operations and 6x16 register tile that the shared templates of
// kernels/simd/ (GEMM, convolution, Winograd, pooling, vector math, elementwise, reductions) are
// instantiated with: 8 float lanes, masks as all-ones float lanes. Included only by files
// compiled with AVX2/FMA flags.
#pragma once

#include "kernels/internal.h"
#include "kernels/simd/lanes.h"
#include "kernels/avx2/pack_rows.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace ofg::kernels::avx2 {

// __v8sf is __m256 without may_alias, which a template argument would drop with a warning.
struct Isa : simd::Lanes<__v8sf> {
  using V = __m256;
  static constexpr size_t W = 8;
  static constexpr size_t MR = 6, NR = 16;
  // kc 256 / mc 120 / nc 1536 (B block 1.5 MiB, A block 120 KiB) measured at ~93% of the
  // single-core FMA peak for 512 and 1024 in bench_kernels; not tuned further.
  static constexpr size_t KC = 256, MC = 120, NC = 1536;
  // Input channels from which 3x3 stride-1 convs take the Winograd path (simd/winograd_f2.h).
  static constexpr size_t kWinogradMinCin = 16;

  // The table these instantiations belong to, for the entries a template calls through it.
  static const KernelTable& table() { return avx2_table(); }
  // Eight columns of up to MR rows into an A panel (simd/gemm_blocked.h pack_panels).
  static void pack_rows8(const float* src, size_t ld, size_t r, float alpha, float* panel, size_t R) {
    avx2::pack_rows8(src, ld, r, alpha, panel, R);
  }

  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  // maxps/minps return the second operand when either is NaN.
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V nan_mask(V v) { return _mm256_cmp_ps(v, v, _CMP_UNORD_Q); }
  static V select(V mask, V yes, V no) { return _mm256_blendv_ps(no, yes, mask); }

  // Elementwise: what the common lane operations (simd::Lanes, the base) lack.
  static constexpr bool kExactDiv = true, kExactSqrt = true, kHasF64 = true;
  using F64 = __m256d;  // diff (kernels/simd/diff.h)
  static F64 widen(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
  static V fnma(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b
  static V sqrt(V x) { return _mm256_sqrt_ps(x); }
  static V round_even(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V floor(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  static V ceil(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
  static bool any(V mask) { return _mm256_movemask_ps(mask) != 0; }
  static float hsum(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }

  // transpose2d (kernels/simd/transpose.h): 8x8 float tiles transposed in registers (unpack,
  // shuffle, 128-bit permute).
  // With on_row, each source row goes through on_row(V) first (the conv epilogue on channels in
  // lanes, simd/channel_lanes.h, done on the way instead of in a pass of its own).
  static constexpr size_t kTile = 8;
  struct AsIs {
    __attribute__((always_inline)) V operator()(V v) const { return v; }
  };
  // (Always inlined: the AVX-512 table instantiates it too, and one out-of-line copy compiled
  // for AVX-512 could be the one the linker keeps for this table.)
  template <class F = AsIs>
  __attribute__((always_inline)) static inline void transpose_tile(const float* s, size_t sld, float* d, size_t dld,
                                                                   const F& on_row = {}) {
    __m256 r0 = on_row(_mm256_loadu_ps(s + 0 * sld)), r1 = on_row(_mm256_loadu_ps(s + 1 * sld));
    __m256 r2 = on_row(_mm256_loadu_ps(s + 2 * sld)), r3 = on_row(_mm256_loadu_ps(s + 3 * sld));
    __m256 r4 = on_row(_mm256_loadu_ps(s + 4 * sld)), r5 = on_row(_mm256_loadu_ps(s + 5 * sld));
    __m256 r6 = on_row(_mm256_loadu_ps(s + 6 * sld)), r7 = on_row(_mm256_loadu_ps(s + 7 * sld));
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(d + 0 * dld, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(d + 1 * dld, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(d + 2 * dld, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(d + 3 * dld, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(d + 4 * dld, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(d + 5 * dld, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(d + 6 * dld, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(d + 7 * dld, _mm256_permute2f128_ps(u3, u7, 0x31));
  }

  // Lanes [from, from + n) = s[0 .. n), the others 0: vmaskmovps reads only the lanes of its
  // mask (the others do not fault).
  static V load_lanes(const float* s, size_t from, size_t n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i lo = _mm256_set1_epi32(static_cast<int>(from) - 1), hi = _mm256_set1_epi32(static_cast<int>(from + n));
    const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(idx, lo), _mm256_cmpgt_epi32(hi, idx));
    const auto base = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(s) - from * sizeof(float));
    return _mm256_maskload_ps(base, in);
  }
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

}  // namespace ofg::kernels::avx2
