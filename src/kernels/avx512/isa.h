// The AVX-512 (F, DQ, BW, VL) vector operations and register tile that the shared templates of
// kernels/simd/ are instantiated with (for the entries avx512.h lists): 16 float lanes. Included
// only by files compiled with the AVX-512 flags (CMakeLists.txt).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/avx2/isa.h"
#include "kernels/internal.h"
#include "kernels/simd/lanes.h"
#include "kernels/avx2/pack_rows.h"

namespace ofg::kernels::avx512 {

// __v16sf is __m512 without may_alias, which a template argument would drop with a warning.
struct Isa : simd::Lanes<__v16sf> {
  using V = __m512;
  static const KernelTable& table() { return avx512_table(); }
  // Eight columns of up to MR rows into an A panel (simd/gemm_blocked.h pack_panels).
  static void pack_rows8(const float* src, size_t ld, size_t r, float alpha, float* panel, size_t R) {
    avx2::pack_rows8(src, ld, r, alpha, panel, R);
  }

  // AVX-512 compares into opmask registers while the templates take masks as vectors, so every
  // mask here is all-ones float lanes: DQ's vpmovm2d makes one from an opmask, vpmovd2m turns it
  // back for a blend.
  static V from_mask(__mmask16 k) { return _mm512_castsi512_ps(_mm512_movm_epi32(k)); }
  static __mmask16 to_mask(V m) { return _mm512_movepi32_mask(_mm512_castps_si512(m)); }
  static V nan_mask(V v) { return from_mask(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)); }
  static V select(V mask, V yes, V no) { return _mm512_mask_blend_ps(to_mask(mask), no, yes); }
  static bool any(V mask) { return to_mask(mask) != 0; }

