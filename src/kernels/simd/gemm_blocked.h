// Goto-style blocked SGEMM, written once for every SIMD table. The ISA comes in as a small
// struct `Isa` (kernels/avx2/isa.h, kernels/neon/isa.h) that supplies:
//   V, W               a float vector type and its lane count
//   MR, NR             the register tile (MR rows of A x NR columns of B, NR a multiple of W)
//   KC, MC, NC         the cache blocking (MC a multiple of MR)
//   zero, set1, load, store (unaligned), fma(a, b, c) = a * b + c, min, max
//                      (max(a, b) and min(a, b) are NaN when b is NaN), add, sub, mul
//                      (simd::Lanes; never the operators on V, which GCC lowers to scalar
//                      VFP code on 32-bit ARM)
//   gemm_acc(kc, a, b, acc)  acc[i * NR / W + h] = sum over kc of the packed A panel's row i
//                      times the packed B panel's columns [h * W, h * W + W)
//   table()            the kernel table this ISA's instantiations fill (conv2d calls its
//                      sgemm and unary entries through it)
// Everything in these headers is a template on Isa or static, so the code lives only in that
// ISA's translation units (compiled with its flags) and is never shared with baseline code.
// Include them only from an ISA folder.
//
// Packing: A in MR-row panels (kc x MR, row i of the panel at + i), B in NR-column panels
// (kc x NR); partial panels are zero-filled so the register tile never needs masks.
#pragma once
#include <type_traits>

#include "kernels/gemm_split.h"
#include "kernels/internal.h"
#include "kernels/parallel.h"
#include "kernels/simd/gemm_row.h"
#include "kernels/simd/gemv.h"
#include "kernels/simd/elementwise.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace ofg::kernels::simd {

// Copies one full panel row (NR floats) with vector moves.
template <class Isa>
inline void copy_panel_row(float* d, const float* src) {
  for (size_t h = 0; h < Isa::NR; h += Isa::W) Isa::store(d + h, Isa::load(src + h));
}

// Packs the kc x nx block (k from k0, x from x0) of a matrix S into panels R wide along x:
// panel q holds kc rows of R floats, d[q * R * kc + k * R + x] = alpha * S(k0 + k, x0 + q R + x),
// zero past nx. S(k, x) is at S[k * ld + x] when k_major, else at S[x * ld + k]. Both GEMM
// operands are packed by this: A (x = the rows of op(A), R = MR, scaled by alpha) and B (x = the
// columns of op(B), R = NR).
// Whether an ISA packs eight columns of A's rows with register transposes (Isa::pack_rows8).
template <class Isa, class = void>
struct HasPackRows8 : std::false_type {};
template <class Isa>
struct HasPackRows8<Isa, std::void_t<decltype(&Isa::pack_rows8)>> : std::true_type {};

template <class Isa, size_t R>
void pack_panels(bool k_major, const float* S, size_t ld, size_t k0, size_t kc, size_t x0, size_t nx,
                 float alpha, float* dst) {
  for (size_t q = 0; q < nx; q += R) {
    const size_t r = std::min(R, nx - q);
    float* d = dst + q * kc;
    if (k_major) {
      for (size_t k = 0; k < kc; ++k) {
        const float* src = S + (k0 + k) * ld + x0 + q;
        float* row = d + k * R;
        if constexpr (R % Isa::W == 0) {
          if (r == R) {
            const typename Isa::V va = Isa::set1(alpha);
            for (size_t h = 0; h < R; h += Isa::W) Isa::store(row + h, Isa::mul(va, Isa::load(src + h)));
            continue;
          }
        }
        size_t x = 0;
        for (; x < r; ++x) row[x] = alpha * src[x];
        for (; x < R; ++x) row[x] = 0.f;
      }
    } else {
      // Eight columns at a time through register transposes where the ISA has them.
      size_t k8 = 0;
      if constexpr (HasPackRows8<Isa>::value)
        for (; k8 + 8 <= kc; k8 += 8) Isa::pack_rows8(S + (x0 + q) * ld + k0 + k8, ld, r, alpha, d + k8 * R, R);
      for (size_t x = 0; x < R; ++x) {
        if (x < r) {
          const float* src = S + (x0 + q + x) * ld + k0;
          for (size_t k = k8; k < kc; ++k) d[k * R + x] = alpha * src[k];
        } else {
          for (size_t k = k8; k < kc; ++k) d[k * R + x] = 0.f;
        }
      }
    }
  }
}

