// The shared elementwise, reduction, transpose and diff templates (kernels/simd/) for AVX2+FMA.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/isa.h"
#include "kernels/simd/vector_entries.h"

namespace ofg::kernels::avx2 {

void set_vector_entries(KernelTable& t) { simd::set_vector_entries<Isa>(t); }

}  // namespace ofg::kernels::avx2
