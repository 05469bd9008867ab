// 8x8 float tiles transposed in registers (unpack, shuffle, 128-bit permute) for the shared
// driver of kernels/simd/transpose.h; 4-byte elements only, other sizes use the scalar tiles.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/isa.h"
#include "kernels/simd/transpose.h"

namespace ofg::kernels::avx2 {

namespace {
inline void tile8x8(const float* s, size_t sld, float* d, size_t dld) {
  __m256 r0 = _mm256_loadu_ps(s + 0 * sld), r1 = _mm256_loadu_ps(s + 1 * sld);
  __m256 r2 = _mm256_loadu_ps(s + 2 * sld), r3 = _mm256_loadu_ps(s + 3 * sld);
  __m256 r4 = _mm256_loadu_ps(s + 4 * sld), r5 = _mm256_loadu_ps(s + 5 * sld);
  __m256 r6 = _mm256_loadu_ps(s + 6 * sld), r7 = _mm256_loadu_ps(s + 7 * sld);
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
}  // namespace

void transpose2d(size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld,
                 size_t rows, size_t cols) {
  if (elem_size != 4) {
    scalar::transpose2d(elem_size, src, src_ld, dst, dst_ld, rows, cols);
    return;
  }
  simd::transpose_f32<8>(static_cast<const float*>(src), src_ld, static_cast<float*>(dst), dst_ld, rows, cols,
                         tile8x8);
}

}  // namespace ofg::kernels::avx2