// Rows [i0, i0 + mc) x columns [p0, p0 + kc) of op(A), times alpha, in MR-row panels.
template <class Isa>
void pack_a(bool trans, const float* A, size_t lda, size_t i0, size_t mc, size_t p0, size_t kc,
            float alpha, float* dst) {
  pack_panels<Isa, Isa::MR>(trans, A, lda, p0, kc, i0, mc, alpha, dst);
}

// Rows [p0, p0 + kc) x columns [j0, j0 + nc) of op(B) in NR-column panels.
template <class Isa>
void pack_b(bool trans, const float* B, size_t ldb, size_t p0, size_t kc, size_t j0, size_t nc,
            float* dst) {
  pack_panels<Isa, Isa::NR>(!trans, B, ldb, p0, kc, j0, nc, 1.f, dst);
}

// Where a ConvPost's activation runs: on the registers of the tile (Relu, LeakyRelu, Clip and the
// gates of Sigmoid and HardSigmoid, with the unary and binary kernels' own lane code) or over each
// stored row of the tile (anything else, with those kernels' loops while the rows are in L1).
enum class PostAct { None, Relu, LeakyRelu, Clip, SigmoidGate, HardSigmoidGate, Rows };

struct Epilogue {
  bool last = false;
  const float* bias = nullptr;
  bool clamp = false;
  float lo = 0.f, hi = 0.f;
  const ConvPost* post = nullptr;
  PostAct post_act = PostAct::None;
  size_t chan = 0;
};

// Relu and Clip become the register tile's clamp; any other activation runs afterwards over the
// output (returns true then). Also takes p's ConvPost.
static inline bool fused_clamp(const Conv2DParams& p, Epilogue& ep) {
  ep.post = p.post;
  if (p.post && p.post->act) {
    const bool gate = p.post->gate != ConvPost::Gate::None;
    const UnaryOp op = p.post->op;
    ep.post_act = !gate && op == UnaryOp::Relu           ? PostAct::Relu
                  : !gate && op == UnaryOp::LeakyRelu    ? PostAct::LeakyRelu
                  : !gate && op == UnaryOp::Clip         ? PostAct::Clip
                  : gate && op == UnaryOp::Sigmoid       ? PostAct::SigmoidGate
                  : gate && op == UnaryOp::HardSigmoid   ? PostAct::HardSigmoidGate
                                                         : PostAct::Rows;
  }
  switch (p.act) {
    case Activation::None: return false;
    case Activation::Relu:
      ep.clamp = true;
      ep.lo = 0.f;
      ep.hi = std::numeric_limits<float>::infinity();
      return false;
    case Activation::Clip:
      ep.clamp = true;
      ep.lo = p.act_alpha;
      ep.hi = p.act_beta;
      return false;
    default: return true;
  }
}

// The gate's x * act(x) (or act(x) * x) as binary_vv's Mul gives it. With two NaN operands the
// multiply instructions of x86 and ARM return the first one, quieted; a compiler free to swap the
// operands of a product (it is commutative) could return the other one's sign and payload, so a
// NaN first operand is returned explicitly (first + first: itself, quieted).
template <class Isa>
inline typename Isa::V gate_product(ConvPost::Gate gate, typename Isa::V x, typename Isa::V act) {
  const typename Isa::V first = gate == ConvPost::Gate::XTimesAct ? x : act;
  const typename Isa::V second = gate == ConvPost::Gate::XTimesAct ? act : x;
  return Isa::select(Isa::nan_mask(first), Isa::add(first, first), bin<Isa, BinaryOp::Mul>(first, second));
}

