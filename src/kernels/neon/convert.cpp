// NEON float16 / bfloat16 conversions, bit-identical to the scalar ones (scalar/convert.cpp).
// aarch64 converts half precision in hardware (FCVTL / FCVTN: round to nearest even, NaN made
// quiet with its top payload bits, subnormals exact since Linux leaves FPCR.FZ clear). 32-bit ARM
// NEON has no such conversion without the fp16 extension, so there it is integer arithmetic
// (no float operation, hence no flush of subnormals). bfloat16 is integer arithmetic everywhere.
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/neon.h"

#include <arm_neon.h>

namespace ofg::kernels::neon {

namespace {
#if !defined(__aarch64__)
float32x4_t half4_to_float(uint16x4_t h) {
  const uint32x4_t u = vmovl_u16(h);
  const uint32x4_t sign = vshlq_n_u32(vandq_u32(u, vdupq_n_u32(0x8000u)), 16);
  const uint32x4_t em = vandq_u32(u, vdupq_n_u32(0x7FFFu));
  // Normal: rebias the exponent (127 - 15 = 112).
  const uint32x4_t normal = vaddq_u32(vshlq_n_u32(em, 13), vdupq_n_u32(112u << 23));
  // Inf / NaN: all-ones exponent, NaN made quiet.
  const uint32x4_t m = vandq_u32(em, vdupq_n_u32(0x3FFu));
  const uint32x4_t quiet = vandq_u32(vtstq_u32(m, m), vdupq_n_u32(0x400000u));
  const uint32x4_t special = vorrq_u32(vorrq_u32(vdupq_n_u32(0x7F800000u), vshlq_n_u32(m, 13)), quiet);
  // Zero / subnormal: m * 2^-24, a normal float (or 0), so no flush.
  const uint32x4_t tiny = vreinterpretq_u32_f32(vmulq_f32(vcvtq_f32_u32(em), vdupq_n_f32(5.9604644775390625e-8f)));
  uint32x4_t r = vbslq_u32(vcgeq_u32(em, vdupq_n_u32(0x7C00u)), special, normal);
  r = vbslq_u32(vcltq_u32(em, vdupq_n_u32(0x400u)), tiny, r);
  return vreinterpretq_f32_u32(vorrq_u32(r, sign));
}

// (v + 2^(s-1) - 1 + bit s of v) >> s: v / 2^s rounded to nearest even, for shifts s in 1..31.
uint32x4_t shift_round_even(uint32x4_t v, int32x4_t s) {
  const int32x4_t neg = vnegq_s32(s);
  const uint32x4_t lsb = vandq_u32(vshlq_u32(v, neg), vdupq_n_u32(1u));
  const uint32x4_t half_m1 = vsubq_u32(vshlq_u32(vdupq_n_u32(1u), vsubq_s32(s, vdupq_n_s32(1))), vdupq_n_u32(1u));
  return vshlq_u32(vaddq_u32(vaddq_u32(v, half_m1), lsb), neg);
}

uint16x4_t float4_to_half(float32x4_t f) {
  const uint32x4_t u = vreinterpretq_u32_f32(f);
  const uint32x4_t sign = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(0x8000u));
  const uint32x4_t a = vandq_u32(u, vdupq_n_u32(0x7FFFFFFFu));
  // Normal half range: rebias and round away 13 mantissa bits (a carry moves into the exponent).
  const uint32x4_t normal = shift_round_even(vsubq_u32(a, vdupq_n_u32(0x38000000u)), vdupq_n_s32(13));
  // Half subnormal range: the mantissa with its implicit bit, in units of 2^-24, i.e. shifted by
  // 126 - exponent; from 25 on every value rounds to 0 (f32 subnormals included).
  const int32x4_t e = vreinterpretq_s32_u32(vshrq_n_u32(a, 23));
  const int32x4_t s = vminq_s32(vsubq_s32(vdupq_n_s32(126), e), vdupq_n_s32(25));
  const uint32x4_t mant = vorrq_u32(vandq_u32(a, vdupq_n_u32(0x7FFFFFu)), vdupq_n_u32(0x800000u));
  const uint32x4_t tiny = shift_round_even(mant, s);
  uint32x4_t r = vbslq_u32(vcltq_u32(a, vdupq_n_u32(0x38800000u)), tiny, normal);
  r = vbslq_u32(vcgeq_u32(a, vdupq_n_u32(0x477FF000u)), vdupq_n_u32(0x7C00u), r);  // >= 65520: inf
  const uint32x4_t nan = vorrq_u32(vdupq_n_u32(0x7E00u), vandq_u32(vshrq_n_u32(a, 13), vdupq_n_u32(0x3FFu)));
  r = vbslq_u32(vcgtq_u32(a, vdupq_n_u32(0x7F800000u)), nan, r);
  return vmovn_u32(vorrq_u32(r, sign));
}
#else
float32x4_t half4_to_float(uint16x4_t h) { return vcvt_f32_f16(vreinterpret_f16_u16(h)); }
uint16x4_t float4_to_half(float32x4_t f) { return vreinterpret_u16_f16(vcvt_f16_f32(f)); }
#endif
}  // namespace

void f16_to_f32(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, half4_to_float(vld1_u16(x + i)));
  scalar::f16_to_f32(x + i, y + i, n - i);
}

void f32_to_f16(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1_u16(y + i, float4_to_half(vld1q_f32(x + i)));
  scalar::f32_to_f16(x + i, y + i, n - i);
}

void bf16_to_f32(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(x + i), 16)));
  scalar::bf16_to_f32(x + i, y + i, n - i);
}

void f32_to_bf16(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32x4_t u = vreinterpretq_u32_f32(vld1q_f32(x + i));
    // Round to nearest even on the upper half; a NaN keeps its upper half, made quiet.
    const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1u));
    const uint32x4_t rounded = vaddq_u32(vaddq_u32(u, vdupq_n_u32(0x7FFFu)), lsb);
    const uint32x4_t quiet = vorrq_u32(u, vdupq_n_u32(0x400000u));
    const uint32x4_t is_nan = vcgtq_u32(vandq_u32(u, vdupq_n_u32(0x7FFFFFFFu)), vdupq_n_u32(0x7F800000u));
    vst1_u16(y + i, vshrn_n_u32(vbslq_u32(is_nan, quiet, rounded), 16));
  }
  scalar::f32_to_bf16(x + i, y + i, n - i);
}

}  // namespace ofg::kernels::neon
#endif