  static constexpr size_t W = 16;
  // Channels across lanes (the depthwise and direct convs, simd/channel_lanes.h) go 8 at a time:
  // AVX2's operations under a type of this table, so that the templates
  // instantiated with it are this translation unit's own functions. With avx2::Isa itself they
  // would share their symbols with the AVX2 table's instantiations, and the linker keeps one of
  // the two copies: possibly this one, compiled for AVX-512, on a CPU without it.
  struct TransposeLanes : avx2::Isa {};
  // 8 rows x 32 columns: 16 accumulators, two B vectors and one broadcast A value. The blocking
  // keeps a B panel (kc x 32, 32 KiB) in L1 and the A block (mc x kc, 144 KiB) in L2. Measured on
  // Zen 5 (bench_kernels BM_Sgemm, 512 and 1024): ~80-85% of the zmm FMA peak, as 14x32 (28
  // accumulators) did; 12x32 was slower at 1024, and kc 192-512, mc 84-280, nc 768-3072 all
  // stayed within the noise of a shared machine. 8 rows divide the channel counts of the CNNs
  // (mobilenet, efficientnet, resnet, squeezenet: multiples of 8), of which 14-row tiles computed
  // up to 6 padding rows per row block (M = 16: a tile of 14 and one of 4 rows): those networks
  // ran 2 to 7% faster.
  static constexpr size_t MR = 8, NR = 32;
  static constexpr size_t KC = 256, MC = 144, NC = 1536;
  static constexpr size_t NV = NR / W;
  // Input channels from which 3x3 stride-1 convs take the Winograd path (simd/winograd_f2.h).
  // With the wider GEMM tile the direct path is faster below 64 (bench_kernels BM_ConvPacked,
  // SqueezeNet's 3x3 convs on Zen 5: 16 channels 21% and 48 channels 13% faster, 32 and 64 even);
  // ResNet's 64-channel 56x56 layer still gains 37% from the transforms.
  static constexpr size_t kWinogradMinCin = 64;

  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V fnma(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a * b
  // vmaxps/vminps return the second operand when either is NaN (as on AVX2).
  static V min(V a, V b) { return _mm512_min_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }

  // Elementwise: what the common lane operations (simd::Lanes, the base) lack.
  static constexpr bool kExactDiv = true, kExactSqrt = true, kHasF64 = true;
  static V sqrt(V x) { return _mm512_sqrt_ps(x); }
  // vrndscaleps with scale 0 and rounding mode M, exceptions suppressed.
  template <int M>
  static V rounded(V x) { return _mm512_roundscale_ps(x, M | _MM_FROUND_NO_EXC); }
  static V round_even(V x) { return rounded<_MM_FROUND_TO_NEAREST_INT>(x); }
  static V floor(V x) { return rounded<_MM_FROUND_TO_NEG_INF>(x); }
  static V ceil(V x) { return rounded<_MM_FROUND_TO_POS_INF>(x); }
  static float hsum(V v) { return _mm512_reduce_add_ps(v); }
  using F64 = __m512d;  // diff (kernels/simd/diff.h)
  static F64 widen(const float* p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
  // No transpose_tile: transpose2d stays the AVX2 table's (a 16x16 register transpose measured
  // slower than AVX2's 8x8 one, bench_kernels BM_Transpose).

  // Lanes [from, from + n) = s[0 .. n), the others 0: a masked load, which reads nothing outside
  // those n floats (the masked-off lanes do not fault).
  static V load_lanes(const float* s, size_t from, size_t n) {
    const auto base = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(s) - from * sizeof(float));
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>(((1u << n) - 1) << from), base);
  }
  // d[t] = v[from + t] for t < n: lanes moved down by `from`, then a masked store.
  static void store_lanes(float* d, V v, size_t from, size_t n) {
    const __m512i idx = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                         _mm512_set1_epi32(static_cast<int>(from)));
    _mm512_mask_storeu_ps(d, static_cast<__mmask16>((1u << n) - 1), _mm512_permutexvar_ps(idx, v));
  }
  static void deinterleave(const float* p, V& even, V& odd) {
    const __m512 a = _mm512_loadu_ps(p), b = _mm512_loadu_ps(p + 16);
    // Indices 16..31 pick from b.
    even = _mm512_permutex2var_ps(a, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b);
    odd = _mm512_permutex2var_ps(a, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), b);
  }
  static void store_interleaved(float* o, V a, V b) {
    const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    _mm512_storeu_ps(o, _mm512_permutex2var_ps(a, lo, b));
    _mm512_storeu_ps(o + 16, _mm512_permutex2var_ps(a, _mm512_add_epi32(lo, _mm512_set1_epi32(8)), b));
  }

  // acc[i * NV + h] = sum over p < kc of a[p * MR + i] * b[p * NR + W h .. + W]. A pack
  // expansion over the accumulator index K = i * NV + h makes every index a constant, so the
  // compiler keeps the accumulators in registers (with a loop over an array it may not).
  static void gemm_acc(size_t kc, const float* a, const float* b, V (&acc)[MR * NV]) {
    steps(kc, a, b, acc, std::make_index_sequence<MR * NV>{}, std::make_index_sequence<NV>{});
  }

  // The same sums for the first R rows only (acc's other rows are left as they are): the last
  // tile of a product whose rows are not a multiple of MR (17, 18, 35 rows of a small
  // transformer's activations) would otherwise compute all MR. Each sum adds the same products
  // in the same order as gemm_acc's, so a row's values do not depend on the tile that made it.
  template <size_t R>
  static void gemm_acc_rows(size_t kc, const float* a, const float* b, V (&acc)[MR * NV]) {
    static_assert(R <= MR, "at most a whole tile");
    steps(kc, a, b, acc, std::make_index_sequence<R * NV>{}, std::make_index_sequence<NV>{});
  }

  template <size_t... K, size_t... H>
  static void steps(size_t kc, const float* a, const float* b, V (&acc)[MR * NV], std::index_sequence<K...>,
                    std::index_sequence<H...>) {
    V c[sizeof...(K)] = {((void)K, _mm512_setzero_ps())...};
    for (size_t p = 0; p < kc; ++p) {
      const V bv[NV] = {_mm512_loadu_ps(b + W * H)...};
      ((c[K] = _mm512_fmadd_ps(_mm512_set1_ps(a[K / NV]), bv[K % NV], c[K])), ...);
      a += MR;
      b += NR;
    }
    ((acc[K] = c[K]), ...);
  }
};

}  // namespace ofg::kernels::avx512