// ep.post's activation on one vector of values as the unary kernel computes it, and a gate's
// product as binary_vv computes it; nothing for None and Rows. K is fixed so that the register
// tile's loop is compiled once per kind.
template <class Isa, PostAct K>
inline typename Isa::V act_lanes(typename Isa::V v, typename Isa::V a, typename Isa::V b, ConvPost::Gate gate) {
  if constexpr (K == PostAct::Relu) return un<Isa, UnaryOp::Relu>(v, a, b);
  if constexpr (K == PostAct::LeakyRelu) return un<Isa, UnaryOp::LeakyRelu>(v, a, b);
  if constexpr (K == PostAct::Clip) return un<Isa, UnaryOp::Clip>(v, a, b);
  if constexpr (K == PostAct::SigmoidGate || K == PostAct::HardSigmoidGate) {
    const typename Isa::V s = un<Isa, K == PostAct::SigmoidGate ? UnaryOp::Sigmoid : UnaryOp::HardSigmoid>(v, a, b);
    return gate_product<Isa>(gate, v, s);
  }
  return v;
}

// ep.post's per-channel constants as vectors: scale, shift, alpha, beta.
template <class Isa>
struct PostConsts {
  typename Isa::V scale, shift, alpha, beta;
  PostConsts() = default;
  PostConsts(const ConvPost& post, size_t c)
      : scale(Isa::set1(post.scale ? post.scale[c] : 1.f)), shift(Isa::set1(post.scale ? post.shift[c] : 0.f)),
        alpha(Isa::set1(post.alpha)), beta(Isa::set1(post.beta)) {}
};

// The register part of ep.post on one vector of channel c's values: the affine step as affine_vs
// computes it, then the activation when K does it there.
// (post_steps takes the two fields of post it reads, for loops that keep them in registers.)
template <class Isa, PostAct K>
inline typename Isa::V post_steps(bool affine_step, ConvPost::Gate gate, const PostConsts<Isa>& k, typename Isa::V v) {
  if (affine_step) v = affine<Isa>(v, k.scale, k.shift);
  return act_lanes<Isa, K>(v, k.alpha, k.beta, gate);
}
template <class Isa, PostAct K>
inline typename Isa::V post_lanes(const ConvPost& post, const PostConsts<Isa>& k, typename Isa::V v) {
  return post_steps<Isa, K>(post.scale != nullptr, post.gate, k, v);
}

// The parts of ep.post over n stored values of channel c that the registers did not do: the
// affine step unless affine_done, the activation unless act_done.
template <class Isa>
void post_stored(const Epilogue& ep, size_t c, float* y, size_t n, bool affine_done, bool act_done) {
  // The table's own entries: the very code the separate ops run.
  const ConvPost& post = *ep.post;
  const KernelTable& t = post.table ? *post.table : Isa::table();
  if (!affine_done && post.scale) t.affine_vs(y, post.scale[c], post.shift[c], y, n);
  if (post.act && !act_done) {
    ConvPost act = post;
    act.scale = act.shift = nullptr;
    apply_conv_post(t, act, c, y, y, n);
  }
}

// One output channel's epilogue as vectors and flags, and its register steps on one vector: the
// bias, the clamp, then with POST ep.post's register part (K its activation kind). Everything
// finish() reads is a member: the vector stores of the loops around it are byte copies, which
// the compiler must assume could change anything behind a pointer.
template <class Isa, bool POST>
struct ChannelLanes {
  using V = typename Isa::V;
  V bias, lo, hi;
  PostConsts<Isa> pk;
  bool add_bias, clamp, affine = false;
  ConvPost::Gate gate = ConvPost::Gate::None;
  ChannelLanes(const Epilogue& ep, bool add_bias, float b, bool clamp, size_t c)
      : bias(Isa::set1(b)), lo(Isa::set1(ep.lo)), hi(Isa::set1(ep.hi)), add_bias(add_bias), clamp(clamp) {
    if constexpr (POST) {
      pk = PostConsts<Isa>(*ep.post, c);
      affine = ep.post->scale != nullptr;
      gate = ep.post->gate;
    }
  }
  template <PostAct K>
  __attribute__((always_inline)) V finish(V v) const {
    if (add_bias) v = Isa::add(v, bias);
    if (clamp) v = Isa::min(hi, Isa::max(lo, v));
    if constexpr (POST) v = post_steps<Isa, K>(affine, gate, pk, v);
    return v;
  }
};

