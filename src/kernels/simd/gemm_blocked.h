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

#include "kernels/internal.h"
#include "kernels/simd/gemm_row.h"
#include "kernels/simd/gemv.h"

#include <algorithm>
#include <cstring>
#include <limits>

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
      for (size_t x = 0; x < R; ++x) {
        if (x < r) {
          const float* src = S + (x0 + q + x) * ld + k0;
          for (size_t k = 0; k < kc; ++k) d[k * R + x] = alpha * src[k];
        } else {
          for (size_t k = 0; k < kc; ++k) d[k * R + x] = 0.f;
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

// What the last k-block of a tile does after accumulating: add a per-row bias (row i of the tile
// gets bias[i]) and clamp to [lo, hi] (Relu is [0, inf), Clip [min, max]). The convolution driver
// uses it so that bias and activation cost no extra pass over the output. Clamping is written as
// max(lo, v) / min(hi, v): with the value as second operand a NaN passes through, as the scalar
// reference requires.
struct Epilogue {
  bool last = false;
  const float* bias = nullptr;
  bool clamp = false;
  float lo = 0.f, hi = 0.f;
};

// Relu and Clip become the register tile's clamp; any other activation runs afterwards over the
// output (returns true then).
static inline bool fused_clamp(const Conv2DParams& p, Epilogue& ep) {
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

// acc = A panel (kc x MR) * B panel (kc x NR); then C tile = acc + (first ? beta*C : C), then the
// epilogue when ep.last. Partial tiles go through a stack buffer so the full-tile path has no
// masks.
template <class Isa>
inline void micro_tile(size_t kc, const float* a, const float* b, float* C, size_t ldc, size_t mr,
                       size_t nr, bool first, float beta, const Epilogue& ep) {
  using V = typename Isa::V;
  constexpr size_t MR = Isa::MR, NR = Isa::NR, NV = NR / Isa::W;
  V acc[MR * NV];
  Isa::gemm_acc(kc, a, b, acc);
  const bool bias = ep.last && ep.bias, clamp = ep.last && ep.clamp;
  if (mr == MR && nr == NR) {
    const V vb = Isa::set1(beta), vlo = Isa::set1(ep.lo), vhi = Isa::set1(ep.hi);
    for (size_t i = 0; i < MR; ++i) {
      float* row = C + i * ldc;
      const V vbias = bias ? Isa::set1(ep.bias[i]) : Isa::zero();
      for (size_t h = 0; h < NV; ++h) {
        float* c = row + h * Isa::W;
        V v = acc[i * NV + h];
        if (!first) v = Isa::add(v, Isa::load(c));
        else if (beta != 0.f) v = Isa::fma(vb, Isa::load(c), v);
        if (bias) v = Isa::add(v, vbias);
        if (clamp) v = Isa::min(vhi, Isa::max(vlo, v));
        Isa::store(c, v);
      }
    }
    return;
  }
  alignas(64) float tile[MR * NR];
  for (size_t i = 0; i < MR * NV; ++i) Isa::store(tile + i * Isa::W, acc[i]);
  for (size_t i = 0; i < mr; ++i)
    for (size_t j = 0; j < nr; ++j) {
      float& c = C[i * ldc + j];
      const float v = tile[i * NR + j];
      float r = !first ? c + v : (beta == 0.f ? v : beta * c + v);
      if (bias) r += ep.bias[i];
      // Same NaN behaviour as the vector path: a NaN r stays NaN.
      if (clamp) r = r < ep.lo ? ep.lo : (r > ep.hi ? ep.hi : r);
      c = r;
    }
}

// The blocked loops of sgemm; b_block(j0, nc, p0, kc) gives the packed B panels of that block.
template <class Isa, class BBlock>
void sgemm_blocks(bool trans_a, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
                  float beta, float* C, size_t ldc, BBlock&& b_block) {
  constexpr size_t MR = Isa::MR, NR = Isa::NR, KC = Isa::KC, MC = Isa::MC, NC = Isa::NC;
  static_assert(MC % MR == 0 && NR % Isa::W == 0 && NC % NR == 0, "blocking must hold whole register tiles");
  const size_t mc_max = std::min(MC, (M + MR - 1) / MR * MR);
  const size_t kc_max = std::min(KC, K);
  float* pa = detail::scratch(2, mc_max * kc_max);
  for (size_t j0 = 0; j0 < N; j0 += NC) {
    const size_t nc = std::min(NC, N - j0);
    for (size_t p0 = 0; p0 < K; p0 += KC) {
      const size_t kc = std::min(KC, K - p0);
      const float* pb = b_block(j0, nc, p0, kc);
      for (size_t i0 = 0; i0 < M; i0 += MC) {
        const size_t mc = std::min(MC, M - i0);
        pack_a<Isa>(trans_a, A, lda, i0, mc, p0, kc, alpha, pa);
        for (size_t jb = 0; jb < nc; jb += NR) {
          const size_t nr = std::min(NR, nc - jb);
          for (size_t ib = 0; ib < mc; ib += MR) {
            const size_t mr = std::min(MR, mc - ib);
            micro_tile<Isa>(kc, pa + ib * kc, pb + jb * kc, C + (i0 + ib) * ldc + j0 + jb, ldc, mr,
                            nr, p0 == 0, beta, Epilogue{});
          }
        }
      }
    }
  }
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

// The sgemm entry of kernels/kernel_list.h. Scratch: thread_local areas 2 (A panels) and 3 (B
// panels).
template <class Isa>
void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
           size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  if (sgemm_trivial(M, N, K, alpha, beta, C, ldc)) return;
  // One row of op(A) (contiguous unless transposed with a stride) skips the packing of B, which
  // would cost as much as the product: B as it lies (the blocked loops' result, so that
  // sgemm_prepacked_b agrees), or dot products against a transposed B's contiguous rows.
  if (M == 1 && (!trans_a || lda == 1)) {
    if (trans_b) return sgemv<Isa>(N, K, alpha, B, ldb, A, beta, C);
    return row_times_matrix<Isa>(N, K, alpha, A, B, ldb, beta, C);
  }
  const size_t nc_max = std::min(Isa::NC, (N + Isa::NR - 1) / Isa::NR * Isa::NR);
  float* pb = detail::scratch(3, nc_max * std::min(Isa::KC, K));
  sgemm_blocks<Isa>(trans_a, M, N, K, alpha, A, lda, beta, C, ldc, [&](size_t j0, size_t nc, size_t p0, size_t kc) {
    pack_b<Isa>(trans_b, B, ldb, p0, kc, j0, nc, pb);
    return static_cast<const float*>(pb);
  });
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
  for (size_t j0 = 0; j0 < N; j0 += Isa::NC) {
    const size_t nc = std::min(Isa::NC, N - j0), ncr = (nc + Isa::NR - 1) / Isa::NR * Isa::NR;
    for (size_t p0 = 0; p0 < K; p0 += Isa::KC)
      pack_b<Isa>(false, B, ldb, p0, std::min(Isa::KC, K - p0), j0, nc, packed + j0 * K + ncr * p0);
  }
}

template <class Isa>
void sgemm_prepacked_b(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* packed, float* C,
                       size_t ldc) {
  if (sgemm_trivial(M, N, K, 1.f, 0.f, C, ldc)) return;
  if (M == 1) return row_times_packed<Isa>(N, K, A, packed, C);
  sgemm_blocks<Isa>(false, M, N, K, 1.f, A, lda, 0.f, C, ldc, [&](size_t j0, size_t nc, size_t p0, size_t) {
    const size_t ncr = (nc + Isa::NR - 1) / Isa::NR * Isa::NR;
    return packed + j0 * K + ncr * p0;
  });
}

}  // namespace ofg::kernels::simd
