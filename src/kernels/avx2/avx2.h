// Entry points of the AVX2 kernels (only the dispatch table refers to them).
#pragma once

#include "kernels/internal.h"

namespace ofg::kernels::avx2 {
void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
           size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc);
}  // namespace ofg::kernels::avx2
