// The shared elementwise, reduction, transpose and diff templates (kernels/simd/) for NEON,
// aarch64 and 32-bit ARM (what 32-bit ARM leaves scalar: neon/isa.h).
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/isa.h"
#include "kernels/neon/neon.h"
#include "kernels/simd/vector_entries.h"

namespace ofg::kernels::neon {

void set_vector_entries(KernelTable& t) { simd::set_vector_entries<Isa>(t); }

}  // namespace ofg::kernels::neon
#endif
