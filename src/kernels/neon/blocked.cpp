// The shared SGEMM, convolution and pooling templates (kernels/simd/) instantiated for NEON,
// aarch64 and 32-bit ARM (tile sizes and the FMA fallback in neon/isa.h).
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/isa.h"
#include "kernels/simd/entries.h"

namespace ofg::kernels::neon {

void set_blocked_entries(KernelTable& t) { simd::set_blocked_entries<Isa>(t); }

}  // namespace ofg::kernels::neon
#endif
