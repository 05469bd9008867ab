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
// not configurable), so on 32-bit ARM the float kernels treat subnormals as zero (results differ
// from the scalar reference by less than the smallest normal float). The bit
// operations (abs, neg, sign, log's exponent split) are done on integers and are exact.
#pragma once

#include "kernels/internal.h"
#include "kernels/simd/lanes.h"

#include <arm_neon.h>

#include <cstddef>
#include <utility>

namespace ofg::kernels::neon {

struct Isa : simd::Lanes<float32x4_t> {
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
  // Input channels from which 3x3 stride-1 convs take the Winograd path (simd/winograd_f2.h).
  static constexpr size_t kWinogradMinCin = 16;

  // The table these instantiations belong to, for the entries a template calls through it.
  static const KernelTable& table() { return neon_table(); }

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

  // Elementwise: what the common lane operations (simd::Lanes, the base) lack.
#if defined(__aarch64__)
  static constexpr bool kExactDiv = true, kExactSqrt = true, kHasF64 = true;
  using F64 = float64x2_t;  // diff (kernels/simd/diff.h)
  static F64 widen(const float* p) { return vcvt_f64_f32(vld1_f32(p)); }
  static V div(V a, V b) { return vdivq_f32(a, b); }
  static V sqrt(V x) { return vsqrtq_f32(x); }
  static V round_even(V x) { return vrndnq_f32(x); }
  static V floor(V x) { return vrndmq_f32(x); }
  static V ceil(V x) { return vrndpq_f32(x); }
  static bool any(V mask) { return vmaxvq_u32(vreinterpretq_u32_f32(mask)) != 0; }
  static float hsum(V v) { return vaddvq_f32(v); }
#else
  static constexpr bool kExactDiv = false, kExactSqrt = false;
  static constexpr bool kHasF64 = false;  // no double vectors: diff stays scalar
  // GCC lowers float vector-extension operators to scalar VFP code on 32-bit ARM (NEON is not
  // IEEE there), so the float arithmetic and comparisons of simd::Lanes are NEON instructions
  // here. GCC 12's vcgtq_f32 / vcltq_f32 are such operators too, hence the VCGT in asm.
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V sub(V a, V b) { return vsubq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  static V gt(V a, V b) {
    uint32x4_t r;
    __asm__("vcgt.f32 %q0, %q1, %q2" : "=w"(r) : "w"(a), "w"(b));
    return vreinterpretq_f32_u32(r);
  }
  static V lt(V a, V b) { return gt(b, a); }
  static V eq(V a, V b) { return vreinterpretq_f32_u32(vceqq_f32(a, b)); }
  static V unord(V a, V b) { return vreinterpretq_f32_u32(vmvnq_u32(vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b)))); }
  static V div(V a, V b) {
    V r = vrecpeq_f32(b);
    r = vmulq_f32(vrecpsq_f32(b, r), r);  // vrecps: 2 - b r
    r = vmulq_f32(vrecpsq_f32(b, r), r);
    return vmulq_f32(a, r);
  }
  static V round_even(V x) {
    // |x| + 2^23 - 2^23 rounds |x| < 2^23 to an integer (ties to even); larger |x|, inf and NaN
    // are integral or kept. The sign is put back so that -0.3 gives -0.
    const V two23 = vdupq_n_f32(8388608.f), ax = abs(x);
    const V r = or_mask(vsubq_f32(vaddq_f32(ax, two23), two23), sign_bit(x));
    return select(lt(ax, two23), r, x);
  }
  // round_even(x) -+ 1 where it went past x; the sign of x keeps floor(-0) and ceil(-0.5) -0.
  static V floor(V x) {
    const V r = round_even(x);
    return or_mask(vsubq_f32(r, select(gt(r, x), vdupq_n_f32(1.f), zero())), sign_bit(x));
  }
  static V ceil(V x) {
    const V r = round_even(x);
    return or_mask(vaddq_f32(r, select(lt(r, x), vdupq_n_f32(1.f), zero())), sign_bit(x));
  }
  static bool any(V mask) {
    const uint32x4_t m = vreinterpretq_u32_f32(mask);
    const uint32x2_t t = vorr_u32(vget_low_u32(m), vget_high_u32(m));
    return (vget_lane_u32(t, 0) | vget_lane_u32(t, 1)) != 0;
  }
  static float hsum(V v) {
    const float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(vpadd_f32(s, s), 0);
  }
#endif
  static V fnma(V a, V b, V c) {  // c - a * b
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
    return vfmsq_f32(c, a, b);
#else
    return vmlsq_f32(c, a, b);
#endif
  }

  // transpose2d (kernels/simd/transpose.h): 4x4 float tiles transposed in registers (vtrn, then
  // the halves recombined). Only permutes: bits move unchanged, subnormals on 32-bit ARM too.
  // With on_row, each source row goes through on_row(V) first (the conv epilogue on channels in
  // lanes, simd/channel_lanes.h, done on the way instead of in a pass of its own).
  static constexpr size_t kTile = 4;
  struct AsIs {
    __attribute__((always_inline)) V operator()(V v) const { return v; }
  };
  template <class F = AsIs>
  __attribute__((always_inline)) static inline void transpose_tile(const float* s, size_t sld, float* d, size_t dld,
                                                                   const F& on_row = {}) {
    // Rows a, b, c, d: t01 = {a0 b0 a2 b2}, {a1 b1 a3 b3}; t23 likewise for c, d.
    const float32x4x2_t t01 = vtrnq_f32(on_row(vld1q_f32(s)), on_row(vld1q_f32(s + sld)));
    const float32x4x2_t t23 = vtrnq_f32(on_row(vld1q_f32(s + 2 * sld)), on_row(vld1q_f32(s + 3 * sld)));
    vst1q_f32(d, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
    vst1q_f32(d + dld, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
    vst1q_f32(d + 2 * dld, vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
    vst1q_f32(d + 3 * dld, vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
  }

  // Lanes [from, from + n) = s[0 .. n), the others 0 (the Winograd transform's plane edges).
  static V load_lanes(const float* s, size_t from, size_t n) {
    float lanes[4] = {0.f, 0.f, 0.f, 0.f};
    for (size_t t = 0; t < n; ++t) lanes[from + t] = s[t];
    return vld1q_f32(lanes);
  }
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

}  // namespace ofg::kernels::neon
