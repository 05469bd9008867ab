// igemm on AVX-VNNI (VEX-encoded vpdpbusd); chosen by the AVX2 table when the CPU has it.
// Compiled with -mavxvnni (CMakeLists.txt).
#include <immintrin.h>

#define OFG_DPBUSD(acc, a, b) _mm256_dpbusd_avx_epi32(acc, a, b)
#include "kernels/avx2/igemm_vnni.h"

namespace ofg::kernels::avx2 {
void igemm_avxvnni(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
                   const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  igemm_vnni_impl(M, N, K, A, lda, a_signed, za, B, ldb, b_signed, zb, C, ldc);
}
}  // namespace ofg::kernels::avx2
