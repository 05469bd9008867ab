// 4x4 float tiles transposed in registers (vtrn, then the halves recombined) for the shared
// driver of kernels/simd/transpose.h; 4-byte elements only, other sizes use the scalar tiles.
// Only permutes: bits are moved unchanged (NaN payloads, subnormals on 32-bit ARM too).
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/neon.h"
#include "kernels/simd/transpose.h"

#include <arm_neon.h>

namespace ofg::kernels::neon {

namespace {
inline void tile4x4(const float* s, size_t sld, float* d, size_t dld) {
  // Rows a, b, c, d: t01 = {a0 b0 a2 b2}, {a1 b1 a3 b3}; t23 likewise for c, d.
  const float32x4x2_t t01 = vtrnq_f32(vld1q_f32(s), vld1q_f32(s + sld));
  const float32x4x2_t t23 = vtrnq_f32(vld1q_f32(s + 2 * sld), vld1q_f32(s + 3 * sld));
  vst1q_f32(d, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
  vst1q_f32(d + dld, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
  vst1q_f32(d + 2 * dld, vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
  vst1q_f32(d + 3 * dld, vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
}
}  // namespace

void transpose2d(size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld,
                 size_t rows, size_t cols) {
  if (elem_size != 4) {
    scalar::transpose2d(elem_size, src, src_ld, dst, dst_ld, rows, cols);
    return;
  }
  simd::transpose_f32<4>(static_cast<const float*>(src), src_ld, static_cast<float*>(dst), dst_ld, rows, cols,
                         tile4x4);
}

}  // namespace ofg::kernels::neon
#endif
