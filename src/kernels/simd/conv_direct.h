// Conv2D of few input channels (a CNN's first layer: 3 colour planes; up to 16) for every SIMD
// table, with the output channels across the lanes of vectors. The implicit GEMM
// (simd/conv_blocked.h) packs C_in * kH * kW column rows per output pixel; with 27 such rows (a
// 3x3 stem) its packing and stores took as long as its multiply-adds. Here the weights are packed
// once into vectors of W output channels per tap, and an output pixel's taps are read where they
// lie in a zero-padded band of the input: a register tile of 6 pixels x 2 vectors of output
// channels takes, per tap, two weight vectors and six input values broadcast, as the GEMM's tile
// takes two B vectors and six A values. Each row's results then go to the channels' planes
// through the register transposes of simd/channel_lanes.h, with the epilogue on the lanes.
//
// Each output is the implicit GEMM's sum: fused multiply-adds from zero over the taps in (c, kh,
// kw) order, in one block since the taps are at most Isa::KC (the GEMM's k-block), and the same
// epilogue steps; so both paths give the same bits (tests compare them).
#pragma once

#include "kernels/simd/channel_lanes.h"

#include <algorithm>
#include <cstddef>

namespace ofg::kernels::simd {

// Output pixels and vectors of output channels of the register tile.
constexpr size_t kDirectPixels = 6, kDirectVectors = 2;

// Up to 16 input channels (stems, and SqueezeNet's and mobilenetv3's 16-channel layers) to 8..256
// output channels. Measured against the implicit GEMM (bench_kernels BM_ConvPacked, AVX2 on Zen
// 3): SqueezeNet's stem (3 -> 64, 3x3 stride 2) 0.98 -> 0.68 ms, ResNet's (3 -> 64, 7x7 stride
// 2) 3.9 -> 2.65 ms, a 16 -> 64 3x3 conv on 55x55 0.78 -> 0.70 ms; end to end SqueezeNet 9.4 ->
// 8.2 ms, mobilenetv3-small 6.0 -> 5.4. More input channels have taps enough for the GEMM's
// packing to pay off, and more output channels would keep a row's results out of L1.
// 1x1 convs of 8 or more input channels go to the GEMM, which stores its tiles into the planes
// with the epilogue in registers: MobileNetV2's 16 -> 96 expansion on 112x112 took 0.47 ms here
// against the GEMM's 0.32 (AVX-512, Zen 5), its output four times the size of the input and
// passed over again by the lanes' epilogue and transposes. (The 3x3 convs of 16 channels measured
// the same either way.)
// (Also only while one band row's padded input stays small: large dilations over large pads
// would make it huge, where the implicit GEMM reads the input in place.)
template <class Isa>
bool conv_direct_applies(const Conv2DParams& p) {
  using L = typename TransposeLanes<Isa>::type;
  const size_t taps = p.C_in * p.kH * p.kW;
  if (p.group != 1 || p.C_in > 16 || (p.kH * p.kW == 1 && p.C_in >= 8) || taps == 0 || taps > Isa::KC || p.C_out < L::W || p.C_out > 256 ||
      p.H_out * p.W_out == 0 || p.dil_h > 64 || p.dil_w > 64 || p.stride_h > 64 || p.stride_w > 64 ||
      p.W_out > (size_t{1} << 16))
    return false;
  const size_t Wp = (p.W_out + kDirectPixels - 1) / kDirectPixels * kDirectPixels * p.stride_w + p.kW * p.dil_w;
  const size_t rows = p.stride_h + p.kH * p.dil_h;
  return Wp <= (size_t{1} << 16) && p.C_in * rows * Wp <= (size_t{1} << 22);
}

// Packed weights: per pair of output-channel vectors q of Isa, per tap k = (c, kh, kw), the 2W
// weights of output channels q * 2W.. (zero past C_out).
template <class Isa>
size_t conv_direct_packed_size(const Conv2DParams& p) {
  constexpr size_t Q = kDirectVectors * Isa::W;
  return (p.C_out + Q - 1) / Q * Q * p.C_in * p.kH * p.kW;
}

template <class Isa>
void conv_direct_pack(const Conv2DParams& p, const float* w, float* packed) {
  constexpr size_t Q = kDirectVectors * Isa::W;
  const size_t taps = p.C_in * p.kH * p.kW, pairs = (p.C_out + Q - 1) / Q;
  for (size_t q = 0; q < pairs; ++q)
    for (size_t k = 0; k < taps; ++k)
      for (size_t t = 0; t < Q; ++t) {
        const size_t oc = q * Q + t;
        packed[(q * taps + k) * Q + t] = oc < p.C_out ? w[oc * taps + k] : 0.f;
      }
}

// One register tile: for pixels i < 6 and the 2 vectors g of Isa (2 * Isa::W output channels),
// the sum over taps k of wq[k * 2W + g * W + t] * in[off[k] + i * sx]. The results go out in
// vectors of L (the channel-lanes width, simd/channel_lanes.h): lanes h * L::W.. of vector g to
// res[g * R + h] + i * L::W, R = Isa::W / L::W. AVX-512 computes on its own 16 lanes (Zen 5
// runs two 512-bit FMAs a cycle: twice the 8-lane tile's multiply-adds) while the results keep
// the 8-channel groups that the transposes and the epilogue take.
template <class Isa, class L>
inline void conv_direct_tile(const float* in, size_t sx, const size_t* off, size_t taps, const float* wq,
                             float* const* res) {
  using V = typename Isa::V;
  constexpr size_t VW = Isa::W, P = kDirectPixels, R = Isa::W / L::W;
  V a0[P], a1[P];
#pragma GCC unroll 6
  for (size_t i = 0; i < P; ++i) a0[i] = a1[i] = Isa::zero();
  for (size_t k = 0; k < taps; ++k) {
    const V w0 = Isa::load(wq + k * 2 * VW), w1 = Isa::load(wq + k * 2 * VW + VW);
    const float* s = in + off[k];
#pragma GCC unroll 6
    for (size_t i = 0; i < P; ++i) {
      const V b = splat<Isa>(s[i * sx]);  // (set1 would add 0.f: a dependent add per value)
      a0[i] = Isa::fma(b, w0, a0[i]);
      a1[i] = Isa::fma(b, w1, a1[i]);
    }
  }
  if constexpr (R == 1) {
#pragma GCC unroll 6
    for (size_t i = 0; i < P; ++i) {
      Isa::store(res[0] + i * VW, a0[i]);
      Isa::store(res[1] + i * VW, a1[i]);
    }
  } else {
    // Through a stack copy: one wide store, then R narrow loads and stores per vector.
    alignas(64) float t[2 * VW];
    for (size_t i = 0; i < P; ++i) {
      Isa::store(t, a0[i]);
      Isa::store(t + VW, a1[i]);
#pragma GCC unroll 4
      for (size_t h = 0; h < 2 * R; ++h) L::store(res[h] + i * L::W, L::load(t + h * L::W));
    }
  }
}

// The conv with packed weights, computed on Isa's vectors, the results in groups of the output
// channels across the lanes of L, its epilogue E.
template <class Isa, class L, class E>
void conv_direct_lanes(const Conv2DParams& p, const float* x, const float* packed, float* y, const E& fin) {
  constexpr size_t VW = L::W, P = kDirectPixels, Q = kDirectVectors * Isa::W, GQ = Q / VW;
  const size_t Ho = p.H_out, Wo = p.W_out, HWo = Ho * Wo, taps = p.C_in * p.kH * p.kW;
  const size_t groups = (p.C_out + VW - 1) / VW, pairs = (p.C_out + Q - 1) / Q;
  // Rows of tiles: Wo rounded up to whole tiles; the padded input is wide enough for the last
  // tile's reads (its extra results are never stored).
  const size_t Wt = (Wo + P - 1) / P * P;
  const size_t Wp = (Wt - 1) * p.stride_w + (p.kW - 1) * p.dil_w + 1;
  // Bands of output rows whose input rows (C_in planes of Wp) take about 64 KiB.
  const size_t band = std::clamp<size_t>(16384 / (p.C_in * Wp * p.stride_h), 1, Ho);
  const size_t band_rows_in = (band - 1) * p.stride_h + (p.kH - 1) * p.dil_h + 1;
  const size_t bands = (Ho + band - 1) / band;
  parallel_ranges(p.N * bands, 1, plane_grain(band * Wo * p.C_out * taps), [&](size_t lo, size_t hi) {
    // This thread's tap offsets, padded input band and one row of results per vector of channels.
    size_t* off = reinterpret_cast<size_t*>(detail::scratch(3, taps * sizeof(size_t) / sizeof(float) + 1));
    float* buf = detail::scratch(0, p.C_in * band_rows_in * Wp);
    float* res = detail::scratch(1, groups * Wt * VW + Q * P);
    // (Rows of one vector of the table past the row: the epilogue's last load; AVX-512's are
    // twice its lanes here.)
    const size_t ld = Wo + 2 * VW;
    float* planar = detail::scratch(2, VW * ld);
    for (size_t task = lo; task < hi; ++task) {
      const size_t n = task / bands, oh0 = task % bands * band, nrow = std::min(band, Ho - oh0);
      const size_t rows_in = (nrow - 1) * p.stride_h + (p.kH - 1) * p.dil_h + 1;
      // Padded row r of the band is input row oh0 * stride_h + r - pad_top.
      for (size_t c = 0; c < p.C_in; ++c)
        for (size_t r = 0; r < rows_in; ++r) {
          float* d = buf + (c * rows_in + r) * Wp;
          const ptrdiff_t ih = static_cast<ptrdiff_t>(oh0 * p.stride_h + r) - static_cast<ptrdiff_t>(p.pad_top);
          std::fill(d, d + Wp, 0.f);
          if (ih < 0 || ih >= static_cast<ptrdiff_t>(p.H) || p.pad_left >= Wp) continue;
          const float* src = x + ((n * p.C_in + c) * p.H + static_cast<size_t>(ih)) * p.W;
          std::copy(src, src + std::min(p.W, Wp - p.pad_left), d + p.pad_left);
        }
      for (size_t c = 0, k = 0; c < p.C_in; ++c)
        for (size_t kh = 0; kh < p.kH; ++kh)
          for (size_t kw = 0; kw < p.kW; ++kw, ++k) off[k] = (c * rows_in + kh * p.dil_h) * Wp + kw * p.dil_w;
      for (size_t r = 0; r < nrow; ++r) {
        const float* in = buf + r * p.stride_h * Wp;
        for (size_t q = 0; q < pairs; ++q) {
          // The pair's groups of L past C_out (the tail of the last pair) have their results go to
          // spare room past the groups, one tile's worth, written over and never read.
          float* spare = res + groups * Wt * VW;
          for (size_t ow = 0; ow < Wt; ow += P) {
            float* rg[GQ];
            for (size_t h = 0; h < GQ; ++h) {
              const size_t g = q * GQ + h;
              rg[h] = g < groups ? res + (g * Wt + ow) * VW : spare;
            }
            conv_direct_tile<Isa, L>(in + ow * p.stride_w, p.stride_w, off, taps, packed + q * taps * Q, rg);
          }
        }
        float* yr = y + n * p.C_out * HWo + (oh0 + r) * Wo;
        for (size_t g = 0; g < groups; ++g) {
          const size_t c0 = g * VW, nch = std::min(VW, p.C_out - c0);
          float* rg = res + g * Wt * VW;
          if (fin.in_lanes && nch == VW) {
            fin.to_planes(c0, rg, Wo, yr + c0 * HWo, HWo);
            continue;
          }
          from_lanes<L>(rg, Wo, nch, planar, ld);
          for (size_t t = 0; t < nch; ++t) fin.on_channel(c0 + t, planar + t * ld, Wo, yr + (c0 + t) * HWo);
        }
      }
    }
  });
}

template <class Isa>
void conv_direct(const Conv2DParams& p, const float* x, const float* packed, float* y) {
  using L = typename TransposeLanes<Isa>::type;
  conv_direct_lanes<Isa, L>(p, x, packed, y, LanesEpilogue<Isa, L>(p));
}

}  // namespace ofg::kernels::simd
