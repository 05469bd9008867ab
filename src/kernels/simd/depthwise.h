// Depthwise Conv2D (one filter per channel, group == C_in == C_out) for every SIMD table, with
// the channels across the lanes: a group of W channels (W the vector width) is copied,
// zero-padded, into one buffer where each pixel is a vector of those W channels, so every output
// pixel of the group is one vector and tap (kh, kw) one vector load whatever the strides, the
// dilations and the plane's width. (Vector runs along each plane leave lanes idle or compute
// padding columns on 7x7 and 14x14 outputs, and stride 2 needs its columns deinterleaved first:
// they measured 1.05x to 1.25x slower end to end on the mobile CNNs. Tried again on AVX-512 for
// stride 1 only, with all 16 lanes along the rows where the lanes hold 8 channels, tiles of 4 to
// 8 vectors and the padded rows copied in vector stores: MobileNetV2's 144-channel 56x56 layer
// went from 0.17 to 0.19 ms; with every tap load made aligned (wrong results: a bound on what
// shuffling aligned loads could give) 0.16 ms.) A band of output rows reads the band's input
// rows, moved into lanes by the ISA's register transposes
// (Isa::transpose_tile); each output is one chain of fused multiply-adds from zero over the taps
// in (kh, kw) order. The bias, the clamp and the ConvPost (the tile epilogue of
// simd/gemm_blocked.h) run on the result vectors with each channel's constants in its lane,
// then the transposes put them in the channels' planes. Where the lanes are not the table's own,
// or part of the activation runs over stored values, the results go to the planes first and the
// epilogue runs per channel.
#pragma once

#include "kernels/simd/channel_lanes.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace ofg::kernels::simd {

// Rows [r0, r0 + nrows) of the padded input of channels c0.. c0 + nch (nch <= W) of one image into
// buf: padded row r, padded column q, lane t at buf[((r - r0) * Wp + q) * W + t]. Input pixel
// (ih, iw) is padded (ih + pad_top, iw + pad_left); everything else is zero. Lanes past nch are
// left as they are (their results are never stored). The input rows, consecutive in each plane,
// go into lanes at once (staging), then row by row into place.
template <class L>
void depthwise_lanes_pack(const Conv2DParams& p, const float* x0, size_t nch, size_t r0, size_t nrows, size_t Wp,
                          float* staging, float* buf) {
  constexpr size_t VW = L::W;
  const size_t pl = p.pad_left, H = p.H;
  // Input rows [ih_lo, ih_hi) lie inside the band; input columns [0, w_in) inside its Wp columns.
  const size_t ih_lo = std::min(H, r0 > p.pad_top ? r0 - p.pad_top : 0);
  const size_t ih_hi = std::clamp(r0 + nrows, p.pad_top, p.pad_top + H) - p.pad_top;
  const size_t w_in = Wp > pl ? std::min(p.W, Wp - pl) : 0;
  // Rows of at least W pixels of a whole group go into place directly, the last tile of a row
  // over pixels already moved (the same values again).
  const bool direct = nch == VW && w_in >= VW;
  if (ih_hi > ih_lo && !direct) to_lanes<L>(x0 + ih_lo * p.W, H * p.W, (ih_hi - ih_lo) * p.W, nch, staging);
  for (size_t r = r0; r < r0 + nrows; ++r) {
    float* row = buf + (r - r0) * Wp * VW;
    const size_t ih = r - p.pad_top;  // wraps below pad_top: then not inside
    if (r < p.pad_top || ih >= H || w_in == 0) {
      std::fill(row, row + Wp * VW, 0.f);
      continue;
    }
    std::fill(row, row + std::min(pl, Wp) * VW, 0.f);
    if (direct) {
      const float* src = x0 + ih * p.W;
      float* d = row + pl * VW;
      size_t iw = 0;
      for (; iw + VW <= w_in; iw += VW) L::transpose_tile(src + iw, H * p.W, d + iw * VW, VW);
      if (iw < w_in) L::transpose_tile(src + w_in - VW, H * p.W, d + (w_in - VW) * VW, VW);
    } else {
      const float* s = staging + (ih - ih_lo) * p.W * VW;
      std::copy(s, s + w_in * VW, row + pl * VW);
    }
    std::fill(row + (pl + w_in) * VW, row + Wp * VW, 0.f);
  }
}

// N consecutive outputs of a row: out[i * W + t] = sum over the taps in (kh, kw) order of
// wl[(kh * kW + kw) * W + t] * s[kh * dy + kw * dx + i * sx + t], each a chain of fused
// multiply-adds from zero. KH x KW > 0 fixes the taps, so that their loop unrolls.
template <class L, size_t N, size_t KH, size_t KW>
inline void depthwise_lanes_run(const float* s, size_t sx, size_t dy, size_t dx, const float* wl, size_t kH,
                                size_t kW, float* out) {
  using V = typename L::V;
  constexpr size_t VW = L::W;
  V a[N];
#pragma GCC unroll 8
  for (size_t i = 0; i < N; ++i) a[i] = L::zero();
  auto tap = [&](size_t k, const float* t) {
    const V wk = L::load(wl + k * VW);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) a[i] = L::fma(L::load(t + i * sx), wk, a[i]);
  };
  if constexpr (KH * KW > 0) {
#pragma GCC unroll 25
    for (size_t k = 0; k < KH * KW; ++k) tap(k, s + k / KW * dy + k % KW * dx);
  } else {
    for (size_t kh = 0, k = 0; kh < kH; ++kh)
      for (size_t kw = 0; kw < kW; ++kw, ++k) tap(k, s + kh * dy + kw * dx);
  }
#pragma GCC unroll 8
  for (size_t i = 0; i < N; ++i) L::store(out + i * VW, a[i]);
}

