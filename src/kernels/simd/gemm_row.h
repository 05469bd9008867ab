// One-row SGEMM (M = 1: a Gemm or MatMul on one vector, a linear layer at batch 1). The blocked
// driver packs B (K x N floats) for every call and runs an MR-row register tile of which one row
// is used: for a one-row product that packing costs as much as the product itself. These loops
// read B where it is and do the blocked path's arithmetic for that row exactly: alpha * a[k]
// rounded first (as pack_a does), fused multiply-adds in k order within each KC block from a zero
// accumulator (as gemm_acc does), then each block combined with C as micro_tile's partial-tile
// path does (a one-row tile is always partial). Results are therefore bit for bit those of the
// blocked driver, for sgemm and for sgemm_prepacked_b.
// Include only from an ISA folder (see gemm_blocked.h).
#pragma once

#include "kernels/simd/lanes.h"

#include <algorithm>
#include <cstddef>

namespace ofg::kernels::simd {

// micro_tile's partial-tile combination of one element, written as it is there.
inline float row_combine_one(float v, bool first, float beta, float c) {
  return !first ? c + v : (beta == 0.f ? v : beta * c + v);
}

// c[0, nv * W) combined with the accumulated block. Sums and plain stores are the same in vector
// and scalar form; beta * c + v goes through the scalar expression above.
template <class Isa>
inline void row_combine(const typename Isa::V* acc, size_t nv, bool first, float beta, float* c) {
  if (first && beta != 0.f) {
    alignas(64) float v[Isa::W];
    for (size_t h = 0; h < nv; ++h) {
      Isa::store(v, acc[h]);
      for (size_t x = 0; x < Isa::W; ++x) c[h * Isa::W + x] = row_combine_one(v[x], true, beta, c[h * Isa::W + x]);
    }
    return;
  }
  for (size_t h = 0; h < nv; ++h) {
    float* p = c + h * Isa::W;
    Isa::store(p, first ? acc[h] : Isa::add(Isa::load(p), acc[h]));
  }
}

// c (1 x N) = alpha * a (1 x K) * B + beta * c, B(k, j) at B[k * ldb + j].
template <class Isa>
void row_times_matrix(size_t N, size_t K, float alpha, const float* a, const float* B, size_t ldb, float beta,
                      float* c) {
  using V = typename Isa::V;
  constexpr size_t W = Isa::W, U = 4;  // U vectors of columns per pass over a K block
  for (size_t p0 = 0; p0 < K; p0 += Isa::KC) {
    const size_t p1 = std::min(K, p0 + Isa::KC);
    const bool first = p0 == 0;
    size_t j = 0;
    for (; j + U * W <= N; j += U * W) {
      V acc[U] = {Isa::zero(), Isa::zero(), Isa::zero(), Isa::zero()};
      for (size_t k = p0; k < p1; ++k) {
        const V av = Isa::set1(alpha * a[k]);
        const float* b = B + k * ldb + j;
        for (size_t h = 0; h < U; ++h) acc[h] = Isa::fma(av, Isa::load(b + h * W), acc[h]);
      }
      row_combine<Isa>(acc, U, first, beta, c + j);
    }
    for (; j + W <= N; j += W) {
      V acc = Isa::zero();
      for (size_t k = p0; k < p1; ++k) acc = Isa::fma(Isa::set1(alpha * a[k]), Isa::load(B + k * ldb + j), acc);
      row_combine<Isa>(&acc, 1, first, beta, c + j);
    }
    if (j < N) {  // the last N - j < W columns, through a zero-padded vector (the ISA's own fma)
      const size_t r = N - j;
      alignas(64) float row[W] = {};
      V acc = Isa::zero();
      for (size_t k = p0; k < p1; ++k) {
        std::copy(B + k * ldb + j, B + k * ldb + N, row);
        acc = Isa::fma(Isa::set1(alpha * a[k]), Isa::load(row), acc);
      }
      Isa::store(row, acc);
      for (size_t x = 0; x < r; ++x) c[j + x] = row_combine_one(row[x], first, beta, c[j + x]);
    }
  }
}

// c (1 x N) = a (1 x K) * B + beta * c for B in sgemm_pack_b's layout (NR-column panels, zero-padded, in
// column blocks of NC split into K blocks of KC).
template <class Isa>
void row_times_packed(size_t N, size_t K, const float* a, const float* packed, float beta, float* c) {
  using V = typename Isa::V;
  constexpr size_t W = Isa::W, NR = Isa::NR, NV = NR / W;
  for (size_t j0 = 0; j0 < N; j0 += Isa::NC) {
    const size_t nc = std::min(Isa::NC, N - j0), ncr = (nc + NR - 1) / NR * NR;
    for (size_t p0 = 0; p0 < K; p0 += Isa::KC) {
      const size_t kc = std::min(Isa::KC, K - p0);
      const float* block = packed + j0 * K + ncr * p0;
      for (size_t jb = 0; jb < nc; jb += NR) {
        const float* panel = block + jb * kc;
        V acc[NV];
        for (size_t h = 0; h < NV; ++h) acc[h] = Isa::zero();
        for (size_t k = 0; k < kc; ++k) {
          const V av = splat<Isa>(a[p0 + k]);
          for (size_t h = 0; h < NV; ++h) acc[h] = Isa::fma(av, Isa::load(panel + k * NR + h * W), acc[h]);
        }
        float* out = c + j0 + jb;
        const size_t nr = std::min(NR, nc - jb);
        if (nr == NR) {
          row_combine<Isa>(acc, NV, p0 == 0, beta, out);
          continue;
        }
        alignas(64) float tile[NR];
        for (size_t h = 0; h < NV; ++h) Isa::store(tile + h * W, acc[h]);
        for (size_t x = 0; x < nr; ++x) out[x] = row_combine_one(tile[x], p0 == 0, beta, out[x]);
      }
    }
  }
}

}  // namespace ofg::kernels::simd