// f(std::integral_constant<PostAct, K>{}) with K = k for the kinds done in registers, Rows for
// the rest (None included: only the affine step, in registers, and nothing left for the rows).
template <class F>
inline void with_post_kind(PostAct k, F&& f) {
  switch (k) {
#define OFG_POST_CASE(K) \
  case PostAct::K: return f(std::integral_constant<PostAct, PostAct::K>{});
    OFG_POST_CASE(Relu) OFG_POST_CASE(LeakyRelu) OFG_POST_CASE(Clip) OFG_POST_CASE(SigmoidGate)
    OFG_POST_CASE(HardSigmoidGate)
#undef OFG_POST_CASE
    case PostAct::None:
    case PostAct::Rows: return f(std::integral_constant<PostAct, PostAct::Rows>{});
  }
}

// The first mr rows and nr columns of a register tile to C: + C (or beta * C), bias, clamp, and
// with POST ep.post (K its activation kind). The last vector of a row with fewer than W of the
// columns is read through a stack buffer and stored through a mask, with the same lane arithmetic.
template <class Isa, bool POST, PostAct K>
inline void store_tile(const typename Isa::V* acc, float* C, size_t ldc, size_t mr, size_t nr, bool first,
                       float beta, bool bias, bool clamp, const Epilogue& ep) {
  using V = typename Isa::V;
  constexpr size_t W = Isa::W, NV = Isa::NR / W;
  if (mr == Isa::MR && nr == Isa::NR && first && beta == 0.f) {
    // A whole tile written over C (every k-block of a conv's GEMM at once): the same steps
    // without the per-vector branches of partial tiles and of adding to C (MobileNetV2 3-5%
    // faster; unrolling the rows as well added 33 KB of code for no further gain).
    for (size_t i = 0; i < Isa::MR; ++i) {
      float* row = C + i * ldc;
      const ChannelLanes<Isa, POST> ch(ep, bias, bias ? ep.bias[i] : 0.f, clamp, ep.chan + i);
#pragma GCC unroll 4
      for (size_t h = 0; h < NV; ++h) Isa::store(row + h * W, ch.template finish<K>(acc[i * NV + h]));
      if constexpr (POST && K == PostAct::Rows) post_stored<Isa>(ep, ep.chan + i, row, nr, true, false);
      for (size_t l = 0; l < Isa::NR; l += 64 / sizeof(float)) __builtin_prefetch(row + Isa::NR + l, 1);
    }
    return;
  }
  const V vb = Isa::set1(beta);
  for (size_t i = 0; i < mr; ++i) {
    float* row = C + i * ldc;
    const ChannelLanes<Isa, POST> ch(ep, bias, bias ? ep.bias[i] : 0.f, clamp, ep.chan + i);
    for (size_t h = 0; h * W < nr; ++h) {
      float* c = row + h * W;
      const size_t n = std::min(W, nr - h * W);
      V v = acc[i * NV + h];
      if (!first || beta != 0.f) {
        V old;
        if (n == W) {
          old = Isa::load(c);
        } else {
          float t[W] = {};
          std::memcpy(t, c, n * sizeof(float));
          old = Isa::load(t);
        }
        v = !first ? Isa::add(v, old) : Isa::fma(vb, old, v);
      }
      v = ch.template finish<K>(v);
      if (n == W) Isa::store(c, v);
      else Isa::store_lanes(c, v, 0, n);
    }
    if constexpr (POST && K == PostAct::Rows) post_stored<Isa>(ep, ep.chan + i, row, nr, true, false);
    // The row's next NR columns (the next panel's tile, stored soon) fetched for writing now: the
    // 1x1 convs of large planes write C rows a plane apart, one tile row (two lines) at a time,
    // and waited on each line's read for ownership (mobilenetv2 8% faster).
    if (nr == Isa::NR)
      for (size_t l = 0; l < Isa::NR; l += 64 / sizeof(float)) __builtin_prefetch(row + Isa::NR + l, 1);
  }
}

