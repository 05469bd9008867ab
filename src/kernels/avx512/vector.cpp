// The shared vector templates (kernels/simd/) for AVX-512, only the entries a wider vector
// speeds up (sgemv, unary, softmax, layer norm); elementwise binary, reduce, transpose2d and
// diff stay AVX2's (no faster or slower here: bench_kernels).
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/isa.h"
#include "kernels/simd/vector_entries.h"

namespace ofg::kernels::avx512 {

void set_vector_entries(KernelTable& t) { simd::set_compute_entries<Isa>(t); }

}  // namespace ofg::kernels::avx512
