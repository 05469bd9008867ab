// Channels across the lanes of vectors, shared by the depthwise conv (simd/depthwise.h) and the
// direct conv of few input channels (simd/conv_direct.h): W channels' planes moved into lanes
// (pixel j's W channels one vector) and back by the ISA's register transposes, and the conv
// epilogue (bias, clamp, ConvPost: the tile epilogue of simd/gemm_blocked.h) on such vectors
// with each channel's constants in its lane, or per channel on a plane's run.
#pragma once

#include "kernels/simd/gemm_blocked.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace ofg::kernels::simd {

// The vectors that hold channels across their lanes: Isa's own unless Isa names narrower ones
// (AVX-512: 16-lane groups would be half padding for the channel counts of the mobile CNNs,
// multiples of 8 and not of 16). The transposes need tiles as wide as the vectors.
template <class Isa, class = void>
struct TransposeLanes {
  using type = Isa;
};
template <class Isa>
struct TransposeLanes<Isa, std::void_t<typename Isa::TransposeLanes>> {
  using type = typename Isa::TransposeLanes;
};

// Channel c's epilogue on n results: from src (readable one vector past its end, never
// overlapping out) to out, the bias, the clamp and with POST ep.post's register part (K its
// kind); then over the stored values what the registers did not do (all of ep.post without POST).
template <class Isa, bool POST, PostAct K>
void finish_channel(const Epilogue& ep, size_t c, const float* src, size_t n, float* out) {
  constexpr size_t VW = Isa::W;
  const ChannelLanes<Isa, POST> ch(ep, ep.bias != nullptr, ep.bias ? ep.bias[c] : 0.f, ep.clamp, c);
  size_t j = 0;
  for (; j + VW <= n; j += VW) Isa::store(out + j, ch.template finish<K>(Isa::load(src + j)));
  // The rest as one vector ending at n, over values already stored (the same values again); runs
  // shorter than a vector through a masked store.
  if (j < n && n >= VW) Isa::store(out + n - VW, ch.template finish<K>(Isa::load(src + n - VW)));
  else if (j < n) Isa::store_lanes(out + j, ch.template finish<K>(Isa::load(src + j)), 0, n - j);
  if (ep.post && (!POST || K == PostAct::Rows)) post_stored<Isa>(ep, c, out, n, POST, false);
}

// The epilogue's constants of channels c0.. c0 + W, each in its lane.
template <class Isa, bool POST>
ChannelLanes<Isa, POST> lane_constants(const Epilogue& ep, size_t c0) {
  ChannelLanes<Isa, POST> ch(ep, ep.bias != nullptr, 0.f, ep.clamp, c0);
  if (ep.bias) ch.bias = Isa::load(ep.bias + c0);
  if constexpr (POST)
    if (ep.post->scale) {
      ch.pk.scale = Isa::load(ep.post->scale + c0);
      ch.pk.shift = Isa::load(ep.post->shift + c0);
    }
  return ch;
}

// finish_channel for the channels c0.. c0 + W across the lanes of n result vectors, in place:
// the same register steps with each channel's constants in its lane.
template <class Isa, bool POST, PostAct K>
void finish_lanes(const Epilogue& ep, size_t c0, float* res, size_t n) {
  constexpr size_t VW = Isa::W;
  const ChannelLanes<Isa, POST> ch = lane_constants<Isa, POST>(ep, c0);
  for (size_t j = 0; j < n; ++j) Isa::store(res + j * VW, ch.template finish<K>(Isa::load(res + j * VW)));
}

// ChannelLanes::finish as the transposes' row step (inlined into them, as they are).
template <class Isa, bool POST, PostAct K>
struct FinishRow {
  const ChannelLanes<Isa, POST>& ch;
  __attribute__((always_inline)) typename Isa::V operator()(typename Isa::V v) const { return ch.template finish<K>(v); }
};

// finish_lanes's steps on the n result vectors at res (channels c0.. c0 + W across the lanes of
// each), moved to the W planes at dst (ld apart) as from_lanes moves them, in one pass: each
// vector is finished as the transpose loads it. res is left as it is (where n is not a multiple
// of W the last tile finishes vectors again from their unchanged values: the same results).
template <class Isa, bool POST, PostAct K>
void finish_to_planes(const Epilogue& ep, size_t c0, const float* res, size_t n, float* dst, size_t ld) {
  constexpr size_t VW = Isa::W;
  const ChannelLanes<Isa, POST> ch = lane_constants<Isa, POST>(ep, c0);
  const FinishRow<Isa, POST, K> on_row{ch};
  size_t j = 0;
  for (; j + VW <= n; j += VW) Isa::transpose_tile(res + j * VW, VW, dst + j, ld, on_row);
  if (j < n) Isa::transpose_tile(res + (n - VW) * VW, VW, dst + n - VW, ld, on_row);
}

