// The NEON vector operations and register tile that the shared templates of kernels/simd/
// (GEMM, convolution, Winograd, pooling, vector math, elementwise, reductions) are instantiated
// with: 4 float lanes, masks as all-ones lanes of the float vector. Included only by files of
// this folder.
//
// aarch64 (32 vector registers): an 8x12 tile, 24 accumulators + 3 B vectors + 2 A vectors,
// each step 24 FMLA by lane. 32-bit ARMv7-A NEON (16 quad registers, and multiply by scalar only
// from the lower eight): a 4x8 tile, 8 accumulators + 2 B + 1 A, VMLA by scalar (not fused:
// plain -mfpu=neon has no VFMA; with neon-vfpv4 the elementwise fma below does fuse).
//
// Elementwise, 32-bit ARMv7-A NEON lacks several operations that aarch64 has:
// - division: reciprocal estimate and two Newton steps, a few ulps off, so kExactDiv is false and
//   Div / Reciprocal stay scalar; the approximations (tanh, sigmoid, log, softplus) use it and
//   the tests hold them to the same bounds;
// - square root: none (kExactSqrt false, Sqrt stays scalar);
// - rounding to integral: the 2^23 trick (NEON rounds to nearest even whatever FPSCR says);
// - across-lane sums and tests: pairwise operations.
// ARMv7 NEON also flushes subnormal operands and results to zero (the "standard FPSCR value",
// not configurable), so on 32-bit ARM the float kernels treat subnormals as zero. The bit
// operations (abs, neg, sign, log's exponent split) are done on integers and are exact.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace ofg::kernels::neon {

struct Isa {
  using V = float32x4_t;
  static constexpr size_t W = 4;
#if defined(__aarch64__)
  static constexpr size_t MR = 8, NR = 12;
  // B block kc x nc = 960 KiB and A block 128 KiB: the L2 of current big cores (1 MiB and up),
  // mc a multiple of the tile. Not tuned on hardware (tests run under emulation).
  static constexpr size_t KC = 256, MC = 128, NC = 960;
#else
  static constexpr size_t MR = 4, NR = 8;
  static constexpr size_t KC = 256, MC = 128, NC = 512;
#endif

  static V zero() { return vdupq_n_f32(0.f); }
  static V set1(float v) { return vdupq_n_f32(v); }
  static V load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, V v) { vst1q_f32(p, v); }
  static V fma(V a, V b, V c) {
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
    return vfmaq_f32(c, a, b);
#else
    return vmlaq_f32(c, a, b);
#endif
  }
  // FMIN/FMAX (and ARMv7 VMIN/VMAX) give NaN when either operand is NaN.
  static V min(V a, V b) { return vminq_f32(a, b); }
  static V max(V a, V b) { return vmaxq_f32(a, b); }
  static V nan_mask(V v) { return vreinterpretq_f32_u32(vmvnq_u32(vceqq_f32(v, v))); }
  static V or_mask(V a, V b) {
    return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)));
  }
  static V select(V mask, V yes, V no) { return vbslq_f32(vreinterpretq_u32_f32(mask), yes, no); }

  // Elementwise arithmetic, comparisons and the integer lanes of the vector math.
  using I = int32x4_t;
#if defined(__aarch64__)
  static constexpr bool kExactDiv = true, kExactSqrt = true;
#else
  static constexpr bool kExactDiv = false, kExactSqrt = false;
