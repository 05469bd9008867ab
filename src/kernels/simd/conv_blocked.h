// Conv2D for every SIMD table (the ISA struct is described in simd/gemm_blocked.h; depthwise
// also uses its fma). Depthwise (one filter per channel) runs a direct kernel (simd/depthwise.h),
// and so do convs of at most 4 input channels (simd/conv_direct.h).
// 3x3 stride-1 convs with enough channels take the Winograd path (simd/winograd_f2.h).
// Everything else is an implicit GEMM: the weights are packed once per call (not once per
// image), the column matrix is never materialised (each k-block of it is packed straight from the
// input into the NR-column panels the register tile reads), and bias plus Relu/Clip are applied
// by the tile's last store instead of extra passes over the output.
#pragma once

#include "kernels/simd/conv_direct.h"
#include "kernels/simd/conv_pack.h"
#include "kernels/simd/depthwise.h"
#include "kernels/simd/gemm_blocked.h"
#include "kernels/simd/winograd_f2.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace ofg::kernels::simd {

static inline bool is_depthwise(const Conv2DParams& p) {
  return p.group == p.C_in && p.group == p.C_out && p.group > 1;
}

// A 1x1 conv of single pixels (the squeeze-and-excitation blocks of the mobile CNNs) is one
// matrix-vector product per image with the weights as they lie: the register tile would fill one
// of its NR columns.
static inline bool is_pixel_gemv(const Conv2DParams& p) {
  return p.group == 1 && p.kH == 1 && p.kW == 1 && p.H == 1 && p.W == 1 && p.H_out == 1 && p.W_out == 1;
}

template <class Isa>
void conv_pixel_gemv(const Conv2DParams& p, const float* x, const float* w, float* y) {
  for (size_t n = 0; n < p.N; ++n) sgemv<Isa>(p.C_out, p.C_in, 1.f, w, p.C_in, x + n * p.C_in, 0.f, y + n * p.C_out);
  apply_bias_activation(Isa::table(), y, p.N, p.C_out, 1, p.bias, p.act, p.act_alpha, p.act_beta, p.post);
}

// Packed weights: per group, every k-block of A = w[g] (Cg_out x K) in pack_a's MR-row panels;
// k-block p0 starts at p0 * Mpad and its panel of row i at + i * kc.
template <class Isa>
size_t packed_group_floats(const Conv2DParams& p) {
  const size_t Cg_out = p.C_out / p.group, K = (p.C_in / p.group) * p.kH * p.kW;
  return (Cg_out + Isa::MR - 1) / Isa::MR * Isa::MR * K;
}

template <class Isa>
void pack_weights(const Conv2DParams& p, const float* w, float* packed) {
  const size_t Cg_out = p.C_out / p.group, K = (p.C_in / p.group) * p.kH * p.kW;
  const size_t Mpad = (Cg_out + Isa::MR - 1) / Isa::MR * Isa::MR, per_group = packed_group_floats<Isa>(p);
  // One task per group and k-block: each fills its own panels.
  const size_t kblocks = (K + Isa::KC - 1) / Isa::KC;
  parallel_ranges(p.group * kblocks, 1, plane_grain(Cg_out * Isa::KC), [&](size_t lo, size_t hi) {
    for (size_t b = lo; b < hi; ++b) {
      const size_t g = b / kblocks, p0 = b % kblocks * Isa::KC;
      pack_a<Isa>(false, w + g * Cg_out * K, K, 0, Cg_out, p0, std::min(Isa::KC, K - p0), 1.f,
                  packed + g * per_group + p0 * Mpad);
    }
  });
}

