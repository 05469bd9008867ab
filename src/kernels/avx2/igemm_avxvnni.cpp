// igemm and its prepacked-B entries on AVX-VNNI (VEX-encoded vpdpbusd); chosen by the AVX2 table
// when the CPU has it.
// Compiled with -mavxvnni (CMakeLists.txt).
#include <immintrin.h>

#define OFG_DPBUSD(acc, a, b) _mm256_dpbusd_avx_epi32(acc, a, b)
#include "kernels/avx2/igemm_vnni.h"

namespace ofg::kernels::avx2 {
OFG_DOT_IGEMM_ENTRIES(igemm_avxvnni, Vnni256)
}  // namespace ofg::kernels::avx2
