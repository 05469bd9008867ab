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
  OFG_SET_ISA_ENTRIES(neon, OFG_NEON_KERNELS)
#if defined(__aarch64__) && defined(OFG_HAVE_SDOT)
  if (arm_dotprod()) OFG_SET_DOT_IGEMM(neon::igemm_sdot)
#endif
}

}  // namespace ofg::kernels
#endif
