// The shared SGEMM, convolution and pooling templates (kernels/simd/) instantiated for AVX-512.
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/isa.h"
#include "kernels/simd/entries.h"

namespace ofg::kernels::avx512 {

void set_blocked_entries(KernelTable& t) { simd::set_blocked_entries<Isa>(t); }

}  // namespace ofg::kernels::avx512
