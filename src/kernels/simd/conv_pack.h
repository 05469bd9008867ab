// The column matrix of the implicit-GEMM convolution (simd/conv_blocked.h), packed straight from
// the input into pack_b's NR-column panels (simd/gemm_blocked.h), one k-block at a time; it is
// never materialised. Row k = (c, kh, kw) of the matrix is one kernel tap, column j one output
// pixel; a k-row reads the input plane of channel c shifted by the tap, zero in the padding.
#pragma once

#include "kernels/simd/gemm_blocked.h"

#include <algorithm>
#include <cstddef>

namespace ofg::kernels::simd {

// Where one k-row's columns go: column j of the image at panel position q = j - j0 + q0 of the
// block being packed (q0 > 0 when several images' columns share the block's panels).
template <size_t NR>
struct KRowDst {
  float* dst;
  size_t pp, kc, j0, q0;
  size_t pos(size_t j) const { return j - j0 + q0; }
  float* at(size_t j) const {
    const size_t q = pos(j);
    return dst + q / NR * kc * NR + pp * NR + q % NR;
  }
};

// Stride 1 with W_out == W (1x1 convs, and kxk convs padded to keep the width): column j of the
// image reads plane[j + off_h * W + off_w] wherever that pixel is inside the input, so a k-row is
// one contiguous run of the plane, copied a panel row at a time; then the columns whose pixel
// lies in the padding are zeroed (rows above and below the input, and the columns left of ow_lo
// or from ow_hi on). Narrow planes thus cost vector copies instead of one run per output row.
template <class Isa>
void pack_b_dense_row(const Conv2DParams& p, const float* plane, ptrdiff_t off_h, ptrdiff_t off_w, ptrdiff_t ow_lo,
                      ptrdiff_t ow_hi, const KRowDst<Isa::NR>& out, size_t nc) {
  constexpr size_t NR = Isa::NR;
  const ptrdiff_t HW = static_cast<ptrdiff_t>(p.H * p.W), shift = off_h * static_cast<ptrdiff_t>(p.W) + off_w;
  const size_t jend = out.j0 + nc;
  // Pieces that end at panel boundaries.
  for (size_t j = out.j0, n; j < jend; j += n) {
    n = std::min(NR - out.pos(j) % NR, jend - j);
    float* d = out.at(j);
    const ptrdiff_t s = static_cast<ptrdiff_t>(j) + shift;
    if (n == NR && s >= 0 && s + static_cast<ptrdiff_t>(NR) <= HW) {
      copy_panel_row<Isa>(d, plane + s);
      continue;
    }
    // A piece of a panel (narrow blocks, a block's first and last panel): whole vectors while
    // inside the plane. Near the plane's ends never read outside it (those columns are zeroed below).
    size_t t = 0;
    if (s >= 0)
      for (; t + Isa::W <= n && s + static_cast<ptrdiff_t>(t + Isa::W) <= HW; t += Isa::W)
        Isa::store(d + t, Isa::load(plane + s + static_cast<ptrdiff_t>(t)));
    for (; t < n; ++t) {
      const ptrdiff_t i = s + static_cast<ptrdiff_t>(t);
      d[t] = i >= 0 && i < HW ? plane[i] : 0.f;
    }
  }
  const size_t Wo = p.W_out;
  const ptrdiff_t H = static_cast<ptrdiff_t>(p.H);
  const size_t lo = static_cast<size_t>(std::clamp<ptrdiff_t>(ow_lo, 0, static_cast<ptrdiff_t>(Wo)));
  const size_t hi = static_cast<size_t>(std::clamp<ptrdiff_t>(ow_hi, static_cast<ptrdiff_t>(lo), static_cast<ptrdiff_t>(Wo)));
  const bool all_rows = off_h >= 0 && static_cast<ptrdiff_t>(p.H_out) + off_h <= H;
  if (all_rows && lo == 0 && hi == Wo) return;
  auto zero = [&](size_t a, size_t b) {
    for (size_t j = std::max(a, out.j0); j < std::min(b, jend); ++j) *out.at(j) = 0.f;
  };
  for (size_t oh = out.j0 / Wo, row = oh * Wo; row < jend; ++oh, row += Wo) {
    const ptrdiff_t ih = static_cast<ptrdiff_t>(oh) + off_h;
    if (ih < 0 || ih >= H) {
      zero(row, row + Wo);
    } else {
      zero(row, row + lo);
      zero(row + hi, row + Wo);
    }
  }
}

// The kW k-rows out.pp.. of one (c, kh) when the kernel is as wide as its stride and nothing is
// padded along W (ViT's patchify, 2x2 stride-2 downsampling): tap kw of output column ow reads
// input column ow * kW + kw, so these k-rows read each input row once, contiguously, and write it
// transposed. The per-run walk would go one output column (a few floats) per run.
template <class Isa>
void pack_b_patch_rows(const Conv2DParams& p, const float* plane, ptrdiff_t off_h, const KRowDst<Isa::NR>& out,
                       size_t nc) {
  constexpr size_t NR = Isa::NR;
  const size_t Wo = p.W_out, kW = p.kW, jend = out.j0 + nc;
  for (size_t oh = out.j0 / Wo, row = oh * Wo; row < jend; ++oh, row += Wo) {
    const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h) + off_h;
    const bool inside = ih >= 0 && ih < static_cast<ptrdiff_t>(p.H);
    const float* src = plane + (inside ? ih : 0) * static_cast<ptrdiff_t>(p.W);
    for (size_t j = std::max(row, out.j0); j < std::min(row + Wo, jend); ++j) {
      float* d = out.at(j);
      const float* s = src + (j - row) * kW;
      if (inside)
        for (size_t kw = 0; kw < kW; ++kw) d[kw * NR] = s[kw];
      else
        for (size_t kw = 0; kw < kW; ++kw) d[kw * NR] = 0.f;
    }
  }
}

