// NEON (aarch64) integer kernels: the exact integer GEMM, depthwise rows and the 8-bit
// quantization kernels, bit-identical to the scalar reference. The GEMM widens both operands to
// int16 with their zero points subtracted (every factor in [-255, 255]) and accumulates with
// vmlal (int16 x int16 -> int32, wrapping like the reference); a 4x16 tile of 16 accumulators.
#if defined(__aarch64__)
#include "kernels/igemm_blocking.h"
#include "kernels/internal.h"
#include "kernels/neon/igemm_tile.h"

#include <arm_neon.h>

#include <algorithm>

namespace ofg::kernels::neon {

namespace {

constexpr size_t QMR = kIntTileM, QNR = kIntTileN;
// kc 256: a B panel is 8 KiB, an A panel 2 KiB; B block 256 x 512 x 2 bytes = 256 KiB.
constexpr size_t QKC = 256, QMC = 128, QNC = 512;

// B rows [p0, p0 + kc), columns [j0, j0 + nc): panel jb holds kc rows of 16 int16 (b - zb).
void pack_b_i16(const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, size_t p0, size_t kc, size_t j0,
                size_t nc, uint8_t* out) {
  auto* dst = reinterpret_cast<int16_t*>(out);
  for (size_t jb = 0; jb < nc; jb += QNR) {
    const size_t nr = std::min(QNR, nc - jb);
    int16_t* d = dst + jb * kc;
    const int32_t* z = zb + j0 + jb;
    if (nr == QNR) {
      int16_t zv[QNR];
      for (size_t c = 0; c < QNR; ++c) zv[c] = static_cast<int16_t>(z[c]);
      const int16x8_t z0 = vld1q_s16(zv), z1 = vld1q_s16(zv + 8);
      for (size_t k = 0; k < kc; ++k) {
        const uint8x16_t v = vld1q_u8(B + (p0 + k) * ldb + j0 + jb);
        int16x8_t lo, hi;
        if (b_signed) {
          const int8x16_t s = vreinterpretq_s8_u8(v);
          lo = vmovl_s8(vget_low_s8(s));
          hi = vmovl_s8(vget_high_s8(s));
        } else {
          lo = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(v)));
          hi = vreinterpretq_s16_u16(vmovl_u8(vget_high_u8(v)));
        }
        vst1q_s16(d + k * QNR, vsubq_s16(lo, z0));
        vst1q_s16(d + k * QNR + 8, vsubq_s16(hi, z1));
      }
    } else {
      for (size_t k = 0; k < kc; ++k)
        for (size_t c = 0; c < QNR; ++c)
          d[k * QNR + c] =
              c < nr ? static_cast<int16_t>(int8_value(B[(p0 + k) * ldb + j0 + jb + c], b_signed) - z[c]) : 0;
    }
  }
}

// A rows [i0, i0 + mc), columns [p0, p0 + kc): row i is lane i % 4 of panel i / 4, which holds kc
// groups of 4 int16 (a - za); the rows that complete the last panel are zero.
void pack_a_i16(const uint8_t* A, size_t lda, bool a_signed, const int32_t* za, size_t i0, size_t mc, size_t p0,
                size_t kc, uint8_t* out) {
  for (size_t i = 0; i < (mc + QMR - 1) / QMR * QMR; ++i) {
    int16_t* d = reinterpret_cast<int16_t*>(out) + (i / QMR) * QMR * kc + i % QMR;
    if (i >= mc) {
      for (size_t k = 0; k < kc; ++k) d[k * QMR] = 0;
      continue;
    }
    const uint8_t* src = A + (i0 + i) * lda + p0;
    for (size_t k = 0; k < kc; ++k) d[k * QMR] = static_cast<int16_t>(int8_value(src[k], a_signed) - za[i0 + i]);
  }
}

void micro_4x16(size_t kc, const uint8_t* a_panel, const uint8_t* b_panel, int32_t* C, size_t ldc, size_t mr, size_t nr,
                bool first) {
  const auto* pa = reinterpret_cast<const int16_t*>(a_panel);
  const auto* pb = reinterpret_cast<const int16_t*>(b_panel);
  int32x4_t acc[QMR][4];
  for (auto& row : acc)
    for (auto& v : row) v = vdupq_n_s32(0);
  for (size_t k = 0; k < kc; ++k) {
    const int16x8_t b0 = vld1q_s16(pb + k * QNR), b1 = vld1q_s16(pb + k * QNR + 8);
    const int16x4_t a = vld1_s16(pa + k * QMR);
    // The lane index of vmlal_lane must be a constant: one line per row.
#define OFG_ROW(r)                                                     \
  acc[r][0] = vmlal_lane_s16(acc[r][0], vget_low_s16(b0), a, r);      \
  acc[r][1] = vmlal_lane_s16(acc[r][1], vget_high_s16(b0), a, r);     \
  acc[r][2] = vmlal_lane_s16(acc[r][2], vget_low_s16(b1), a, r);      \
  acc[r][3] = vmlal_lane_s16(acc[r][3], vget_high_s16(b1), a, r);
    OFG_ROW(0) OFG_ROW(1) OFG_ROW(2) OFG_ROW(3)
#undef OFG_ROW
  }
  store_tile_4x16(acc, C, ldc, mr, nr, first);
}

