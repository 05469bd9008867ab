// Integer GEMM on VNNI (vpdpbusd: four u8 x s8 products summed into each int32 lane, wrapping,
// no intermediate saturation). Included by exactly one file per VNNI flavour (AVX-VNNI; and
// AVX512-VNNI, whose 512-bit tile uses the packers and corrections here on 256-bit registers),
// each compiled for its ISA, which first defines OFG_DPBUSD(acc, u8, s8) on 256-bit registers;
// everything here has internal linkage so the copies never mix.
// A is read as u8 and B as s8: the flips and the sum corrections are kernels/igemm_dot.h's.
#pragma once

#include "kernels/internal.h"
#include "kernels/avx2/igemm_tile.h"
#include "kernels/igemm_dot.h"

#include <immintrin.h>

namespace ofg::kernels::avx2 {
namespace {

// 16 columns, nq quads from src (row stride ldb) to d as s8: quad t of column c at
// d[t * dstride + 4 c] (dstride 64 for 16-column panels, 128 for the halves of 32-column ones);
// cs[c] accumulates the packed values.
void pack_quads_s8(const uint8_t* src, size_t ldb, DotOperand ob, size_t nq, uint8_t* d, size_t dstride, int32_t* cs) {
  const __m128i fm = _mm_set1_epi8(ob.flip ? static_cast<char>(0x80) : 0);
  const __m256i ones = _mm256_set1_epi8(1);
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  for (size_t t = 0; t < nq; ++t) {
    const uint8_t* r = src + 4 * t * ldb;
    auto row = [&](size_t i) { return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + i * ldb)), fm); };
    const __m128i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
    const __m128i l01 = _mm_unpacklo_epi8(r0, r1), h01 = _mm_unpackhi_epi8(r0, r1);
    const __m128i l23 = _mm_unpacklo_epi8(r2, r3), h23 = _mm_unpackhi_epi8(r2, r3);
    const __m256i q0 = _mm256_set_m128i(_mm_unpackhi_epi16(l01, l23), _mm_unpacklo_epi16(l01, l23));
    const __m256i q1 = _mm256_set_m128i(_mm_unpackhi_epi16(h01, h23), _mm_unpacklo_epi16(h01, h23));
    _mm256_store_si256(reinterpret_cast<__m256i*>(d + t * dstride), q0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(d + t * dstride + 32), q1);
    s0 = OFG_DPBUSD(s0, ones, q0);
    s1 = OFG_DPBUSD(s1, ones, q1);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(cs),
                      _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs)), s0));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(cs + 8),
                      _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs + 8)), s1));
}

// c[j] += u zbn[j] - zam colsum[j], 8 columns at a time.
void correct_row(uint32_t* c, uint32_t u, uint32_t zam, const uint32_t* zbn, const int32_t* colsum, size_t nc) {
  const __m256i vu = _mm256_set1_epi32(static_cast<int32_t>(u));
  const __m256i vz = _mm256_set1_epi32(static_cast<int32_t>(zam));
  size_t j = 0;
  for (; j + 8 <= nc; j += 8) {
    const __m256i zb8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(zbn + j));
    const __m256i cs8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(colsum + j));
    __m256i* cp = reinterpret_cast<__m256i*>(c + j);
    const __m256i corr = _mm256_sub_epi32(_mm256_mullo_epi32(vu, zb8), _mm256_mullo_epi32(vz, cs8));
    _mm256_storeu_si256(cp, _mm256_add_epi32(_mm256_loadu_si256(cp), corr));
  }
  add_corrections(c, u, zam, zbn, colsum, j, nc);
}

// The 256-bit VNNI flavour (6x16 tile) for OFG_DOT_IGEMM_ENTRIES. A read as u8. kc 512 (128
// quads): a B panel is 8 KiB, an A panel 3 KiB; B block 256 KiB.
struct Vnni256 {
  static constexpr IgemmBlocking kBlocking{kTileM, kTileN, 512, 120, 512, 4, 1};
  static constexpr bool kAReadSigned = false;
  static void pack_quads(const uint8_t* src, size_t ld, DotOperand ob, size_t nq, uint8_t* d, int32_t* cs) {
    pack_quads_s8(src, ld, ob, nq, d, 64, cs);
  }
  static void tile(size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t ldc, size_t mr, size_t nr,
                   bool first) {
    micro_6x16_i32(kpad / 4, pa, pb, c, ldc, mr, nr, first,
                   [](__m256i acc, __m256i a, __m256i b) { return OFG_DPBUSD(acc, a, b); });
  }
  static void correct(uint32_t* c, uint32_t u, uint32_t zam, const uint32_t* zbn, const int32_t* colsum, size_t nc) {
    correct_row(c, u, zam, zbn, colsum, nc);
  }
};

}  // namespace
}  // namespace ofg::kernels::avx2
