// The pieces of the AVX2 SGEMM that the convolution driver reuses: the blocking constants, the
// packing of A (6-row panels) and B (16-column panels), and the 6x16 register tile. Included only
// by files compiled with AVX2/FMA flags.
#pragma once

#include "kernels/internal.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace ofg::kernels::avx2 {

constexpr size_t MR = 6, NR = 16;
// kc 256 / mc 120 / nc 1536 (B block 1.5 MiB, A block 120 KiB) measured at ~93% of the
// single-core FMA peak for 512 and 1024 in bench_kernels; not tuned further.
constexpr size_t KC = 256, MC = 120, NC = 1536;

inline void pack_a(bool trans, const float* A, size_t lda, size_t i0, size_t mc, size_t p0, size_t kc,
            float alpha, float* dst) {
  for (size_t ib = 0; ib < mc; ib += MR) {
    const size_t mr = std::min(MR, mc - ib);
    float* d = dst + ib * kc;
    if (!trans) {
      for (size_t i = 0; i < mr; ++i) {
        const float* src = A + (i0 + ib + i) * lda + p0;
        for (size_t p = 0; p < kc; ++p) d[p * MR + i] = alpha * src[p];
      }
      for (size_t i = mr; i < MR; ++i)
        for (size_t p = 0; p < kc; ++p) d[p * MR + i] = 0.f;
    } else {
      for (size_t p = 0; p < kc; ++p) {
        const float* src = A + (p0 + p) * lda + i0 + ib;
        size_t i = 0;
        for (; i < mr; ++i) d[p * MR + i] = alpha * src[i];
        for (; i < MR; ++i) d[p * MR + i] = 0.f;
      }
    }
  }
}

inline void pack_b(bool trans, const float* B, size_t ldb, size_t p0, size_t kc, size_t j0, size_t nc,
            float* dst) {
  for (size_t jb = 0; jb < nc; jb += NR) {
    const size_t nr = std::min(NR, nc - jb);
    float* d = dst + jb * kc;
    if (!trans) {
      if (nr == NR) {
        for (size_t p = 0; p < kc; ++p) {
          const float* src = B + (p0 + p) * ldb + j0 + jb;
          _mm256_store_ps(d + p * NR, _mm256_loadu_ps(src));
          _mm256_store_ps(d + p * NR + 8, _mm256_loadu_ps(src + 8));
        }
      } else {
        for (size_t p = 0; p < kc; ++p) {
          const float* src = B + (p0 + p) * ldb + j0 + jb;
          size_t j = 0;
          for (; j < nr; ++j) d[p * NR + j] = src[j];
          for (; j < NR; ++j) d[p * NR + j] = 0.f;
        }
      }
    } else {
      for (size_t j = 0; j < NR; ++j) {
        if (j < nr) {
          const float* src = B + (j0 + jb + j) * ldb + p0;
          for (size_t p = 0; p < kc; ++p) d[p * NR + j] = src[p];
        } else {
          for (size_t p = 0; p < kc; ++p) d[p * NR + j] = 0.f;
        }
      }
    }
  }
}

// What the last k-block of a tile does after accumulating: add a per-row bias (row i of the tile
// gets bias[i]) and clamp to [lo, hi] (Relu is [0, inf), Clip [min, max]). The convolution driver
// uses it so that bias and activation cost no extra pass over the output. Clamping is written as
// max(lo, v) / min(hi, v): with the value as second operand a NaN passes through unchanged, as
// the scalar reference requires.
struct Epilogue {
  bool last = false;
  const float* bias = nullptr;
  bool clamp = false;
  float lo = 0.f, hi = 0.f;
};

// acc = A panel (kc x 6) * B panel (kc x 16); then C tile = acc + (first ? beta*C : C), then the
// epilogue when ep.last. Partial tiles go through a stack buffer so the full-tile path has no
// masks.
inline void micro_6x16(size_t kc, const float* a, const float* b, float* C, size_t ldc, size_t mr,
                       size_t nr, bool first, float beta, const Epilogue& ep) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (size_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    __m256 av;
    av = _mm256_broadcast_ss(a + 0); c00 = _mm256_fmadd_ps(av, b0, c00); c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a + 1); c10 = _mm256_fmadd_ps(av, b0, c10); c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a + 2); c20 = _mm256_fmadd_ps(av, b0, c20); c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a + 3); c30 = _mm256_fmadd_ps(av, b0, c30); c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a + 4); c40 = _mm256_fmadd_ps(av, b0, c40); c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a + 5); c50 = _mm256_fmadd_ps(av, b0, c50); c51 = _mm256_fmadd_ps(av, b1, c51);
    a += MR;
    b += NR;
  }
  alignas(32) float tile[MR * NR];
  const bool full = mr == MR && nr == NR;
  float* dst = full ? C : tile;
  const size_t ld = full ? ldc : NR;
  const __m256 acc[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
  const bool bias = ep.last && ep.bias, clamp = ep.last && ep.clamp;
  const __m256 vlo = _mm256_set1_ps(ep.lo), vhi = _mm256_set1_ps(ep.hi);
  if (full) {
    const __m256 vb = _mm256_set1_ps(beta);
    for (size_t i = 0; i < MR; ++i) {
      float* row = dst + i * ld;
      const __m256 vbias = bias ? _mm256_set1_ps(ep.bias[i]) : _mm256_setzero_ps();
      for (size_t h = 0; h < 2; ++h) {
        __m256 v = acc[2 * i + h];
        if (!first) v = _mm256_add_ps(v, _mm256_loadu_ps(row + 8 * h));
        else if (beta != 0.f) v = _mm256_fmadd_ps(vb, _mm256_loadu_ps(row + 8 * h), v);
        if (bias) v = _mm256_add_ps(v, vbias);
        if (clamp) v = _mm256_min_ps(vhi, _mm256_max_ps(vlo, v));
        _mm256_storeu_ps(row + 8 * h, v);
      }
    }
    return;
  }
  for (size_t i = 0; i < MR; ++i) {
    _mm256_store_ps(tile + i * NR, acc[2 * i]);
    _mm256_store_ps(tile + i * NR + 8, acc[2 * i + 1]);
  }
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

}  // namespace ofg::kernels::avx2
