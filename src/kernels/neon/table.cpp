// The NEON table: the scalar table with the entries this folder speeds up (neon.h) and the GEMM,
// convolution and pooling entries from the shared templates of kernels/simd/ (blocked.cpp).
// Built for aarch64 and for 32-bit ARM with NEON; chosen after the hwcap check in dispatch.cpp.
// Tested under qemu-user (tests/cross/run_cross.sh).
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/neon.h"

namespace ofg::kernels {

void fill_neon_table(KernelTable& t) {
  detail::fill_scalar_table(t);
  t.isa = "neon";
#define OFG_SET_KERNEL(name) t.name = neon::name;
  OFG_NEON_KERNELS(OFG_SET_KERNEL)
#undef OFG_SET_KERNEL
  neon::set_blocked_entries(t);
  neon::set_vector_entries(t);
}

}  // namespace ofg::kernels
#endif