#endif
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V sub(V a, V b) { return vsubq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
#if defined(__aarch64__)
  static V div(V a, V b) { return vdivq_f32(a, b); }
  static V sqrt(V x) { return vsqrtq_f32(x); }
#else
  static V div(V a, V b) {
    V r = vrecpeq_f32(b);
    r = vmulq_f32(vrecpsq_f32(b, r), r);  // vrecps: 2 - b r
    r = vmulq_f32(vrecpsq_f32(b, r), r);
    return vmulq_f32(a, r);
  }
#endif
  static V fnma(V a, V b, V c) {  // c - a * b
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
    return vfmsq_f32(c, a, b);
#else
    return vmlsq_f32(c, a, b);
#endif
  }
  static V abs(V x) { return bits(vandq_u32(ubits(x), vdupq_n_u32(0x7FFFFFFFu))); }
  static V neg(V x) { return bits(veorq_u32(ubits(x), vdupq_n_u32(0x80000000u))); }
  static V sign_bit(V x) { return bits(vandq_u32(ubits(x), vdupq_n_u32(0x80000000u))); }
#if defined(__aarch64__)
  static V round_even(V x) { return vrndnq_f32(x); }
  static V floor(V x) { return vrndmq_f32(x); }
  static V ceil(V x) { return vrndpq_f32(x); }
  static float hsum(V v) { return vaddvq_f32(v); }
  static bool any(V mask) { return vmaxvq_u32(ubits(mask)) != 0; }
#else
  static V round_even(V x) {
    // |x| + 2^23 - 2^23 rounds |x| < 2^23 to an integer (ties to even); larger |x|, inf and NaN
    // are integral or kept. The sign is put back so that -0.3 gives -0.
    const V two23 = vdupq_n_f32(8388608.f), ax = abs(x);
    const V r = or_mask(vsubq_f32(vaddq_f32(ax, two23), two23), sign_bit(x));
    return vbslq_f32(vcltq_f32(ax, two23), r, x);
  }
  // round_even(x) -+ 1 where it went past x; the sign of x keeps floor(-0) and ceil(-0.5) -0.
  static V floor(V x) {
    const V r = round_even(x);
    const V one = bits(vandq_u32(vcgtq_f32(r, x), ubits(vdupq_n_f32(1.f))));
    return or_mask(vsubq_f32(r, one), sign_bit(x));
  }
  static V ceil(V x) {
    const V r = round_even(x);
    const V one = bits(vandq_u32(vcltq_f32(r, x), ubits(vdupq_n_f32(1.f))));
    return or_mask(vaddq_f32(r, one), sign_bit(x));
  }
  static float hsum(V v) {
    const float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(vpadd_f32(s, s), 0);
  }
  static bool any(V mask) {
    const uint32x2_t t = vorr_u32(vget_low_u32(ubits(mask)), vget_high_u32(ubits(mask)));
    return (vget_lane_u32(t, 0) | vget_lane_u32(t, 1)) != 0;
  }
#endif
  static V lt(V a, V b) { return bits(vcltq_f32(a, b)); }
  static V gt(V a, V b) { return bits(vcgtq_f32(a, b)); }
  static V eq(V a, V b) { return bits(vceqq_f32(a, b)); }
  static V unord(V a, V b) { return bits(vmvnq_u32(vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b)))); }
  static I as_int(V x) { return vreinterpretq_s32_f32(x); }
  static V as_float(I x) { return vreinterpretq_f32_s32(x); }
  static I iset1(int v) { return vdupq_n_s32(v); }
  static I iand(I a, I b) { return vandq_s32(a, b); }
  static I ior(I a, I b) { return vorrq_s32(a, b); }
  static I isub(I a, I b) { return vsubq_s32(a, b); }
  static V int_eq(I a, I b) { return bits(vceqq_s32(a, b)); }
  static V int_lt(I a, I b) { return bits(vcltq_s32(a, b)); }
  static I to_int(V x) { return vcvtq_s32_f32(x); }  // x integral
  static V int_to_float(I x) { return vcvtq_f32_s32(x); }
  static I half_int(I n) { return vshrq_n_s32(n, 1); }  // floor(n / 2)
  static V pow2(I n) { return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n, vdupq_n_s32(127)), 23)); }
  static I exponent_field(I b) { return vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(b), 23)); }
  static uint32x4_t ubits(V x) { return vreinterpretq_u32_f32(x); }
  static V bits(uint32x4_t u) { return vreinterpretq_f32_u32(u); }

  // d[t] = v[from + t] for t < n (the Winograd transform's panel edges: rare enough for a copy).
  static void store_lanes(float* d, V v, size_t from, size_t n) {
    float lanes[4];
    vst1q_f32(lanes, v);
    for (size_t t = 0; t < n; ++t) d[t] = lanes[from + t];
  }
  static void deinterleave(const float* p, V& even, V& odd) {
    const float32x4x2_t v = vld2q_f32(p);
    even = v.val[0];
    odd = v.val[1];
  }
  static void store_interleaved(float* o, V a, V b) { vst2q_f32(o, (float32x4x2_t{{a, b}})); }

  static constexpr size_t NV = NR / W;  // B vectors per step

  // c + b * a[L].
  template <int L>
  static V fma_lane(V c, V b, V a) {
#if defined(__aarch64__)
    return vfmaq_laneq_f32(c, b, a, L);
#else
    return vmlaq_lane_f32(c, b, L < 2 ? vget_low_f32(a) : vget_high_f32(a), L & 1);
#endif
  }

  // acc[i * NV + h] = sum over p < kc of a[p * MR + i] * b[p * NR + W h .. + W]. Written with
  // pack expansions over the accumulator index K = i * NV + h (and over the A and B vectors)
  // rather than loops, so that every index is a constant: the lane of the multiply-by-element
  // must be one, and the compiler keeps constant-indexed arrays in registers (with loops it
  // kept the accumulators in memory).
  static void gemm_acc(size_t kc, const float* a, const float* b, V (&acc)[MR * NV]) {
    step_all(kc, a, b, acc, std::make_index_sequence<MR * NV>{}, std::make_index_sequence<MR / 4>{},
             std::make_index_sequence<NV>{});
  }

  template <size_t... K, size_t... IA, size_t... IB>
  static void step_all(size_t kc, const float* a, const float* b, V (&acc)[MR * NV],
                       std::index_sequence<K...>, std::index_sequence<IA...>, std::index_sequence<IB...>) {
    V c[MR * NV] = {((void)K, vdupq_n_f32(0.f))...};
    for (size_t p = 0; p < kc; ++p) {
      const V av[MR / 4] = {vld1q_f32(a + 4 * IA)...};
      const V bv[NV] = {vld1q_f32(b + W * IB)...};
      ((c[K] = fma_lane<(K / NV) % 4>(c[K], bv[K % NV], av[K / NV / 4])), ...);
      a += MR;
      b += NR;
    }
    ((acc[K] = c[K]), ...);
  }
};

#if defined(__aarch64__)
// 2 double lanes, for diff_f32 (kernels/simd/diff.h); 32-bit ARM NEON has no double vectors.
struct IsaF64 {
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