// One GEMM per group and image: A = the group's packed weights (Cg_out x K), B = the image's
// im2col columns, packed per part into this thread's scratch area 3. Planes narrower than a
// register tile whose images side by side take fewer panels (ViT's 4x4 patch grid at batch 2 fills
// one 32-column tile instead of half of two) share one GEMM over all images; its output goes to
// the calling thread's scratch area 1, then to each image's planes.
template <class Isa>
void conv_implicit_gemm(const Conv2DParams& p, const float* x, const float* packed, float* y) {
  constexpr size_t MR = Isa::MR, NR = Isa::NR, KC = Isa::KC, NC = Isa::NC;
  const size_t Cg_in = p.C_in / p.group, Cg_out = p.C_out / p.group;
  const size_t K = Cg_in * p.kH * p.kW, HW = p.H * p.W, HWo = p.H_out * p.W_out;
  Epilogue ep;
  const bool act_after = fused_clamp(p, ep);
  const size_t Mpad = (Cg_out + MR - 1) / MR * MR;
  const size_t imgs = HWo < NR && (p.N * HWo + NR - 1) / NR < p.N ? p.N : 1, cols = imgs * HWo;
  // With one block of rows, a packed B block is read by only Cg_out / MR tiles before the next
  // one: blocks of at most 64K floats (256 KiB) stay in L2 between being packed and read
  // (SqueezeNet's 1x1 convs to 16 channels on 55x55 run 1.5x faster than with blocks of NC).
  const size_t col_block = Cg_out <= Isa::MC ? std::clamp((size_t{1} << 16) / std::min(KC, K) / NR * NR, NR, NC) : NC;
  const size_t pb_floats = std::min(col_block, (cols + NR - 1) / NR * NR) * std::min(KC, K);
  float* side_by_side = imgs > 1 ? detail::scratch(1, Cg_out * cols) : nullptr;
  for (size_t g = 0; g < p.group; ++g) {
    const float* pa = packed + g * packed_group_floats<Isa>(p);
    ep.bias = p.bias ? p.bias + g * Cg_out : nullptr;
    for (size_t n = 0; n < p.N; n += imgs) {
      const float* xg = x + (n * p.C_in + g * Cg_in) * HW;
      float* yg = imgs > 1 ? side_by_side : y + (n * p.C_out + g * Cg_out) * HWo;
      ep.chan = g * Cg_out;  // gemm_part adds each tile's first row
      gemm_parallel<Isa>(Cg_out, cols, K, Prepacked::A, [&](size_t i_lo, size_t i_hi, size_t j_lo, size_t j_hi) {
        float* pb = detail::scratch(3, pb_floats);
        gemm_part<Isa>(K, i_lo, i_hi, j_lo, j_hi, 0.f, yg, cols, ep,
                       [&](size_t i0, size_t, size_t p0, size_t kc) { return pa + p0 * Mpad + i0 * kc; },
                       [&](size_t, size_t p0, size_t kc, size_t js, size_t ns) {
                         zero_panel_tail<Isa>(pb, kc, ns);
                         // Column J is pixel J % HWo of image n + J / HWo.
                         for (size_t m = js / HWo; m * HWo < js + ns; ++m) {
                           const size_t a = std::max(js, m * HWo), b = std::min(js + ns, (m + 1) * HWo);
                           pack_b_conv<Isa>(p, xg + m * p.C_in * HW, p0, kc, a - m * HWo, b - a, pb, a - js);
                         }
                         return static_cast<const float*>(pb);
                       },
                       col_block);
      });
      for (size_t m = 0; imgs > 1 && m < imgs; ++m)
        for (size_t c = 0; c < Cg_out; ++c) {
          const float* src = side_by_side + c * cols + m * HWo;
          std::copy(src, src + HWo, y + ((n + m) * p.C_out + g * Cg_out + c) * HWo);
        }
    }
  }
  if (act_after)
    apply_bias_activation(Isa::table(), y, p.N, p.C_out, HWo, nullptr, p.act, p.act_alpha, p.act_beta);
}

// The conv2d entries of kernels/kernel_list.h. The packed form is either the Winograd-transformed
// weights or the GEMM panels; which one follows from winograd_applies<Isa>(p), so pack and run always
// agree for the same p.
template <class Isa>
size_t conv2d_packed_size(const Conv2DParams& p) {
  if (is_depthwise(p) || is_pixel_gemv(p) || p.C_in / p.group == 0 || p.C_out == 0) return 0;
  if (conv_direct_applies<Isa>(p)) return conv_direct_packed_size<Isa>(p);
  if (winograd_applies<Isa>(p)) return winograd_packed_size<Isa>(p);
  return p.group * packed_group_floats<Isa>(p);
}

template <class Isa>
void conv2d_pack(const Conv2DParams& p, const float* w, float* packed) {
  if (conv_direct_applies<Isa>(p)) conv_direct_pack<Isa>(p, w, packed);
  else if (winograd_applies<Isa>(p)) winograd_pack<Isa>(p, w, packed);
  else pack_weights<Isa>(p, w, packed);
}

template <class Isa>
void conv2d_prepacked(const Conv2DParams& p, const float* x, const float* packed, float* y) {
  if (p.H_out * p.W_out == 0) return;
  if (conv_direct_applies<Isa>(p)) conv_direct<Isa>(p, x, packed, y);
  else if (winograd_applies<Isa>(p)) winograd_conv<Isa>(p, x, packed, y);
  else conv_implicit_gemm<Isa>(p, x, packed, y);
}

template <class Isa>
void conv2d(const Conv2DParams& p, const float* x, const float* w, float* y) {
  const size_t n = conv2d_packed_size<Isa>(p);
  if (is_depthwise(p)) {
    depthwise<Isa>(p, x, w, y);
  } else if (is_pixel_gemv(p) && p.C_in > 0) {
    conv_pixel_gemv<Isa>(p, x, w, y);
  } else if (n == 0 || p.H_out * p.W_out == 0) {
    conv2d_gemm(Isa::table(), p, x, w, y);
  } else if (conv_direct_applies<Isa>(p)) {
    // (The direct conv uses every scratch area.)
    std::vector<float> packed(n);
    conv2d_pack<Isa>(p, w, packed.data());
    conv2d_prepacked<Isa>(p, x, packed.data(), y);
  } else {
    // Without a caller-kept copy the weights are packed here, once for the whole batch.
    float* packed = detail::scratch(2, n);
    conv2d_pack<Isa>(p, w, packed);
    conv2d_prepacked<Isa>(p, x, packed, y);
  }
}

}  // namespace ofg::kernels::simd
