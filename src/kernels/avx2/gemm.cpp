// AVX2+FMA SGEMM: Goto-style blocking (packing and the register tile are in gemm_micro.h, shared
// with the convolution driver). Scratch: thread_local areas 2 (A panels) and 3 (B panels).
#include "kernels/avx2/gemm_micro.h"

namespace ofg::kernels::avx2 {

void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
           size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0 || alpha == 0.f) {
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
    return;
  }
  const size_t nc_max = std::min(NC, (N + NR - 1) / NR * NR);
  const size_t mc_max = std::min(MC, (M + MR - 1) / MR * MR);
  const size_t kc_max = std::min(KC, K);
  float* pa = detail::scratch(2, mc_max * kc_max);
  float* pb = detail::scratch(3, nc_max * kc_max);
  for (size_t j0 = 0; j0 < N; j0 += NC) {
    const size_t nc = std::min(NC, N - j0);
    for (size_t p0 = 0; p0 < K; p0 += KC) {
      const size_t kc = std::min(KC, K - p0);
      pack_b(trans_b, B, ldb, p0, kc, j0, nc, pb);
      for (size_t i0 = 0; i0 < M; i0 += MC) {
        const size_t mc = std::min(MC, M - i0);
        pack_a(trans_a, A, lda, i0, mc, p0, kc, alpha, pa);
        for (size_t jb = 0; jb < nc; jb += NR) {
          const size_t nr = std::min(NR, nc - jb);
          for (size_t ib = 0; ib < mc; ib += MR) {
            const size_t mr = std::min(MR, mc - ib);
            micro_6x16(kc, pa + ib * kc, pb + jb * kc, C + (i0 + ib) * ldc + j0 + jb, ldc, mr, nr,
                       p0 == 0, beta, Epilogue{});
          }
        }
      }
    }
  }
}

}  // namespace ofg::kernels::avx2
