// The AVX2 table: the scalar table with the entries this folder speeds up.
#include "kernels/avx2/avx2.h"
#include "kernels/avx512/avx512.h"

namespace ofg::kernels {

void fill_avx2_table(KernelTable& t) {
  detail::fill_scalar_table(t);
  t.isa = "avx2";
  OFG_SET_ISA_ENTRIES(avx2, OFG_AVX2_KERNELS)
  // The 512-bit VNNI GEMM does twice the work per instruction of the 256-bit AVX-VNNI one: it
  // wins where both exist (AMD Zen 4/5, Intel Sapphire Rapids).
#if defined(OFG_HAVE_AVXVNNI)
  if (x86_vnni() & kVnniAvx) OFG_SET_DOT_IGEMM(avx2::igemm_avxvnni)
#endif
#if defined(OFG_HAVE_AVX512VNNI)
  if (x86_vnni() & kVnniAvx512) OFG_SET_DOT_IGEMM(avx512::igemm_avx512vnni)
#endif
}

}  // namespace ofg::kernels
