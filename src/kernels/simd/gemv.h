// SGEMV for every SIMD table: four rows of A at a time against the same W-float slices of x, so
// each load of x feeds four multiply-adds; each row's lanes are summed once at the end.
// sgemv_t (x times a KxN matrix): column blocks of U vectors, each running down all K rows with a
// broadcast of x[k], so the U accumulators are independent and no lane sum is needed.
#pragma once

#include "kernels/simd/lanes.h"

#include <cstddef>
#include <utility>

namespace ofg::kernels::simd {

template <class S>
void sgemv(size_t M, size_t K, float alpha, const float* A, size_t lda, const float* x, float beta, float* y) {
  using V = typename S::V;
  const size_t KW = K / S::W * S::W;
  auto store = [&](size_t i, float sum) { y[i] = alpha * sum + (beta == 0.f ? 0.f : beta * y[i]); };
  size_t i = 0;
  for (; i + 4 <= M; i += 4) {
    const float* a[4] = {A + i * lda, A + (i + 1) * lda, A + (i + 2) * lda, A + (i + 3) * lda};
    V s[4] = {S::zero(), S::zero(), S::zero(), S::zero()};
    for (size_t p = 0; p < KW; p += S::W) {
      const V v = S::load(x + p);
      for (int r = 0; r < 4; ++r) s[r] = S::fma(S::load(a[r] + p), v, s[r]);
    }
    for (int r = 0; r < 4; ++r) {
      float t = S::hsum(s[r]);
      for (size_t p = KW; p < K; ++p) t += a[r][p] * x[p];
      store(i + r, t);
    }
  }
  for (; i < M; ++i) {
    const float* a = A + i * lda;
    V s = S::zero();
    for (size_t p = 0; p < KW; p += S::W) s = S::fma(S::load(a + p), S::load(x + p), s);
    float t = S::hsum(s);
    for (size_t p = KW; p < K; ++p) t += a[p] * x[p];
    store(i, t);
  }
}

// y[c] for the U * W columns of B from its column 0: K broadcast multiply-adds per vector, then
// the scaling. The vectors are unrolled by the fold (indices u...) so that the accumulators stay in
// registers.
template <class S, size_t... u>
void gemv_t_block(std::index_sequence<u...>, size_t K, float alpha, const float* x, const float* B, size_t ldb,
                  float beta, float* y) {
  using V = typename S::V;
  V s[sizeof...(u)] = {((void)u, S::zero())...};
  for (size_t p = 0; p < K; ++p) {
    const V xv = splat<S>(x[p]);
    const float* b = B + p * ldb;
    ((s[u] = S::fma(xv, S::load(b + u * S::W), s[u])), ...);
  }
  const V va = S::set1(alpha), vb = S::set1(beta);
  if (beta == 0.f) ((S::store(y + u * S::W, S::mul(va, s[u]))), ...);
  else ((S::store(y + u * S::W, S::fma(vb, S::load(y + u * S::W), S::mul(va, s[u])))), ...);
}

template <class S>
void sgemv_t(size_t K, size_t N, float alpha, const float* x, const float* B, size_t ldb, float beta, float* y) {
  // Eight accumulators cover the FMA latency on two pipes; narrower blocks take the rest.
  constexpr size_t U = 8, W = S::W;
  auto block = [&](auto vectors, size_t j) { gemv_t_block<S>(vectors, K, alpha, x, B + j, ldb, beta, y + j); };
  size_t j = 0;
  for (; j + U * W <= N; j += U * W) block(std::make_index_sequence<U>(), j);
  for (; j + 2 * W <= N; j += 2 * W) block(std::make_index_sequence<2>(), j);
  for (; j + W <= N; j += W) block(std::make_index_sequence<1>(), j);
  for (; j < N; ++j) {
    float s = 0.f;
    for (size_t p = 0; p < K; ++p) s += x[p] * B[p * ldb + j];
    y[j] = alpha * s + (beta == 0.f ? 0.f : beta * y[j]);
  }
}

}  // namespace ofg::kernels::simd
