// Integer GEMM on VNNI (vpdpbusd: four u8 x s8 products summed into each int32 lane, wrapping,
// no intermediate saturation). Included by exactly one file per VNNI flavour (AVX-VNNI,
// AVX512-VNNI on 256-bit registers), each compiled for its ISA, which first defines
// OFG_DPBUSD(acc, u8, s8); everything here has internal linkage so the copies never mix.
//
// Operands are brought to u8 (A) and s8 (B) by flipping the top bit, which shifts a value and its
// zero point by the same 128: (a ^ 0x80) - (za + 128) == a - za for int8 A, and likewise
// (b ^ 0x80) - (zb - 128) == b - zb for uint8 B. Then
//   sum (a - za)(b - zb) = sum a b - zb sum_k a - za sum_k b + K za zb,
// the first term by vpdpbusd, the row sums of A up front, the column sums of B while packing,
// the rest once per column block; all modulo 2^32, so the result is exact whenever it fits.
#pragma once

#include "kernels/internal.h"
#include "kernels/avx2/igemm_tile.h"
#include "kernels/igemm_blocking.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace ofg::kernels::avx2 {
namespace {

constexpr size_t VMR = kTileM, VNR = kTileN;
// kc 512 (128 quads): a B panel is 8 KiB, an A panel 3 KiB; B block 128 quads x 512 columns
// x 4 bytes = 256 KiB.
constexpr size_t VKC = 512, VMC = 120, VNC = 512;

inline uint8_t flip(uint8_t v, bool f) { return f ? static_cast<uint8_t>(v ^ 0x80) : v; }

// B rows [p0, p0 + kc), columns [j0, j0 + nc) as s8 in 16-column panels: quad t of column c is
// the 4 bytes at panel[t * 64 + 4 c]. colsum[c] (columns j0...) accumulates the sums of the
// packed s8 values.
void pack_b_s8(const uint8_t* B, size_t ldb, bool flip_b, size_t p0, size_t kc, size_t j0, size_t nc, uint8_t* dst,
               int32_t* colsum) {
  const size_t kq = (kc + 3) / 4;
  const __m128i fm = _mm_set1_epi8(flip_b ? static_cast<char>(0x80) : 0);
  const __m256i ones = _mm256_set1_epi8(1);
  for (size_t jb = 0; jb < nc; jb += VNR) {
    const size_t nr = std::min(VNR, nc - jb);
    uint8_t* d = dst + jb * kq * 4;
    int32_t* cs = colsum + jb;
    const size_t full = nr == VNR ? kc / 4 : 0;
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
    for (size_t t = 0; t < full; ++t) {
      const uint8_t* r = B + (p0 + 4 * t) * ldb + j0 + jb;
      auto row = [&](size_t i) { return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + i * ldb)), fm); };
      const __m128i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
      const __m128i l01 = _mm_unpacklo_epi8(r0, r1), h01 = _mm_unpackhi_epi8(r0, r1);
      const __m128i l23 = _mm_unpacklo_epi8(r2, r3), h23 = _mm_unpackhi_epi8(r2, r3);
      const __m256i q0 = _mm256_set_m128i(_mm_unpackhi_epi16(l01, l23), _mm_unpacklo_epi16(l01, l23));
      const __m256i q1 = _mm256_set_m128i(_mm_unpackhi_epi16(h01, h23), _mm_unpacklo_epi16(h01, h23));
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + t * 64), q0);
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + t * 64 + 32), q1);
      s0 = OFG_DPBUSD(s0, ones, q0);
      s1 = OFG_DPBUSD(s1, ones, q1);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(cs),
                        _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs)), s0));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(cs + 8),
                        _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs + 8)), s1));
    // Column tails and the last partial quad: bytewise, zeros beyond the block.
    for (size_t t = full; t < kq; ++t)
      for (size_t c = 0; c < VNR; ++c)
        for (size_t i = 0; i < 4; ++i) {
          const size_t k = 4 * t + i;
          int8_t v = 0;
          if (c < nr && k < kc) v = static_cast<int8_t>(flip(B[(p0 + k) * ldb + j0 + jb + c], flip_b));
          d[t * 64 + 4 * c + i] = static_cast<uint8_t>(v);
          cs[c] += v;
        }
  }
}