// Moves n consecutive values of nch planes (ld apart) into lanes: d[j * W + t] = src[t * ld + j]
// (lanes past nch untouched), W values at a time through the transposes; and back.
template <class L>
void to_lanes(const float* src, size_t ld, size_t n, size_t nch, float* d) {
  constexpr size_t VW = L::W;
  size_t j = 0;
  if (nch == VW)
    for (; j + VW <= n; j += VW) L::transpose_tile(src + j, ld, d + j * VW, VW);
  for (; j < n; ++j)
    for (size_t t = 0; t < nch; ++t) d[j * VW + t] = src[t * ld + j];
}
// (from_lanes ends with a tile over values already moved where n is not a multiple of W: the
// same values again; s and dst never overlap.)
template <class L>
void from_lanes(const float* s, size_t n, size_t nch, float* dst, size_t ld) {
  constexpr size_t VW = L::W;
  size_t j = 0;
  if (nch == VW && n >= VW) {
    for (; j + VW <= n; j += VW) L::transpose_tile(s + j * VW, VW, dst + j, ld);
    if (j < n) L::transpose_tile(s + (n - VW) * VW, VW, dst + n - VW, ld);
    return;
  }
  for (; j < n; ++j)
    for (size_t t = 0; t < nch; ++t) dst[t * ld + j] = s[j * VW + t];
}

// The epilogue of a conv whose results hold channels across the lanes of L (Isa: the table's
// own vectors): on the lanes (to_planes, whole groups of W channels, on the way to the planes, in L's arithmetic)
// where all of it runs in registers and gives Isa's bits (in_lanes); else per channel on the
// results moved to its plane (on_channel), the activation p.act leaves to the stored values
// included. Narrower lanes than Isa's give Isa's bits for the steps that are one IEEE operation
// per lane in the shared formulas (simd/elementwise.h): bias, clamp, the affine step, Relu,
// LeakyRelu, Clip; not for the gates, whose vector math could differ by width. (On AVX-512 this
// saves the second pass over each output plane of the direct conv.)
template <class Isa, class L>
struct LanesEpilogue {
  const Conv2DParams& p;
  Epilogue ep;
  bool act_after = false, post_in_lanes = false, in_lanes = false;
  explicit LanesEpilogue(const Conv2DParams& conv) : p(conv) {
    act_after = fused_clamp(p, ep);  // p.act other than Relu and Clip: over the stored values
    ep.bias = p.bias;
    // ConvPost's register part only with the table it reproduces: other lane code could round differently.
    post_in_lanes = p.post && (!p.post->table || p.post->table == &Isa::table());
    const bool width_free = std::is_same_v<L, Isa> || !p.post || ep.post_act == PostAct::None ||
                            ep.post_act == PostAct::Relu || ep.post_act == PostAct::LeakyRelu ||
                            ep.post_act == PostAct::Clip;
    in_lanes = width_free && !act_after && (!p.post || (post_in_lanes && ep.post_act != PostAct::Rows));
  }
  // The epilogue on the n result vectors at res (whole groups of W channels from c0, in_lanes),
  // then the transposes into the W planes at dst (ld apart): one pass where there is a whole tile.
  void to_planes(size_t c0, float* res, size_t n, float* dst, size_t ld) const {
    if (n < L::W) {
      if (!p.post) finish_lanes<L, false, PostAct::None>(ep, c0, res, n);
      else with_post_kind(ep.post_act, [&](auto k) { finish_lanes<L, true, decltype(k)::value>(ep, c0, res, n); });
      return from_lanes<L>(res, n, L::W, dst, ld);
    }
    if (!p.post) return finish_to_planes<L, false, PostAct::None>(ep, c0, res, n, dst, ld);
    with_post_kind(ep.post_act, [&](auto k) { finish_to_planes<L, true, decltype(k)::value>(ep, c0, res, n, dst, ld); });
  }
  // Channel c's n results from src (readable one vector of Isa past its end) to out.
  void on_channel(size_t c, const float* src, size_t n, float* out) const {
    if (!post_in_lanes) finish_channel<Isa, false, PostAct::None>(ep, c, src, n, out);
    else with_post_kind(ep.post_act, [&](auto k) { finish_channel<Isa, true, decltype(k)::value>(ep, c, src, n, out); });
    if (act_after) apply_bias_activation(Isa::table(), out, 1, 1, n, nullptr, p.act, p.act_alpha, p.act_beta);
  }
};

}  // namespace ofg::kernels::simd
