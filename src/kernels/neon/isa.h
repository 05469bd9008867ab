// The NEON vector operations and register tile that the shared GEMM, convolution, Winograd and
// pooling templates (kernels/simd/) are instantiated with. Included only by files of this folder.
//
// aarch64 (32 vector registers): an 8x12 tile, 24 accumulators + 3 B vectors + 2 A vectors,
// each step 24 FMLA by lane. 32-bit ARMv7-A NEON (16 quad registers, and multiply by scalar only
// from the lower eight): a 4x8 tile, 8 accumulators + 2 B + 1 A, VMLA by scalar (not fused:
// plain -mfpu=neon has no VFMA; with neon-vfpv4 the elementwise fma below does fuse). ARMv7 NEON
// arithmetic flushes subnormals to zero: results differ from the scalar reference by less than
// the smallest normal float, far inside the kernel tests' tolerances.
#pragma once

#include <arm_neon.h>

#include <cstddef>
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
