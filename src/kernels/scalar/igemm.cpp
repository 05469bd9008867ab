// Reference integer GEMM: one row of C at a time, B walked along its rows. The sum is kept in
// uint32 so that wrap-around is defined behaviour and matches the 32-bit lanes of the SIMD
// versions bit for bit.
#include "kernels/internal.h"

namespace ofg::kernels::scalar {

void igemm(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
           const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  for (size_t i = 0; i < M; ++i) {
    int32_t* c = C + i * ldc;
    for (size_t j = 0; j < N; ++j) c[j] = 0;
    for (size_t p = 0; p < K; ++p) {
      const int32_t a = int8_value(A[i * lda + p], a_signed) - za[i];
      const uint8_t* b = B + p * ldb;
      for (size_t j = 0; j < N; ++j) {
        const int32_t prod = a * (int8_value(b[j], b_signed) - zb[j]);
        c[j] = static_cast<int32_t>(static_cast<uint32_t>(c[j]) + static_cast<uint32_t>(prod));
      }
    }
  }
}

// The reference has no packed layout: its "packed" B is B with row stride N, so a caller that
// asked for a size of 0 never calls these, and one that calls them anyway stays correct.
size_t igemm_packed_b_size(size_t, size_t) { return 0; }
void igemm_pack_b(size_t K, size_t N, const uint8_t* B, size_t ldb, bool, uint8_t* packed) {
  for (size_t p = 0; p < K; ++p)
    for (size_t j = 0; j < N; ++j) packed[p * N + j] = B[p * ldb + j];
}
void igemm_prepacked_b(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
                       const uint8_t* packed, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  igemm(M, N, K, A, lda, a_signed, za, packed, N, b_signed, zb, C, ldc);
}

void dw_row_i16(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t stride, size_t n, int32_t* y) {
  dw_row_range(rows, taps, ntaps, stride, 0, n, y);
}

}  // namespace ofg::kernels::scalar