// round(value) + zero for 8 lanes (two halves): clamp into the 8-bit type, NaN lanes to 0.
uint8x8_t narrow8(float32x4_t v0, float32x4_t v1, bool out_signed) {
  const float32x4_t lo = vdupq_n_f32(out_signed ? -128.f : 0.f), hi = vdupq_n_f32(out_signed ? 127.f : 255.f);
  auto fix = [&](float32x4_t v) {
    const uint32x4_t ok = vceqq_f32(v, v);  // false for NaN
    const float32x4_t c = vminq_f32(vmaxq_f32(v, lo), hi);
    return vcvtq_s32_f32(vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(c), ok)));
  };
  const int16x8_t w = vcombine_s16(vqmovn_s32(fix(v0)), vqmovn_s32(fix(v1)));
  return out_signed ? vreinterpret_u8_s8(vqmovn_s16(w)) : vqmovun_s16(w);
}

}  // namespace

void igemm(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
           const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  igemm_packed({QMR, QNR, QKC, QMC, QNC, 1, 2}, M, N, K, A, lda, a_signed, za, B, ldb, b_signed, zb, C, ldc, pack_b_i16,
               pack_a_i16, micro_4x16);
}

void dw_row_i16(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t stride, size_t n, int32_t* y) {
  if (stride != 1) return scalar::dw_row_i16(rows, taps, ntaps, stride, n, y);
  size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
    for (size_t t = 0; t < ntaps; ++t) {
      const int16x8_t r = vld1q_s16(rows[t] + j);
      lo = vmlal_n_s16(lo, vget_low_s16(r), taps[t]);
      hi = vmlal_n_s16(hi, vget_high_s16(r), taps[t]);
    }
    vst1q_s32(y + j, lo);
    vst1q_s32(y + j + 4, hi);
  }
  dw_row_range(rows, taps, ntaps, 1, j, n, y);
}

void quantize_u8(const float* x, size_t n, float scale, float zero, bool out_signed, uint8_t* y) {
  const float32x4_t vs = vdupq_n_f32(scale), vz = vdupq_n_f32(zero);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    // vrndnq: to nearest, ties to even (FRINTN), like nearbyint in the default mode.
    const float32x4_t v0 = vaddq_f32(vrndnq_f32(vdivq_f32(vld1q_f32(x + i), vs)), vz);
    const float32x4_t v1 = vaddq_f32(vrndnq_f32(vdivq_f32(vld1q_f32(x + i + 4), vs)), vz);
    vst1_u8(y + i, narrow8(v0, v1, out_signed));
  }
  scalar::quantize_u8(x + i, n - i, scale, zero, out_signed, y + i);
}

void dequantize_u8(const uint8_t* x, size_t n, bool in_signed, int32_t zero, float scale, float* y) {
  size_t i = 0;
  // 16 bytes per step: widened to two int16x8, each to two int32x4, then (x - zero) * scale.
  for (; i + 16 <= n; i += 16) {
    const uint8x16_t b = vld1q_u8(x + i);
    int16x8_t w[2];
    if (in_signed) {
      w[0] = vmovl_s8(vget_low_s8(vreinterpretq_s8_u8(b)));
      w[1] = vmovl_s8(vget_high_s8(vreinterpretq_s8_u8(b)));
    } else {
      w[0] = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(b)));
      w[1] = vreinterpretq_s16_u16(vmovl_u8(vget_high_u8(b)));
    }
    for (int h = 0; h < 4; ++h) {
      const int16x4_t q = h % 2 ? vget_high_s16(w[h / 2]) : vget_low_s16(w[h / 2]);
      vst1q_f32(y + i + 4 * h, vmulq_n_f32(vcvtq_f32_s32(vsubq_s32(vmovl_s16(q), vdupq_n_s32(zero))), scale));
    }
  }
  scalar::dequantize_u8(x + i, n - i, in_signed, zero, scale, y + i);
}

void requantize_u8(const int32_t* acc, size_t n, double bias, double mult, int32_t zero, bool out_signed,
                   uint8_t* y) {
  const float64x2_t vb = vdupq_n_f64(bias), vm = vdupq_n_f64(mult);
  const float32x4_t vz = vdupq_n_f32(static_cast<float>(zero));
  // Four accumulators to floats: the product in double, rounded once to float.
  auto to_f32 = [&](const int32_t* p) {
    const int32x4_t a = vld1q_s32(p);
    const float64x2_t d0 = vmulq_f64(vaddq_f64(vcvtq_f64_s64(vmovl_s32(vget_low_s32(a))), vb), vm);
    const float64x2_t d1 = vmulq_f64(vaddq_f64(vcvtq_f64_s64(vmovl_s32(vget_high_s32(a))), vb), vm);
    return vcombine_f32(vcvt_f32_f64(d0), vcvt_f32_f64(d1));
  };
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    vst1_u8(y + i, narrow8(vaddq_f32(vrndnq_f32(to_f32(acc + i)), vz), vaddq_f32(vrndnq_f32(to_f32(acc + i + 4)), vz),
                           out_signed));
  scalar::requantize_u8(acc + i, n - i, bias, mult, zero, out_signed, y + i);
}

}  // namespace ofg::kernels::neon
#endif
