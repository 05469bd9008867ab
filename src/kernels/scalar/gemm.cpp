// Reference SGEMM: plain loops, row of C at a time so B is walked along its rows when it is
// not transposed (keeps the oracle usable on 1024^3 in the tests).
#include "kernels/internal.h"

namespace ofg::kernels::scalar {

void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
           size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  for (size_t i = 0; i < M; ++i) {
    float* c = C + i * ldc;
    for (size_t j = 0; j < N; ++j) c[j] = beta == 0.f ? 0.f : beta * c[j];
    for (size_t p = 0; p < K; ++p) {
      const float a = alpha * (trans_a ? A[p * lda + i] : A[i * lda + p]);
      if (trans_b) {
        for (size_t j = 0; j < N; ++j) c[j] += a * B[j * ldb + p];
      } else {
        const float* b = B + p * ldb;
        for (size_t j = 0; j < N; ++j) c[j] += a * b[j];
      }
    }
  }
}

// The reference has no packed layout: its "packed" B is B with row stride N, so a caller that
// asked for a size of 0 never calls these, and one that calls them anyway stays correct.
size_t sgemm_packed_b_size(size_t, size_t) { return 0; }
void sgemm_pack_b(size_t K, size_t N, const float* B, size_t ldb, float* packed) {
  for (size_t p = 0; p < K; ++p)
    for (size_t j = 0; j < N; ++j) packed[p * N + j] = B[p * ldb + j];
}
void sgemm_prepacked_b(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* packed, float beta,
                       float* C, size_t ldc) {
  sgemm(false, false, M, N, K, 1.f, A, lda, packed, N, beta, C, ldc);
}

void sgemv(size_t M, size_t K, float alpha, const float* A, size_t lda, const float* x, float beta, float* y) {
  for (size_t i = 0; i < M; ++i) {
    const float* a = A + i * lda;
    float s = 0.f;
    for (size_t p = 0; p < K; ++p) s += a[p] * x[p];
    y[i] = alpha * s + (beta == 0.f ? 0.f : beta * y[i]);
  }
}

void sgemv_t(size_t K, size_t N, float alpha, const float* x, const float* B, size_t ldb, float beta, float* y) {
  for (size_t j = 0; j < N; ++j) {
    float s = 0.f;
    for (size_t p = 0; p < K; ++p) s += x[p] * B[p * ldb + j];
    y[j] = alpha * s + (beta == 0.f ? 0.f : beta * y[j]);
  }
}

}  // namespace ofg::kernels::scalar
