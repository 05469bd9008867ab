// igemm on AVX512-VNNI with 256-bit registers (EVEX vpdpbusd, needs AVX512VL); chosen by the AVX2
// table on CPUs with AVX512-VNNI but no AVX-VNNI. Compiled with -mavx512vnni -mavx512vl.
#include <immintrin.h>

#define OFG_DPBUSD(acc, a, b) _mm256_dpbusd_epi32(acc, a, b)
#include "kernels/avx2/igemm_vnni.h"

namespace ofg::kernels::avx2 {
OFG_IGEMM_VNNI_ENTRY(igemm_avx512vnni)
}  // namespace ofg::kernels::avx2