// Isa::gemm_acc for a tile of at most W columns: only the first vector of each row, acc[i * NV],
// is formed (the others are left alone). An output of W columns or fewer (ViT's 4x4 grid of
// patches, a 3x3 plane) would otherwise spend NV - 1 of every NV multiply-adds on zero lanes.
// Each lane sums the same products in the same order as the full tile.
template <class Isa, size_t... I>
inline void gemm_acc_one_vector(size_t kc, const float* a, const float* b, typename Isa::V* acc,
                                std::index_sequence<I...>) {
  constexpr size_t MR = Isa::MR, NR = Isa::NR, NV = NR / Isa::W;
  typename Isa::V c[MR] = {((void)I, Isa::zero())...};
  for (size_t p = 0; p < kc; ++p, a += MR, b += NR) {
    const typename Isa::V bv = Isa::load(b);
    ((c[I] = Isa::fma(splat<Isa>(a[I]), bv, c[I])), ...);
  }
  ((acc[I * NV] = c[I]), ...);
}

// Whether an ISA computes part of a tile's rows (gemm_acc_rows<R>): worth it where tiles are tall.
template <class Isa, class = void>
struct HasRowsAcc : std::false_type {};
// (Detected through a call: the address of a function taking vector types would drop their
// attributes, which GCC warns about.)
template <class Isa>
struct HasRowsAcc<Isa, std::void_t<decltype(Isa::template gemm_acc_rows<1>(
                           size_t{0}, static_cast<const float*>(nullptr), static_cast<const float*>(nullptr),
                           std::declval<typename Isa::V (&)[Isa::MR * (Isa::NR / Isa::W)]>()))>> : std::true_type {};

// acc's first mr rows and the column vectors holding the first nr columns of the tile: a tile of
// at most one vector of columns takes gemm_acc_one_vector, a short last tile a kernel of fewer
// rows when the ISA has them (the other entries of acc are then not set).
template <class Isa>
inline void tile_acc(size_t kc, const float* a, const float* b, size_t mr, size_t nr,
                     typename Isa::V (&acc)[Isa::MR * (Isa::NR / Isa::W)]) {
  constexpr size_t MR = Isa::MR;
  if constexpr (Isa::NR > Isa::W)
    if (nr <= Isa::W) return gemm_acc_one_vector<Isa>(kc, a, b, acc, std::make_index_sequence<MR>{});
  if constexpr (HasRowsAcc<Isa>::value) {
    if (mr <= (MR + 3) / 4) return Isa::template gemm_acc_rows<(MR + 3) / 4>(kc, a, b, acc);
    if (mr <= MR / 2) return Isa::template gemm_acc_rows<MR / 2>(kc, a, b, acc);
    if (mr <= MR * 3 / 4) return Isa::template gemm_acc_rows<MR * 3 / 4>(kc, a, b, acc);
  }
  Isa::gemm_acc(kc, a, b, acc);
}

// acc = A panel (kc x MR) * B panel (kc x NR); then C tile = acc + (first ? beta*C : C), then the
// epilogue when ep.last. Tiles of fewer rows or columns store them with the same vector code
// (channel counts are rarely multiples of MR, 7x7 and 14x14 planes of NR), the last vector of a
// row through a mask.
template <class Isa>
inline void micro_tile(size_t kc, const float* a, const float* b, float* C, size_t ldc, size_t mr,
                       size_t nr, bool first, float beta, const Epilogue& ep) {
  using V = typename Isa::V;
  constexpr size_t MR = Isa::MR, NR = Isa::NR, NV = NR / Isa::W;
  V acc[MR * NV];
  tile_acc<Isa>(kc, a, b, mr, nr, acc);
  const bool bias = ep.last && ep.bias, clamp = ep.last && ep.clamp, post = ep.last && ep.post;
  if (!post) return store_tile<Isa, false, PostAct::None>(acc, C, ldc, mr, nr, first, beta, bias, clamp, ep);
  with_post_kind(ep.post_act, [&](auto k) {
    store_tile<Isa, true, decltype(k)::value>(acc, C, ldc, mr, nr, first, beta, bias, clamp, ep);
  });
}