// Lanes past the block's n columns in its last panel are multiplied but never stored; zero them
// so they stay finite. Whole vectors from the one holding lane n % NR, before the columns are
// written over them (a scalar tail per k-row compiles to a memset call).
template <class Isa>
void zero_panel_tail(float* dst, size_t kc, size_t n) {
  constexpr size_t NR = Isa::NR;
  if (n % NR == 0) return;
  float* d = dst + n / NR * kc * NR;
  for (size_t pp = 0; pp < kc; ++pp)
    for (size_t h = n % NR / Isa::W * Isa::W; h < NR; h += Isa::W) Isa::store(d + pp * NR + h, Isa::zero());
}

// Moves the column cursor of pack_b_conv past a run, wrapping to the next output row.
static inline void continue_run(size_t& j, size_t& ow, size_t& oh, size_t run, size_t row_len) {
  j += run;
  ow += run;
  if (ow == row_len) {
    ow = 0;
    ++oh;
  }
}

// Packs rows [p0, p0 + kc) x columns [j0, j0 + nc) of one image's column matrix into pack_b's
// layout (NR-column panels, kc rows of NR floats), column j at panel position j - j0 + q0; the
// caller zeroes the last panel's tail (zero_panel_tail). xg points at the image's first input
// channel of the group. Outside the two cases above, columns are walked in runs that stay inside
// one output row and one panel, so each run is a contiguous (stride 1) or strided read of one
// input row with the padded ends zeroed.
template <class Isa>
void pack_b_conv(const Conv2DParams& p, const float* xg, size_t p0, size_t kc, size_t j0, size_t nc, float* dst,
                 size_t q0) {
  constexpr size_t NR = Isa::NR;
  constexpr ptrdiff_t VW = static_cast<ptrdiff_t>(Isa::W);
  const size_t khw = p.kH * p.kW, HW = p.H * p.W;
  const ptrdiff_t H = static_cast<ptrdiff_t>(p.H), W = static_cast<ptrdiff_t>(p.W);
  const ptrdiff_t sw = static_cast<ptrdiff_t>(p.stride_w);
  const bool dense = p.stride_h == 1 && p.stride_w == 1 && p.W_out == p.W;
  const bool patches = p.kW > 1 && p.stride_w == p.kW && p.dil_w == 1 && p.pad_left == 0 && p.pad_right == 0;
  const size_t row_len = p.W_out;
  const size_t jend = j0 + nc;
  auto ceil_div = [sw](ptrdiff_t v) { return sw == 1 ? v : (v + sw - 1) / sw; };
  // Tap (c, kh, kw) of k-row pp, stepped along with pp: narrow blocks pay per k-row, and
  // divisions by runtime values cost tens of cycles each.
  size_t c = p0 / khw, kh = p0 % khw / p.kW, kw = p0 % p.kW;
  for (size_t pp = 0, rows = 1; pp < kc; pp += rows) {
    const float* plane = xg + c * HW;
    const ptrdiff_t off_h = static_cast<ptrdiff_t>(kh * p.dil_h) - static_cast<ptrdiff_t>(p.pad_top);
    const ptrdiff_t off_w = static_cast<ptrdiff_t>(kw * p.dil_w) - static_cast<ptrdiff_t>(p.pad_left);
    // Output columns whose input column is inside [0, W): ow in [ow_lo, ow_hi).
    const ptrdiff_t ow_lo = off_w >= 0 ? 0 : ceil_div(-off_w);
    const ptrdiff_t ow_hi = W - off_w <= 0 ? 0 : ceil_div(W - off_w);
    const KRowDst<NR> out{dst, pp, kc, j0, q0};
    // Whole groups of kW k-rows only (a k-block may start or end inside one).
    rows = patches && kw == 0 && pp + p.kW <= kc ? p.kW : 1;
    kw += rows;
    if (kw == p.kW) {
      kw = 0;
      if (++kh == p.kH) {
        kh = 0;
        ++c;
      }
    }
    if (dense) {
      pack_b_dense_row<Isa>(p, plane, off_h, off_w, ow_lo, ow_hi, out, nc);
      continue;
    }
    if (rows > 1) {
      pack_b_patch_rows<Isa>(p, plane, off_h, out, nc);
      continue;
    }
    size_t j = j0, oh = j0 / row_len, ow = j0 % row_len;
    while (j < jend) {
      const size_t lane = out.pos(j) % NR;
      const size_t run = std::min({row_len - ow, jend - j, NR - lane});
      float* d = out.at(j);
      const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h) + off_h;
      const ptrdiff_t o = static_cast<ptrdiff_t>(ow), n = static_cast<ptrdiff_t>(run);
      const ptrdiff_t t_lo = (ih < 0 || ih >= H) ? n : std::min(n, std::max<ptrdiff_t>(0, ow_lo - o));
      const ptrdiff_t t_hi = (ih < 0 || ih >= H) ? n : std::max(t_lo, std::min(n, ow_hi - o));
      ptrdiff_t t = 0;
      if (t_lo == 0 && t_hi == static_cast<ptrdiff_t>(NR) && sw == 1) {
        // A whole panel row from one input row: the common case in the interior.
        copy_panel_row<Isa>(d, plane + ih * W + o + off_w);
        continue_run(j, ow, oh, run, row_len);
        continue;
      }
      for (; t < t_lo; ++t) d[t] = 0.f;
      if (t < t_hi) {
        const float* in = plane + ih * W + o * sw + off_w;
        if (sw == 1) {
          for (; t < t_hi; ++t) d[t] = in[t];
        } else {
          if (sw == 2) {
            // Stride 2 (stems, downsampling): the even halves of W pairs per deinterleave, while
            // both values of the last pair lie inside the input row.
            const ptrdiff_t pairs_hi = std::min(t_hi, (W - o * 2 - off_w) / 2);
            for (; t + VW <= pairs_hi; t += VW) {
              typename Isa::V even, odd;
              Isa::deinterleave(in + 2 * t, even, odd);
              Isa::store(d + t, even);
            }
          }
          for (; t < t_hi; ++t) d[t] = in[t * sw];
        }
      }
      for (; t < n; ++t) d[t] = 0.f;
      continue_run(j, ow, oh, run, row_len);
    }
  }
}

}  // namespace ofg::kernels::simd
