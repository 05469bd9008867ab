// Depthwise Conv2D (one filter per channel, group == C_in == C_out) for every SIMD table.
//
// Each input plane is copied once, zero-padded and split into stride phases: with strides (sh,
// sw), phase (a, b) holds the padded rows a, a + sh, ... and columns b, b + sw, ..., all phases
// with the same row length `cols` = W_out + (reach of the taps in columns) / sw. Output (oh, ow)
// then reads, for tap (kh, kw), element oh * cols + ow + (a constant of the tap) of one phase, so
// the whole plane is one flat run of j = oh * cols + ow: the vector loop goes over the rows and
// their padding columns alike (those few results are dropped) instead of over each row, whose 7
// to 28 columns would leave most lanes of 8- and 16-lane vectors idle. The flat results of a
// band of rows are then written to the output rows with the bias, the activation and the
// ConvPost applied in registers (the tile epilogue of simd/gemm_blocked.h) while they are in L1.
#pragma once

#include "kernels/simd/gemm_blocked.h"
#include "kernels/simd/phase_split.h"

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

namespace ofg::kernels::simd {

// The vectors the depthwise copies and 3x3 taps run with: Isa's own unless Isa names narrower
// ones (AVX-512: its planes are 7 to 112 columns wide, and 16-lane runs measured slower there).
// 5x5 taps keep Isa's lanes: their 25 weights and 4 sums fit AVX-512's 32 registers, not AVX2's
// 16 (mobilenetv3 and efficientnet 2 to 4% faster). The epilogue keeps Isa's lanes too: the
// ConvPost steps it does are its table's arithmetic.
template <class Isa, class = void>
struct DepthwiseLanes {
  using type = Isa;
};
template <class Isa>
struct DepthwiseLanes<Isa, std::void_t<typename Isa::DepthwiseLanes>> {
  using type = typename Isa::DepthwiseLanes;
};

// f(0), f(1), ..., f(N - 1) written out: with the index a constant in each call, arrays indexed
// by it stay in registers.
template <size_t... I, class F>
inline void unrolled(std::index_sequence<I...>, F&& f) {
  (f(I), ...);
}

// out[j] = sum over taps k (in order) of wc[k] * buf[off[k] + j], for j < n rounded up to whole
// vectors (buf and out have room for them). KH x KW > 0 fixes the taps (undilated columns, column
// stride SW <= KW), so the 3x3 and 5x5 loops unroll and keep the weights in registers, and tap
// (kh, kw) is row pointer kh, phase kw % SW, plus the constant kw / SW: KH * SW pointers stay in
// registers where KH * KW would not (one load more per multiply-add).
template <class Isa, size_t KH, size_t KW, size_t SW>
void depthwise_flat(const float* buf, const size_t* off, const float* wc, size_t taps, size_t n, float* out) {
  using V = typename Isa::V;
  constexpr size_t VW = Isa::W, K = KH * KW, NK = K > 0 ? K : 1, NP = K > 0 ? KH * SW : 1;
  // Copies in locals: the stores to out could alias wc and off for the compiler.
  V wv[NK];
  const float* row[NP];
  for (size_t k = 0; k < NK; ++k) wv[k] = Isa::set1(wc[k]);
  for (size_t r = 0; r < NP; ++r) row[r] = buf + off[K > 0 ? r / SW * KW + r % SW : 0];
  // Every tap of one output run, in tap order: step(weight, tap start).
  auto each_tap = [&](auto&& step) {
    if constexpr (K > 0)
      unrolled(std::make_index_sequence<K>{}, [&](size_t k) {
        const size_t kh = k / KW, kw = k % KW;
        step(wv[k], row[kh * SW + kw % SW] + kw / SW);
      });
    else
      for (size_t k = 0; k < taps; ++k) step(Isa::set1(wc[k]), buf + off[k]);
  };
  size_t j = 0;
  // Four vectors at once: independent multiply-add chains hide the fma latency. Each lane sums
  // its taps in the same order in both loops.
  for (; j + 4 * VW <= n; j += 4 * VW) {
    V a0 = Isa::zero(), a1 = Isa::zero(), a2 = Isa::zero(), a3 = Isa::zero();
    each_tap([&](V wk, const float* s) {
      s += j;
      a0 = Isa::fma(Isa::load(s), wk, a0);
      a1 = Isa::fma(Isa::load(s + VW), wk, a1);
      a2 = Isa::fma(Isa::load(s + 2 * VW), wk, a2);
      a3 = Isa::fma(Isa::load(s + 3 * VW), wk, a3);
    });
    Isa::store(out + j, a0);
    Isa::store(out + j + VW, a1);
    Isa::store(out + j + 2 * VW, a2);
    Isa::store(out + j + 3 * VW, a3);
  }
  for (; j < n; j += VW) {
    V acc = Isa::zero();
    each_tap([&](V wk, const float* s) { acc = Isa::fma(Isa::load(s + j), wk, acc); });
    Isa::store(out + j, acc);
  }
}

// Channel c's epilogue on `rows` output rows of Wo values: from the flat results src (rows `ld`
// apart) to out, the bias, the clamp and with POST ep.post's register part (K its kind); then
// over the stored rows what the registers did not do (all of ep.post without POST).
template <class Isa, bool POST, PostAct K>
void depthwise_finish(const Epilogue& ep, size_t c, const float* src, size_t ld, size_t rows, size_t Wo, float* out) {
  constexpr size_t VW = Isa::W;
  const ChannelLanes<Isa, POST> ch(ep, ep.bias != nullptr, ep.bias ? ep.bias[c] : 0.f, ep.clamp, c);
  for (size_t r = 0; r < rows; ++r) {
    const float* s = src + r * ld;
    float* d = out + r * Wo;
    size_t ow = 0;
    for (; ow + VW <= Wo; ow += VW) Isa::store(d + ow, ch.template finish<K>(Isa::load(s + ow)));
    // The flat results run on past the row (its padding columns, or the rounding of the last row).
    if (ow < Wo) Isa::store_lanes(d + ow, ch.template finish<K>(Isa::load(s + ow)), 0, Wo - ow);
  }
  if (ep.post && (!POST || K == PostAct::Rows)) post_stored<Isa>(ep, c, out, rows * Wo, POST, false);
}

// d[pad + i] = src[i] for the i < n that land below len: a row into its zero-padded place (the
// padding is left as it is). Inline vector moves: the rows are 7 to 112 values, too short for a
// library call to pay off.
template <class Isa>
void copy_into_row(const float* src, ptrdiff_t n, ptrdiff_t pad, float* d, size_t len) {
  const ptrdiff_t m = std::min(n, static_cast<ptrdiff_t>(len) - pad);
  constexpr ptrdiff_t VW = static_cast<ptrdiff_t>(Isa::W);
  if (m < VW) {
    for (ptrdiff_t i = 0; i < m; ++i) d[pad + i] = src[i];
    return;
  }
  // The last vector ends at m, overlapping the one before it (it writes the same values again).
  for (ptrdiff_t i = 0;; i += VW) {
    const ptrdiff_t at = std::min(i, m - VW);
    Isa::store(d + pad + at, Isa::load(src + at));
    if (at == m - VW) break;
  }
}

template <class Isa>
void depthwise(const Conv2DParams& p, const float* x, const float* w, float* y) {
  using L = typename DepthwiseLanes<Isa>::type;
  constexpr size_t VW = std::max(L::W, Isa::W);  // what a run or the epilogue reads past its end
  const size_t sh = p.stride_h, sw = p.stride_w, Wo = p.W_out, Ho = p.H_out;
  // Phase rows and columns: what the furthest tap of the last output reads.
  const size_t rows = Ho + (p.kH - 1) * p.dil_h / sh, cols = Wo + (p.kW - 1) * p.dil_w / sw;
  const size_t phase = rows * cols, taps = p.kH * p.kW;
  // Tap (kh, kw) of output (0, 0): padded row t_h = kh * dil_h, column t_w = kw * dil_w, so
  // phase (t_h % sh, t_w % sw), row t_h / sh, column t_w / sw.
  std::vector<size_t> off(taps);
  for (size_t kh = 0; kh < p.kH; ++kh)
    for (size_t kw = 0; kw < p.kW; ++kw) {
      const size_t th = kh * p.dil_h, tw = kw * p.dil_w;
      off[kh * p.kW + kw] = ((th % sh) * sw + tw % sw) * phase + th / sh * cols + tw / sw;
    }
  Epilogue ep;
  const bool act_after = fused_clamp(p, ep);  // p.act other than Relu and Clip: over the stored rows
  ep.bias = p.bias;
  // ConvPost's register part only with the table it reproduces: other lane code could round differently.
  const bool post_in_lanes = p.post && (!p.post->table || p.post->table == &Isa::table());
  // Bands of output rows whose flat results (and the phase rows they read) stay in L1.
  const size_t band = std::max<size_t>(1, std::min(Ho, 4096 / cols));
  // Input row ih is padded row r = ih + pad_top: row r / sh of the phases (r % sh, b), phase
  // (r % sh, 0) at row_at[ih]. The rows past the last one the taps read are not copied.
  std::vector<size_t> row_at;
  for (size_t r = p.pad_top; r < p.pad_top + p.H && r < sh * rows; ++r)
    row_at.push_back(((r % sh) * sw * rows + r / sh) * cols);
  const ptrdiff_t W = static_cast<ptrdiff_t>(p.W), pl = static_cast<ptrdiff_t>(p.pad_left);
  const size_t planes = Wo > 0 && Ho > 0 ? p.N * p.C_in : 0;
  parallel_ranges(planes, 1, plane_grain(Ho * Wo * taps), [&](size_t nc_lo, size_t nc_hi) {
    // This thread's phases (plus one vector that the last rounded-up run reads past them) and
    // band. The phases are zeroed once: every plane then writes the same positions (the input
    // it holds), so the padding stays zero.
    const size_t buf_floats = sh * sw * phase + VW;
    float* buf = detail::scratch(0, buf_floats);
    float* tmp = detail::scratch(1, band * cols + VW);
    std::fill(buf, buf + buf_floats, 0.f);
    for (size_t nc = nc_lo; nc < nc_hi; ++nc) {
      const size_t c = nc % p.C_in;
      const float* plane = x + nc * p.H * p.W;
      const float* wc = w + c * taps;
      float* out = y + nc * Ho * Wo;
      for (size_t ih = 0; ih < row_at.size(); ++ih) {
        float* d = buf + row_at[ih];
        const float* src = plane + ih * p.W;
        if (sw == 1) copy_into_row<L>(src, W, pl, d, cols);
        else if (sw == 2) copy_phases2<L>(src, W, pl, d, d + phase, static_cast<ptrdiff_t>(cols), 0.f);
        else
          for (size_t b = 0; b < sw; ++b, d += phase)
            copy_phase(src, W, pl, static_cast<ptrdiff_t>(sw), static_cast<ptrdiff_t>(b), d, static_cast<ptrdiff_t>(cols), 0.f);
      }
      for (size_t oh = 0; oh < Ho; oh += band) {
        const size_t nrow = std::min(band, Ho - oh), n = (nrow - 1) * cols + Wo;
        const float* from = buf + oh * cols;
        const bool fixed = p.dil_w == 1 && p.kH == p.kW && (sw == 1 || sw == 2);
        if (fixed && taps == 9 && sw == 1) depthwise_flat<L, 3, 3, 1>(from, off.data(), wc, 9, n, tmp);
        else if (fixed && taps == 9) depthwise_flat<L, 3, 3, 2>(from, off.data(), wc, 9, n, tmp);
        else if (fixed && taps == 25 && sw == 1) depthwise_flat<Isa, 5, 5, 1>(from, off.data(), wc, 25, n, tmp);
        else if (fixed && taps == 25) depthwise_flat<Isa, 5, 5, 2>(from, off.data(), wc, 25, n, tmp);
        else depthwise_flat<L, 0, 0, 0>(from, off.data(), wc, taps, n, tmp);
        float* o = out + oh * Wo;
        if (!post_in_lanes) depthwise_finish<Isa, false, PostAct::None>(ep, c, tmp, cols, nrow, Wo, o);
        else
          with_post_kind(ep.post_act, [&](auto k) {
            depthwise_finish<Isa, true, decltype(k)::value>(ep, c, tmp, cols, nrow, Wo, o);
          });
        if (act_after)
          apply_bias_activation(Isa::table(), o, 1, 1, nrow * Wo, nullptr, p.act, p.act_alpha, p.act_beta);
      }
    }
  });
}

}  // namespace ofg::kernels::simd