// The blocked loops of one part of a GEMM: output rows [i_lo, i_hi) and columns [j_lo, j_hi),
// both starting on register-tile boundaries (multiples of MR and NR), so every tile and every
// k-block is the one the whole product would form and the part's values are bit for bit the same.
// a_block(i0, mc, p0, kc) gives the MR-row panels of rows [i0, i0 + mc) of that k-block;
// b_block(J0, p0, kc, js, ns) the NR-column panels of columns [js, js + ns) of the column block
// at J0 (a multiple of NC, the column block width: Isa::NC unless the caller picks another
// multiple of NR). ep is applied on the last k-block, its bias offset to the tile's rows.
template <class Isa, class ABlock, class BBlock>
void gemm_part(size_t K, size_t i_lo, size_t i_hi, size_t j_lo, size_t j_hi, float beta, float* C, size_t ldc,
               const Epilogue& ep0, ABlock&& a_block, BBlock&& b_block, size_t NC = Isa::NC) {
  constexpr size_t MR = Isa::MR, NR = Isa::NR, KC = Isa::KC, MC = Isa::MC;
  static_assert(MC % MR == 0 && NR % Isa::W == 0 && Isa::NC % NR == 0, "blocking must hold whole register tiles");
  Epilogue ep = ep0;
  for (size_t J0 = j_lo / NC * NC; J0 < j_hi; J0 += NC) {
    const size_t js = std::max(j_lo, J0), ns = std::min(j_hi, J0 + NC) - js;
    for (size_t p0 = 0; p0 < K; p0 += KC) {
      const size_t kc = std::min(KC, K - p0);
      const float* pb = b_block(J0, p0, kc, js, ns);
      ep.last = p0 + kc == K;
      for (size_t i0 = i_lo; i0 < i_hi; i0 += MC) {
        const size_t mc = std::min(MC, i_hi - i0);
        const float* pa = a_block(i0, mc, p0, kc);
        for (size_t jb = 0; jb < ns; jb += NR) {
          const size_t nr = std::min(NR, ns - jb);
          for (size_t ib = 0; ib < mc; ib += MR) {
            ep.bias = ep0.bias ? ep0.bias + (i0 + ib) : nullptr;
            ep.chan = ep0.chan + i0 + ib;
            micro_tile<Isa>(kc, pa + ib * kc, pb + jb * kc, C + (i0 + ib) * ldc + js + jb, ldc,
                            std::min(MR, mc - ib), nr, p0 == 0, beta, ep);
          }
        }
      }
    }
  }
}

// Calls part(i_lo, i_hi, j_lo, j_hi) for the parts of an M x N x K product (kernels/gemm_split.h)
// on up to threads() threads; see gemm_part.
template <class Isa, class Part>
void gemm_parallel(size_t M, size_t N, size_t K, Prepacked prepacked, Part&& part) {
  const GemmSplit split = gemm_split(M, N, K, Isa::MR, Isa::NR, prepacked);
  if (split.parts <= 1) {
    part(size_t{0}, M, size_t{0}, N);
    return;
  }
  parallel_for(split.parts, [&](size_t t) {
    size_t i0, i1, j0, j1;
    split.part(t, i0, i1, j0, j1);
    part(i0, i1, j0, j1);
  });
}

// The blocked sgemm over every part; A is packed per part into this thread's scratch area 2.
template <class Isa, class BBlock>
void sgemm_blocks(bool trans_a, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
                  float beta, float* C, size_t ldc, Prepacked prepacked, BBlock&& b_block) {
  gemm_parallel<Isa>(M, N, K, prepacked, [&](size_t i_lo, size_t i_hi, size_t j_lo, size_t j_hi) {
    float* pa = detail::scratch(2, std::min(Isa::MC, (i_hi - i_lo + Isa::MR - 1) / Isa::MR * Isa::MR) *
                                       std::min(Isa::KC, K));
    gemm_part<Isa>(K, i_lo, i_hi, j_lo, j_hi, beta, C, ldc, Epilogue{},
                   [&](size_t i0, size_t mc, size_t p0, size_t kc) {
                     pack_a<Isa>(trans_a, A, lda, i0, mc, p0, kc, alpha, pa);
                     return static_cast<const float*>(pa);
                   },
                   b_block);
  });
}

