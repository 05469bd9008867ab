// The NEON vector type of the shared SIMD kernels (kernels/simd/): 4 float lanes, masks as
// uint32 lanes. Only the lane operations are here; the algorithms are in kernels/simd/.
//
// aarch64 has everything as single instructions. 32-bit ARMv7-A NEON lacks several:
// - division: reciprocal estimate and two Newton steps, a few ulps off, so kExactDiv is false and
//   Div / Reciprocal stay scalar; the approximations (tanh, sigmoid, log, softplus) use it and
//   the tests hold them to the same bounds;
// - square root: none (kExactSqrt false, Sqrt stays scalar);
// - fused multiply-add unless the FPU is VFPv4 (-mfpu=neon-vfpv4): multiply then add;
// - rounding to integral: the 2^23 trick (NEON rounds to nearest even whatever FPSCR says);
// - across-lane sums and maxima: pairwise operations.
// ARMv7 NEON also flushes subnormal operands and results to zero (the "standard FPSCR value",
// not configurable), so on 32-bit ARM the float kernels treat subnormals as zero. The bit
// operations (abs, neg, sign, log's exponent split) are done on integers and are exact.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

namespace ofg::kernels::neon {

struct Vec {
  using F = float32x4_t;
  using I = int32x4_t;
  using M = uint32x4_t;
  static constexpr size_t kLanes = 4;
#if defined(__aarch64__)
  static constexpr bool kExactDiv = true, kExactSqrt = true;
#else
  static constexpr bool kExactDiv = false, kExactSqrt = false;
#endif

  static F load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, F v) { vst1q_f32(p, v); }
  static F set1(float v) { return vdupq_n_f32(v); }
  static F zero() { return vdupq_n_f32(0.f); }
  static F add(F a, F b) { return vaddq_f32(a, b); }
  static F sub(F a, F b) { return vsubq_f32(a, b); }
  static F mul(F a, F b) { return vmulq_f32(a, b); }
#if defined(__aarch64__)
  static F div(F a, F b) { return vdivq_f32(a, b); }
  static F sqrt(F x) { return vsqrtq_f32(x); }
#else
  static F div(F a, F b) {
    F r = vrecpeq_f32(b);
    r = vmulq_f32(vrecpsq_f32(b, r), r);  // vrecps: 2 - b r
    r = vmulq_f32(vrecpsq_f32(b, r), r);
    return vmulq_f32(a, r);
  }
#endif
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
  static F fma(F a, F b, F c) { return vfmaq_f32(c, a, b); }   // a * b + c
  static F fnma(F a, F b, F c) { return vfmsq_f32(c, a, b); }  // c - a * b
#else
  static F fma(F a, F b, F c) { return vmlaq_f32(c, a, b); }
  static F fnma(F a, F b, F c) { return vmlsq_f32(c, a, b); }
#endif
  // vmaxq / vminq: NaN when either operand is NaN.
  static F max(F a, F b) { return vmaxq_f32(a, b); }
  static F min(F a, F b) { return vminq_f32(a, b); }
  static F abs(F x) { return bits(vandq_u32(ubits(x), vdupq_n_u32(0x7FFFFFFFu))); }
  static F neg(F x) { return bits(veorq_u32(ubits(x), vdupq_n_u32(0x80000000u))); }
  static F sign_bit(F x) { return bits(vandq_u32(ubits(x), vdupq_n_u32(0x80000000u))); }
  static F bit_or(F a, F b) { return bits(vorrq_u32(ubits(a), ubits(b))); }
#if defined(__aarch64__)
  static F round_even(F x) { return vrndnq_f32(x); }
  static F floor(F x) { return vrndmq_f32(x); }
  static F ceil(F x) { return vrndpq_f32(x); }
  static float hsum(F v) { return vaddvq_f32(v); }
  static bool any(M m) { return vmaxvq_u32(m) != 0; }
#else
  static F round_even(F x) {
    // |x| + 2^23 - 2^23 rounds |x| < 2^23 to an integer (ties to even); larger |x|, inf and NaN
    // are integral or kept. The sign is put back so that -0.3 gives -0.
    const F two23 = vdupq_n_f32(8388608.f), ax = abs(x);
    const F r = bit_or(vsubq_f32(vaddq_f32(ax, two23), two23), sign_bit(x));
    return vbslq_f32(vcltq_f32(ax, two23), r, x);
  }
  // round_even(x) -+ 1 where it went past x; the sign of x keeps floor(-0) and ceil(-0.5) -0.
  static F floor(F x) {
    const F r = round_even(x);
    const F one = bits(vandq_u32(vcgtq_f32(r, x), ubits(vdupq_n_f32(1.f))));
    return bit_or(vsubq_f32(r, one), sign_bit(x));
  }
  static F ceil(F x) {
    const F r = round_even(x);
    const F one = bits(vandq_u32(vcltq_f32(r, x), ubits(vdupq_n_f32(1.f))));
    return bit_or(vaddq_f32(r, one), sign_bit(x));
  }
  static float hsum(F v) {
    const float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(vpadd_f32(s, s), 0);
  }
  static bool any(M m) {
    const uint32x2_t t = vorr_u32(vget_low_u32(m), vget_high_u32(m));
    return (vget_lane_u32(t, 0) | vget_lane_u32(t, 1)) != 0;
  }
#endif

