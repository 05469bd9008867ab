// Packing eight columns of a row-major matrix's rows into a GEMM A panel (column k of row x goes
// to panel[k * R + x]) with 8x8 register transposes: the scalar copy stores one float per row and
// column, which cost 6-8% of a small transformer (its activations are the A of every MatMul).
// Shared by the AVX2 and AVX-512 ISA structs (256-bit operations: AVX-512 files have AVX2).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

namespace ofg::kernels::avx2 {

inline void transpose8x8(__m256 (&r)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// panel[j * R + x] = alpha * src[x * ld + j] for j < 8 and x < r, 0 for r <= x < R (the rows
// past the matrix's end). The same products as the scalar loop, so the same values.
inline void pack_rows8(const float* src, size_t ld, size_t r, float alpha, float* panel, size_t R) {
  const __m256 va = _mm256_set1_ps(alpha);
  for (size_t g = 0; g < R; g += 8) {
    __m256 t[8];
    for (size_t x = 0; x < 8; ++x)
      t[x] = g + x < r ? _mm256_mul_ps(va, _mm256_loadu_ps(src + (g + x) * ld)) : _mm256_setzero_ps();
    transpose8x8(t);
    const size_t n = std::min<size_t>(8, R - g);  // this group's rows inside the panel
    if (n == 8) {
      for (size_t j = 0; j < 8; ++j) _mm256_storeu_ps(panel + j * R + g, t[j]);
    } else {
      const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
      for (size_t j = 0; j < 8; ++j) _mm256_maskstore_ps(panel + j * R + g, mask, t[j]);
    }
  }
}

}  // namespace ofg::kernels::avx2