// Fills C with beta * C (or zeros) for the cases with nothing to multiply; false when the product
// has to be formed.
inline bool sgemm_trivial(size_t M, size_t N, size_t K, float alpha, float beta, float* C, size_t ldc) {
  if (M == 0 || N == 0) return true;
  if (K != 0 && alpha != 0.f) return false;
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
  return true;
}

// A product of at most one register tile (attention's per-head products, 12 x 32 times 32 x 12):
// the blocked driver packs A and B into panels for that one tile, which cost more than the tile.
// Here B's rows are copied once into a zero-padded panel and A is read where it lies; each sum is
// gemm_acc's (fused multiply-adds in k order from zero, one k block) and is stored as it is, so
// the result is the blocked driver's bit for bit (alpha 1, beta 0). R rows are computed (rows
// past mr repeat the last one and are not stored).
template <class Isa, size_t R>
void tiny_product(size_t mr, size_t N, size_t K, const float* A, size_t lda, const float* bp, float* C, size_t ldc) {
  using V = typename Isa::V;
  constexpr size_t W = Isa::W, NR = Isa::NR, NV = NR / W;
  const float* rows[R];
  for (size_t i = 0; i < R; ++i) rows[i] = A + std::min(i, mr - 1) * lda;
  V acc[R * NV];
#pragma GCC unroll 64
  for (size_t i = 0; i < R * NV; ++i) acc[i] = Isa::zero();
  for (size_t p = 0; p < K; ++p) {
    V bv[NV];
#pragma GCC unroll 4
    for (size_t h = 0; h < NV; ++h) bv[h] = Isa::load(bp + p * NR + h * W);
#pragma GCC unroll 16
    for (size_t i = 0; i < R; ++i) {
      const V av = splat<Isa>(rows[i][p]);
#pragma GCC unroll 4
      for (size_t h = 0; h < NV; ++h) acc[i * NV + h] = Isa::fma(av, bv[h], acc[i * NV + h]);
    }
  }
  alignas(64) float row[NR];
  for (size_t i = 0; i < mr; ++i) {
    for (size_t h = 0; h < NV; ++h) Isa::store(row + h * W, acc[i * NV + h]);
    std::copy(row, row + N, C + i * ldc);
  }
}

template <class Isa>
bool sgemm_tiny(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* B, size_t ldb, float* C,
                size_t ldc) {
  constexpr size_t MR = Isa::MR, NR = Isa::NR;
  if (M > MR || N > NR || K > Isa::KC || M == 0) return false;
  float* bp = detail::scratch(3, K * NR);
  for (size_t p = 0; p < K; ++p) {
    std::copy(B + p * ldb, B + p * ldb + N, bp + p * NR);
    std::fill(bp + p * NR + N, bp + (p + 1) * NR, 0.f);
  }
  // The row kernels gemm_acc_rows offers for a short tile, and the whole tile.
  if (M <= (MR + 3) / 4) tiny_product<Isa, (MR + 3) / 4>(M, N, K, A, lda, bp, C, ldc);
  else if (M <= MR / 2) tiny_product<Isa, MR / 2>(M, N, K, A, lda, bp, C, ldc);
  else tiny_product<Isa, MR>(M, N, K, A, lda, bp, C, ldc);
  return true;
}