  static M lt(F a, F b) { return vcltq_f32(a, b); }
  static M gt(F a, F b) { return vcgtq_f32(a, b); }
  static M eq(F a, F b) { return vceqq_f32(a, b); }
  static M unord(F a, F b) { return vmvnq_u32(vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b))); }
  static M mask_or(M a, M b) { return vorrq_u32(a, b); }
  static F select(M m, F a, F b) { return vbslq_f32(m, a, b); }  // m ? a : b

  static I as_int(F x) { return vreinterpretq_s32_f32(x); }
  static F as_float(I x) { return vreinterpretq_f32_s32(x); }
  static I iset1(int v) { return vdupq_n_s32(v); }
  static I iand(I a, I b) { return vandq_s32(a, b); }
  static I ior(I a, I b) { return vorrq_s32(a, b); }
  static I isub(I a, I b) { return vsubq_s32(a, b); }
  static M int_eq(I a, I b) { return vceqq_s32(a, b); }
  static M int_lt(I a, I b) { return vcltq_s32(a, b); }
  static I to_int(F x) { return vcvtq_s32_f32(x); }  // x integral
  static F int_to_float(I x) { return vcvtq_f32_s32(x); }
  static I half_int(I n) { return vshrq_n_s32(n, 1); }  // floor(n / 2)
  static F pow2(I n) { return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n, vdupq_n_s32(127)), 23)); }
  static I exponent_field(I bits) { return vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(bits), 23)); }

  static uint32x4_t ubits(F x) { return vreinterpretq_u32_f32(x); }
  static F bits(uint32x4_t u) { return vreinterpretq_f32_u32(u); }
};

#if defined(__aarch64__)
// 2 double lanes, for diff_f32 (kernels/simd/diff.h); 32-bit ARM NEON has no double vectors.
struct VecD {
  using D = float64x2_t;
  using M = uint64x2_t;
  static constexpr size_t kLanes = 2;
  static D load_f32(const float* p) { return vcvt_f64_f32(vld1_f32(p)); }
  static void store(double* p, D v) { vst1q_f64(p, v); }
  static D set1(double v) { return vdupq_n_f64(v); }
  static D iota() { return vcombine_f64(vdup_n_f64(0.0), vdup_n_f64(1.0)); }
  static D add(D a, D b) { return vaddq_f64(a, b); }
  static D sub(D a, D b) { return vsubq_f64(a, b); }
  static D mul(D a, D b) { return vmulq_f64(a, b); }
  static D div(D a, D b) { return vdivq_f64(a, b); }
  static D max(D a, D b) { return vmaxq_f64(a, b); }
  static D abs(D x) { return vabsq_f64(x); }
  static M eq(D a, D b) { return vceqq_f64(a, b); }
  static M gt(D a, D b) { return vcgtq_f64(a, b); }
  static M unord(D a, D b) {
    return vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(vandq_u64(vceqq_f64(a, a), vceqq_f64(b, b)))));
  }
  static M mask_or(M a, M b) { return vorrq_u64(a, b); }
  static M mask_and(M a, M b) { return vandq_u64(a, b); }
  static D select(M m, D a, D b) { return vbslq_f64(m, a, b); }  // m ? a : b
  static size_t count(M m) { return static_cast<size_t>((vgetq_lane_u64(m, 0) & 1u) + (vgetq_lane_u64(m, 1) & 1u)); }
};
#endif

}  // namespace ofg::kernels::neon
