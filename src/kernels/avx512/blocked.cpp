// The shared SGEMM and convolution templates (kernels/simd/) instantiated for AVX-512. Pooling
// stays AVX2's (slower here on narrow planes: bench_kernels BM_MaxPool3x3; and on SqueezeNet's
// first pool, 64 planes of 111x111, 16 lanes with the NaN tracking kept in opmask registers took
// 0.175 ms against AVX2's 0.147, pinned and alternated).
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/isa.h"
#include "kernels/simd/entries.h"

namespace ofg::kernels::avx512 {

// The short-tile kernels and the transposing A packer are found by detection: make sure they are.
static_assert(simd::HasRowsAcc<Isa>::value && simd::HasPackRows8<Isa>::value, "AVX-512 tile helpers not detected");

void set_blocked_entries(KernelTable& t) { simd::set_gemm_conv_entries<Isa>(t); }

}  // namespace ofg::kernels::avx512