// The sgemm entry of kernels/kernel_list.h. Scratch: thread_local areas 2 (A panels) and 3 (B
// panels) of each thread that runs a part.
template <class Isa>
void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
           size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  if (sgemm_trivial(M, N, K, alpha, beta, C, ldc)) return;
  // One row of op(A) (contiguous unless transposed with a stride) skips the packing of B, which
  // would cost as much as the product: B as it lies (the blocked loops' result, so that
  // sgemm_prepacked_b agrees), or dot products against a transposed B's contiguous rows.
  // Both read all of B once, which is what they cost: threads take ranges of its rows (transposed;
  // whole groups of sgemv's four) or of its columns (whole vectors), so every output is the same
  // sum in the same order on any thread count.
  if (M == 1 && (!trans_a || lda == 1)) {
    if (trans_b) {
      parallel_ranges(N, 4, plane_grain(K), [&](size_t j0, size_t j1) {
        sgemv<Isa>(j1 - j0, K, alpha, B + j0 * ldb, ldb, A, beta, C + j0);
      });
    } else {
      parallel_ranges(N, 4 * Isa::W, plane_grain(K), [&](size_t j0, size_t j1) {
        row_times_matrix<Isa>(j1 - j0, K, alpha, A, B + j0, ldb, beta, C + j0);
      });
    }
    return;
  }
  if (!trans_a && !trans_b && alpha == 1.f && beta == 0.f && sgemm_tiny<Isa>(M, N, K, A, lda, B, ldb, C, ldc)) return;
  sgemm_blocks<Isa>(trans_a, M, N, K, alpha, A, lda, beta, C, ldc, Prepacked::None,
                    [&](size_t, size_t p0, size_t kc, size_t js, size_t ns) {
                      float* pb = detail::scratch(3, std::min(Isa::NC, (N + Isa::NR - 1) / Isa::NR * Isa::NR) *
                                                         std::min(Isa::KC, K));
                      pack_b<Isa>(trans_b, B, ldb, p0, kc, js, ns, pb);
                      return static_cast<const float*>(pb);
                    });
}

// Where sgemm_pack_b put the panel of column js (a multiple of NR inside the column block at J0)
// for the k-block at p0.
template <class Isa>
size_t packed_panel_offset(size_t N, size_t K, size_t J0, size_t p0, size_t kc, size_t js) {
  const size_t nc = std::min(Isa::NC, N - J0), ncr = (nc + Isa::NR - 1) / Isa::NR * Isa::NR;
  return J0 * K + ncr * p0 + (js - J0) * kc;
}

// Packed B for sgemm_prepacked_b: the panels sgemm would pack, every block kept, in the order
// sgemm visits them (column blocks of NC, each split into K blocks of KC). A column block starting
// at j0 begins at j0 * K (NC is a multiple of NR); inside it, the K block at p0 begins at
// round_up(nc, NR) * p0.
template <class Isa>
size_t sgemm_packed_b_size(size_t K, size_t N) {
  return (N + Isa::NR - 1) / Isa::NR * Isa::NR * K;
}

template <class Isa>
void sgemm_pack_b(size_t K, size_t N, const float* B, size_t ldb, float* packed) {
  // One task per column block and k-block: each fills its own panels.
  const size_t jblocks = (N + Isa::NC - 1) / Isa::NC, kblocks = (K + Isa::KC - 1) / Isa::KC;
  parallel_ranges(jblocks * kblocks, 1, plane_grain(Isa::NC * Isa::KC), [&](size_t lo, size_t hi) {
    for (size_t b = lo; b < hi; ++b) {
      const size_t j0 = b / kblocks * Isa::NC, p0 = b % kblocks * Isa::KC;
      const size_t nc = std::min(Isa::NC, N - j0), ncr = (nc + Isa::NR - 1) / Isa::NR * Isa::NR;
      pack_b<Isa>(false, B, ldb, p0, std::min(Isa::KC, K - p0), j0, nc, packed + j0 * K + ncr * p0);
    }
  });
}

template <class Isa>
void sgemm_prepacked_b(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* packed, float beta,
                       float* C, size_t ldc) {
  if (sgemm_trivial(M, N, K, 1.f, beta, C, ldc)) return;
  if (M == 1) return row_times_packed<Isa>(N, K, A, packed, beta, C);
  sgemm_blocks<Isa>(false, M, N, K, 1.f, A, lda, beta, C, ldc, Prepacked::B,
                    [&](size_t J0, size_t p0, size_t kc, size_t js, size_t) {
                      return packed + packed_panel_offset<Isa>(N, K, J0, p0, kc, js);
                    });
}

}  // namespace ofg::kernels::simd
