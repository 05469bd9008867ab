// The shared elementwise, reduction, transpose and diff templates (kernels/simd/) for AVX-512.
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/isa.h"
#include "kernels/simd/vector_entries.h"

namespace ofg::kernels::avx512 {

void set_vector_entries(KernelTable& t) { simd::set_vector_entries<Isa>(t); }

}  // namespace ofg::kernels::avx512
