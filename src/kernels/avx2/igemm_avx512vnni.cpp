// igemm on AVX512-VNNI with 256-bit registers (EVEX vpdpbusd, needs AVX512VL); chosen by the AVX2
// table on CPUs with AVX512-VNNI but no AVX-VNNI. Compiled with -mavx512vnni -mavx512vl.
#include <immintrin.h>

#define OFG_DPBUSD(acc, a, b) _mm256_dpbusd_epi32(acc, a, b)
#include "kernels/avx2/igemm_vnni.h"

namespace ofg::kernels::avx2 {
void igemm_avx512vnni(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
                      const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  igemm_vnni_impl(M, N, K, A, lda, a_signed, za, B, ldb, b_signed, zb, C, ldc);
}
}  // namespace ofg::kernels::avx2
