// The shared SGEMM, convolution and pooling templates (kernels/simd/) instantiated for AVX2+FMA.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/isa.h"
#include "kernels/simd/entries.h"

namespace ofg::kernels::avx2 {

// The transposing A packer is found by detection: make sure it is.
static_assert(simd::HasPackRows8<Isa>::value, "AVX2 A packer not detected");

void set_blocked_entries(KernelTable& t) { simd::set_blocked_entries<Isa>(t); }

}  // namespace ofg::kernels::avx2