// The nrow x Wo outputs of a band whose input rows start at buf (Wp vectors a row) into res (one
// vector each): eight along a row at a time (independent chains hide the fma latency; each tap's
// weights are loaded once for them), then 4, 2 and 1.
template <class L, size_t KH, size_t KW>
void depthwise_lanes_band(const Conv2DParams& p, const float* buf, size_t Wp, const float* wl, size_t nrow,
                          float* res) {
  constexpr size_t VW = L::W;
  const size_t kH = p.kH, kW = p.kW, Wo = p.W_out;
  const size_t sx = p.stride_w * VW, row_step = p.stride_h * Wp * VW;
  const size_t dy = p.dil_h * Wp * VW, dx = p.dil_w * VW;
  for (size_t r = 0; r < nrow; ++r) {
    const float* in = buf + r * row_step;
    float* out = res + r * Wo * VW;
    size_t ow = 0;
    for (; ow + 8 <= Wo; ow += 8) depthwise_lanes_run<L, 8, KH, KW>(in + ow * sx, sx, dy, dx, wl, kH, kW, out + ow * VW);
    // The rest in runs of 4, 2 and 1.
    if (ow + 4 <= Wo) {
      depthwise_lanes_run<L, 4, KH, KW>(in + ow * sx, sx, dy, dx, wl, kH, kW, out + ow * VW);
      ow += 4;
    }
    if (ow + 2 <= Wo) {
      depthwise_lanes_run<L, 2, KH, KW>(in + ow * sx, sx, dy, dx, wl, kH, kW, out + ow * VW);
      ow += 2;
    }
    if (ow < Wo) depthwise_lanes_run<L, 1, KH, KW>(in + ow * sx, sx, dy, dx, wl, kH, kW, out + ow * VW);
  }
}

// The depthwise conv with the channels across the lanes of L, its epilogue E (LanesEpilogue).
template <class L, class E>
void depthwise_lanes(const Conv2DParams& p, const float* x, const float* w, float* y, const E& fin) {
  constexpr size_t VW = L::W;
  const size_t Ho = p.H_out, Wo = p.W_out, taps = p.kH * p.kW, HWo = Ho * Wo;
  // Padded columns the outputs read: up to (Wo - 1) * sw + (kW - 1) * dil_w.
  const size_t Wp = (Wo - 1) * p.stride_w + (p.kW - 1) * p.dil_w + 1;
  // Bands of output rows whose input rows (about band * stride_h of Wp vectors) stay within 32 KiB.
  const size_t band = std::clamp<size_t>(8192 / (Wp * VW * p.stride_h), 1, Ho);
  const size_t band_rows_in = (band - 1) * p.stride_h + (p.kH - 1) * p.dil_h + 1;
  const size_t groups = (p.C_in + VW - 1) / VW;
  const size_t tasks = p.N * groups;
  parallel_ranges(tasks, 1, plane_grain(HWo * taps * VW), [&](size_t lo, size_t hi) {
    // This thread's weights in lanes, input band and results.
    float* wl = detail::scratch(0, taps * VW + band_rows_in * Wp * VW);
    float* buf = wl + taps * VW;
    float* staging = detail::scratch(3, band_rows_in * p.W * VW);
    float* res = detail::scratch(1, band * Wo * VW);
    // (Rows of one vector of the table past the band: the epilogue's last load; AVX-512's are
    // twice its lanes here.)
    const size_t ld = band * Wo + 2 * VW;
    float* planar = detail::scratch(2, VW * ld);
    for (size_t task = lo; task < hi; ++task) {
      const size_t n = task / groups, c0 = task % groups * VW, nch = std::min(VW, p.C_in - c0);
      for (size_t k = 0; k < taps; ++k)
        for (size_t t = 0; t < VW; ++t) wl[k * VW + t] = t < nch ? w[(c0 + t) * taps + k] : 0.f;
      const float* x0 = x + (n * p.C_in + c0) * p.H * p.W;
      float* y0 = y + (n * p.C_in + c0) * HWo;
      for (size_t oh = 0; oh < Ho; oh += band) {
        const size_t nrow = std::min(band, Ho - oh);
        const size_t rows_in = (nrow - 1) * p.stride_h + (p.kH - 1) * p.dil_h + 1;
        depthwise_lanes_pack<L>(p, x0, nch, oh * p.stride_h, rows_in, Wp, staging, buf);
        if (p.kH == 3 && p.kW == 3) depthwise_lanes_band<L, 3, 3>(p, buf, Wp, wl, nrow, res);
        else if (p.kH == 5 && p.kW == 5) depthwise_lanes_band<L, 5, 5>(p, buf, Wp, wl, nrow, res);
        else depthwise_lanes_band<L, 0, 0>(p, buf, Wp, wl, nrow, res);
        // The band's results are whole rows, as consecutive as the output's: one run per channel.
        if (fin.in_lanes && nch == VW) {
          fin.to_planes(c0, res, nrow * Wo, y0 + oh * Wo, HWo);
          continue;
        }
        from_lanes<L>(res, nrow * Wo, nch, planar, ld);
        for (size_t t = 0; t < nch; ++t) fin.on_channel(c0 + t, planar + t * ld, nrow * Wo, y0 + t * HWo + oh * Wo);
      }
    }
  });
}

template <class Isa>
void depthwise(const Conv2DParams& p, const float* x, const float* w, float* y) {
  using L = typename TransposeLanes<Isa>::type;
  static_assert(L::kTile == L::W, "the depthwise transposes move tiles as wide as the vectors");
  if (p.W_out == 0 || p.H_out == 0) return;
  depthwise_lanes<L>(p, x, w, y, LanesEpilogue<Isa, L>(p));
}

}  // namespace ofg::kernels::simd