// A rows [i0, i0 + mc), columns [p0, p0 + kc) as u8 in 6-row panels: quad t of row r at
// panel[t * 24 + 4 r].
void pack_a_u8(const uint8_t* A, size_t lda, bool flip_a, size_t i0, size_t mc, size_t p0, size_t kc, uint8_t* dst) {
  const size_t kq = (kc + 3) / 4;
  const uint32_t fm = flip_a ? 0x80808080u : 0u;
  for (size_t ib = 0; ib < mc; ib += VMR) {
    const size_t mr = std::min(VMR, mc - ib);
    uint8_t* d = dst + ib * kq * 4;
    for (size_t r = 0; r < VMR; ++r) {
      if (r >= mr) {
        for (size_t t = 0; t < kq; ++t) std::memset(d + t * 24 + 4 * r, 0, 4);
        continue;
      }
      const uint8_t* src = A + (i0 + ib + r) * lda + p0;
      for (size_t t = 0; t < kc / 4; ++t) {
        uint32_t w;
        std::memcpy(&w, src + 4 * t, 4);
        w ^= fm;
        std::memcpy(d + t * 24 + 4 * r, &w, 4);
      }
      // The last partial quad: the missing bytes stay 0 (not flipped).
      for (size_t k = kc / 4 * 4; k < 4 * kq; ++k) d[(k / 4) * 24 + 4 * r + k % 4] = k < kc ? flip(src[k], flip_a) : 0;
    }
  }
}

void igemm_vnni_impl(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
                     const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  const uint32_t da = a_signed ? 128u : 0u, db = b_signed ? 0u : 128u;  // za' = za + da, zb' = zb - db
  // u[m] = K za'[m] - rowsum(A')[m], so that C += u[m] zb'[n] - za'[m] colsum(B')[n].
  std::vector<uint32_t> u(M), zam(M), zbn(N);
  std::vector<int32_t> colsum(N + VNR);
  for (size_t i = 0; i < M; ++i) {
    uint32_t s = 0;
    for (size_t p = 0; p < K; ++p) s += flip(A[i * lda + p], a_signed);
    zam[i] = static_cast<uint32_t>(za[i]) + da;
    u[i] = static_cast<uint32_t>(K) * zam[i] - s;
  }
  for (size_t j = 0; j < N; ++j) zbn[j] = static_cast<uint32_t>(zb[j]) - db;
  igemm_blocked(
      M, N, K, C, ldc, {VMR, VNR, VKC, VMC, VNC, 4, 1},
      [&](size_t p0, size_t kc, size_t j0, size_t nc, uint8_t* d) {
        if (p0 == 0) std::fill(colsum.begin(), colsum.end(), 0);
        pack_b_s8(B, ldb, !b_signed, p0, kc, j0, nc, d, colsum.data());
      },
      [&](size_t i0, size_t mc, size_t p0, size_t kc, uint8_t* d) { pack_a_u8(A, lda, a_signed, i0, mc, p0, kc, d); },
      [&](size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t mr, size_t nr, bool first) {
        micro_6x16_i32(kpad / 4, pa, pb, c, ldc, mr, nr, first,
                       [](__m256i acc, __m256i a, __m256i b) { return OFG_DPBUSD(acc, a, b); });
      },
      [&](size_t j0, size_t nc) {
        for (size_t i = 0; i < M; ++i) {
          uint32_t* c = reinterpret_cast<uint32_t*>(C + i * ldc + j0);
          const __m256i vu = _mm256_set1_epi32(static_cast<int32_t>(u[i]));
          const __m256i vz = _mm256_set1_epi32(static_cast<int32_t>(zam[i]));
          size_t j = 0;
          for (; j + 8 <= nc; j += 8) {
            const __m256i zb8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(zbn.data() + j0 + j));
            const __m256i cs8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(colsum.data() + j));
            __m256i* cp = reinterpret_cast<__m256i*>(c + j);
            const __m256i corr = _mm256_sub_epi32(_mm256_mullo_epi32(vu, zb8), _mm256_mullo_epi32(vz, cs8));
            _mm256_storeu_si256(cp, _mm256_add_epi32(_mm256_loadu_si256(cp), corr));
          }
          for (; j < nc; ++j) c[j] += u[i] * zbn[j0 + j] - zam[i] * static_cast<uint32_t>(colsum[j]);
        }
      });
}

// The exported entry of one VNNI flavour.
#define OFG_IGEMM_VNNI_ENTRY(name)                                                                          \
  void name(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,  \
            const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {     \
    igemm_vnni_impl(M, N, K, A, lda, a_signed, za, B, ldb, b_signed, zb, C, ldc);                          \
  }

}  // namespace
}  // namespace ofg::kernels::avx2
